package ycsb

import "fmt"

// NewFieldLengthGenerator is CoreWorkload.getFieldLengthGenerator: constant returns fieldlength,
// uniform a length uniform in [minfieldlength, fieldlength], zipfian a zipfian over the same range
// (minfieldlength the most likely, "favouring short records").
func NewFieldLengthGenerator(dist Distribution, minLength, length int64) (NumberGenerator, error) {
	switch dist {
	case DistConstant:
		return Constant(length), nil
	case DistUniform:
		return NewUniformLong(minLength, length)
	case DistZipfian:
		return NewZipfian(minLength, length)
	case DistHistogram:
		return nil, fmt.Errorf("ycsb: fieldlengthdistribution=histogram is not supported (TODO: read fieldlengthhistogram files)")
	}
	return nil, fmt.Errorf("ycsb: unknown field length distribution %q (allowed: %s)", dist, joinNames(fieldLengthDistributions))
}

// NewScanLengthGenerator is CoreWorkload's scanlength: uniform in [minscanlength, maxscanlength], or
// a zipfian over that range (short scans the most likely).
func NewScanLengthGenerator(dist Distribution, minLength, maxLength int64) (NumberGenerator, error) {
	switch dist {
	case DistUniform:
		return NewUniformLong(minLength, maxLength)
	case DistZipfian:
		return NewZipfian(minLength, maxLength)
	}
	return nil, fmt.Errorf("ycsb: distribution %q not allowed for scan length (allowed: %s)", dist, joinNames(scanLengthDistributions))
}
