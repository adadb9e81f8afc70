package schedule

import (
	"math"
	"sort"
	"testing"
	"time"
)

// walk returns the first n arrivals of p (fewer if it ends), in order, and how it ended.
func walk(p Pacer, seed uint64, n int) (arr []Arrival, end Arrival, ended bool) {
	w := Walk(p, seed)
	for len(arr) < n {
		a, ok := w.NextArrival()
		if !ok {
			return arr, a, true
		}
		arr = append(arr, a)
	}
	return arr, Arrival{}, false
}

// Constant spacing is exact: arrival i of a constant pacer at rate R is at (i+1)/R, rounded to the
// nanosecond, whatever the rate, and the same along a step of the same rate.
func TestPacerConstantSpacing(t *testing.T) {
	cases := []struct {
		name string
		p    Pacer
		want func(i int) time.Duration
	}{
		{"1000/s", ConstantPacer(1000), func(i int) time.Duration { return time.Duration(i+1) * ms }},
		{"4/s", ConstantPacer(4), func(i int) time.Duration { return time.Duration(i+1) * 250 * ms }},
		{"3/s: thirds rounded", ConstantPacer(3), func(i int) time.Duration {
			return time.Duration(math.Round(float64(i+1) / 3 * 1e9))
		}},
		{"0.5/s", ConstantPacer(0.5), func(i int) time.Duration { return time.Duration(i+1) * 2 * time.Second }},
		{"a step at 1000/s", StepsPacer(Constant, []Step{{Rate: 1000, Duration: time.Hour}}), func(i int) time.Duration { return time.Duration(i+1) * ms }},
		{"a flat ramp at 1000/s", RampPacer(Constant, 1000, 1000, time.Hour), func(i int) time.Duration { return time.Duration(i+1) * ms }},
	}
	for _, c := range cases {
		arr, _, ended := walk(c.p, 7, 5000)
		if ended {
			t.Fatalf("%s: ended after %d arrivals", c.name, len(arr))
		}
		for i, a := range arr {
			if a.At != c.want(i) || a.I != int64(i) || a.Segment != 0 {
				t.Fatalf("%s: arrival %d is %d at %v in segment %d, want at %v in 0", c.name, i, a.I, a.At, a.Segment, c.want(i))
			}
		}
	}
}

// Poisson arrivals, seeded: the mean gap is 1/rate, and the gaps are exponential: their empirical
// distribution is within the Kolmogorov-Smirnov bound of Exp(rate) (1.63/√n, the 1% level), the
// share below the mean is 1 - 1/e and the coefficient of variation 1. Along a step or a flat ramp
// the same process gives the same times.
func TestPacerPoisson(t *testing.T) {
	cases := []struct {
		rate float64
		seed uint64
	}{{1000, 1}, {37.5, 2}, {250000, 3}}
	const n = 20000
	for _, c := range cases {
		arr, _, _ := walk(PoissonPacer(c.rate), c.seed, n)
		gaps := make([]float64, n)
		prev := time.Duration(0)
		var sum, sumSq float64
		below := 0
		for i, a := range arr {
			g := (a.At - prev).Seconds()
			prev = a.At
			gaps[i] = g
			sum += g
			sumSq += g * g
			if g < 1/c.rate {
				below++
			}
		}
		mean := sum / n
		sd := math.Sqrt(sumSq/n - mean*mean)
		// The mean of n exponential gaps has a relative standard deviation of 1/√n (0.7%): 3%.
		if math.Abs(mean*c.rate-1) > 0.03 {
			t.Errorf("rate %g: mean gap %.6g s, want %.6g", c.rate, mean, 1/c.rate)
		}
		if cv := sd / mean; math.Abs(cv-1) > 0.03 {
			t.Errorf("rate %g: coefficient of variation %.4f, want 1", c.rate, cv)
		}
		if share := float64(below) / n; math.Abs(share-(1-1/math.E)) > 0.015 {
			t.Errorf("rate %g: %.4f of the gaps below the mean, want %.4f", c.rate, share, 1-1/math.E)
		}
		sort.Float64s(gaps)
		var d float64
		for i, g := range gaps {
			cdf := 1 - math.Exp(-c.rate*g)
			d = max(d, math.Abs(cdf-float64(i)/n), math.Abs(cdf-float64(i+1)/n))
		}
		if bound := 1.63 / math.Sqrt(n); d > bound {
			t.Errorf("rate %g: Kolmogorov-Smirnov distance %.4f from Exp(rate), above %.4f", c.rate, d, bound)
		}
		for _, same := range []Pacer{
			StepsPacer(Poisson, []Step{{Rate: c.rate, Duration: 1000 * time.Hour}}),
			RampPacer(Poisson, c.rate, c.rate, 1000*time.Hour),
		} {
			other, _, _ := walk(same, c.seed, n)
			for i := range arr {
				if other[i] != arr[i] {
					t.Fatalf("rate %g: arrival %d is %+v along a step, %+v alone", c.rate, i, other[i], arr[i])
				}
			}
		}
	}
}

