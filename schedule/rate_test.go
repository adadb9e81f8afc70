package schedule

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/candor-bench/candor/measure"
)

// The dispatcher's precise waits sleep in the kernel, in real time: off under synctest's fake time
// (TestPreciseWaits measures them in real time).
func init() { usePreciseWaits = false }

// fakeJob is a drawn arrival: its index and operation.
type fakeJob struct {
	i     int64
	op    int
	group int
}

func (*fakeJob) Next() (int, time.Duration) { return 0, 0 }
func (*fakeJob) Think(int) time.Duration    { return 0 }

// fakeSource draws operation op(i) of group group(i); drawing takes drawTime (fake time: a slow
// driver).
type fakeSource struct {
	op, group func(i int64) int
	drawTime  time.Duration
	mu        sync.Mutex
	jobs      int
}

func (s *fakeSource) NewJob() Terminal {
	s.mu.Lock()
	s.jobs++
	s.mu.Unlock()
	return &fakeJob{}
}

func (s *fakeSource) Draw(i int64, t Terminal) (int, int) {
	if s.drawTime > 0 {
		time.Sleep(s.drawTime)
	}
	j := t.(*fakeJob)
	j.i, j.op, j.group = i, 0, 0
	if s.op != nil {
		j.op = s.op(i)
	}
	if s.group != nil {
		j.group = s.group(i)
	}
	return j.op, j.group
}

// equiv reports whether a histogram value (µs) is d at the histograms' precision (3 digits).
func equiv(v int64, d time.Duration) bool {
	return measure.NewHistogram().ValuesAreEquivalent(v, measure.Micros(d))
}

// equivMs is equiv for a percentile in milliseconds.
func equivMs(v float64, d time.Duration) bool { return equiv(int64(v*1000+0.5), d) }

func runRate(t *testing.T, ctx context.Context, cfg RateConfig) (Summary, *RateSummary, *measure.Totals) {
	t.Helper()
	if cfg.Rec == nil {
		cfg.Rec = measure.NewRecorder(ops, 2)
	}
	if cfg.Source == nil {
		cfg.Source = &fakeSource{}
	}
	if cfg.Process == "" {
		cfg.Process = Constant
	}
	if cfg.Tick == 0 {
		cfg.Tick = 100 * time.Millisecond
	}
	sum, rs, err := RunRate(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sum, rs, cfg.Rec.Totals()
}

// Nothing waits: 10/s constant for 1 s, 2 workers, 50 ms operations. Arrivals at 0.1 .. 0.9 s (the
// one at 1.0 s is the window's end); response = service = 50 ms; no lag of either kind.
func TestRateUnloaded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sum, rs, tot := runRate(t, context.Background(), RateConfig{
			Workers: 2, Exec: constant(50 * ms), Steps: []Step{{Rate: 10, Duration: time.Second}},
			MaxBacklog: 10, Grace: time.Second,
		})
		if c := tot.Counts[0]; countsOnly(c) != (measure.Counts{Completed: 9}) {
			t.Fatalf("counts %+v, want 9 completed", c)
		}
		if sum.Incomplete != 0 || sum.Partial || sum.Dispatched != 9 {
			t.Fatalf("summary %+v", sum)
		}
		h := tot.Hist[0]
		if !equiv(h[measure.Response].Max(), 50*ms) || !equiv(h[measure.Response].Min(), 50*ms) || h[measure.Lag].Max() != 0 {
			t.Fatalf("response %d..%d µs, lag max %d; want 50 ms and 0", h[measure.Response].Min(), h[measure.Response].Max(), h[measure.Lag].Max())
		}
		st := rs.Steps[0]
		if st.Arrived != 9 || st.Completed != 9 || st.CompletedInStep != 9 || st.Dropped != 0 || !st.Sustained() || !rs.Sustained() {
			t.Fatalf("step %+v, want 9 arrived and completed in the step, sustained", st)
		}
		if st.Ops[0].Completed != 9 || !equivMs(st.Ops[0].Response.P99, 50*ms) || !equivMs(st.Ops[0].Service.P50, 50*ms) {
			t.Fatalf("step op a: %+v, want 9 at 50 ms", st.Ops[0])
		}
		if rs.Lateness.Max() != 0 || rs.ConnWait.Max() != 0 || rs.Lag.TotalCount() != 9 {
			t.Fatalf("lateness max %d, connection wait max %d, lag count %d", rs.Lateness.Max(), rs.ConnWait.Max(), rs.Lag.TotalCount())
		}
		if rs.MaxBacklogSeen != 0 || rs.CompletedInWindow != 9 {
			t.Fatalf("max backlog %d, completed in window %d", rs.MaxBacklogSeen, rs.CompletedInWindow)
		}
	})
}

