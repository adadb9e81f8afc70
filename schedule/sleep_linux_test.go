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
