package schedule

import (
	"context"
	"testing"
	"time"

	"github.com/candor-bench/candor/measure"
)

// TestPreciseWaits, in real time: 500 arrivals per second on an idle process (operations take no
// time). With Go's timers alone the median arrival is about half a millisecond late (the runtime
// oversleeps to the next millisecond); with the dispatcher's precise waits it is a small fraction
// of that.
func TestPreciseWaits(t *testing.T) {
	if !preciseWaits {
		t.Fatal("Linux has precise waits")
	}
	usePreciseWaits = true
	defer func() { usePreciseWaits = false }()
	rec := measure.NewRecorder(ops, 1)
	_, rs, err := RunRate(context.Background(), RateConfig{Source: &fakeSource{}, Workers: 2, Exec: constant(0), Rec: rec,
		Process: Poisson, Seed: 1, Steps: []Step{{Rate: 500, Duration: 2 * time.Second}}, MaxBacklog: 10, Tick: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	p50, p90 := measure.ValueAt(rs.Lateness, measure.Q50), measure.ValueAt(rs.Lateness, measure.Q90)
	t.Logf("%d arrivals: timer lateness p50 %d µs, p90 %d µs, p99 %d µs", rs.Lateness.TotalCount(), p50, p90, measure.ValueAt(rs.Lateness, measure.Q99))
	if rs.Lateness.TotalCount() < 800 {
		t.Fatalf("%d arrivals in 2 s at 500/s", rs.Lateness.TotalCount())
	}
	if p50 > 250 {
		t.Errorf("median timer lateness %d µs: the precise waits should keep it well below Go's timers' 500", p50)
	}
}

// closedIdle runs n terminals, each keying for cycle before every operation (1 ms of work), their
// first operations spread evenly over one cycle: n/cycle operations per second on an otherwise
// idle process, the closed loop's waker waiting between each. It returns the summary, the
// completed operations and the process's CPU time over the run.
func closedIdle(tb testing.TB, precise bool, n int, cycle, measured time.Duration) (Summary, int64, time.Duration) {
	tb.Helper()
	old := usePreciseWaits
	usePreciseWaits = precise
	defer func() { usePreciseWaits = old }()
	terms := make([]Terminal, n)
	for i := range terms {
		terms[i] = &term{first: time.Duration(i) * cycle / time.Duration(n), keying: cycle}
	}
	rec := measure.NewRecorder(ops, 1)
	cpu0 := cpuTime()
	sum, err := Run(context.Background(), Config{Terminals: terms, Workers: 16, Exec: constant(time.Millisecond), Rec: rec,
		Measure: measured, Grace: time.Second, Tick: time.Second})
	cpu := cpuTime() - cpu0
	if err != nil {
		tb.Fatal(err)
	}
	if sum.TimerLag == nil {
		tb.Fatal("the closed loop recorded no timer lag")
	}
	return sum, sum.Completed, cpu
}

// TestClosedPreciseWaits, in real time: 100 terminals at 500 operations per second on an idle
// process. With Go's timers alone the median dispatch is about half a millisecond late (the
// runtime oversleeps to the next millisecond); with the wakers' precise waits it is a small
// fraction of that.
func TestClosedPreciseWaits(t *testing.T) {
	sum, done, cpu := closedIdle(t, true, 100, 200*time.Millisecond, 2*time.Second)
	lag := sum.TimerLag
	t.Logf("%d dispatches: timer lag p50 %.3f ms, p90 %.3f ms, p99 %.3f ms; CPU %v, %.0f µs per operation",
		lag.Count, lag.Ms.P50, lag.Ms.P90, lag.Ms.P99, cpu, float64(cpu.Microseconds())/float64(max(done, 1)))
	if lag.Count < 800 {
		t.Fatalf("%d measured dispatches in 2 s at 500/s", lag.Count)
	}
	if lag.Ms.P50 > 0.25 {
		t.Errorf("median timer lag %.3f ms: the precise waits should keep it well below Go's timers' 0.5", lag.Ms.P50)
	}
}

// BenchmarkClosedWaits compares the closed loop's waits with Go's timers alone ("timers") and with
// the wakers' precise last stretch ("precise"): 1,000 terminals at 1,000 operations per second
// (1 ms each) for 5 s, reporting the timer lag's p50 and p99 and the process's CPU time per
// operation. Run it with -benchtime 1x, and compare on a quiet host: the load shows in the p99.
func BenchmarkClosedWaits(b *testing.B) {
	for _, precise := range []bool{false, true} {
		name := map[bool]string{false: "timers", true: "precise"}[precise]
		b.Run(name, func(b *testing.B) {
			var p50, p99, us float64
			for range b.N {
				sum, done, cpu := closedIdle(b, precise, 1000, time.Second, 5*time.Second)
				p50, p99 = sum.TimerLag.Ms.P50*1000, sum.TimerLag.Ms.P99*1000
				us = float64(cpu.Microseconds()) / float64(max(done, 1))
			}
			b.ReportMetric(p50, "lag-p50-µs")
			b.ReportMetric(p99, "lag-p99-µs")
			b.ReportMetric(us, "cpu-µs/op")
		})
	}
}
