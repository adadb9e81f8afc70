package sysbench

import (
	"fmt"
	"math"

	"github.com/candor-bench/candor/gen"
)

// sysbench's random numbers (src/sb_rand.c), drawn from candor's seeded streams (gen) instead of
// sysbench's per-thread xoroshiro128+, with the same arithmetic on the same uniform doubles in
// [0, 1). --rand-type picks the distribution of sysbench.rand.default (the ids of every statement,
// the loaded k), as sysbench's does; the tables are always uniform (sysbench.rand.uniform).

// RandType is a distribution of --rand-type.
type RandType string

const (
	// Special is sysbench 1.0's default: rand-spec-res percent of the values fall uniformly on the
	// rand-spec-pct percent of the range at its centre; the rest are Gaussian (sb_rand_special).
	Special  RandType = "special"
	Uniform  RandType = "uniform"
	Gaussian RandType = "gaussian"
	Pareto   RandType = "pareto"
	// Zipfian came after 1.0.20 (sysbench 1.1, with uniform as the default there); candor has it
	// with 1.1's --rand-zipfian-exp.
	Zipfian RandType = "zipfian"
)

var randTypes = []RandType{Special, Uniform, Gaussian, Pareto, Zipfian}

// sysbench's defaults of the distributions' parameters (sb_rand.c's rand_args).
const (
	defaultSpecIter  = 12
	defaultSpecPct   = 1
	defaultSpecRes   = 75
	defaultParetoH   = 0.2
	defaultZipfExp   = 0.8
	defaultRandType  = Special
	maxSpecIterLimit = 1000
)

// dist is a resolved distribution: sb_rand_init's precomputed constants.
type dist struct {
	kind        RandType
	iter        int
	iterMult    float64
	pctMult     float64 // rand_pct / 100
	pct2Mult    float64 // rand_pct / 200
	resMult     float64 // 100 / (100 - rand_res)
	paretoPower float64 // log(h) / log(1-h)
	zipfExp     float64
	zipfS       float64
	zipfHX1     float64
}

// newDist resolves the options' distribution; the options must be valid (Validate).
func newDist(o *Options) *dist {
	d := &dist{kind: o.RandType, iter: o.RandSpecIter, iterMult: 1 / float64(o.RandSpecIter),
		pctMult: float64(o.RandSpecPct) / 100, pct2Mult: float64(o.RandSpecPct) / 200,
		resMult:     100 / (100 - float64(o.RandSpecRes)),
		paretoPower: math.Log(o.RandParetoH) / math.Log(1-o.RandParetoH),
		zipfExp:     o.RandZipfianExp}
	d.zipfS = 2 - zipfHIntegralInverse(zipfHIntegral(2.5, d.zipfExp)-zipfH(2, d.zipfExp), d.zipfExp)
	d.zipfHX1 = zipfHIntegral(1.5, d.zipfExp) - 1
	return d
}

// describe is the distribution with its parameters, for the opening line.
func (d *dist) describe(o *Options) string {
	switch d.kind {
	case Special:
		return fmt.Sprintf("special ids (%d%% of them on the middle %d%%)", o.RandSpecRes, o.RandSpecPct)
	case Pareto:
		return fmt.Sprintf("pareto ids (h %g)", o.RandParetoH)
	case Zipfian:
		return fmt.Sprintf("zipfian ids (exponent %g)", o.RandZipfianExp)
	}
	return string(d.kind) + " ids"
}

// uniformU32 is sb_rand_uniform: a + u * (b - a + 1), truncated.
func uniformU32(r *gen.Rand, a, b uint32) uint32 {
	return a + uint32(r.Float64()*float64(b-a+1))
}

// draw is sb_rand_default(a, b): a value of [a, b] from the distribution.
func (d *dist) draw(r *gen.Rand, a, b uint32) uint32 {
	switch d.kind {
	case Uniform:
		return uniformU32(r, a, b)
	case Gaussian:
		t := float64(b - a + 1)
		var sum float64
		for range d.iter {
			sum += r.Float64() * t
		}
		return a + uint32(sum*d.iterMult)
	case Pareto:
		return a + uint32(float64(b-a+1)*math.Pow(r.Float64(), d.paretoPower))
	case Zipfian:
		return a + d.zipfian(r, b-a+1) - 1
	}
	return d.special(r, a, b)
}

// special is sb_rand_special: a uniform double picks, against the range widened by rand_res_mult,
// either a Gaussian value over [a, b] (the first (100 - res)%) or, re-used, a uniform value on the
// pct% of the range around its centre.
func (d *dist) special(r *gen.Rand, a, b uint32) uint32 {
	t := float64(b - a)
	rnd := r.Float64()
	if rnd*t*d.resMult < t {
		var sum float64
		for range d.iter {
			sum += r.Float64()
		}
		return a + uint32(sum*t*d.iterMult)
	}
	res := rnd * (t*d.pctMult + 1)
	res += t/2 - t*d.pct2Mult
	return a + uint32(res)
}

// zipfian is sysbench 1.1's sb_rand_zipfian_int: rejection-inversion sampling of a Zipf value in
// [1, n] with exponent zipfExp (Hörmann and Derflinger).
func (d *dist) zipfian(r *gen.Rand, n uint32) uint32 {
	e := d.zipfExp
	hn := zipfHIntegral(float64(n)+0.5, e)
	for {
		u := hn + r.Float64()*(d.zipfHX1-hn)
		x := zipfHIntegralInverse(u, e)
		k := uint32(x + 0.5)
		if x+0.5 < 1 {
			k = 1
		} else if k > n {
			k = n
		}
		if float64(k)-x <= d.zipfS || u >= zipfHIntegral(float64(k)+0.5, e)-zipfH(float64(k), e) {
			return k
		}
	}
}

func zipfHIntegral(x, e float64) float64 {
	logX := math.Log(x)
	return zipfHelper2((1-e)*logX) * logX
}

func zipfH(x, e float64) float64 { return math.Exp(-e * math.Log(x)) }

func zipfHIntegralInverse(x, e float64) float64 {
	t := x * (1 - e)
	if t < -1 {
		t = -1 // numerical errors only
	}
	return math.Exp(zipfHelper1(t) * x)
}

func zipfHelper1(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

func zipfHelper2(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*(1.0/3)*(1+0.25*x))
}

// sysbench's c and pad values (oltp_common.lua): groups of 11 random digits joined by dashes, 10
// groups for c (119 characters in a CHAR(120)) and 5 for pad (59 in a CHAR(60)), each digit
// sb_rand_uniform('0', '9') as sb_rand_str draws it.
const (
	cGroups   = 10
	padGroups = 5
	groupLen  = 11
)

// appendDigits appends groups groups of 11 random digits separated by dashes.
func appendDigits(dst []byte, r *gen.Rand, groups int) []byte {
	for g := range groups {
		if g > 0 {
			dst = append(dst, '-')
		}
		for range groupLen {
			dst = append(dst, byte(uniformU32(r, '0', '9')))
		}
	}
	return dst
}
