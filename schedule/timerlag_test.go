package schedule

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/candor-bench/candor/measure"
)

// The closed loop's timer lag counts the driver's own lateness only: with one worker and work due
// while it is busy, each operation's Lag holds the wait for the connection, and the timer lag none
// of it (the fake clock fires every timer on time).
func TestClosedTimerLagLeavesOutConnectionWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		terms := make([]Terminal, 4)
		for i := range terms {
			terms[i] = &term{first: time.Second, keying: time.Second, think: time.Second}
		}
		sum, tot, _ := runCfg(t, Config{Terminals: terms, Workers: 1, Exec: constant(100 * time.Millisecond),
			Measure: 10 * time.Second, Grace: time.Second})
		lag := tot.Hist[0][measure.Lag]
		if lag.Max() < measure.Micros(300*time.Millisecond) {
			t.Fatalf("lag max %d µs: the fourth of four simultaneous operations waits 300 ms for the connection", lag.Max())
		}
		if sum.TimerLag == nil || sum.TimerLag.Count != lag.TotalCount() {
			t.Fatalf("timer lag %+v, want one value per measured dispatch (%d)", sum.TimerLag, lag.TotalCount())
		}
		if sum.TimerLag.Ms.Max != 0 {
			t.Fatalf("timer lag max %v ms, want 0: the connection wait is not the driver's lateness", sum.TimerLag.Ms.Max)
		}
	})
}

// A real clock: a timer lag is recorded and the open loop has none in Summary (it has its own).
func TestClosedTimerLagRecorded(t *testing.T) {
	terms := make([]Terminal, 20)
	for i := range terms {
		terms[i] = &term{first: time.Duration(i) * time.Millisecond, keying: 3 * time.Millisecond, think: 2 * time.Millisecond}
	}
	sum, err := Run(context.Background(), Config{Terminals: terms, Workers: 20, Exec: constant(time.Millisecond),
		Rec: measure.NewRecorder(ops, 20), Measure: 300 * time.Millisecond, Tick: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if sum.TimerLag == nil || sum.TimerLag.Count < 100 {
		t.Fatalf("timer lag %+v, want a value per measured dispatch", sum.TimerLag)
	}
	t.Logf("timer lag over %d dispatches: p50 %.3f ms, p99 %.3f ms, max %.3f ms", sum.TimerLag.Count, sum.TimerLag.Ms.P50, sum.TimerLag.Ms.P99, sum.TimerLag.Ms.Max)
}
