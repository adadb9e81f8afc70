package measure

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/driver"
)

var testOps = []string{"new_order", "payment", "order_status"}

func TestMicrosRoundsUp(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int64
	}{
		{-time.Second, 0}, {0, 0}, {1, 1}, {999, 1}, {time.Microsecond, 1}, {time.Microsecond + 1, 2},
		{time.Millisecond, 1000}, {time.Millisecond + 1, 1001}, {time.Hour, HighestMicros},
	} {
		if got := Micros(c.d); got != c.want {
			t.Errorf("Micros(%v) = %d, want %d", c.d, got, c.want)
		}
	}
}

func TestQuantileConversionIsPercent(t *testing.T) {
	if got := Q99.Percent(); got != 99 {
		t.Fatalf("Q99.Percent() = %v, want 99", got)
	}
	if got := Quantile(0.5).Percent(); got != 50 {
		t.Fatalf("Quantile(0.5).Percent() = %v, want 50", got)
	}
}

// within reports whether got (a bucket's highest equivalent value) is want within the 3-digit
// precision: want <= got <= want*1.001 + 1.
func within(got, want float64) bool {
	return got >= want && got <= want*1.001+0.001
}

func TestSummarizeUniform(t *testing.T) {
	h := NewHistogram()
	for v := int64(1); v <= 10000; v++ { // 1 µs .. 10 ms, one each
		record(h, v)
	}
	p := Summarize(h)
	// rank = q * 10000, so the value at q is q*10000 µs = q*10 ms.
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"p50", p.P50, 5}, {"p90", p.P90, 9}, {"p95", p.P95, 9.5}, {"p99", p.P99, 9.9},
		{"p99.9", p.P999, 9.99}, {"p99.99", p.P9999, 9.999}, {"max", p.Max, 10},
	} {
		if !within(c.got, c.want) {
			t.Errorf("%s = %v ms, want %v ms (within 0.1%%)", c.name, c.got, c.want)
		}
	}
	if p.Mean < 5.0 || p.Mean > 5.01 {
		t.Errorf("mean = %v ms, want about 5.0005", p.Mean)
	}
}

// TestValueAtMatchesExactQuantiles: for 100,000 exponential values, ValueAt(q) is the exact
// value at rank round(q*n) (HdrHistogram's rank rule) within the 3-digit precision.
func TestValueAtMatchesExactQuantiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n = 100000
	vals := make([]int64, n)
	h := NewHistogram()
	for i := range vals {
		vals[i] = 1 + int64(rng.ExpFloat64()*20000) // mean 20 ms
		record(h, vals[i])
	}
	slices.Sort(vals)
	for _, q := range []Quantile{Q50, Q90, Q95, Q99, Q999, Q9999, 1} {
		rank := int(math.Floor(float64(q)*n + 0.5)) // 1-based
		want := vals[rank-1]
		got := ValueAt(h, q)
		if !h.ValuesAreEquivalent(got, want) {
			t.Errorf("q %v: ValueAt %d µs, exact %d µs", q, got, want)
		}
	}
}

func TestSummarizeBimodal(t *testing.T) {
	// 9,900 values of 1 ms and 100 of 2 s: p99 is the last of the fast ones, p99.9 a slow one.
	h := NewHistogram()
	h.RecordValues(1000, 9900)
	h.RecordValues(2_000_000, 100)
	p := Summarize(h)
	if !within(p.P50, 1) || !within(p.P99, 1) {
		t.Errorf("p50 = %v, p99 = %v; want 1 ms", p.P50, p.P99)
	}
	if !within(p.P999, 2000) || !within(p.P9999, 2000) || !within(p.Max, 2000) {
		t.Errorf("p99.9 = %v, p99.99 = %v, max = %v; want 2000 ms", p.P999, p.P9999, p.Max)
	}
	if empty := Summarize(NewHistogram()); empty != (Percentiles{}) {
		t.Errorf("empty histogram summary = %+v, want zeros", empty)
	}
}

