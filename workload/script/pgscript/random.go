package pgscript

import (
	"math"
	"math/bits"
	"sync"

	"github.com/candor-bench/candor/gen"
)

// The random functions of pgbench.c (getrand, getExponentialRand, getGaussianRand, getZipfianRand)
// over a client's gen.Rand. They follow pgbench's formulas, so the distributions are pgbench's; the
// numbers differ from pgbench's because the generator is candor's (seeded from the run's seed).

const (
	minGaussianParam = 2.0    // MIN_GAUSSIAN_PARAM
	minZipfianParam  = 1.001  // MIN_ZIPFIAN_PARAM
	maxZipfianParam  = 1000.0 // MAX_ZIPFIAN_PARAM
)

// uniform returns an integer uniform in [0, r] by bitmask rejection (pg_prng_uint64_range).
func uniform(rnd *gen.Rand, r uint64) uint64 {
	if r == 0 {
		return 0
	}
	shift := uint(bits.LeadingZeros64(r))
	for {
		if v := rnd.Uint64() >> shift; v <= r {
			return v
		}
	}
}

// getrand is random(min, max): uniform over [min, max], both included.
func getrand(rnd *gen.Rand, min, max int64) int64 {
	return min + int64(uniform(rnd, uint64(max-min)))
}

// exponentialRand is random_exponential(min, max, param): the density at the cut-off max is
// exp(-param) of the density at min.
func exponentialRand(rnd *gen.Rand, min, max int64, param float64) int64 {
	cut := math.Exp(-param)
	u := 1.0 - rnd.Float64() // (0, 1]
	r := -math.Log(cut+(1.0-cut)*u) / param
	return min + int64(float64(max-min+1)*r)
}

// gaussianRand is random_gaussian(min, max, param): a normal draw (Box-Muller) cut at ±param
// standard deviations, mapped onto [min, max].
func gaussianRand(rnd *gen.Rand, min, max int64, param float64) int64 {
	var stdev float64
	for {
		u1 := 1.0 - rnd.Float64()
		u2 := 1.0 - rnd.Float64()
		stdev = math.Sqrt(-2.0*math.Log(u1)) * math.Sin(2.0*math.Pi*u2)
		if stdev >= -param && stdev < param {
			break
		}
	}
	r := (stdev + param) / (param * 2.0)
	return min + int64(float64(max-min+1)*r)
}

// iterativeZipfian is computeIterativeZipfian: Devroye's rejection method (Non-Uniform Random
// Variate Generation, p. 550-551) for s > 1.
func iterativeZipfian(rnd *gen.Rand, n int64, s float64) int64 {
	if n <= 1 {
		return 1
	}
	b := math.Pow(2.0, s-1.0)
	for {
		u := rnd.Float64()
		v := rnd.Float64()
		x := math.Floor(math.Pow(u, -1.0/(s-1.0)))
		t := math.Pow(1.0+1.0/x, s-1.0)
		if v*x*(t-1.0)/(b-1.0) <= t/b && x <= float64(n) {
			return int64(x)
		}
	}
}

// zipfianRand is random_zipfian(min, max, s). For s in (0, 1), candor's documented extension, it is
// YCSB's zipfian (Gray et al., "Quickly generating billion-record synthetic databases"), as pgbench
// 11 and 12 computed it; the harmonic number of (n, s) is computed once per process.
func zipfianRand(rnd *gen.Rand, min, max int64, s float64) (int64, error) {
	n := max - min + 1
	if s > 1 {
		return min - 1 + iterativeZipfian(rnd, n, s), nil
	}
	if n > harmonicLimit {
		return 0, errorf("random_zipfian with a parameter below 1 draws from at most %d values (not %d): its harmonic number takes a pass over every value", harmonicLimit, n)
	}
	z := harmonic(n, s)
	alpha := 1.0 / (1.0 - s)
	eta := (1.0 - math.Pow(2.0/float64(n), 1.0-s)) / (1.0 - z.zeta2/z.zetan)
	u := rnd.Float64()
	uz := u * z.zetan
	if uz < 1.0 {
		return min, nil
	}
	if uz < 1.0+math.Pow(0.5, s) {
		return min + 1, nil
	}
	return min + int64(float64(n)*math.Pow(eta*u-eta+1.0, alpha)), nil
}

// harmonicLimit bounds the values of a zipfian below 1 (computing H(1e9, s) takes seconds).
var harmonicLimit int64 = 1_000_000_000

type zetas struct{ zetan, zeta2 float64 }

type zetaKey struct {
	n int64
	s float64
}

var zetaCache sync.Map // zetaKey -> zetas

// harmonic returns the generalized harmonic numbers H(n, s) and H(2, s).
func harmonic(n int64, s float64) zetas {
	k := zetaKey{n, s}
	if z, ok := zetaCache.Load(k); ok {
		return z.(zetas)
	}
	var sum float64
	for i := int64(1); i <= n; i++ {
		sum += math.Pow(float64(i), -s)
	}
	z := zetas{zetan: sum, zeta2: 1 + math.Pow(2, -s)}
	zetaCache.Store(k, z)
	return z
}
