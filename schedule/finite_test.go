package schedule

import (
	"context"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/candor-bench/candor/measure"
)

// seqTerm runs a finite sequence of operations, one after the other with no waits (a power test's
// queries), then says Done.
type seqTerm struct {
	ops    []int
	first  time.Duration // keying before the first operation
	next   int
	thinks int // Think calls
}

func (s *seqTerm) Next() (int, time.Duration) {
	if s.next == len(s.ops) {
		return Done, 0
	}
	s.next++
	if s.next == 1 {
		return s.ops[0], s.first
	}
	return s.ops[s.next-1], 0
}

func (s *seqTerm) Think(int) time.Duration { s.thinks++; return 0 }

// Two finite terminals on two workers, 100 ms per operation: A runs 3 operations (done at 0.3 s), B
// runs 5 (done at 0.5 s). The run ends at 0.5 s, not at the window's planned end of 10 s: exhausted,
// not partial, the window's end moved there, every operation measured and a final tick at the end.
func TestClosedTerminalsDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		a, b := &seqTerm{ops: []int{0, 1, 0}}, &seqTerm{ops: []int{1, 1, 2, 2, 0}}
		sum, tot, ivs := runCfg(t, Config{
			Terminals: []Terminal{a, b}, Workers: 2, Exec: constant(100 * ms),
			Measure: 10 * time.Second, Grace: time.Second,
		})
		if !sum.Exhausted || sum.Partial || sum.Incomplete != 0 || sum.Dispatched != 8 || sum.Completed != 8 {
			t.Fatalf("summary %+v; want exhausted, 8 dispatched and completed", sum)
		}
		if !sum.MeasureStart.Equal(t0) || !sum.MeasureEnd.Equal(t0.Add(500*ms)) || !sum.End.Equal(t0.Add(500*ms)) {
			t.Fatalf("window %v..%v, end %v; want 0 .. 0.5 s, end 0.5 s (after %v)", sum.MeasureStart, sum.MeasureEnd, sum.End, t0)
		}
		if tot.Counts[0].Completed != 3 || tot.Counts[1].Completed != 3 || tot.Counts[2].Completed != 2 {
			t.Fatalf("counts %+v; want 3, 3, 2", tot.Counts)
		}
		if r := tot.Hist[1][measure.Response]; !within(r.Max(), 100*ms) || r.TotalCount() != 3 {
			t.Fatalf("op b: %d responses, max %d µs; want 3 of 100 ms", r.TotalCount(), r.Max())
		}
		if last := ivs[len(ivs)-1]; !last.End.Equal(sum.End) {
			t.Fatalf("the last interval ends at %v, want the run's end %v", last.End, sum.End)
		}
		var n int64
		for _, iv := range ivs {
			n += iv.Completed()
		}
		if n != 8 {
			t.Fatalf("%d completions in the intervals, want 8", n)
		}
		if a.thinks != 3 || b.thinks != 5 {
			t.Fatalf("think called %d and %d times, want 3 and 5 (after each operation)", a.thinks, b.thinks)
		}
	})
}

// Terminals that finish queue for one worker like any others: A and B both start at 0.1 s with two
// 100 ms operations each; B waits for A's first, so they alternate and the last finishes at 0.5 s.
// The wait is response time, as always.
func TestClosedDoneWaitsForWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		terms := []Terminal{&seqTerm{ops: []int{0, 0}, first: 100 * ms}, &seqTerm{ops: []int{0, 0}, first: 100 * ms}}
		sum, tot, _ := runCfg(t, Config{Terminals: terms, Workers: 1, Exec: constant(100 * ms), Measure: 10 * time.Second})
		if !sum.Exhausted || !sum.MeasureEnd.Equal(t0.Add(500*ms)) || tot.Counts[0].Completed != 4 {
			t.Fatalf("summary %+v, counts %+v; want exhausted at 0.5 s with 4 completed", sum, tot.Counts[0])
		}
		// A: 0.1-0.2 (0.1 s), B: 0.2-0.3 (0.2 s), A: 0.3-0.4 (0.1 s), B: 0.4-0.5 (0.2 s).
		if r := tot.Hist[0][measure.Response]; !equiv(r.Max(), 200*ms) || !equiv(r.Min(), 100*ms) {
			t.Fatalf("response %d..%d µs; want 100 and 200 ms", r.Min(), r.Max())
		}
	})
}

