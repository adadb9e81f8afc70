package ycsb

// Distribution names a distribution in YCSB's properties (requestdistribution,
// fieldlengthdistribution, scanlengthdistribution).
type Distribution string

const (
	DistUniform     Distribution = "uniform"
	DistZipfian     Distribution = "zipfian"
	DistLatest      Distribution = "latest"
	DistHotspot     Distribution = "hotspot"
	DistSequential  Distribution = "sequential"
	DistExponential Distribution = "exponential"
	DistConstant    Distribution = "constant"
	// DistHistogram (fieldlengthdistribution=histogram, lengths read from the file named by
	// fieldlengthhistogram) is recognised and refused: candor does not read histogram files yet.
	DistHistogram Distribution = "histogram"
)

// The names each property allows, in YCSB's order.
var (
	requestDistributions     = []Distribution{DistUniform, DistZipfian, DistLatest, DistHotspot, DistSequential, DistExponential}
	fieldLengthDistributions = []Distribution{DistConstant, DistUniform, DistZipfian}
	scanLengthDistributions  = []Distribution{DistUniform, DistZipfian}
)

func joinNames[T ~string](names []T) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += string(n)
	}
	return s
}
