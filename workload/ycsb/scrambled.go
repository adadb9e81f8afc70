package ycsb

import "fmt"

// The constants of YCSB's ScrambledZipfianGenerator.
const (
	// ScrambledItemCount is ITEM_COUNT, the size of the item space the scrambled zipfian draws
	// ranks from, whatever the key count.
	ScrambledItemCount = 10_000_000_000
	// ScrambledZetan is ZETAN, zeta(ScrambledItemCount, 0.99) precomputed by YCSB (a test checks it
	// against the Euler-Maclaurin expansion of the sum).
	ScrambledZetan = 26.46902820178302
)

// ScrambledZipfian is YCSB's ScrambledZipfianGenerator, CoreWorkload's requestdistribution=zipfian:
// a zipfian rank drawn from a fixed space of 10^10 ranks (not from the key count), then scattered
// over [min, max] as min + FNVHash64(rank) mod (max-min+1), so the popular keys are spread over the
// key space and do not move when keys are added.
//
// Two properties of YCSB's code that this reproduces: the inner generator is built as
// ZipfianGenerator(0, ITEM_COUNT, 0.99, ZETAN), i.e. over 10^10+1 items (max is inclusive) with the
// zeta of 10^10 (YCSB issue #1305); and because ranks come from 10^10, the key frequencies are not a
// zipfian over the key count: for 1,000 keys, 70% of the draws are ranks beyond 1,000, which spread
// nearly evenly over the keys, so the hottest key gets 3.9% of the draws, not the 12.9% a zipfian
// over 1,000 items would give it.
type ScrambledZipfian struct {
	min, itemcount int64
	gen            *Zipfian
}

var _ NumberGenerator = (*ScrambledZipfian)(nil)

// scrambledInner is shared: after construction it never changes (its item count never grows).
var scrambledInner = func() *Zipfian {
	z, err := NewZipfianZeta(0, ScrambledItemCount, ZipfianConstant, ScrambledZetan)
	if err != nil {
		panic(err)
	}
	return z
}()

// NewScrambledZipfian returns the scrambled zipfian over [min, max] (constant 0.99; YCSB has no
// other constant for this generator in CoreWorkload).
func NewScrambledZipfian(min, max int64) (*ScrambledZipfian, error) {
	if max < min {
		return nil, fmt.Errorf("ycsb: scrambled zipfian generator: max %d below min %d", max, min)
	}
	return &ScrambledZipfian{min: min, itemcount: max - min + 1, gen: scrambledInner}, nil
}

// Next returns min + FNVHash64(rank) mod itemcount. (Java's % keeps the sign of a negative hash,
// possible only for the one rank hashing to math.MinInt64, if any rank up to 10^10 does; so does
// Go's.)
func (s *ScrambledZipfian) Next(r Source) int64 {
	return s.min + FNVHash64(s.gen.Next(r))%s.itemcount
}

// Rank draws the inner zipfian rank, before scattering (for tests and diagnostics).
func (s *ScrambledZipfian) Rank(r Source) int64 { return s.gen.Next(r) }

// Scatter maps a rank to its key number, as Next does.
func (s *ScrambledZipfian) Scatter(rank int64) int64 { return s.min + FNVHash64(rank)%s.itemcount }
