package schedule

import (
	"math"
	"testing"
	"time"
)

const ms = time.Millisecond

// collect returns every arrival of p over tl: times and segments.
func collect(p Process, seed uint64, tl Timeline) (at []time.Duration, seg []int) {
	a := NewArrivals(p, seed, tl)
	for {
		i, t, s, ok := a.Next()
		if !ok {
			return at, seg
		}
		if int(i) != len(at) {
			panic("arrival indices are not 0, 1, 2, ...")
		}
		at, seg = append(at, t), append(seg, s)
	}
}

// Constant arrivals: arrival i is at (i+1)/rate, and a change of rate carries on from where the
// process is. Warm-up 0.5 s at 10/s, then 1 s at 20/s: 0.1 .. 0.4 in the warm-up; work 5 is
// reached exactly at 0.5 s, the step's start; then every 50 ms to 1.45 s (work 25 would be at
// 1.5 s, the end, which is outside).
func TestConstantTimes(t *testing.T) {
	cases := []struct {
		name    string
		segs    []Step
		wantAt  []time.Duration
		wantSeg []int
	}{
		{"one rate", []Step{{Rate: 4, Duration: time.Second}},
			[]time.Duration{250 * ms, 500 * ms, 750 * ms}, []int{0, 0, 0}},
		{"warm-up then a faster step", []Step{{Rate: 10, Duration: 500 * ms}, {Rate: 20, Duration: time.Second}},
			[]time.Duration{100 * ms, 200 * ms, 300 * ms, 400 * ms, 500 * ms, 550 * ms, 600 * ms, 650 * ms, 700 * ms, 750 * ms,
				800 * ms, 850 * ms, 900 * ms, 950 * ms, 1000 * ms, 1050 * ms, 1100 * ms, 1150 * ms, 1200 * ms, 1250 * ms,
				1300 * ms, 1350 * ms, 1400 * ms, 1450 * ms},
			[]int{0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
		{"a slower step: the gap straddles the boundary", []Step{{Rate: 4, Duration: 900 * ms}, {Rate: 2, Duration: time.Second}},
			// 0.25, 0.5, 0.75; work at 0.9 s is 3.6, work 4 is 0.4/2 = 200 ms later; work 5 at 1.6 s.
			[]time.Duration{250 * ms, 500 * ms, 750 * ms, 1100 * ms, 1600 * ms}, []int{0, 0, 0, 1, 1}},
		{"a third of a second", []Step{{Rate: 3, Duration: time.Second}},
			[]time.Duration{333333333, 666666667}, []int{0, 0}},
	}
	for _, c := range cases {
		at, seg := collect(Constant, 1, NewTimeline(c.segs))
		if len(at) != len(c.wantAt) {
			t.Fatalf("%s: %d arrivals %v, want %d %v", c.name, len(at), at, len(c.wantAt), c.wantAt)
		}
		for i := range at {
			if at[i] != c.wantAt[i] || seg[i] != c.wantSeg[i] {
				t.Errorf("%s: arrival %d at %v in segment %d, want %v in %d", c.name, i, at[i], seg[i], c.wantAt[i], c.wantSeg[i])
			}
		}
	}
}

// 1000 per second for 10 s, constant: exactly 9999 arrivals (the 10000th is at the end), 1 ms apart.
func TestConstantManyExact(t *testing.T) {
	at, _ := collect(Constant, 0, NewTimeline([]Step{{Rate: 1000, Duration: 10 * time.Second}}))
	if len(at) != 9999 {
		t.Fatalf("%d arrivals, want 9999", len(at))
	}
	for i, a := range at {
		if a != time.Duration(i+1)*ms {
			t.Fatalf("arrival %d at %v, want %v", i, a, time.Duration(i+1)*ms)
		}
	}
}

func TestTimelineAtAndSegment(t *testing.T) {
	tl := NewTimeline([]Step{{Rate: 10, Duration: time.Second}, {Rate: 100, Duration: 2 * time.Second}})
	atCases := []struct {
		w    float64
		at   time.Duration
		seg  int
		okay bool
	}{
		{0, 0, 0, true},
		{5, 500 * ms, 0, true},
		{10, time.Second, 1, true},
		{110, 2 * time.Second, 1, true},
		{209.999, 2999990 * time.Microsecond, 1, true},
		{210, 0, 0, false},
		{-1, 0, 0, false},
	}
	for _, c := range atCases {
		at, seg, ok := tl.At(c.w)
		if at != c.at || seg != c.seg || ok != c.okay {
			t.Errorf("At(%g) = %v, %d, %v; want %v, %d, %v", c.w, at, seg, ok, c.at, c.seg, c.okay)
		}
	}
	segCases := []struct {
		t   time.Duration
		seg int
	}{{0, 0}, {999 * ms, 0}, {time.Second, 1}, {2999 * ms, 1}, {3 * time.Second, -1}, {-1, -1}}
	for _, c := range segCases {
		if got := tl.Segment(c.t); got != c.seg {
			t.Errorf("Segment(%v) = %d, want %d", c.t, got, c.seg)
		}
	}
	if tl.End() != 3*time.Second {
		t.Errorf("End = %v, want 3s", tl.End())
	}
}

func TestSteps(t *testing.T) {
	rates := func(s []Step) []float64 {
		var r []float64
		for _, x := range s {
			r = append(r, x.Rate)
			if x.Duration != 30*time.Second {
				t.Fatalf("step duration %v, want 30s", x.Duration)
			}
		}
		return r
	}
	cases := []struct {
		from, to, by float64
		want         []float64
	}{
		{100, 1000, 100, []float64{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000}},
		{100, 950, 100, []float64{100, 200, 300, 400, 500, 600, 700, 800, 900, 950}},
		{1000, 100, 300, []float64{1000, 700, 400, 100}},
		{50, 50, 10, []float64{50}},
		{0.5, 1.5, 0.1, []float64{0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.1, 1.2, 1.3, 1.4, 1.5}},
	}
	for _, c := range cases {
		s, err := Steps(c.from, c.to, c.by, 30*time.Second)
		if err != nil {
			t.Fatalf("Steps(%g, %g, %g): %v", c.from, c.to, c.by, err)
		}
		got := rates(s)
		if len(got) != len(c.want) {
			t.Fatalf("Steps(%g, %g, %g) = %v, want %v", c.from, c.to, c.by, got, c.want)
		}
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-9 {
				t.Fatalf("Steps(%g, %g, %g) = %v, want %v", c.from, c.to, c.by, got, c.want)
			}
		}
	}
	bad := []struct {
		from, to, by float64
		every        time.Duration
	}{{0, 10, 1, time.Second}, {10, 20, 0, time.Second}, {10, 20, 1, 0}, {1, 1000, 1, time.Second}, {math.NaN(), 2, 1, time.Second}}
	for _, b := range bad {
		if _, err := Steps(b.from, b.to, b.by, b.every); err == nil {
			t.Errorf("Steps(%g, %g, %g, %v) gave no error", b.from, b.to, b.by, b.every)
		}
	}
}

// Poisson arrivals with a fixed seed: the same every time, different under another seed, each gap
// computable alone (a pure function of the index), mean gap 1/rate, and exponential (the share of
// gaps below the mean is 1 - 1/e, the coefficient of variation 1).
func TestPoisson(t *testing.T) {
	const rate = 1000.0
	tl := NewTimeline([]Step{{Rate: rate, Duration: 100 * time.Second}})
	a1, _ := collect(Poisson, 42, tl)
	a2, _ := collect(Poisson, 42, tl)
	a3, _ := collect(Poisson, 43, tl)
	if len(a1) != len(a2) {
		t.Fatalf("same seed, %d and %d arrivals", len(a1), len(a2))
	}
	for i := range a1 {
		if a1[i] != a2[i] {
			t.Fatalf("same seed, arrival %d at %v and %v", i, a1[i], a2[i])
		}
	}
	same := 0
	for i := 0; i < 1000 && i < len(a3); i++ {
		if a1[i] == a3[i] {
			same++
		}
	}
	if same > 10 {
		t.Fatalf("seeds 42 and 43 share %d of the first 1000 arrival times", same)
	}
	// Expected count 100000, standard deviation sqrt(100000) = 316: within 1.5% is about 5 sigma.
	if n := float64(len(a1)); math.Abs(n-100000) > 1500 {
		t.Fatalf("%d arrivals in 100 s at 1000/s", len(a1))
	}
	var sum, sumSq float64
	below := 0
	prev := time.Duration(0)
	for _, at := range a1 {
		g := (at - prev).Seconds()
		prev = at
		sum += g
		sumSq += g * g
		if g < 1/rate {
			below++
		}
	}
	n := float64(len(a1))
	mean := sum / n
	sd := math.Sqrt(sumSq/n - mean*mean)
	if math.Abs(mean*rate-1) > 0.01 {
		t.Errorf("mean gap %.6f s, want %.6f within 1%%", mean, 1/rate)
	}
	if cv := sd / mean; math.Abs(cv-1) > 0.02 {
		t.Errorf("coefficient of variation %.4f, want 1 (exponential gaps)", cv)
	}
	if share := float64(below) / n; math.Abs(share-(1-1/math.E)) > 0.01 {
		t.Errorf("%.4f of the gaps are below the mean, want %.4f", share, 1-1/math.E)
	}
	// Gap is a pure function of the index: computed backwards, alone, it is the same.
	for i := int64(999); i >= 0; i-- {
		if Poisson.Gap(42, i) != Poisson.Gap(42, i) || Poisson.Gap(42, i) <= 0 {
			t.Fatalf("gap %d is not a positive pure function", i)
		}
	}
	var work float64
	for i := int64(0); i < 1000; i++ {
		work += Poisson.Gap(42, i)
		at, _, _ := tl.At(work)
		if at != a1[i] {
			t.Fatalf("arrival %d: %v from the gaps, %v from Arrivals", i, at, a1[i])
		}
	}
}

// Poisson steps: each step gets its own rate's worth of arrivals.
func TestPoissonSteps(t *testing.T) {
	steps, err := Steps(500, 1500, 500, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, seg := collect(Poisson, 7, NewTimeline(steps))
	counts := make([]int, len(steps))
	for _, s := range seg {
		counts[s]++
	}
	for k, s := range steps {
		want := s.Rate * s.Duration.Seconds()
		if math.Abs(float64(counts[k])-want) > 5*math.Sqrt(want) {
			t.Errorf("step %d: %d arrivals, want %.0f ± %.0f", k, counts[k], want, 5*math.Sqrt(want))
		}
	}
}

func TestParseProcess(t *testing.T) {
	for _, s := range []string{"poisson", "constant"} {
		if p, err := ParseProcess(s); err != nil || string(p) != s {
			t.Errorf("ParseProcess(%q) = %q, %v", s, p, err)
		}
	}
	if _, err := ParseProcess("uniform"); err == nil {
		t.Error("ParseProcess(uniform) gave no error")
	}
}