func TestOverflowIsCounted(t *testing.T) {
	r := NewRecorder(testOps, 1)
	r.Begin(time.Unix(0, 0), time.Unix(0, 0), time.Unix(100, 0))
	s := r.Stripe(0)
	s.Done(0, true, Event{Response: 2 * time.Hour, Service: time.Millisecond, Lag: 2*time.Hour - time.Millisecond})
	s.Done(0, true, Event{Response: time.Millisecond, Service: time.Millisecond})
	r.Tick(time.Unix(1, 0))
	tot := r.Totals()
	if got := tot.Counts[0].Overflow; got != 2 {
		t.Fatalf("overflow = %d, want 2 (response and lag above one hour)", got)
	}
	h := tot.Hist[0][Response]
	if h.TotalCount() != 2 {
		t.Fatalf("response count = %d, want 2: an overflowing value must still be recorded", h.TotalCount())
	}
	if max := h.Max(); !h.ValuesAreEquivalent(max, HighestMicros) {
		t.Fatalf("response max = %d µs, want the highest trackable value %d", max, HighestMicros)
	}
}

func TestErrorsKeptApart(t *testing.T) {
	r := NewRecorder(testOps, 2)
	s := r.Stripe(1)
	s.Done(1, true, Event{Response: 5 * time.Millisecond, Service: 4 * time.Millisecond, Lag: time.Millisecond, Retries: 2, Err: true, Reconnects: 1})
	s.Done(1, true, Event{Response: 3 * time.Millisecond, Service: 3 * time.Millisecond, RolledBack: true, Retries: 1})
	r.Tick(time.Now())
	tot := r.Totals()
	c := tot.Counts[1]
	want := Counts{Completed: 1, Errors: 1, Rollbacks: 1, Retries: 3, Reconnects: 1}
	want.Failures[driver.FailStatement] = 1 // recorded without a class
	if c != want {
		t.Fatalf("counts = %+v, want %+v", c, want)
	}
	for k, n := range map[Kind]int64{Response: 1, Service: 1, Lag: 2, ErrorResponse: 1} {
		if got := tot.Hist[1][k].TotalCount(); got != n {
			t.Errorf("%s count = %d, want %d", k, got, n)
		}
	}
	if got := ValueAt(tot.Hist[1][ErrorResponse], Q50); !tot.Hist[1][ErrorResponse].ValuesAreEquivalent(got, 5000) {
		t.Errorf("error response p50 = %d µs, want 5000", got)
	}
	if got := ValueAt(tot.Hist[1][Response], Q50); !tot.Hist[1][Response].ValuesAreEquivalent(got, 3000) {
		t.Errorf("response p50 = %d µs, want 3000 (the error's 5 ms must not be in it)", got)
	}
}

type fed struct {
	op       int
	measured bool
	e        Event
}

func randomEvents(rng *rand.Rand, n int) []fed {
	evs := make([]fed, n)
	for i := range evs {
		svc := time.Duration(rng.ExpFloat64() * float64(5*time.Millisecond))
		lag := time.Duration(rng.ExpFloat64() * float64(time.Millisecond))
		evs[i] = fed{
			op:       rng.IntN(len(testOps)),
			measured: rng.IntN(4) != 0,
			e:        Event{Response: svc + lag, Service: svc, Lag: lag, Err: rng.IntN(50) == 0, Retries: rng.IntN(2)},
		}
	}
	return evs
}

