package schedule

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/userr"
)

var ops = []string{"a", "b", "c"}

// term is a terminal with fixed timing: the first keying, then keying and think on every cycle.
type term struct {
	op                   int
	first, keying, think time.Duration
	started              bool
}

func (t *term) Next() (int, time.Duration) {
	if !t.started {
		t.started = true
		return t.op, t.first
	}
	return t.op, t.keying
}

func (t *term) Think(int) time.Duration { return t.think }

// sleepExec runs every operation for d(n), n counting dispatches from 0; it honours ctx.
func sleepExec(d func(n int64, t Terminal, op int) time.Duration) Executor {
	var n atomic.Int64
	return ExecutorFunc(func(ctx context.Context, _ int, t Terminal, op int, _ bool) Outcome {
		tm := time.NewTimer(d(n.Add(1)-1, t, op))
		defer tm.Stop()
		select {
		case <-tm.C:
			return Outcome{}
		case <-ctx.Done():
			return Outcome{Err: ctx.Err()}
		}
	})
}

func constant(d time.Duration) Executor {
	return sleepExec(func(int64, Terminal, int) time.Duration { return d })
}

func runCfg(t *testing.T, cfg Config) (Summary, *measure.Totals, []*measure.Interval) {
	t.Helper()
	return runCtx(t, context.Background(), cfg)
}

func runCtx(t *testing.T, ctx context.Context, cfg Config) (Summary, *measure.Totals, []*measure.Interval) {
	t.Helper()
	if cfg.Rec == nil {
		cfg.Rec = measure.NewRecorder(ops, 2)
	}
	if cfg.Tick == 0 {
		cfg.Tick = time.Second
	}
	var ivs []*measure.Interval
	cfg.OnTick = func(iv *measure.Interval) { ivs = append(ivs, iv.Clone()) }
	sum, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sum, cfg.Rec.Totals(), ivs
}

func within(got int64, want time.Duration) bool {
	w := measure.Micros(want)
	return got >= w && float64(got) <= float64(w)*1.001+1
}

// (a) One terminal, keying 1 s, think 2 s, service 100 ms, window [0, 10 s):
// intended 1.0 (done 1.1), 1.1+2+1 = 4.1 (done 4.2), 4.2+3 = 7.2 (done 7.3), 7.3+3 = 10.3: not in the
// window. So exactly 3 operations, each with response = service = 100 ms and lag 0.
func TestOneTerminalArithmetic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		sum, tot, ivs := runCfg(t, Config{
			Terminals: []Terminal{&term{first: time.Second, keying: time.Second, think: 2 * time.Second}},
			Workers:   1, Exec: constant(100 * time.Millisecond),
			Measure: 10 * time.Second, Grace: time.Second,
		})
		if c := tot.Counts[0]; countsOnly(c) != (measure.Counts{Completed: 3}) {
			t.Fatalf("counts %+v, want 3 completed", c)
		}
		if sum.Dispatched != 3 || sum.Completed != 3 || sum.Incomplete != 0 || sum.Partial {
			t.Fatalf("summary %+v", sum)
		}
		if !sum.Start.Equal(t0) || sum.MeasureStart != t0 || !sum.MeasureEnd.Equal(t0.Add(10*time.Second)) || !sum.End.Equal(t0.Add(10*time.Second)) {
			t.Fatalf("summary times %+v (start %v)", sum, t0)
		}
		h := tot.Hist[0]
		if !h[measure.Response].Equals(h[measure.Service]) {
			t.Fatal("response and service histograms differ with nothing to wait for")
		}
		if v := measure.ValueAt(h[measure.Response], measure.Q50); !within(v, 100*time.Millisecond) {
			t.Fatalf("response p50 %d µs, want 100 ms", v)
		}
		if h[measure.Lag].TotalCount() != 3 || h[measure.Lag].Max() != 0 {
			t.Fatalf("lag: %d values, max %d µs; want 3 values of 0", h[measure.Lag].TotalCount(), h[measure.Lag].Max())
		}
		var n int64
		for _, iv := range ivs {
			n += iv.Completed()
		}
		if n != 3 || len(ivs) < 10 || !ivs[len(ivs)-1].End.Equal(sum.End) {
			t.Fatalf("%d intervals with %d completions, last ends %v; want >= 10 intervals, 3 completions, ending at %v", len(ivs), n, ivs[len(ivs)-1].End, sum.End)
		}
	})
}