// Running out during the warm-up: the window is empty (it starts and ends at that moment).
func TestClosedDoneInWarmup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		sum, tot, _ := runCfg(t, Config{
			Terminals: []Terminal{&seqTerm{ops: []int{0, 0, 0}}}, Workers: 1, Exec: constant(100 * ms),
			Warmup: time.Second, Measure: 10 * time.Second,
		})
		if !sum.Exhausted || !sum.MeasureStart.Equal(t0.Add(300*ms)) || !sum.MeasureEnd.Equal(sum.MeasureStart) {
			t.Fatalf("summary %+v; want exhausted, an empty window at 0.3 s", sum)
		}
		if countsOnly(tot.Counts[0]) != (measure.Counts{}) || sum.Dispatched != 3 {
			t.Fatalf("measured %+v, dispatched %d; want nothing measured, 3 dispatched", tot.Counts[0], sum.Dispatched)
		}
	})
}

// No work at all: every terminal is Done at once, and the run ends at its start.
func TestClosedNothingToDo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		sum, _, ivs := runCfg(t, Config{Terminals: []Terminal{&seqTerm{}, &seqTerm{}}, Workers: 3, Exec: constant(ms), Measure: time.Minute})
		if !sum.Exhausted || sum.Dispatched != 0 || !sum.End.Equal(t0) || len(ivs) != 1 {
			t.Fatalf("summary %+v, %d intervals; want exhausted at once, nothing dispatched, one final interval", sum, len(ivs))
		}
	})
}

// One terminal finishes, the other does not: the run lasts its window, as ever.
func TestClosedSomeDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		sum, tot, _ := runCfg(t, Config{
			Terminals: []Terminal{&seqTerm{ops: []int{1}}, &term{op: 0}}, Workers: 2, Exec: constant(100 * ms),
			Measure: time.Second, Grace: time.Second,
		})
		if sum.Exhausted || !sum.MeasureEnd.Equal(t0.Add(time.Second)) || tot.Counts[0].Completed != 10 || tot.Counts[1].Completed != 1 {
			t.Fatalf("summary %+v, counts %+v; want the whole window, 10 and 1 completed", sum, tot.Counts)
		}
	})
}

// gatedTerm is a seqTerm that starts once gate is closed; the power terminal closes it when its
// sequence is over (as TPC-H's throughput test follows its power test).
type gatedTerm struct {
	seqTerm
	gate chan struct{}
}

func (g *gatedTerm) Gate() <-chan struct{} { return g.gate }

// closer is a seqTerm that closes gate when it is Done.
type closer struct {
	seqTerm
	gate chan struct{}
}

func (c *closer) Next() (int, time.Duration) {
	op, k := c.seqTerm.Next()
	if op == Done {
		close(c.gate)
	}
	return op, k
}

// A power stream (two 100 ms operations of type 0) then two throughput streams gated on it (three
// of type 1 each, with 50 ms of keying first), on three workers: the streams start at 0.2 s, not at
// 0, so their operations' response times hold no wait for the power stream (max 100 ms, no lag
// beyond the keying); the run ends exhausted at 0.2 + 0.05 + 0.3 = 0.55 s.
func TestClosedGatedStartsAfterGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		gate := make(chan struct{})
		terms := []Terminal{&closer{seqTerm: seqTerm{ops: []int{0, 0}}, gate: gate},
			&gatedTerm{seqTerm{ops: []int{1, 1, 1}, first: 50 * ms}, gate}, &gatedTerm{seqTerm{ops: []int{1, 1, 1}, first: 50 * ms}, gate}}
		sum, tot, _ := runCfg(t, Config{Terminals: terms, Workers: 3, Exec: constant(100 * ms), Measure: 10 * time.Second, Grace: time.Second})
		if !sum.Exhausted || sum.Partial || sum.Completed != 8 || !sum.End.Equal(t0.Add(550*ms)) {
			t.Fatalf("summary %+v; want exhausted at 0.55 s with 8 completed", sum)
		}
		if r := tot.Hist[1][measure.Response]; r.TotalCount() != 6 || !within(r.Max(), 100*ms) {
			t.Fatalf("streams' responses: %d, max %d µs; want 6 of 100 ms", r.TotalCount(), r.Max())
		}
	})
}

