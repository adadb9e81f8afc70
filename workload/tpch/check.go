package tpch

import (
	"context"
	"fmt"
	"strings"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/checklist"
	"github.com/candor-bench/candor/workload/loadstate"
	"github.com/candor-bench/candor/workload/tpch/dbgen"
)

var _ workload.Checker = (*TPCH)(nil)

// Check checks the TPC-H data:
//
//  1. the load completed;
//  2. REGION, NATION, SUPPLIER, CUSTOMER, PART and PARTSUPP hold clause 4.2.5's rows for the
//     loaded scale factor, and ORDERS too (each RF1 inserts SF×1500 orders and its RF2 deletes as
//     many, so a pair keeps the count; a run stopped between the two does not);
//
// with full:
//
//  3. every LINEITEM row has its order, and every order at least one line (RF1 inserts both, RF2
//     deletes both);
//
// and, after a run on this workload value (`candor tpch run` checks when the run is over):
//
//  4. every stream completed its sequence (a run cut short by --duration did not measure what it
//     says);
//  5. in validation mode, every answer matched its reference answer (clause 2.1.3.5).
func (t *TPCH) Check(ctx context.Context, db driver.DB, full bool) ([]report.Check, error) {
	read := func(ctx context.Context, db driver.DB) (loadstate.State, struct{}, error) {
		st, err := loadstate.Read(ctx, db, workloadName)
		return st, struct{}{}, err
	}
	st, _, err := loadstate.ForCheck(ctx, db, read)
	if err != nil {
		return nil, err
	}
	var out checklist.List
	out.LoadCompleted(st)
	sf, ok, err := loadedSF(ctx, db)
	if err != nil || !ok {
		return out, err
	}
	c, err := db.Connect(ctx)
	if err != nil {
		return out, err
	}
	defer c.Close()
	count := func(sql string) (int64, error) {
		var n int64
		err := c.QueryRow(ctx, sql).Scan(&n)
		return n, err
	}
	if err := out.Add(fmt.Sprintf("the tables hold clause 4.2.5's rows for SF %g (LINEITEM aside)", sf), func(ch *report.Check) error {
		for _, tb := range []dbgen.Table{dbgen.Region, dbgen.Nation, dbgen.Supplier, dbgen.Customer, dbgen.Part, dbgen.PartSupp, dbgen.Orders} {
			n, err := count("SELECT COUNT(*) FROM " + tb.Name())
			if err != nil {
				return err
			}
			if want := dbgen.Rows(tb, sf); n != want {
				why := "changed outside candor?"
				if tb == dbgen.Orders {
					why = "a run stopped between an RF1 and its RF2 leaves them uneven"
				}
				checklist.Violate(ch, "%s holds %d rows, not %d (%s): reload with candor tpch load --drop --sf %g", strings.ToUpper(tb.Name()), n, want, why, sf)
			}
		}
		return nil
	}); err != nil {
		return out, err
	}
	if full {
		if err := out.Add("every LINEITEM row has its order, every order its lines", func(ch *report.Check) error {
			n, err := count("SELECT COUNT(*) FROM lineitem WHERE NOT EXISTS (SELECT 1 FROM orders WHERE o_orderkey = l_orderkey)")
			if err != nil {
				return err
			}
			if n > 0 {
				checklist.Violate(ch, "%d LINEITEM rows have no order", n)
			}
			n, err = count("SELECT COUNT(*) FROM orders WHERE NOT EXISTS (SELECT 1 FROM lineitem WHERE l_orderkey = o_orderkey)")
			if err != nil {
				return err
			}
			if n > 0 {
				checklist.Violate(ch, "%d orders have no LINEITEM row", n)
			}
			return nil
		}); err != nil {
			return out, err
		}
	}
	if s := t.last; s != nil {
		out.Add("every stream of the run completed its sequence", func(ch *report.Check) error {
			for _, st := range s.plan.terminals() {
				done := 0
				for i := range st.times {
					if st.times[i].err == "" {
						done++
					}
				}
				if done != len(st.steps) {
					checklist.Violate(ch, "%s: %d of its %d queries and refresh functions completed", st.label(), done, len(st.steps))
				}
			}
			return nil
		})
		if s.o.Validate {
			out.Add("every answer matched its reference answer (clause 2.1.3.5)", func(ch *report.Check) error {
				for _, st := range s.plan.terminals() {
					for i := range st.times {
						if m := st.times[i].mismatch; m != "" {
							checklist.Violate(ch, "Q%d: %s", st.times[i].q, m)
						}
					}
				}
				return nil
			})
		}
	}
	return out, nil
}
