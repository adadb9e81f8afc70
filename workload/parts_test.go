package workload

import (
	"context"
	"testing"
	"time"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/schedule"
)

// partsSession's executor records two parts ("stmt", op 1) of every operation ("tx", op 0) into
// its worker's stripe, as a multi-statement transaction would.
type partsSession struct{ fakeSession }

func (s *partsSession) Start(ctx context.Context, env Env) (*Work, error) {
	w, err := s.fakeSession.Start(ctx, env)
	if err != nil {
		return nil, err
	}
	pt := NewPartTimer(env.Rec)
	inner := w.Exec
	w.Exec = schedule.ExecutorFunc(func(ctx context.Context, slot int, t schedule.Terminal, op int, measured bool) schedule.Outcome {
		for range 2 {
			start := time.Now()
			out := inner.Execute(ctx, slot, t, op, measured)
			pt.Done(slot, 1, measured, start)
			if out.Err != nil {
				return out
			}
		}
		return schedule.Outcome{}
	})
	return w, nil
}

// TestDriveParts: parts recorded from inside the executor land in the recorder beside their
// operation, twice as many, with a service time of their own and no lag; Outcome.Completed, which
// the driver's CPU is divided by, counts the operations alone.
func TestDriveParts(t *testing.T) {
	s := &partsSession{fakeSession{service: time.Millisecond, terms: 2}}
	o, err := Drive(context.Background(), "fake", []string{"tx", "stmt"}, s, DriveOptions{Mode: ModeThroughput,
		Warmup: 0, Measure: 300 * time.Millisecond, Grace: time.Second, Tick: 100 * time.Millisecond,
		Parts: map[string]string{"stmt": "tx"}})
	if err != nil {
		t.Fatal(err)
	}
	tx, st := o.Totals.Counts[0].Completed, o.Totals.Counts[1].Completed
	if tx < 50 || st != 2*tx {
		t.Fatalf("%d operations and %d parts measured, want twice as many parts", tx, st)
	}
	if o.Completed < tx || o.Completed > tx+10 {
		t.Errorf("Completed %d counts the parts too (operations measured: %d)", o.Completed, tx)
	}
	p := o.Totals.Percentiles(1, measure.Service)
	if p.P50 < 0.9 || p.P50 > 0.5*o.Totals.Percentiles(0, measure.Service).P50+1 {
		t.Errorf("a part's service p50 %.3f ms, the operation's %.3f ms", p.P50, o.Totals.Percentiles(0, measure.Service).P50)
	}
	if lag := o.Totals.Percentiles(1, measure.Lag); lag.Max != 0 {
		t.Errorf("a part has lag %v", lag)
	}
	var none PartTimer // a timer without a recorder records nothing
	none.Done(0, 1, true, time.Now())
}