// rampWork is Λ(t) for a ramp from r0 to r1 over d, computed independently of the timeline.
func rampWork(r0, r1 float64, d, t time.Duration) float64 {
	x := t.Seconds()
	return r0*x + (r1-r0)*x*x/(2*d.Seconds())
}

// A ramp's arrivals follow the integral of its linear rate: the count in each tenth of the ramp is
// the expected count there, exactly for constant arrivals (arrival n is where Λ reaches n, so the
// count in [a, b) is ⌈Λ(b)⌉ - ⌈Λ(a)⌉, give or take one for the rounding to the nanosecond at an
// edge), within 5 standard deviations for Poisson arrivals. The arrivals' target rate is the line.
func TestPacerRamp(t *testing.T) {
	cases := []struct {
		name   string
		r0, r1 float64
		d      time.Duration
	}{
		{"up 100 to 1000 per second", 100, 1000, 10 * time.Second},
		{"down 1000 to 100", 1000, 100, 10 * time.Second},
		{"from zero to 500", 0, 500, 20 * time.Second},
		{"down to zero from 400", 400, 0, 20 * time.Second},
		{"a slight slope", 1000, 1001, 30 * time.Second},
	}
	for _, c := range cases {
		for _, p := range []Process{Constant, Poisson} {
			arr, end, ended := walk(RampPacer(p, c.r0, c.r1, c.d), 11, math.MaxInt32)
			if !ended || end.At != c.d {
				t.Fatalf("%s, %s: ended %v at %v, want the ramp's end %v", c.name, p, ended, end.At, c.d)
			}
			const slices = 10
			counts := make([]int, slices)
			for _, a := range arr {
				k := int(a.At * slices / c.d)
				counts[k]++
				want := c.r0 + (c.r1-c.r0)*a.At.Seconds()/c.d.Seconds()
				if math.Abs(a.Rate-want) > 1e-6*max(c.r0, c.r1) {
					t.Fatalf("%s, %s: the rate at %v is %g, want %g", c.name, p, a.At, a.Rate, want)
				}
			}
			for k := range slices {
				from, to := c.d*time.Duration(k)/slices, c.d*time.Duration(k+1)/slices
				w0, w1 := rampWork(c.r0, c.r1, c.d, from), rampWork(c.r0, c.r1, c.d, to)
				got := float64(counts[k])
				if p == Constant {
					want := math.Ceil(w1-1e-9) - math.Ceil(w0-1e-9)
					if math.Abs(got-want) > 1 {
						t.Errorf("%s, constant: %d arrivals in [%v, %v), want %.0f (Λ from %.3f to %.3f)", c.name, counts[k], from, to, want, w0, w1)
					}
				} else if want := w1 - w0; math.Abs(got-want) > 5*math.Sqrt(want)+1 {
					t.Errorf("%s, Poisson: %d arrivals in [%v, %v), want %.0f ± %.0f", c.name, counts[k], from, to, want, 5*math.Sqrt(want))
				}
			}
		}
	}
}