// The pool saturated: one worker, operations of 100 ms (and k µs, so no completion coincides with an
// arrival), arrivals every 50 ms from 0.05 s to 0.95 s (19). Arrival k starts when arrival k-1 is
// done, at 0.05 + 0.1k s: it waited 0.05k s for the connection, and its response time, from the
// intended arrival, is 0.1 + 0.05k s, up to 1.0 s for k = 18, while every service time is 100 ms.
// The driver was never late: all the lag is connection wait. Only 9 finished inside the 1 s step,
// so the step, offered 19, was not sustained.
func TestRateSaturatedPool(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		exec := sleepExec(func(n int64, _ Terminal, _ int) time.Duration { return 100*ms + time.Microsecond })
		sum, rs, tot := runRate(t, context.Background(), RateConfig{
			Workers: 1, Exec: exec, Steps: []Step{{Rate: 20, Duration: time.Second}},
			MaxBacklog: 100, Grace: 5 * time.Second,
		})
		h := tot.Hist[0]
		if countsOnly(tot.Counts[0]) != (measure.Counts{Completed: 19}) || sum.Incomplete != 0 {
			t.Fatalf("counts %+v, want 19 completed", tot.Counts[0])
		}
		if r := h[measure.Response].Max(); r < measure.Micros(time.Second) || r > measure.Micros(1001*ms) {
			t.Errorf("response max %d µs, want 1.0 s (0.1 + 0.05 x 18)", r)
		}
		if s := h[measure.Service].Max(); !within(s, 100*ms+time.Microsecond) {
			t.Errorf("service max %d µs, want 100 ms", s)
		}
		if w := rs.ConnWait.Max(); w < measure.Micros(900*ms) || w > measure.Micros(901*ms) {
			t.Errorf("connection wait max %d µs, want 0.9 s", w)
		}
		if rs.Lateness.Max() != 0 {
			t.Errorf("timer lateness max %d µs, want 0: a worker was never free while an arrival waited", rs.Lateness.Max())
		}
		if !rs.Lag.Equals(rs.ConnWait) {
			t.Error("lag and connection wait differ although the lateness is zero")
		}
		st := rs.Steps[0]
		if st.Arrived != 19 || st.CompletedInStep != 9 || st.Sustained() || rs.Sustained() {
			t.Errorf("step: %d arrived, %d completed inside, sustained %v; want 19, 9, false", st.Arrived, st.CompletedInStep, st.Sustained())
		}
		// At 0.95 s, 19 had arrived and 9 started (the tenth starts 10 µs later): 10 waiting.
		if rs.MaxBacklogSeen != 10 || st.MaxBacklog != 10 {
			t.Errorf("deepest backlog %d (step %d), want 10", rs.MaxBacklogSeen, st.MaxBacklog)
		}
	})
}