// (b) Coordinated omission: one worker, 50 terminals thinking 200 ms, service 1 ms, and one
// operation that stalls 2 s. The 49 terminals that came due during the stall waited for it, so the
// response-time tail shows the stall; the service-time tail does not.
func TestStallShowsInResponseNotService(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		terms := make([]Terminal, 50)
		for i := range terms {
			terms[i] = &term{first: time.Duration(i) * 4 * time.Millisecond, think: 200 * time.Millisecond}
		}
		exec := sleepExec(func(n int64, _ Terminal, _ int) time.Duration {
			if n == 500 {
				return 2 * time.Second
			}
			return time.Millisecond
		})
		_, tot, _ := runCfg(t, Config{Terminals: terms, Workers: 1, Exec: exec, Measure: 8 * time.Second, Grace: 5 * time.Second})
		h := tot.Hist[0]
		n := h[measure.Response].TotalCount()
		svc99, resp99 := measure.ValueAt(h[measure.Service], measure.Q99), measure.ValueAt(h[measure.Response], measure.Q99)
		t.Logf("%d operations; p99 service %d µs, response %d µs, lag %d µs", n, svc99, resp99, measure.ValueAt(h[measure.Lag], measure.Q99))
		if n < 1000 {
			t.Fatalf("only %d operations", n)
		}
		if !within(svc99, time.Millisecond) {
			t.Errorf("service p99 = %d µs, want 1 ms: the stall is one operation", svc99)
		}
		if resp99 < measure.Micros(1500*time.Millisecond) || resp99 > measure.Micros(2100*time.Millisecond) {
			t.Errorf("response p99 = %d µs, want about the 2 s stall", resp99)
		}
		if lag99 := measure.ValueAt(h[measure.Lag], measure.Q99); lag99 < measure.Micros(1500*time.Millisecond) {
			t.Errorf("lag p99 = %d µs, want about the stall", lag99)
		}
		if max := h[measure.Service].Max(); !within(max, 2*time.Second) {
			t.Errorf("service max = %d µs, want the 2 s stall itself", max)
		}
	})
}

// (c) Warm-up 1 s, window [1 s, 3 s), one terminal in no-wait mode with 150 ms operations:
// intended 0, 0.15, ..., 0.90 are warm-up (7; the one at 0.90 completes at 1.05, inside the window,
// and still does not count); 1.05 + 0.15k < 3.0 for k = 0..12 are measured (13).
func TestWarmupExcluded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sum, tot, ivs := runCfg(t, Config{
			Terminals: []Terminal{&term{}}, Workers: 1, Exec: constant(150 * time.Millisecond),
			Warmup: time.Second, Measure: 2 * time.Second, Grace: time.Second,
		})
		if c := tot.Counts[0]; countsOnly(c) != (measure.Counts{Completed: 13}) {
			t.Fatalf("measured counts %+v, want 13 completed", c)
		}
		if tot.Hist[0][measure.Response].TotalCount() != 13 {
			t.Fatalf("measured histogram holds %d, want 13", tot.Hist[0][measure.Response].TotalCount())
		}
		var all, measured int64
		for _, iv := range ivs {
			all += iv.Counts[0].Completed
			measured += iv.Measured[0].Completed
		}
		if all != 20 || measured != 13 || sum.Dispatched != 20 {
			t.Fatalf("intervals: %d completions (%d measured), %d dispatched; want 20 (13), 20", all, measured, sum.Dispatched)
		}
		if ivs[0].Phase != measure.PhaseWarmup {
			t.Fatalf("first interval phase %v, want warmup", ivs[0].Phase)
		}
	})
}

