package compare

import (
	"math"
	"testing"

	"github.com/candor-bench/candor/gen"
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func TestAutocorr1(t *testing.T) {
	for _, c := range []struct {
		name string
		xs   []float64
		want float64
	}{
		{"too short", []float64{1, 2}, 0},
		{"constant", []float64{3, 3, 3, 3, 3}, 0},
		// m = 3, deviations -2 -1 0 1 2: num = 2 + 0 + 0 + 2 = 4, den = 10.
		{"trend", []float64{1, 2, 3, 4, 5}, 0.4},
		// m = 0: num = -(n-1), den = n.
		{"alternating", []float64{1, -1, 1, -1, 1, -1}, -5.0 / 6},
		// m = 2.5, deviations -1.5 -1.5 1.5 1.5: num = 2.25 - 2.25 + 2.25 = 2.25, den = 9.
		{"two levels", []float64{1, 1, 4, 4}, 0.25},
	} {
		if got := Autocorr1(c.xs); !near(got, c.want, 1e-12) {
			t.Errorf("%s: Autocorr1 = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestCorrectedAutocorr1(t *testing.T) {
	// trend: r1 = 0.4, n = 5: 0.4 + (1 + 1.6)/5 = 0.92.
	if got := CorrectedAutocorr1([]float64{1, 2, 3, 4, 5}); !near(got, 0.92, 1e-12) {
		t.Errorf("CorrectedAutocorr1(trend) = %v, want 0.92", got)
	}
	if got := CorrectedAutocorr1([]float64{1, 2}); got != 0 {
		t.Errorf("two values: %v, want 0", got)
	}
	// Over many independent series of 12 the raw estimator averages about -1/12; the corrected
	// one about 0. Over AR(1) series with phi 0.6 the raw one is far below 0.6, the corrected near.
	r := gen.New(8)
	for _, c := range []struct{ phi, rawBelow, corrLo, corrHi float64 }{{0, -0.04, -0.04, 0.04}, {0.6, 0.45, 0.45, 0.7}} {
		var raw, corr float64
		const trials = 4000
		for range trials {
			xs := ar1(r, 12, 0, c.phi, 1)
			raw += Autocorr1(xs) / trials
			corr += CorrectedAutocorr1(xs) / trials
		}
		if raw > c.rawBelow || corr < c.corrLo || corr > c.corrHi {
			t.Errorf("phi %v: mean raw r1 %.3f (want below %v), corrected %.3f (want %v..%v)", c.phi, raw, c.rawBelow, corr, c.corrLo, c.corrHi)
		}
	}
}

func TestEffectiveN(t *testing.T) {
	for _, c := range []struct {
		n    int
		r1   float64
		want float64
	}{
		{0, 0.5, 0},
		{1, 0, 1},
		{100, 0, 100},
		{100, 0.5, 100.0 / 3},
		{60, 0.6, 15},
		{100, -0.3, 100}, // negative autocorrelation buys nothing
		{10, 0.9, 2},     // 10 x 0.1/1.9 = 0.53, floored at 2
		{10, 1, 2},
	} {
		if got := EffectiveN(c.n, c.r1); !near(got, c.want, 1e-9) {
			t.Errorf("EffectiveN(%d, %v) = %v, want %v", c.n, c.r1, got, c.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	// 2 4 4 4 5 5 7 9: mean 5, sum of squares 32, sd sqrt(32/7).
	s := Summarize([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	if s.N != 8 || s.Mean != 5 || !near(s.SD, math.Sqrt(32.0/7), 1e-12) {
		t.Fatalf("Summarize = %+v", s)
	}
	if !near(s.SE, s.SD/math.Sqrt(s.NEff), 1e-12) || s.NEff > 8 {
		t.Fatalf("SE %v, NEff %v: want SD/sqrt(NEff) with NEff <= n", s.SE, s.NEff)
	}
	if one := Summarize([]float64{7}); one.SE != 0 || one.Mean != 7 {
		t.Fatalf("one value: %+v", one)
	}
}

func TestStudentTQuantile(t *testing.T) {
	// Two-sided 95% critical values from any t table.
	for _, c := range []struct {
		p, df, want float64
	}{
		{0.975, 1, 12.7062}, {0.975, 2, 4.3027}, {0.975, 5, 2.5706}, {0.975, 10, 2.2281},
		{0.975, 30, 2.0423}, {0.975, 1e7, 1.9600}, {0.95, 10, 1.8125}, {0.995, 20, 2.8453},
		{0.025, 10, -2.2281}, {0.5, 7, 0},
	} {
		if got := StudentTQuantile(c.p, c.df); !near(got, c.want, 5e-4) {
			t.Errorf("StudentTQuantile(%v, %v) = %.5f, want %.4f", c.p, c.df, got, c.want)
		}
	}
	// Fractional degrees of freedom (Welch) fall between their neighbours.
	if q := StudentTQuantile(0.975, 2.5); !(q < 4.3027 && q > 3.1824) {
		t.Errorf("StudentTQuantile(0.975, 2.5) = %v, want between t(3) and t(2)", q)
	}
}

func TestWelch(t *testing.T) {
	a := Series{N: 10, Mean: 10, SE: 1, NEff: 10}
	b := Series{N: 10, Mean: 13, SE: 1, NEff: 10}
	// se = sqrt(2); df = 2^2 / (1/9 + 1/9) = 18; t(0.975, 18) = 2.1009.
	d := Welch(a, b, 0.95)
	if !near(d.Estimate, 3, 1e-12) || !near(d.SE, math.Sqrt2, 1e-12) || !near(d.DF, 18, 1e-9) {
		t.Fatalf("Welch = %+v", d)
	}
	if !near(d.Low, 3-2.1009*math.Sqrt2, 1e-3) || !near(d.High, 3+2.1009*math.Sqrt2, 1e-3) || !d.Excludes(0) {
		t.Fatalf("interval [%v, %v], want 3 ± 2.971, excluding 0", d.Low, d.High)
	}
	b.Mean = 11 // 1 ± 2.971 includes 0
	if d := Welch(a, b, 0.95); d.Excludes(0) {
		t.Fatalf("difference 1 with se 1.41 judged significant: %+v", d)
	}
	same := Series{N: 5, Mean: 4, NEff: 5}
	if d := Welch(same, same, 0.95); d.Low != 0 || d.High != 0 || d.Excludes(0) {
		t.Fatalf("two constant equal series: %+v", d)
	}
	if d := Welch(same, Series{N: 5, Mean: 5, NEff: 5}, 0.95); !d.Excludes(0) {
		t.Fatalf("two constant different series must differ: %+v", d)
	}
}

func TestQuantileSorted(t *testing.T) {
	s := []float64{1, 2, 3, 4, 5}
	for _, c := range []struct{ p, want float64 }{{0, 1}, {1, 5}, {0.5, 3}, {0.25, 2}, {0.1, 1.4}, {0.975, 4.9}} {
		if got := quantileSorted(s, c.p); !near(got, c.want, 1e-12) {
			t.Errorf("quantileSorted(%v) = %v, want %v", c.p, got, c.want)
		}
	}
}

// ar1 returns n values of an AR(1) process around mean: x_t = mean + phi (x_{t-1} - mean) + e_t,
// e_t normal with standard deviation sd (started from its stationary distribution).
func ar1(r *gen.Rand, n int, mean, phi, sd float64) []float64 {
	xs := make([]float64, n)
	prev := normal(r) * sd / math.Sqrt(1-phi*phi)
	for i := range xs {
		prev = phi*prev + normal(r)*sd
		xs[i] = mean + prev
	}
	return xs
}

func normal(r *gen.Rand) float64 {
	return math.Sqrt(-2*math.Log(r.OpenFloat64())) * math.Cos(2*math.Pi*r.Float64())
}

// TestAutocorrelationCorrectionKeepsFalseAlarmsNearFivePercent: pairs of autocorrelated series
// drawn from the same process. The corrected test calls a difference significant in about 5% of
// the pairs, as a 95% interval should; the uncorrected one (n_eff = n) in far more, which is the
// mistake the correction exists to avoid.
func TestAutocorrelationCorrectionKeepsFalseAlarmsNearFivePercent(t *testing.T) {
	r := gen.New(42)
	const trials, n = 400, 60
	var corrected, naive int
	for range trials {
		a, b := Summarize(ar1(r, n, 1000, 0.6, 30)), Summarize(ar1(r, n, 1000, 0.6, 30))
		if Welch(a, b, 0.95).Excludes(0) {
			corrected++
		}
		for _, s := range []*Series{&a, &b} {
			s.NEff = float64(s.N)
			s.SE = s.SD / math.Sqrt(float64(s.N))
		}
		if Welch(a, b, 0.95).Excludes(0) {
			naive++
		}
	}
	fc, fn := float64(corrected)/trials, float64(naive)/trials
	t.Logf("false alarms: corrected %.1f%%, uncorrected %.1f%%", 100*fc, 100*fn)
	if fc > 0.10 {
		t.Errorf("corrected test: %.1f%% false alarms, want about 5%% (at most 10%%)", 100*fc)
	}
	if fn < 2*fc || fn < 0.15 {
		t.Errorf("uncorrected test: %.1f%% false alarms, expected far more than the corrected %.1f%%", 100*fn, 100*fc)
	}
}

// Repeats: a query twice as slow in every repeat is a significant +100%; the same timings are no
// change; one repeat in a run is too few to judge.
func TestRepeatsRow(t *testing.T) {
	a := []float64{1, 1.1, 0.9, 1.05, 0.95}
	b := make([]float64, len(a))
	for i, v := range a {
		b[i] = 2 * v
	}
	r := RepeatsRow(a, b, 0.95)
	if !r.Significant || r.Change == nil || math.Abs(*r.Change-1) > 1e-9 || *r.Low <= 0.5 || *r.High >= 1.5 {
		t.Fatalf("twice as slow: %+v (change %v [%v, %v]); want a significant +100%%", r, deref(r.Change), deref(r.Low), deref(r.High))
	}
	if r := RepeatsRow(a, a, 0.95); r.Significant || r.Verdict != NotSignificant || *r.Change != 0 {
		t.Fatalf("the same timings: %+v", r)
	}
	if r := RepeatsRow(a, []float64{3}, 0.95); r.Verdict != TooFewRepeats || r.Significant {
		t.Fatalf("one repeat: %+v", r)
	}
	if r := RepeatsRow(nil, a, 0.95); r.Verdict != NoData {
		t.Fatalf("no repeats in A: %+v", r)
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
