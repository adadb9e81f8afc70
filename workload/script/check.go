package script

import (
	"context"
	"fmt"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/checklist"
	"github.com/candor-bench/candor/workload/loadstate"
	"github.com/candor-bench/candor/workload/textfmt"
)

// Check checks pgbench's tables against the load's record:
//
//  1. the load completed;
//  2. pgbench_branches, pgbench_tellers and pgbench_accounts hold scale, 10×scale and
//     100,000×scale rows (no built-in script inserts or deletes them);
//
// and with full, TPC-B's consistency of balances, which pgbench's built-ins keep:
//
//  3. the accounts' balances sum to the history's deltas (tpcb-like and simple-update);
//  4. the tellers' balances sum to the branches' (tpcb-like).
//
// A run of custom scripts alone is not checked (candor cannot know what they keep); a script of
// yours that writes these tables may break 3 and 4: run it with --no-check.
func (s *Script) Check(ctx context.Context, db driver.DB, full bool) ([]report.Check, error) {
	if s.cmd != workload.CmdCheck && !s.usesBuiltin() {
		return nil, nil
	}
	st, rec, err := loadstate.ForCheck(ctx, db, readRecord)
	if err != nil {
		return nil, err
	}
	c, err := db.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var out checklist.List
	out.LoadCompleted(st)
	sc := int64(rec.Scale)
	if err := out.Add(fmt.Sprintf("pgbench's tables hold %s branches, %s tellers and %s accounts", textfmt.Thousands(sc),
		textfmt.Thousands(sc*tellersPerBranch), textfmt.Thousands(sc*accountsPerBranch)), func(ch *report.Check) error {
		for _, t := range []struct {
			table string
			want  int64
		}{{"pgbench_branches", sc}, {"pgbench_tellers", sc * tellersPerBranch}, {"pgbench_accounts", sc * accountsPerBranch}} {
			var n int64
			if err := c.QueryRow(ctx, "SELECT count(*) FROM "+t.table).Scan(&n); err != nil {
				return fmt.Errorf("counting the rows of %s: %w", t.table, err)
			}
			if n != t.want {
				checklist.Violate(ch, "%s holds %s rows, not %s", t.table, textfmt.Thousands(n), textfmt.Thousands(t.want))
			}
		}
		return nil
	}); err != nil || !full {
		return out, err
	}
	sum := func(q string) (int64, error) {
		var v *int64
		err := c.QueryRow(ctx, q).Scan(&v)
		if v == nil {
			return 0, err
		}
		return *v, err
	}
	if err := out.Add("the accounts' balances sum to the history's deltas", func(ch *report.Check) error {
		a, err := sum("SELECT sum(abalance) FROM pgbench_accounts")
		if err != nil {
			return err
		}
		h, err := sum("SELECT sum(delta) FROM pgbench_history")
		if err != nil {
			return err
		}
		if a != h {
			checklist.Violate(ch, "sum(abalance) is %d, sum(delta) %d (a script other than the built-ins may have written them)", a, h)
		}
		return nil
	}); err != nil {
		return out, err
	}
	err = out.Add("the tellers' balances sum to the branches'", func(ch *report.Check) error {
		t, err := sum("SELECT sum(tbalance) FROM pgbench_tellers")
		if err != nil {
			return err
		}
		b, err := sum("SELECT sum(bbalance) FROM pgbench_branches")
		if err != nil {
			return err
		}
		if t != b {
			checklist.Violate(ch, "sum(tbalance) is %d, sum(bbalance) %d (a script other than the built-ins may have written them)", t, b)
		}
		return nil
	})
	return out, err
}
