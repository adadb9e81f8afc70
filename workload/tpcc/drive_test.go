package tpcc

import (
	"context"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/workload"
)

// drive runs TPC-C on db as the core does (Workload.Open, then workload.Drive with the session):
// c's window and mode are the drive's too; tick is one second.
func drive(t *testing.T, ctx context.Context, db driver.DB, w *Workload, c workload.SessionConfig, rate workload.RateOptions) *workload.Outcome {
	t.Helper()
	s, err := w.Open(ctx, db, c)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	o, err := workload.Drive(ctx, "tpcc", w.Ops(), s, workload.DriveOptions{Mode: c.Mode, Warmup: c.Warmup,
		Measure: c.Measure, Grace: c.Grace, Tick: time.Second, Seed: c.Seed, Rate: rate})
	if err != nil {
		t.Fatal(err)
	}
	return o
}
