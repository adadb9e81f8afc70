package schedule

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/candor-bench/candor/measure"
)

// TestRateScheduleBehind: a driver that cannot make its arrivals as fast as the
// rate asks (each draw takes 150 ms at 10/s) falls behind its own schedule; when the clock reaches
// the window's end it is making the arrival intended at 0.7 s, so the last 0.3 s of the window were
// not offered in time, and the step is not sustained even though the database kept up with every
// arrival it got.
func TestRateScheduleBehind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, rs, _ := runRate(t, context.Background(), RateConfig{
			Source: &fakeSource{drawTime: 150 * ms}, Workers: 2, Exec: constant(10 * ms),
			Steps: []Step{{Rate: 10, Duration: time.Second}}, MaxBacklog: 10, Grace: 5 * time.Second,
		})
		st := rs.Steps[0]
		if !st.Behind() || st.Sustained() || rs.Sustained() {
			t.Fatalf("behind %v, sustained %v (unscheduled %s): want behind and not sustained", st.Behind(), st.Sustained(), st.Unscheduled)
		}
		if st.Unscheduled != 300*ms || rs.Reached != 700*ms || rs.Behind != 350*ms {
			t.Errorf("unscheduled %s, reached %s, behind %s; want 300ms, 700ms, 350ms", st.Unscheduled, rs.Reached, rs.Behind)
		}
		if st.Dropped != 0 || st.Incomplete != 0 {
			t.Errorf("dropped %d, incomplete %d: the database kept up", st.Dropped, st.Incomplete)
		}
	})
}

// TestRateOnScheduleNotBehind: a driver on schedule is never flagged, with or without a warm-up.
func TestRateOnScheduleNotBehind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, rs, _ := runRate(t, context.Background(), RateConfig{
			Workers: 2, Exec: constant(10 * ms), Warmup: time.Second,
			Steps: []Step{{Rate: 100, Duration: time.Second}, {Rate: 200, Duration: time.Second}}, MaxBacklog: 10, Grace: time.Second,
		})
		for i, st := range rs.Steps {
			if st.Behind() || !st.Sustained() {
				t.Errorf("step %d: behind %v (unscheduled %s), sustained %v", i+1, st.Behind(), st.Unscheduled, st.Sustained())
			}
		}
		if rs.Behind != 0 || rs.Reached != 0 {
			t.Errorf("behind %s, reached %s: want 0", rs.Behind, rs.Reached)
		}
	})
}

// TestRateTooHigh: a rate beyond what the dispatcher can schedule is refused before the run, with
// the figure.
func TestRateTooHigh(t *testing.T) {
	_, _, err := RunRate(context.Background(), RateConfig{
		Source: &fakeSource{}, Workers: 1, Exec: constant(ms), Rec: measure.NewRecorder(ops, 2), Process: Constant, Tick: time.Second,
		Steps: []Step{{Rate: 50_000_000, Duration: time.Second}},
	})
	if err == nil || !strings.Contains(err.Error(), "--rate 50000000/s is more than the driver can schedule") || !strings.Contains(err.Error(), "1,000,000/s") {
		t.Fatalf("a rate of 50,000,000/s: %v; want the refusal with the figure", err)
	}
}