// The backlog bound: one worker busy for 1 s per operation, 10 arrivals per second, at most 3
// waiting. Arrival 0.1 s runs; 0.2, 0.3 and 0.4 wait; 0.5 .. 0.9 find the backlog full and are
// dropped (5), counted per type and per step. The waiting ones run one after the other: the last,
// intended at 0.4 s, finishes at 4.1 s (response 3.7 s).
func TestRateBacklogBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &fakeSource{op: func(i int64) int { return int(i % 2) }}
		_, rs, tot := runRate(t, context.Background(), RateConfig{
			Source: src, Workers: 1, Exec: constant(time.Second), Steps: []Step{{Rate: 10, Duration: time.Second}},
			MaxBacklog: 3, Grace: 5 * time.Second,
		})
		completed := tot.Counts[0].Completed + tot.Counts[1].Completed
		dropped := tot.Counts[0].Dropped + tot.Counts[1].Dropped
		if completed != 4 || dropped != 5 {
			t.Fatalf("completed %d, dropped %d; want 4 and 5 (counts %+v)", completed, dropped, tot.Counts)
		}
		// Arrivals 4, 6, 8 (op a) and 5, 7 (op b) were dropped.
		if tot.Counts[0].Dropped != 3 || tot.Counts[1].Dropped != 2 {
			t.Fatalf("dropped per op %d and %d, want 3 and 2", tot.Counts[0].Dropped, tot.Counts[1].Dropped)
		}
		st := rs.Steps[0]
		if st.Arrived != 9 || st.Dropped != 5 || st.Completed != 4 || st.Sustained() || rs.Dropped != 5 {
			t.Fatalf("step %+v; want 9 arrived, 5 dropped, 4 completed, not sustained", st)
		}
		if rs.MaxBacklogSeen != 3 {
			t.Fatalf("deepest backlog %d, want the bound 3", rs.MaxBacklogSeen)
		}
		var maxResp int64
		for op := 0; op < 2; op++ {
			maxResp = max(maxResp, tot.Hist[op][measure.Response].Max())
		}
		if !within(maxResp, 3700*ms) {
			t.Fatalf("response max %d µs, want 3.7 s", maxResp)
		}
		// Job records: one per worker and backlog place, and one being drawn.
		if src.jobs > 1+3+1 {
			t.Fatalf("%d job records allocated, want at most 5", src.jobs)
		}
		// Backlog samples every 100 ms: full (3) from 0.4 s until 1.1 s.
		var full int
		for _, s := range rs.Backlog {
			if s.Depth == 3 {
				full++
			}
		}
		if full < 6 || rs.Backlog[len(rs.Backlog)-1].Depth != 0 {
			t.Fatalf("backlog samples %v: want the bound for about 0.7 s, then empty", rs.Backlog)
		}
	})
}

// The driver late while connections were free: drawing an arrival takes 150 ms (a starved driver),
// arrivals are due every 100 ms, operations take 10 ms on an idle pool. Arrival k is handed over at
// 0.15(k+1) s instead of 0.1(k+1) s: late by 0.05(k+1) s, and all of that lag is timer lateness, none
// of it connection wait. Response time still runs from the intended arrival.
func TestRateLatenessIsTheDrivers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &fakeSource{drawTime: 150 * ms}
		_, rs, tot := runRate(t, context.Background(), RateConfig{
			Source: src, Workers: 2, Exec: constant(10 * ms), Steps: []Step{{Rate: 10, Duration: time.Second}},
			MaxBacklog: 10, Grace: 5 * time.Second,
		})
		// Arrivals 0..8 (0.1 .. 0.9 s) are handed over at 0.15 .. 1.35 s.
		if tot.Counts[0].Completed != 9 {
			t.Fatalf("completed %d, want 9", tot.Counts[0].Completed)
		}
		if rs.ConnWait.Max() != 0 {
			t.Errorf("connection wait max %d µs, want 0: a connection was always free", rs.ConnWait.Max())
		}
		if l := rs.Lateness.Max(); !within(l, 450*ms) {
			t.Errorf("timer lateness max %d µs, want 0.45 s", l)
		}
		if l := rs.Lateness.Min(); !equiv(l, 50*ms) {
			t.Errorf("timer lateness min %d µs, want 50 ms", l)
		}
		if r := tot.Hist[0][measure.Response].Max(); !within(r, 460*ms) {
			t.Errorf("response max %d µs, want 0.45 s late + 10 ms", r)
		}
	})
}