// The worked examples of Timeline.at, and a timeline of a step then a ramp.
func TestRampTimeline(t *testing.T) {
	cases := []struct {
		name  string
		ramps []Ramp
		w     float64
		at    time.Duration
		seg   int
		rate  float64
		ok    bool
	}{
		{"0 to 10 over 10 s: Λ = t²/2", []Ramp{{0, 10, 10 * time.Second}}, 2, 2 * time.Second, 0, 2, true},
		{"0 to 10: 12.5 at 5 s", []Ramp{{0, 10, 10 * time.Second}}, 12.5, 5 * time.Second, 0, 5, true},
		{"0 to 10: its total, 50, is its end", []Ramp{{0, 10, 10 * time.Second}}, 50, 0, 0, 0, false},
		{"0 to 10: at zero work", []Ramp{{0, 10, 10 * time.Second}}, 0, 0, 0, 0, true},
		// 10/s for 1 s (work 10), then 10 to 30 over 2 s: Λ(1+x) = 10 + 10x + 5x², 25 at x = 1.
		{"a step, then a ramp", []Ramp{{10, 10, time.Second}, {10, 30, 2 * time.Second}}, 25, 2 * time.Second, 1, 20, true},
		{"a step, then a ramp: the ramp's start", []Ramp{{10, 10, time.Second}, {10, 30, 2 * time.Second}}, 10, time.Second, 1, 10, true},
		{"a step, then a ramp: within the step", []Ramp{{10, 10, time.Second}, {10, 30, 2 * time.Second}}, 5, 500 * ms, 0, 10, true},
	}
	for _, c := range cases {
		tl := NewRampTimeline(c.ramps)
		at, seg, rate, ok := tl.at(c.w, 0)
		if at != c.at || seg != c.seg || ok != c.ok || math.Abs(rate-c.rate) > 1e-9 {
			t.Errorf("%s: at(%g) = %v, segment %d, rate %g, %v; want %v, %d, %g, %v", c.name, c.w, at, seg, rate, ok, c.at, c.seg, c.rate, c.ok)
		}
	}
}

// Arrival i is a pure function of the seed and i: computed alone (no hint), from any earlier
// arrival, or in a walk, it is the same value; and computing arrivals backwards changes nothing.
func TestPacerPurity(t *testing.T) {
	steps := []Step{{Rate: 200, Duration: 2 * time.Second}, {Rate: 50, Duration: 3 * time.Second}, {Rate: 500, Duration: time.Second}}
	pacers := []struct {
		name   string
		p      Pacer
		seeded bool // the times depend on the seed
	}{
		{"constant", ConstantPacer(300), false},
		{"Poisson", PoissonPacer(300), true},
		{"constant steps", StepsPacer(Constant, steps), false},
		{"Poisson steps", StepsPacer(Poisson, steps), true},
		{"Poisson ramp", RampPacer(Poisson, 10, 700, 4*time.Second), true},
		{"Poisson step then ramp", Paced{P: Poisson, T: NewRampTimeline([]Ramp{{100, 100, time.Second}, {100, 0, 2 * time.Second}})}, true},
		{"limited", Limit(PoissonPacer(300), 700), true},
	}
	for _, c := range pacers {
		inOrder, end, ended := walk(c.p, 5, 1000)
		// The same walk through the interface, each from the previous arrival.
		var prev *Arrival
		for i, want := range inOrder {
			a, ok := c.p.Arrival(5, int64(i), prev)
			if !ok || a != want {
				t.Fatalf("%s: arrival %d from the previous one is %+v, %v; in the walk %+v", c.name, i, a, ok, want)
			}
			prev = &inOrder[i]
		}
		// Alone, backwards, and from an arbitrary earlier arrival.
		for i := len(inOrder) - 1; i >= 0; i -= 37 {
			a, ok := c.p.Arrival(5, int64(i), nil)
			if !ok || a != inOrder[i] {
				t.Fatalf("%s: arrival %d alone is %+v, %v; in order %+v", c.name, i, a, ok, inOrder[i])
			}
			if i >= 10 {
				if b, _ := c.p.Arrival(5, int64(i), &inOrder[i/2]); b != a {
					t.Fatalf("%s: arrival %d from arrival %d is %+v, alone %+v", c.name, i, i/2, b, a)
				}
			}
		}
		if ended {
			n := int64(len(inOrder))
			a, ok := c.p.Arrival(5, n, nil)
			if ok || a.At != end.At {
				t.Fatalf("%s: past the end alone: %+v, %v; the walk ended at %v", c.name, a, ok, end.At)
			}
		}
		// Another seed gives other times (but for constant arrivals).
		other, _, _ := walk(c.p, 6, 10)
		if same := other[len(other)-1] == inOrder[len(other)-1]; same == c.seeded {
			t.Errorf("%s: seeds 5 and 6 give the same times: %v", c.name, same)
		}
	}
}