// (c) The window's edges: an intended start exactly at the window's start is measured, one just
// before is not, and one exactly at its end is never dispatched (and is not incomplete either: it
// never arrived inside the run).
func TestWindowEdges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		never := time.Hour
		sum, tot, ivs := runCfg(t, Config{
			Terminals: []Terminal{
				&term{op: 0, first: time.Second, think: never},
				&term{op: 1, first: 3 * time.Second, think: never},
				&term{op: 2, first: time.Second - 1, think: never},
			},
			Workers: 3, Exec: constant(10 * time.Millisecond),
			Warmup: time.Second, Measure: 2 * time.Second, Grace: time.Second,
		})
		if tot.Counts[0].Completed != 1 || countsOnly(tot.Counts[1]) != (measure.Counts{}) || countsOnly(tot.Counts[2]) != (measure.Counts{}) {
			t.Fatalf("measured counts %+v, want only op a", tot.Counts)
		}
		// TPC-C's clause 5.4 counts completions inside the window: op c, meant to start just before
		// it, completes inside it; op b, meant to start at its end, completes after it.
		if in := []int64{tot.Counts[0].CompletedInWindow, tot.Counts[1].CompletedInWindow, tot.Counts[2].CompletedInWindow}; in[0] != 1 || in[1] != 0 || in[2] != 1 {
			t.Fatalf("completed inside the window %v, want [1 0 1]", in)
		}
		var c measure.Counts
		for _, iv := range ivs {
			c.Add(iv.Counts[2])
		}
		if c.Completed != 1 || sum.Dispatched != 2 || sum.Incomplete != 0 {
			t.Fatalf("op c in intervals %+v, dispatched %d, incomplete %d; want 1, 2, 0", c, sum.Dispatched, sum.Incomplete)
		}
	})
}

// (d) Grace: an operation still running a grace period after the window is incomplete; one that
// finishes inside the grace period is recorded.
func TestGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		never := time.Hour
		exec := sleepExec(func(_ int64, _ Terminal, op int) time.Duration {
			return map[int]time.Duration{0: 5 * time.Second, 1: 500 * time.Millisecond}[op]
		})
		sum, tot, _ := runCfg(t, Config{
			Terminals: []Terminal{
				&term{op: 0, first: 1500 * time.Millisecond, think: never},
				&term{op: 1, first: 1900 * time.Millisecond, think: never},
			},
			Workers: 2, Exec: exec, Measure: 2 * time.Second, Grace: time.Second,
		})
		if countsOnly(tot.Counts[0]) != (measure.Counts{Incomplete: 1}) {
			t.Fatalf("op a: %+v, want 1 incomplete (and its late result not recorded)", tot.Counts[0])
		}
		if countsOnly(tot.Counts[1]) != (measure.Counts{Completed: 1}) {
			t.Fatalf("op b: %+v, want 1 completed during the grace period", tot.Counts[1])
		}
		if sum.Incomplete != 1 || sum.Dispatched != 2 || sum.Completed != 1 || !sum.End.Equal(t0.Add(3*time.Second)) || sum.Partial {
			t.Fatalf("summary %+v; want 1 incomplete, 2 dispatched, 1 completed, end at 3 s", sum)
		}
	})
}

// (e) Cancellation at 1.05 s: one worker, two no-wait terminals, 100 ms operations. Ten operations
// completed by 1.0 s; the one dispatched at 1.0 s finishes at 1.1 s, inside the grace period; the
// other terminal was due and waiting, and is incomplete.
func TestCancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 1050*time.Millisecond)
		defer cancel()
		sum, tot, _ := runCtx(t, ctx, Config{
			Terminals: []Terminal{&term{}, &term{}}, Workers: 1, Exec: constant(100 * time.Millisecond),
			Measure: 10 * time.Second, Grace: time.Second,
		})
		if !sum.Partial {
			t.Fatal("not Partial after cancellation")
		}
		if countsOnly(tot.Counts[0]) != (measure.Counts{Completed: 11, Incomplete: 1}) {
			t.Fatalf("counts %+v, want 11 completed and 1 incomplete", tot.Counts[0])
		}
		if sum.Dispatched != 11 || sum.Completed != 11 || sum.Incomplete != 1 {
			t.Fatalf("summary %+v", sum)
		}
		if !sum.MeasureEnd.Equal(t0.Add(1050*time.Millisecond)) || !sum.End.Equal(t0.Add(1100*time.Millisecond)) {
			t.Fatalf("measure end %v, end %v; want 1.05 s and 1.1 s after %v", sum.MeasureEnd, sum.End, t0)
		}
	})
}