// Lateness and connection wait in one arrival: one worker busy until 0.3 s with arrival 0 (due at
// 0.1 s, 200 ms long); arrival 1, due at 0.2 s, waits for the connection until 0.3 s. The dispatcher
// itself is on time, so arrival 1's lag is all connection wait (100 ms); arrival 2, due at 0.3 s,
// arrives the moment the worker finishes: no wait of either kind beyond the queue.
func TestRateSplitSumsToLag(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		exec := sleepExec(func(n int64, _ Terminal, _ int) time.Duration {
			if n == 0 {
				return 200 * ms
			}
			return 10 * ms
		})
		_, rs, _ := runRate(t, context.Background(), RateConfig{
			Workers: 1, Exec: exec, Steps: []Step{{Rate: 10, Duration: 500 * ms}},
			MaxBacklog: 10, Grace: time.Second,
		})
		// Lags: 0, 100 ms (waiting), then 0 or 10 ms (arrival 2 at 0.3 s may wait for arrival 1's
		// 10 ms), 0. The sums of the split equal the lag's.
		if !within(rs.ConnWait.Max(), 100*ms) || rs.Lateness.Max() != 0 {
			t.Fatalf("connection wait max %d µs, lateness max %d µs; want 100 ms and 0", rs.ConnWait.Max(), rs.Lateness.Max())
		}
		if rs.Lag.TotalCount() != 4 || rs.ConnWait.TotalCount() != 4 || rs.Lateness.TotalCount() != 4 {
			t.Fatalf("counts lag %d wait %d late %d, want 4 each", rs.Lag.TotalCount(), rs.ConnWait.TotalCount(), rs.Lateness.TotalCount())
		}
	})
}

// Steps: 10/s for 1 s after a 0.5 s warm-up at 10/s, then 20/s for 1 s; constant arrivals, four
// workers, 10 ms operations. The warm-up gets 0.1 .. 0.4 (4), step 1 gets 0.5 .. 1.4 (10), step 2
// gets 1.5 .. 2.45 every 50 ms (20); each step achieves its rate.
func TestRateSteps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, rs, tot := runRate(t, context.Background(), RateConfig{
			Workers: 4, Exec: constant(10 * ms), Warmup: 500 * ms,
			Steps:      []Step{{Rate: 10, Duration: time.Second}, {Rate: 20, Duration: time.Second}},
			MaxBacklog: 10, Grace: time.Second,
		})
		if rs.WarmupArrived != 4 {
			t.Errorf("warm-up arrivals %d, want 4", rs.WarmupArrived)
		}
		if len(rs.Steps) != 2 || rs.Steps[0].Arrived != 10 || rs.Steps[1].Arrived != 20 {
			t.Fatalf("steps %+v, want 10 and 20 arrivals", rs.Steps)
		}
		for k, want := range []float64{10, 20} {
			st := rs.Steps[k]
			if st.AchievedRate() != want || st.OfferedRate() != want || st.Rate != want || !st.Sustained() {
				t.Errorf("step %d: achieved %g offered %g target %g sustained %v; want %g", k, st.AchievedRate(), st.OfferedRate(), st.Rate, st.Sustained(), want)
			}
			if !equivMs(st.Ops[0].Response.P99, 10*ms) {
				t.Errorf("step %d: response p99 %g ms, want 10", k, st.Ops[0].Response.P99)
			}
		}
		if rs.Steps[0].Start != 500*ms || rs.Steps[1].End != 2500*ms {
			t.Errorf("steps span %v..%v, want 0.5 s .. 2.5 s", rs.Steps[0].Start, rs.Steps[1].End)
		}
		if tot.Counts[0].Completed != 30 || rs.Arrived != 30 || rs.CompletedInWindow != 30 {
			t.Errorf("measured %d, arrived %d, completed in window %d; want 30", tot.Counts[0].Completed, rs.Arrived, rs.CompletedInWindow)
		}
	})
}

