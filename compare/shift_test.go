package compare

import (
	"math"
	"slices"
	"testing"

	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/measure"
)

// TestShiftIntervalIsListedDifferences: the bisection finds the very differences that listing and
// sorting all n_a n_b of them gives, at the Hodges-Lehmann median and at Mann-Whitney's ranks, with
// ties (bucket values repeat) and without.
func TestShiftIntervalIsListedDifferences(t *testing.T) {
	r := gen.New(7)
	for trial := range 40 {
		na, nb := 2+r.IntRange(0, 30), 2+r.IntRange(0, 30)
		a, b := make([]float64, na), make([]float64, nb)
		for i := range a {
			a[i] = math.Round(10*normal(r)) / 4 // ties
		}
		shift := float64(trial%3) / 2
		for i := range b {
			b[i] = math.Round(10*(normal(r)+shift)) / 4
		}
		if trial%2 == 1 {
			for i := range a {
				a[i] += normal(r) / 1000
			}
		}
		var d []float64
		for _, x := range a {
			for _, y := range b {
				d = append(d, y-x)
			}
		}
		slices.Sort(d)
		n := float64(len(d))
		k := math.Max(1, math.Floor(n/2-1.959964*1.3*math.Sqrt(float64(na*nb*(na+nb+1))/12)))
		med := d[len(d)/2]
		if len(d)%2 == 0 {
			med = (d[len(d)/2-1] + d[len(d)/2]) / 2
		}
		iv, ok := ShiftInterval(a, b, 1.3, 0.95)
		if !ok || !near(iv.Estimate, med, 1e-9) || !near(iv.Low, d[int(k)-1], 1e-9) || !near(iv.High, d[len(d)-int(k)], 1e-9) {
			t.Fatalf("trial %d (%d, %d): got %+v (ok %v), want %v [%v, %v]", trial, na, nb, iv, ok, med, d[int(k)-1], d[len(d)-int(k)])
		}
	}
	if _, ok := ShiftInterval([]float64{1}, []float64{1, 2}, 1, 0.95); ok {
		t.Errorf("one value on a side gave an interval")
	}
	if z := normalQuantile(0.975); !near(z, 1.959964, 1e-6) {
		t.Errorf("normalQuantile(0.975) = %v", z)
	}
}

// stalledIntervals draws n intervals of m latencies (lognormal, median medianMicros, log-sd 0.5);
// in about one interval of ten the host stalls: a tenth of its operations wait 20 to 60 ms more,
// as they do on a busy machine. The window's p99 then rests on the stalled intervals.
func stalledIntervals(r *gen.Rand, n, m int, medianMicros float64) []Hist {
	out := make([]Hist, n)
	for i := range out {
		h := measure.NewHistogram()
		stalled := r.Float64() < 0.1
		for range m {
			v := medianMicros * math.Exp(0.5*normal(r))
			if stalled && r.Float64() < 0.1 {
				v += 20000 + 40000*r.Float64()
			}
			_ = h.RecordValue(int64(math.Ceil(v)))
		}
		out[i] = FromHdr(h)
	}
	return out
}

// TestShiftPowerWithStalls: runs whose window p99 rests on a few stalled intervals. Judged on the
// intervals' own values, an A/A pair is called different in at most 5% of pairs and a run whose
// every operation is 10% slower in at least 95% (p50, p90, p99); the bootstrap over intervals, on
// the same runs, misses most of the p99 changes (its interval spans the stalls' spread).
func TestShiftPowerWithStalls(t *testing.T) {
	r := gen.New(2029)
	const pairs = 40
	qs := []float64{0.5, 0.9, 0.99}
	var aa, ab, abBoot [3]int // abBoot: p99 only
	for range pairs {
		a := stalledIntervals(r, 40, 500, 5000)
		same := stalledIntervals(r, 40, 500, 5000)
		slower := stalledIntervals(r, 40, 500, 5500)
		for k, pr := range ComparePercentiles(Sides{Intervals: a}, Sides{Intervals: same}, qs, Bootstrap{Resamples: 200}) {
			if pr.Method != MethodShift {
				t.Fatalf("%s judged by %q, want %q", MetricName(qs[k]), pr.Method, MethodShift)
			}
			if pr.Ratio.Excludes(1) {
				aa[k]++
			}
		}
		for k, pr := range ComparePercentiles(Sides{Intervals: a}, Sides{Intervals: slower}, qs, Bootstrap{Resamples: 200}) {
			if pr.Ratio.Low > 1 {
				ab[k]++
			}
		}
		if pr := ComparePercentiles(Sides{Intervals: a}, Sides{Intervals: slower}, qs[2:], Bootstrap{Resamples: 200, bootstrapOnly: true})[0]; pr.Ratio.Low > 1 {
			abBoot[2]++
		}
	}
	for k, q := range qs {
		t.Logf("%s: A/A %d of %d significant, 10%% slower %d of %d (bootstrap on p99: %d)", MetricName(q), aa[k], pairs, ab[k], pairs, abBoot[2])
		if aa[k] > pairs/20 || ab[k] < pairs*95/100 {
			t.Errorf("%s: A/A called different in %d of %d pairs (want <= %d), 10%% slower caught in %d (want >= %d)", MetricName(q), aa[k], pairs, pairs/20, ab[k], pairs*95/100)
		}
	}
	if abBoot[2] >= ab[2] {
		t.Errorf("p99: the bootstrap caught %d of %d, the shift %d: the stalls should blur the bootstrap's", abBoot[2], pairs, ab[2])
	}
}

// TestTypicalValue: a run's typical interval's value is the median of its intervals' own values,
// which a few stalled intervals do not move; with fewer events an interval than a value beyond
// the quantile needs, there is none.
func TestTypicalValue(t *testing.T) {
	hist := func(base int64, n int) Hist {
		h := measure.NewHistogram()
		for i := range n {
			_ = h.RecordValue(base + int64(i))
		}
		return FromHdr(h)
	}
	var hs []Hist
	for i := range 9 {
		base := int64(1000)
		if i%4 == 0 {
			base = 50000 // three stalled intervals of nine
		}
		hs = append(hs, hist(base, 200))
	}
	r := &Run{Seconds: make([]float64, len(hs)), hists: map[string]*[measure.NumKinds][]Hist{"read": {hs}}}
	v, ok := typicalValue(r, "read", measure.Response, 0.5)
	if want := float64(ValueAt(hs[1], 0.5)) / 1000; !ok || v != want {
		t.Errorf("p50 of the typical interval: %v (ok %v), want %v", v, ok, want)
	}
	if _, ok := typicalValue(r, "read", measure.Response, 0.999); ok {
		t.Errorf("p99.9 of intervals of 200 events: want none")
	}
	if _, ok := typicalValues([]*Run{r, {Seconds: []float64{1}}}, "read", measure.Response, 0.5); ok {
		t.Errorf("a run of one interval has no typical interval")
	}
}