// A gate that never opens: the gated terminal never starts, nothing of it is counted, and the run
// lasts its window (it is not out of work while a terminal waits).
func TestClosedGateNeverOpens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		terms := []Terminal{&seqTerm{ops: []int{0}}, &gatedTerm{seqTerm{ops: []int{1}}, make(chan struct{})}}
		sum, tot, _ := runCfg(t, Config{Terminals: terms, Workers: 2, Exec: constant(100 * ms), Measure: time.Second, Grace: time.Second})
		if sum.Exhausted || !sum.MeasureEnd.Equal(t0.Add(time.Second)) || sum.Incomplete != 0 || tot.Counts[1] != (measure.Counts{}) {
			t.Fatalf("summary %+v, counts %+v; want the whole window, nothing of the gated terminal", sum, tot.Counts[1])
		}
	})
}

// A pacer that ends before the window's end (5 arrivals at 10 per second, in a 10 s window): the run
// ends when the last one has finished, at 0.55 s, exhausted and whole; the steps' figures count
// what arrived.
func TestOpenPacerEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		sum, rs, tot := runRate(t, context.Background(), RateConfig{
			Workers: 1, Exec: constant(50 * ms), Pacer: Limit(ConstantPacer(10), 5),
			Steps: []Step{{Rate: 10, Duration: 10 * time.Second}}, MaxBacklog: 10, Grace: time.Second,
		})
		if !sum.Exhausted || sum.Partial || !sum.MeasureEnd.Equal(t0.Add(550*ms)) || !sum.End.Equal(t0.Add(550*ms)) {
			t.Fatalf("summary %+v; want exhausted at 0.55 s", sum)
		}
		if countsOnly(tot.Counts[0]) != (measure.Counts{Completed: 5}) || sum.Dispatched != 5 || rs.Arrived != 5 || rs.Steps[0].Arrived != 5 || rs.Incomplete != 0 {
			t.Fatalf("counts %+v, dispatched %d, arrived %d; want 5 of each", tot.Counts[0], sum.Dispatched, rs.Arrived)
		}
		if r := tot.Hist[0][measure.Response]; !within(r.Max(), 50*ms) {
			t.Fatalf("response max %d µs, want 50 ms", r.Max())
		}
	})
}

// A pacer that ends with work waiting: a ramp from 10 to 30 per second over 1 s (19 arrivals: Λ(1 s)
// = 20, and the 20th would be at the end) on one worker of 100 ms operations. The backlog drains,
// each arrival's response time running from its intended arrival, and the run ends when the last is
// done: 19 operations back to back from the first arrival, at (√1.4 - 1)/2 s (work 1 at Λ(x) = 10x +
// 10x²), since arrivals come at least every 100 ms.
func TestOpenRampEndsWithBacklog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		sum, rs, tot := runRate(t, context.Background(), RateConfig{
			Workers: 1, Exec: constant(100 * ms), Pacer: RampPacer(Constant, 10, 30, time.Second),
			Steps: []Step{{Rate: 20, Duration: 5 * time.Second}}, MaxBacklog: 100, Grace: time.Second,
		})
		first := time.Duration(math.Round((math.Sqrt(1.4) - 1) / 2 * 1e9))
		want := first + 19*100*ms
		if !sum.Exhausted || !sum.MeasureEnd.Equal(t0.Add(want)) {
			t.Fatalf("summary %+v; want exhausted at %v", sum, want)
		}
		if tot.Counts[0].Completed != 19 || rs.Arrived != 19 || rs.Dropped != 0 {
			t.Fatalf("completed %d, arrived %d, dropped %d; want 19, 19, 0", tot.Counts[0].Completed, rs.Arrived, rs.Dropped)
		}
		// The last arrival, work 19 at 10x + 10x² = 19, starts after the 18 before it: it waited the
		// longest, all of it for the connection.
		last := time.Duration(math.Round((math.Sqrt(860) - 10) / 20 * 1e9))
		if w, want := rs.ConnWait.Max(), first+1800*ms-last; !equiv(w, want) || rs.Lateness.Max() != 0 {
			t.Fatalf("connection wait max %d µs, lateness max %d µs; want %v and 0", w, rs.Lateness.Max(), want)
		}
	})
}

