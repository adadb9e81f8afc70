package pgscript

import (
	"math"
	"testing"

	"github.com/candor-bench/candor/gen"
)

// The distributions are checked against the formulas of pgbench's documentation (PostgreSQL 15,
// "Built-In Functions" of pgbench), not against candor's own output: a seeded sample's histogram
// against the documented probabilities with a chi-square test at the 0.1% level.

// draw evaluates expr n times in a fresh environment seeded with seed and counts the values.
func draw(t *testing.T, expr string, n int, seed uint64) map[int64]int {
	t.Helper()
	p := NewProgram()
	if _, err := p.Add("d.sql", "\\set v "+expr+"\n", 1); err != nil {
		t.Fatal(err)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	env := p.NewEnv(EnvOptions{Rand: gen.New(seed)})
	root := p.Scripts[0].Commands[0].Expr.root
	counts := map[int64]int{}
	for i := 0; i < n; i++ {
		v, err := env.eval(root)
		if err != nil {
			t.Fatal(err)
		}
		counts[v.Int()]++
	}
	return counts
}

// chiSquare compares counts over [min, max] with probabilities prob(i) and fails above the 0.1%
// critical value (Wilson-Hilferty approximation of the chi-square quantile).
func chiSquare(t *testing.T, name string, counts map[int64]int, n int, min, max int64, prob func(i int64) float64) {
	t.Helper()
	var x2, total float64
	for i := min; i <= max; i++ {
		e := float64(n) * prob(i)
		total += prob(i)
		d := float64(counts[i]) - e
		x2 += d * d / e
	}
	for v := range counts {
		if v < min || v > max {
			t.Fatalf("%s: value %d outside [%d, %d]", name, v, min, max)
		}
	}
	if math.Abs(total-1) > 1e-9 {
		t.Fatalf("%s: the documented probabilities add up to %v", name, total)
	}
	df := float64(max - min)
	z := 3.0902 // the 99.9% normal quantile
	crit := df * math.Pow(1-2/(9*df)+z*math.Sqrt(2/(9*df)), 3)
	if x2 > crit {
		t.Errorf("%s: chi-square %.1f above %.1f (%v degrees of freedom)", name, x2, crit, df)
	}
}

const samples = 200000

func TestRandomUniform(t *testing.T) {
	c := draw(t, "random(-3, 6)", samples, 1)
	chiSquare(t, "random(-3, 6)", c, samples, -3, 6, func(int64) float64 { return 0.1 })
	// the whole int64 span minus one, and a one-value range
	big := draw(t, "random(-4611686018427387903, 4611686018427387903) > 0", 1000, 2)
	if big[1] < 400 || big[0] < 400 {
		t.Errorf("random over the widest range: %v", big)
	}
	if one := draw(t, "random(7, 7)", 100, 3); one[7] != 100 {
		t.Errorf("random(7, 7): %v", one)
	}
}

// random_exponential: f(x) = exp(-parameter * (x - min) / (max - min + 1)) / (1 - exp(-parameter)),
// value i drawn with probability f(i) - f(i + 1) in the documentation's cumulative form.
func TestRandomExponential(t *testing.T) {
	for _, param := range []float64{0.5, 2.5, 10} {
		min, max := int64(1), int64(10)
		expr := "random_exponential(1, 10, " + fmtF(param) + ")"
		c := draw(t, expr, samples, 4)
		n := float64(max - min + 1)
		chiSquare(t, expr, c, samples, min, max, func(i int64) float64 {
			a := math.Exp(-param * float64(i-min) / n)
			b := math.Exp(-param * float64(i-min+1) / n)
			return (a - b) / (1 - math.Exp(-param))
		})
	}
}

// random_gaussian: f(x) = PHI(2.0 * parameter * (x - mu) / (max - min + 1)) / (2.0 * PHI(parameter) - 1)
// with mu = (max + min) / 2.0; value i drawn with probability f(i + 0.5) - f(i - 0.5).
func TestRandomGaussian(t *testing.T) {
	phi := func(x float64) float64 { return 0.5 * (1 + math.Erf(x/math.Sqrt2)) }
	for _, param := range []float64{2, 3.5} {
		min, max := int64(1), int64(12)
		expr := "random_gaussian(1, 12, " + fmtF(param) + ")"
		c := draw(t, expr, samples, 5)
		mu := float64(max+min) / 2
		n := float64(max - min + 1)
		f := func(x float64) float64 { return phi(2*param*(x-mu)/n) / (2*phi(param) - 1) }
		chiSquare(t, expr, c, samples, min, max, func(i int64) float64 { return f(float64(i)+0.5) - f(float64(i)-0.5) })
	}
}

// random_zipfian with s > 1: P(i) proportional to 1/(i - min + 1)^s over [min, max].
func TestRandomZipfian(t *testing.T) {
	for _, s := range []float64{1.1, 1.5, 3} {
		min, max := int64(5), int64(14)
		expr := "random_zipfian(5, 14, " + fmtF(s) + ")"
		c := draw(t, expr, samples, 6)
		var h float64
		for k := 1; k <= 10; k++ {
			h += math.Pow(float64(k), -s)
		}
		chiSquare(t, expr, c, samples, min, max, func(i int64) float64 { return math.Pow(float64(i-min+1), -s) / h })
	}
}

// random_zipfian with s in (0, 1), candor's extension: YCSB's generator (Gray et al.), whose two
// most frequent values have the exact zipfian probabilities 1/H(n,s) and 2^-s/H(n,s) and whose
// whole distribution stays close to the zipfian one.
func TestRandomZipfianBelowOne(t *testing.T) {
	const s = 0.99
	n := int64(1000)
	c := draw(t, "random_zipfian(1, 1000, 0.99)", samples, 7)
	var h float64
	for k := int64(1); k <= n; k++ {
		h += math.Pow(float64(k), -s)
	}
	for rank, p := range map[int64]float64{1: 1 / h, 2: math.Pow(2, -s) / h} {
		sd := math.Sqrt(float64(samples) * p * (1 - p))
		if d := math.Abs(float64(c[rank]) - float64(samples)*p); d > 4*sd {
			t.Errorf("rank %d: %d draws, zipfian expects %.0f ± %.0f", rank, c[rank], float64(samples)*p, sd)
		}
	}
	var tv float64
	for k := int64(1); k <= n; k++ {
		tv += math.Abs(float64(c[k])/samples - math.Pow(float64(k), -s)/h)
	}
	if tv/2 > 0.05 {
		t.Errorf("total variation from the zipfian distribution %.3f", tv/2)
	}
	for v := range c {
		if v < 1 || v > n {
			t.Fatalf("value %d outside [1, %d]", v, n)
		}
	}
}

func TestChooseByWeight(t *testing.T) {
	p := NewProgram()
	for _, w := range []int{5, 0, 1, 4} {
		p.Add("a.sql", "SELECT 1;", w)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	r := gen.New(8)
	counts := map[int64]int{}
	for i := 0; i < samples; i++ {
		counts[int64(p.Choose(r))]++
	}
	chiSquare(t, "weights 5, 0, 1, 4", map[int64]int{0: counts[0], 1: counts[2], 2: counts[3]}, samples, 0, 2,
		func(i int64) float64 { return []float64{0.5, 0.1, 0.4}[i] })
	if counts[1] != 0 {
		t.Errorf("a script of weight 0 ran %d times", counts[1])
	}
}

func fmtF(f float64) string { return Double(f).String() }