// Pacers end: a timeline's with its last segment (at its end), a Limit after N arrivals (at the
// last one's time), or the pacer under it if sooner.
func TestPacerEnds(t *testing.T) {
	cases := []struct {
		name  string
		p     Pacer
		n     int
		endAt time.Duration
	}{
		{"steps", StepsPacer(Constant, []Step{{Rate: 10, Duration: time.Second}}), 9, time.Second},
		{"a ramp", RampPacer(Constant, 10, 30, time.Second), 19, time.Second},
		{"limit 5", Limit(ConstantPacer(10), 5), 5, 500 * ms},
		{"limit 0", Limit(ConstantPacer(10), 0), 0, 0},
		{"limit beyond the steps", Limit(StepsPacer(Constant, []Step{{Rate: 10, Duration: time.Second}}), 50), 9, time.Second},
	}
	for _, c := range cases {
		arr, end, ended := walk(c.p, 1, 1000)
		if !ended || len(arr) != c.n || end.At != c.endAt {
			t.Errorf("%s: %d arrivals, ended %v at %v; want %d, ending at %v", c.name, len(arr), ended, end.At, c.n, c.endAt)
		}
		w := Walk(c.p, 1)
		for range c.n + 3 {
			w.NextArrival()
		}
		if _, ok := w.NextArrival(); ok {
			t.Errorf("%s: an arrival after the end", c.name)
		}
	}
	if _, ok := ConstantPacer(1).Arrival(1, -1, nil); ok {
		t.Error("arrival -1 exists")
	}
}

func TestPacerValidate(t *testing.T) {
	good := []Paced{
		ConstantPacer(1), PoissonPacer(0.001), RampPacer(Poisson, 0, 10, time.Second), RampPacer(Constant, 10, 0, time.Second),
		StepsPacer(Constant, []Step{{Rate: 1, Duration: time.Second}}),
	}
	for _, p := range good {
		if err := p.Validate(); err != nil {
			t.Errorf("%+v: %v", p, err)
		}
	}
	bad := []Paced{
		{}, RampPacer("uniform", 1, 2, time.Second), RampPacer(Poisson, 0, 0, time.Second), RampPacer(Poisson, -1, 5, time.Second),
		RampPacer(Poisson, 1, math.Inf(1), time.Second), RampPacer(Poisson, 1, 2, 0), RampPacer(Poisson, math.NaN(), 2, time.Second),
	}
	for _, p := range bad {
		if err := p.Validate(); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
	if err := Limit(RampPacer(Poisson, 0, 0, time.Second), 3).Validate(); err == nil {
		t.Error("a limited invalid pacer: no error")
	}
}