// A pacer beyond the window: arrivals stop at the window's end, as the steps' own pacer does, and
// the run is not exhausted.
func TestOpenPacerBeyondWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sum, rs, tot := runRate(t, context.Background(), RateConfig{
			Workers: 2, Exec: constant(50 * ms), Pacer: ConstantPacer(10),
			Steps: []Step{{Rate: 10, Duration: time.Second}}, MaxBacklog: 10, Grace: time.Second,
		})
		if sum.Exhausted || tot.Counts[0].Completed != 9 || rs.Arrived != 9 {
			t.Fatalf("summary %+v, completed %d, arrived %d; want not exhausted, 9 and 9", sum, tot.Counts[0].Completed, rs.Arrived)
		}
	})
}

// The steps' pacer given explicitly is the run without one: the same arrivals, events and figures.
// Poisson arrivals over a warm-up and two steps, on a saturated pool with drops.
func TestOpenExplicitPacerIsTheDefault(t *testing.T) {
	run := func(p Pacer) (Summary, *RateSummary, *measure.Totals) {
		var sum Summary
		var rs *RateSummary
		var tot *measure.Totals
		synctest.Test(t, func(t *testing.T) {
			exec := sleepExec(func(n int64, _ Terminal, op int) time.Duration { return time.Duration(5+op*7) * ms })
			src := &fakeSource{op: func(i int64) int { return int(i % 3) }}
			sum, rs, tot = runRate(t, context.Background(), RateConfig{
				Source: src, Workers: 2, Exec: exec, Process: Poisson, Seed: 9, Pacer: p, Warmup: 300 * ms,
				Steps:      []Step{{Rate: 100, Duration: time.Second}, {Rate: 400, Duration: time.Second}},
				MaxBacklog: 5, Grace: time.Second,
			})
		})
		return sum, rs, tot
	}
	s1, r1, t1 := run(nil)
	s2, r2, t2 := run(StepsPacer(Poisson, []Step{{Rate: 100, Duration: 300 * ms}, {Rate: 100, Duration: time.Second}, {Rate: 400, Duration: time.Second}}))
	s1.Start, s1.MeasureStart, s1.MeasureEnd, s1.End = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	s2.Start, s2.MeasureStart, s2.MeasureEnd, s2.End = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if s1 != s2 {
		t.Fatalf("summaries differ: %+v and %+v", s1, s2)
	}
	if r1.Dropped == 0 || r1.Dropped != r2.Dropped || r1.Arrived != r2.Arrived || r1.WarmupArrived != r2.WarmupArrived || !r1.Lag.Equals(r2.Lag) {
		t.Fatalf("rate summaries differ (or nothing was dropped): %+v and %+v", r1, r2)
	}
	for op := range ops {
		if t1.Counts[op] != t2.Counts[op] || !t1.Hist[op][measure.Response].Equals(t2.Hist[op][measure.Response]) {
			t.Fatalf("op %d: %+v and %+v", op, t1.Counts[op], t2.Counts[op])
		}
	}
}

func TestRatePacerConfigErrors(t *testing.T) {
	base := RateConfig{Source: &fakeSource{}, Workers: 1, Exec: constant(0), Rec: measure.NewRecorder(ops, 1),
		Steps: []Step{{Rate: 1, Duration: time.Second}}, Tick: time.Second}
	c := base
	c.Pacer = RampPacer(Constant, 0, 0, time.Second)
	if _, _, err := RunRate(context.Background(), c); err == nil {
		t.Error("an invalid pacer: no error")
	}
	synctest.Test(t, func(t *testing.T) {
		c := base
		c.Process = "" // not used with a pacer
		c.Pacer = ConstantPacer(1)
		if _, _, err := RunRate(context.Background(), c); err != nil {
			t.Errorf("a pacer without a process: %v", err)
		}
	})
}