// TestStripesMergeExactly: events spread over stripes and ticks give totals equal, bucket by bucket,
// to one histogram fed with every measured event; and the intervals add up to every event.
func TestStripesMergeExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	evs := randomEvents(rng, 20000)
	r := NewRecorder(testOps, 4)
	wantTot := NewTotals(testOps)
	wantAll := NewTotals(testOps)
	gotAll := NewTotals(testOps)
	one := NewRecorder(testOps, 1) // reference: the same events through a single stripe
	for i, f := range evs {
		r.Stripe(i).Done(f.op, f.measured, f.e)
		one.Stripe(0).Done(f.op, f.measured, f.e)
		feed := func(tt *Totals) {
			h := &tt.Hist[f.op]
			if f.e.Err {
				record(h[ErrorResponse], Micros(f.e.Response))
			} else {
				record(h[Response], Micros(f.e.Response))
				record(h[Service], Micros(f.e.Service))
			}
			record(h[Lag], Micros(f.e.Lag))
		}
		feed(wantAll)
		if f.measured {
			feed(wantTot)
		}
		if i%3000 == 2999 {
			iv := r.Tick(time.Now())
			for op := range iv.Hist {
				for k := range iv.Hist[op] {
					if err := Merge(gotAll.Hist[op][k], iv.Hist[op][k]); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	iv := r.Tick(time.Now())
	for op := range iv.Hist {
		for k := range iv.Hist[op] {
			if err := Merge(gotAll.Hist[op][k], iv.Hist[op][k]); err != nil {
				t.Fatal(err)
			}
		}
	}
	one.Tick(time.Now())
	tot, ref := r.Totals(), one.Totals()
	for op := range testOps {
		for k := range NumKinds {
			if !tot.Hist[op][k].Equals(wantTot.Hist[op][k]) {
				t.Errorf("%s.%s: striped totals differ from one histogram fed with every measured event", testOps[op], k)
			}
			if !tot.Hist[op][k].Equals(ref.Hist[op][k]) {
				t.Errorf("%s.%s: 4 stripes differ from 1 stripe", testOps[op], k)
			}
			if !gotAll.Hist[op][k].Equals(wantAll.Hist[op][k]) {
				t.Errorf("%s.%s: intervals do not add up to every event", testOps[op], k)
			}
		}
		if tot.Counts[op] != ref.Counts[op] {
			t.Errorf("%s: counts %+v, one stripe %+v", testOps[op], tot.Counts[op], ref.Counts[op])
		}
	}
}

func TestMeasuredAndWarmupAreSeparate(t *testing.T) {
	t0 := time.Unix(1000, 0)
	r := NewRecorder(testOps, 2)
	r.Begin(t0, t0.Add(10*time.Second), t0.Add(20*time.Second))
	// Warm-up: 7 slow events, not measured.
	for i := range 7 {
		r.Stripe(i).Done(0, false, Event{Response: time.Second, Service: time.Second})
	}
	iv := r.Tick(t0.Add(10 * time.Second))
	if iv.Phase != PhaseWarmup || iv.Counts[0].Completed != 7 || iv.Measured[0].Completed != 0 {
		t.Fatalf("warm-up interval: phase %v, completed %d, measured %d; want warmup, 7, 0", iv.Phase, iv.Counts[0].Completed, iv.Measured[0].Completed)
	}
	if n := iv.Hist[0][Response].TotalCount(); n != 7 {
		t.Fatalf("warm-up interval histogram holds %d, want 7 (intervals include warm-up)", n)
	}
	// A boundary interval mixes both: 3 measured fast, 2 unmeasured slow (dispatched in warm-up).
	for i := range 3 {
		r.Stripe(i).Done(0, true, Event{Response: time.Millisecond, Service: time.Millisecond})
	}
	r.Stripe(0).Done(0, false, Event{Response: time.Second, Service: time.Second})
	r.Stripe(1).Incomplete(0, false)
	r.Stripe(1).Incomplete(0, true)
	iv = r.Tick(t0.Add(11 * time.Second))
	if iv.Phase != PhaseMeasure || iv.Counts[0].Completed != 4 || iv.Measured[0].Completed != 3 {
		t.Fatalf("boundary interval: phase %v, completed %d, measured %d; want measure, 4, 3", iv.Phase, iv.Counts[0].Completed, iv.Measured[0].Completed)
	}
	if iv = r.Tick(t0.Add(20 * time.Second)); iv.Phase != PhaseMeasure {
		t.Fatalf("interval [11 s, 20 s): phase %v, want measure", iv.Phase)
	}
	if iv = r.Tick(t0.Add(21 * time.Second)); iv.Phase != PhaseDrain {
		t.Fatalf("interval after the window: phase %v, want drain", iv.Phase)
	}
	tot := r.Totals()
	if c := tot.Counts[0]; c.Completed != 3 || c.Incomplete != 1 {
		t.Fatalf("totals: %+v; want 3 completed and 1 incomplete, the measured ones only", c)
	}
	if max := tot.Hist[0][Response].Max(); max > 1001 {
		t.Fatalf("totals response max = %d µs: warm-up's 1 s events leaked into the measured totals", max)
	}
}

func TestTotalsIsACopy(t *testing.T) {
	r := NewRecorder(testOps, 1)
	r.Stripe(0).Done(0, true, Event{Response: time.Millisecond})
	r.Tick(time.Now())
	tot := r.Totals()
	r.Stripe(0).Done(0, true, Event{Response: time.Millisecond})
	r.Tick(time.Now())
	if tot.Counts[0].Completed != 1 || tot.Hist[0][Response].TotalCount() != 1 {
		t.Fatal("a later Tick changed Totals returned earlier")
	}
	if r.Totals().Counts[0].Completed != 2 {
		t.Fatal("totals did not accumulate across ticks")
	}
}

func TestMergeTotals(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	evs := randomEvents(rng, 5000)
	a, b, all := NewRecorder(testOps, 2), NewRecorder(testOps, 3), NewRecorder(testOps, 1)
	for i, f := range evs {
		if i%2 == 0 {
			a.Stripe(i).Done(f.op, f.measured, f.e)
		} else {
			b.Stripe(i).Done(f.op, f.measured, f.e)
		}
		all.Stripe(0).Done(f.op, f.measured, f.e)
	}
	a.Tick(time.Now())
	b.Tick(time.Now())
	all.Tick(time.Now())
	got := NewTotals(testOps)
	for _, r := range []*Recorder{a, b} {
		if err := MergeTotals(got, r.Totals()); err != nil {
			t.Fatal(err)
		}
	}
	want := all.Totals()
	for op := range testOps {
		for k := range NumKinds {
			if !got.Hist[op][k].Equals(want.Hist[op][k]) {
				t.Errorf("%s.%s: merged totals differ", testOps[op], k)
			}
		}
		if got.Counts[op] != want.Counts[op] {
			t.Errorf("%s: merged counts %+v, want %+v", testOps[op], got.Counts[op], want.Counts[op])
		}
	}
	if err := MergeTotals(got, NewTotals([]string{"a", "b", "c"})); err == nil {
		t.Error("merging totals of different operations: no error")
	}
	other := NewTotals(testOps)
	other.Hist[0][Lag] = hdr.New(1, 1000, 2)
	if err := MergeTotals(got, other); err == nil {
		t.Error("merging a histogram of another geometry: no error")
	}
}

func TestLogRoundTrip(t *testing.T) {
	t0 := time.UnixMilli(1_700_000_000_250)
	r := NewRecorder(testOps, 2)
	r.Begin(t0, t0, t0.Add(time.Hour))
	rng := rand.New(rand.NewPCG(5, 6))
	var buf bytes.Buffer
	lw, err := NewLogWriter(&buf, t0, "candor test\nseed 1")
	if err != nil {
		t.Fatal(err)
	}
	var want []*Interval
	for tick := 1; tick <= 3; tick++ {
		for i, f := range randomEvents(rng, 2000) {
			if f.op == 2 && tick == 2 {
				continue // an interval where order_status completes nothing
			}
			r.Stripe(i).Done(f.op, true, f.e)
		}
		iv := r.Tick(t0.Add(time.Duration(tick) * time.Second))
		if err := lw.Write(iv); err != nil {
			t.Fatal(err)
		}
		want = append(want, iv.Clone())
	}
	tot := r.Totals()
	if err := lw.WriteTotals(tot, t0, t0.Add(3*time.Second)); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, s := range []string{"#candor test\n#seed 1\n", "#[Histogram log format version 1.3]", "#[StartTime: 1700000000 ", "#[BaseTime: 1700000000 ", "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"", "Tag=new_order.response,0.250000,1.000000,"} {
		if !strings.Contains(text, s) {
			t.Errorf("log lacks %q:\n%.600s", s, text)
		}
	}
	entries, err := ReadLog(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		tag   string
		start int64
	}
	got := map[key]LogEntry{}
	for _, e := range entries {
		got[key{e.Tag, e.Start.UnixMilli()}] = e
	}
	for i, iv := range want {
		for op := range iv.Hist {
			for k, h := range iv.Hist[op] {
				tag := testOps[op] + "." + Kind(k).String()
				e, ok := got[key{tag, iv.Start.UnixMilli()}]
				if !ok {
					e, ok = got[key{tag, iv.Start.UnixMilli() - 1}] // float seconds: 1 ms either way
				}
				if h.TotalCount() == 0 && Kind(k) != Response {
					if ok {
						t.Errorf("interval %d %s: empty histogram was written", i, tag)
					}
					continue
				}
				if !ok {
					t.Errorf("interval %d %s: not in the log", i, tag)
					continue
				}
				if e.Op != testOps[op] || e.Kind != Kind(k) || e.Measured {
					t.Errorf("%s parsed as op %q kind %v measured %v", tag, e.Op, e.Kind, e.Measured)
				}
				if !e.Hist.Equals(h) {
					t.Errorf("interval %d %s: histogram differs after the round trip", i, tag)
				}
				if d := e.End.Sub(iv.End); d < -time.Millisecond || d > time.Millisecond {
					t.Errorf("interval %d %s: end %v, want %v", i, tag, e.End, iv.End)
				}
			}
		}
	}
	// The measured totals come back too, and merging the intervals gives the same histogram.
	sum := NewTotals(testOps)
	for _, e := range entries {
		if e.Kind < 0 {
			t.Fatalf("tag %q not parsed", e.Tag)
		}
		op := map[string]int{"new_order": 0, "payment": 1, "order_status": 2}[e.Op]
		if e.Measured {
			if !e.Hist.Equals(tot.Hist[op][e.Kind]) {
				t.Errorf("measured %s.%s differs after the round trip", e.Op, e.Kind)
			}
			continue
		}
		if err := Merge(sum.Hist[op][e.Kind], e.Hist); err != nil {
			t.Fatal(err)
		}
	}
	for op := range testOps {
		for k := range NumKinds {
			if !sum.Hist[op][k].Equals(tot.Hist[op][k]) {
				t.Errorf("%s.%s: merged log intervals differ from the totals", testOps[op], k)
			}
		}
	}
}

// TestConcurrentRecordingAndTicks is meant for -race: writers record while ticks happen; nothing is
// lost or counted twice.
func TestConcurrentRecordingAndTicks(t *testing.T) {
	const writers, perWriter = 6, 5000
	r := NewRecorder(testOps, 3)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var intervals Counts
	var ivMeasured int64
	tickerDone := make(chan struct{})
	go func() {
		defer close(tickerDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			iv := r.Tick(time.Now())
			for op := range iv.Counts {
				intervals.Add(iv.Counts[op])
				ivMeasured += iv.Measured[op].Completed
				if iv.Hist[op][Response].TotalCount() != iv.Counts[op].Completed {
					t.Errorf("interval %s: %d responses for %d completions", testOps[op], iv.Hist[op][Response].TotalCount(), iv.Counts[op].Completed)
				}
			}
			time.Sleep(200 * time.Microsecond)
		}
	}()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := r.Stripe(w)
			for i := range perWriter {
				s.Done(i%len(testOps), i%2 == 0, Event{Response: time.Duration(i) * time.Microsecond, Service: time.Microsecond})
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-tickerDone
	iv := r.Tick(time.Now())
	for op := range iv.Counts {
		intervals.Add(iv.Counts[op])
		ivMeasured += iv.Measured[op].Completed
	}
	if intervals.Completed != writers*perWriter {
		t.Fatalf("intervals hold %d completions, want %d", intervals.Completed, writers*perWriter)
	}
	var totCompleted, totHist int64
	tot := r.Totals()
	for op := range tot.Counts {
		totCompleted += tot.Counts[op].Completed
		totHist += tot.Hist[op][Response].TotalCount()
	}
	if want := int64(writers * perWriter / 2); totCompleted != want || totHist != want || ivMeasured != want {
		t.Fatalf("measured: totals %d, totals histograms %d, intervals %d; want %d", totCompleted, totHist, ivMeasured, want)
	}
}

func TestRecordingAndTicksDoNotAllocate(t *testing.T) {
	r := NewRecorder(testOps, 2)
	s := r.Stripe(0)
	e := Event{Response: 3 * time.Millisecond, Service: 2 * time.Millisecond, Lag: time.Millisecond}
	if n := testing.AllocsPerRun(1000, func() { s.Done(1, true, e) }); n != 0 {
		t.Errorf("Stripe.Done allocates %v times per call", n)
	}
	now := time.Now()
	r.Tick(now) // warm-up
	if n := testing.AllocsPerRun(20, func() {
		s.Done(1, true, e)
		r.Stripe(1).Done(2, false, e)
		r.Tick(now)
	}); n != 0 {
		t.Errorf("Tick allocates %v times per call", n)
	}
}

func TestNewRecorderRejectsBadNames(t *testing.T) {
	for _, ops := range [][]string{nil, {""}, {"a", "a"}, {"new order"}, {"a,b"}, {"a.b"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewRecorder(%q) did not panic", ops)
				}
			}()
			NewRecorder(ops, 1)
		}()
	}
}

func BenchmarkStripeDone(b *testing.B) {
	r := NewRecorder(testOps, 1)
	s := r.Stripe(0)
	e := Event{Response: 3 * time.Millisecond, Service: 2 * time.Millisecond, Lag: time.Millisecond}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e.Service = time.Duration(i&0xffff) * time.Microsecond
		s.Done(i%3, true, e)
	}
}

// BenchmarkTick: one tick of 3 ops, 2 stripes, with about a thousand events per tick.
func BenchmarkTick(b *testing.B) {
	r := NewRecorder(testOps, 2)
	rng := rand.New(rand.NewPCG(7, 8))
	evs := randomEvents(rng, 1000)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for i, f := range evs {
			r.Stripe(i).Done(f.op, f.measured, f.e)
		}
		b.StartTimer()
		r.Tick(time.Now())
	}
}

// TestPhaseOfLateTicks: ticks fire a little late, so the warm-up's last interval ends a few
// milliseconds into the window and the window's last one a few after it: each is labelled by
// where most of it lies (warmup, then measure), and what counts is still Measured's.
func TestPhaseOfLateTicks(t *testing.T) {
	t0 := time.Unix(1000, 0)
	r := NewRecorder(testOps, 1)
	r.Begin(t0, t0.Add(10*time.Second), t0.Add(20*time.Second))
	late := 3 * time.Millisecond
	for _, c := range []struct {
		end  time.Duration
		want Phase
	}{
		{5*time.Second + late, PhaseWarmup},
		{10*time.Second + late, PhaseWarmup},
		{15*time.Second + late, PhaseMeasure},
		{20*time.Second + late, PhaseMeasure},
		{20*time.Second + 400*time.Millisecond, PhaseDrain},
	} {
		if iv := r.Tick(t0.Add(c.end)); iv.Phase != c.want {
			t.Errorf("the interval ending at %v: %v, want %v", c.end, iv.Phase, c.want)
		}
	}
}