// (f) Waiting for a connection is response time, not service time; and work that arrived inside
// the window is dispatched after it, during the grace period. One worker, two terminals due at
// 0.5 s, 1 s operations, window [0, 1 s): A runs 0.5-1.5 (response 1 s); B waits, runs 1.5-2.5
// (response 2 s, service 1 s, lag 1 s).
func TestWaitForConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		never := time.Hour
		terms := []Terminal{&term{first: 500 * time.Millisecond, think: never}, &term{first: 500 * time.Millisecond, think: never}}
		sum, tot, _ := runCfg(t, Config{Terminals: terms, Workers: 1, Exec: constant(time.Second), Measure: time.Second, Grace: 2 * time.Second})
		h := tot.Hist[0]
		if countsOnly(tot.Counts[0]) != (measure.Counts{Completed: 2}) || sum.Incomplete != 0 {
			t.Fatalf("counts %+v, incomplete %d; want 2 completed", tot.Counts[0], sum.Incomplete)
		}
		if !within(h[measure.Response].Max(), 2*time.Second) || !h[measure.Response].ValuesAreEquivalent(h[measure.Response].Min(), measure.Micros(time.Second)) {
			t.Errorf("response min %d max %d µs; want 1 s and 2 s", h[measure.Response].Min(), h[measure.Response].Max())
		}
		if !within(h[measure.Service].Max(), time.Second) {
			t.Errorf("service max %d µs; want 1 s", h[measure.Service].Max())
		}
		if !within(h[measure.Lag].Max(), time.Second) || h[measure.Lag].Min() != 0 {
			t.Errorf("lag min %d max %d µs; want 0 and 1 s", h[measure.Lag].Min(), h[measure.Lag].Max())
		}
	})
	// With a grace period too short for B, B is counted incomplete, not dropped.
	synctest.Test(t, func(t *testing.T) {
		never := time.Hour
		terms := []Terminal{&term{first: 500 * time.Millisecond, think: never}, &term{first: 500 * time.Millisecond, think: never}}
		sum, tot, _ := runCfg(t, Config{Terminals: terms, Workers: 1, Exec: constant(time.Second), Measure: time.Second, Grace: 200 * time.Millisecond})
		if countsOnly(tot.Counts[0]) != (measure.Counts{Incomplete: 2}) || sum.Incomplete != 2 {
			t.Fatalf("counts %+v, summary incomplete %d; want A in flight and B waiting, both incomplete", tot.Counts[0], sum.Incomplete)
		}
	})
}

// simTerm draws random operations, service times and think times from its own stream.
type simTerm struct {
	rng       *rand.Rand
	op        int
	svc       time.Duration
	keying    time.Duration
	meanThink time.Duration
}

func (s *simTerm) Next() (int, time.Duration) {
	s.op = s.rng.IntN(len(ops))
	s.svc = time.Duration(1+4*s.op)*time.Millisecond + time.Duration(s.rng.Int64N(int64(time.Millisecond)))
	return s.op, s.keying
}

func (s *simTerm) Think(int) time.Duration {
	return time.Duration(s.rng.ExpFloat64() * float64(s.meanThink))
}

func simTerms(n int) []Terminal {
	ts := make([]Terminal, n)
	for i := range ts {
		ts[i] = &simTerm{rng: rand.New(rand.NewPCG(uint64(i), 99)), keying: 10 * time.Millisecond, meanThink: 50 * time.Millisecond}
	}
	return ts
}

