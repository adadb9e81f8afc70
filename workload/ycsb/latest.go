package ycsb

import "fmt"

// LastValuer is a counter's last value: what SkewedLatest skews toward. *AcknowledgedCounter (the
// highest acknowledged insert) and *Counter have it.
type LastValuer interface {
	Last() int64
}

// SkewedLatest is YCSB's SkewedLatestGenerator, CoreWorkload's requestdistribution=latest: with
// max = basis.Last() at the time of the draw, it returns max - z where z is a zipfian draw over max
// items (ZipfianGenerator.nextLong(max)), so the newest record is the most popular, the one before
// it the next, and so on.
//
// As in YCSB, the zipfian draws from max items, 0..max-1, so the result lies in [1, max]: record 0
// is never chosen. The zipfian is built over basis.Last() items at construction and grows with the
// counter (see Zipfian for how its eta then keeps the construction-time count). Safe for concurrent
// use.
type SkewedLatest struct {
	basis LastValuer
	zipf  *Zipfian
}

var _ NumberGenerator = (*SkewedLatest)(nil)

// NewSkewedLatest returns the generator over basis; basis.Last() must be at least 1 (YCSB's
// ZipfianGenerator(0) would compute eta from 2/0 and return NaN-derived values once it grows).
func NewSkewedLatest(basis LastValuer) (*SkewedLatest, error) {
	last := basis.Last()
	if last < 1 {
		return nil, fmt.Errorf("ycsb: latest generator: needs at least 2 records (last record number %d)", last)
	}
	z, err := NewZipfian(0, last-1)
	if err != nil {
		return nil, err
	}
	return &SkewedLatest{basis: basis, zipf: z}, nil
}

// Next returns max - zipfian(max) for max = basis.Last().
func (s *SkewedLatest) Next(r Source) int64 {
	max := s.basis.Last()
	return max - s.zipf.NextN(r, max)
}