// Cancellation: stop at 1.05 s with one 1 s operation in flight (arrival 0.1 s, running since
// 0.1 s... until 1.1 s, within the grace period) and the arrivals of 0.2 .. 1.0 s waiting: those are
// incomplete, counted, and the result is partial.
func TestRateCancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 1050*ms)
		defer cancel()
		sum, rs, tot := runRate(t, ctx, RateConfig{
			Workers: 1, Exec: constant(time.Second), Steps: []Step{{Rate: 10, Duration: 10 * time.Second}},
			MaxBacklog: 100, Grace: time.Second,
		})
		if !sum.Partial || !sum.MeasureEnd.Equal(t0.Add(1050*ms)) {
			t.Fatalf("summary %+v: want partial, ending at 1.05 s", sum)
		}
		if countsOnly(tot.Counts[0]) != (measure.Counts{Completed: 1, Incomplete: 9}) || sum.Incomplete != 9 {
			t.Fatalf("counts %+v, incomplete %d; want 1 completed, 9 incomplete", tot.Counts[0], sum.Incomplete)
		}
		if rs.Steps[0].Incomplete != 9 || rs.Steps[0].Arrived != 10 {
			t.Fatalf("step %+v", rs.Steps[0])
		}
	})
}

// Groups: arrivals of group g run only on workers of group g.
func TestRateGroups(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		groups := []int{0, 1, 1}
		var mu sync.Mutex
		wrong := 0
		exec := ExecutorFunc(func(ctx context.Context, w int, st Terminal, op int, _ bool) Outcome {
			mu.Lock()
			if groups[w] != st.(*fakeJob).group {
				wrong++
			}
			mu.Unlock()
			time.Sleep(20 * ms)
			return Outcome{}
		})
		src := &fakeSource{group: func(i int64) int { return int(i % 2) }}
		_, rs, tot := runRate(t, context.Background(), RateConfig{
			Source: src, Workers: 3, WorkerGroup: groups, Exec: exec, Steps: []Step{{Rate: 100, Duration: time.Second}},
			MaxBacklog: 100, Grace: time.Second,
		})
		if wrong != 0 {
			t.Fatalf("%d arrivals ran on a worker of another group", wrong)
		}
		if tot.Counts[0].Completed != 99 || rs.Incomplete != 0 {
			t.Fatalf("completed %d, incomplete %d; want 99, 0", tot.Counts[0].Completed, rs.Incomplete)
		}
	})
}

func TestRateConfigErrors(t *testing.T) {
	rec := measure.NewRecorder(ops, 1)
	base := RateConfig{Source: &fakeSource{}, Workers: 1, Exec: constant(0), Rec: rec, Process: Poisson,
		Steps: []Step{{Rate: 1, Duration: time.Second}}, Tick: time.Second}
	bad := []func(c *RateConfig){
		func(c *RateConfig) { c.Workers = 0 },
		func(c *RateConfig) { c.Steps = nil },
		func(c *RateConfig) { c.Steps = []Step{{Rate: 0, Duration: time.Second}} },
		func(c *RateConfig) { c.Process = "bursty" },
		func(c *RateConfig) { c.MaxBacklog = -1 },
		func(c *RateConfig) { c.Tick = 0 },
		func(c *RateConfig) { c.WorkerGroup = []int{0, 1} },
	}
	for i, f := range bad {
		c := base
		f(&c)
		if _, _, err := RunRate(context.Background(), c); err == nil {
			t.Errorf("case %d: no error", i)
		}
	}
}

// BenchmarkRateOverhead is the open-loop dispatcher's own CPU per arrival (drawing excluded: the
// fake source does nothing) at 100,000 arrivals per second on two workers with a no-op executor:
// a timer per arrival when the dispatcher is ahead, a hand-off to a worker, the recording.
func BenchmarkRateOverhead(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exec := stopAfter(int64(b.N), cancel)
	rec := measure.NewRecorder(ops, 2)
	cpu0 := cpuTime()
	b.ResetTimer()
	sum, rs, err := RunRate(ctx, RateConfig{Source: &fakeSource{}, Workers: 2, Exec: exec, Rec: rec, Process: Poisson,
		Steps: []Step{{Rate: 100000, Duration: time.Hour}}, MaxBacklog: 1000, Tick: time.Second})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(sum.Dispatched), "cpu-ns/op")
	b.ReportMetric(float64(measure.ValueAt(rs.Lateness, measure.Q50)), "p50-late-µs")
	b.ReportMetric(float64(measure.ValueAt(rs.Lateness, measure.Q99)), "p99-late-µs")
}