// simulate is an independent discrete-event model of the scheduler's rules: entries leave in order
// of intended start, each takes the first worker to be free, dispatch = max(intended, free).
func simulate(terms []Terminal, workers int, warmup, window time.Duration, rec *measure.Recorder) int64 {
	var h dueHeap
	var seq uint64
	for i, t := range terms {
		op, k := t.Next()
		seq++
		h.push(entry{at: k, seq: seq, term: int32(i), op: int32(op)})
	}
	free := make([]time.Duration, workers)
	var n int64
	for len(h) > 0 && h[0].at < warmup+window {
		e := h.pop()
		w := 0
		for i := range free {
			if free[i] < free[w] {
				w = i
			}
		}
		t := terms[e.term].(*simTerm)
		dispatch := max(e.at, free[w])
		done := dispatch + t.svc
		free[w] = done
		n++
		rec.Stripe(0).Done(int(e.op), e.at >= warmup && e.at < warmup+window,
			measure.Event{Response: done - e.at, Service: done - dispatch, Lag: dispatch - e.at})
		think := t.Think(int(e.op))
		op, k := t.Next()
		seq++
		h.push(entry{at: done + think + k, seq: seq, term: e.term, op: int32(op)})
	}
	rec.Tick(time.Now())
	return n
}

// TestMatchesSimulation: an overloaded closed system (30 terminals, 3 workers, random think and
// service times) gives, event for event, the histograms and counts of the independent model.
func TestMatchesSimulation(t *testing.T) {
	for _, workers := range []int{3, 30} {
		synctest.Test(t, func(t *testing.T) {
			exec := ExecutorFunc(func(ctx context.Context, _ int, term Terminal, op int, _ bool) Outcome {
				time.Sleep(term.(*simTerm).svc)
				return Outcome{}
			})
			sum, tot, _ := runCfg(t, Config{Terminals: simTerms(30), Workers: workers, Exec: exec,
				Warmup: time.Second, Measure: 5 * time.Second, Grace: time.Minute})
			ref := measure.NewRecorder(ops, 1)
			n := simulate(simTerms(30), workers, time.Second, 5*time.Second, ref)
			want := ref.Totals()
			if sum.Dispatched != n || sum.Incomplete != 0 {
				t.Fatalf("%d workers: dispatched %d (incomplete %d), model %d", workers, sum.Dispatched, sum.Incomplete, n)
			}
			for op := range ops {
				if countsOnly(tot.Counts[op]) != countsOnly(want.Counts[op]) {
					t.Errorf("%d workers, op %s: counts %+v, model %+v", workers, ops[op], tot.Counts[op], want.Counts[op])
				}
				for k := range measure.NumKinds {
					if !tot.Hist[op][k].Equals(want.Hist[op][k]) {
						t.Errorf("%d workers, %s.%s: histogram differs from the model (p99 %d vs %d µs)", workers, ops[op], k,
							measure.ValueAt(tot.Hist[op][k], measure.Q99), measure.ValueAt(want.Hist[op][k], measure.Q99))
					}
				}
			}
			if workers == 30 && tot.Hist[0][measure.Lag].Max() != 0 {
				t.Errorf("a worker per terminal, yet lag max is %d µs: a due terminal was not woken on time", tot.Hist[0][measure.Lag].Max())
			}
			t.Logf("%d workers: %d operations, p99 response %d µs, lag %d µs", workers, n,
				measure.ValueAt(tot.Hist[0][measure.Response], measure.Q99), measure.ValueAt(tot.Hist[0][measure.Lag], measure.Q99))
		})
	}
}

func TestErrorsAndOutcomes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		n := 0
		exec := ExecutorFunc(func(ctx context.Context, _ int, _ Terminal, _ int, _ bool) Outcome {
			time.Sleep(10 * time.Millisecond)
			mu.Lock()
			defer mu.Unlock()
			n++
			switch n % 4 {
			case 0:
				return Outcome{Err: context.DeadlineExceeded, Retries: 3}
			case 1:
				return Outcome{RolledBack: true}
			case 2:
				return Outcome{Retries: 1, Reconnects: 1}
			}
			return Outcome{}
		})
		_, tot, _ := runCfg(t, Config{Terminals: []Terminal{&term{}}, Workers: 1, Exec: exec, Measure: time.Second, Grace: time.Second})
		// 100 operations of 10 ms: 25 errors (3 retries each), 25 rollbacks, 25 with a retry and a reconnect.
		want := measure.Counts{Completed: 75, Errors: 25, Rollbacks: 25, Retries: 100, Reconnects: 25}
		if countsOnly(tot.Counts[0]) != want {
			t.Fatalf("counts %+v, want %+v", tot.Counts[0], want)
		}
		// The executor gave no class: the core classifies them from the error alone (a deadline).
		if f := tot.Counts[0].Failures; f[driver.FailTimeout] != 25 || tot.Counts[0].Failed() != 25 {
			t.Fatalf("failures by class %v, want the 25 errors (context.DeadlineExceeded) as timeouts", f)
		}
		if tot.Hist[0][measure.ErrorResponse].TotalCount() != 25 || tot.Hist[0][measure.Response].TotalCount() != 75 {
			t.Fatal("errors are not kept apart from the response histogram")
		}
	})
}

