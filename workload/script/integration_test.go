package script

import (
	"context"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/internal/drivertest"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/workload"
)

func newTestScript(t testing.TB, cmd workload.Command, args ...string) *Script {
	t.Helper()
	s := New().(*Script)
	fs := pflag.NewFlagSet("script", pflag.ContinueOnError)
	s.Flags(fs, cmd)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parsing %v: %v", args, err)
	}
	if p := s.Validate(workload.Validation{Cmd: cmd, Terminals: 2}); len(p) > 0 {
		t.Fatalf("options %v: %v", args, p)
	}
	return s
}

// TestLoadRunCheck: the script workload's path on PostgreSQL at the package's level (the CLI's
// tests cover every engine; this one is short enough for scripts/test's pass on PostgreSQL 18):
// pgbench's tables at scale 1, tpcb-like for a second on two terminals, every transaction and
// statement completed, then the full check (TPC-B's balances).
func TestLoadRunCheck(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		db := drivertest.Open(t, dbtest.FreshPostgresURL(t, "candor_test"))
		l := newTestScript(t, workload.CmdLoad, "--scale", "1")
		res, err := l.Load(ctx, db, workload.LoadOptions{Loaders: 2, Seed: 1, ToolVersion: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Rows != l.ExpectedRows() {
			t.Errorf("loaded %d rows, want %d", res.Rows, l.ExpectedRows())
		}
		r := newTestScript(t, workload.CmdRun, "-b", "tpcb-like")
		s, err := r.Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Terminals: 2, Connections: 2, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		out, err := workload.Drive(ctx, "script", r.Ops(), s, workload.DriveOptions{Mode: workload.ModeThroughput,
			Measure: time.Second, Grace: 5 * time.Second, Tick: 250 * time.Millisecond, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		f := &workload.Finished{Result: &report.Result{}, Totals: out.Totals, Summary: out.Summary, Mode: workload.ModeThroughput,
			Minutes: out.Summary.MeasureEnd.Sub(out.Summary.MeasureStart).Minutes()}
		s.Finish(f)
		s.Close()
		ops := r.Ops() // tpcb-like, then its statements
		tx := out.Totals.Counts[0]
		if len(ops) != 8 || tx.Completed == 0 || tx.Errors > 0 {
			t.Fatalf("ops %v; %s: %+v", ops, ops[0], tx)
		}
		for i := range ops[1:] {
			if c := out.Totals.Counts[i+1]; c.Completed < tx.Completed || c.Errors > 0 {
				t.Errorf("%s: %+v, the transaction %+v", ops[i+1], c, tx)
			}
		}
		checks, err := newTestScript(t, workload.CmdCheck).Check(ctx, db, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(checks) < 4 {
			t.Errorf("%d checks, want the load, the rows and TPC-B's balances: %+v", len(checks), checks)
		}
		for _, c := range checks {
			if !c.OK || c.Skipped {
				t.Errorf("check %d %s: ok %v, skipped %v %v", c.Condition, c.Name, c.OK, c.Skipped, c.Violations)
			}
		}
	})
}