func TestConfigErrors(t *testing.T) {
	if _, err := Run(context.Background(), Config{}); err == nil || userr.Is(err) {
		t.Fatalf("config without executor or recorder: error %v, want a programming error", err)
	}
	_, err := Run(context.Background(), Config{Exec: constant(0), Rec: measure.NewRecorder(ops, 1), Tick: -1})
	if err == nil || !userr.Is(err) {
		t.Fatalf("bad config: error %v, want a user error", err)
	}
	for _, s := range []string{"no terminals", "connections is 0", "measurement duration is 0s", "interval length is -1ns"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
}

// stopAfter is a no-op executor that cancels the run (cancel) at its target-th operation: the
// overhead benchmarks measure the scheduler and the recorder alone.
func stopAfter(target int64, cancel context.CancelFunc) Executor {
	var n atomic.Int64
	return ExecutorFunc(func(context.Context, int, Terminal, int, bool) Outcome {
		if n.Add(1) == target {
			cancel()
		}
		return Outcome{}
	})
}

// BenchmarkSchedulerOverhead: throughput mode with a no-op executor, so everything measured is the
// scheduler and the recorder. ns/op is wall time per operation over 2 workers; cpu-ns/op is the
// process CPU time per operation.
func BenchmarkSchedulerOverhead(b *testing.B) {
	terms := make([]Terminal, 64)
	for i := range terms {
		terms[i] = &term{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exec := stopAfter(int64(b.N), cancel)
	rec := measure.NewRecorder(ops, 2)
	cpu0 := cpuTime()
	b.ResetTimer()
	sum, err := Run(ctx, Config{Terminals: terms, Workers: 2, Exec: exec, Rec: rec, Measure: time.Hour, Tick: time.Second})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(sum.Dispatched), "cpu-ns/op")
}

// BenchmarkSchedulerOverheadTimed: 1000 terminals thinking 10 ms (about 100,000 operations/s) on 2
// workers with a no-op executor, so workers go idle and most operations go through the timer and a
// wake-up. ns/op is paced by the think time; cpu-ns/op is the driver's cost per operation.
func BenchmarkSchedulerOverheadTimed(b *testing.B) {
	terms := make([]Terminal, 1000)
	for i := range terms {
		terms[i] = &term{first: time.Duration(i) * 10 * time.Microsecond, think: 10 * time.Millisecond}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exec := stopAfter(int64(b.N), cancel)
	rec := measure.NewRecorder(ops, 2)
	cpu0 := cpuTime()
	b.ResetTimer()
	sum, err := Run(ctx, Config{Terminals: terms, Workers: 2, Exec: exec, Rec: rec, Measure: time.Hour, Tick: time.Second})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(sum.Dispatched), "cpu-ns/op")
	tot := rec.Totals()
	b.ReportMetric(float64(measure.ValueAt(tot.Hist[0][measure.Lag], measure.Q50)), "p50-lag-µs")
	b.ReportMetric(float64(measure.ValueAt(tot.Hist[0][measure.Lag], measure.Q99)), "p99-lag-µs")
}

// countsOnly is c without its failure classes and its completions inside the window (tested
// apart), for comparing with a model that does not keep them.
func countsOnly(c measure.Counts) measure.Counts {
	c.Failures, c.CompletedInWindow = [driver.NumFailureClasses]int64{}, 0
	return c
}
