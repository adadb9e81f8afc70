package sysbench

import (
	"context"
	"fmt"
	"strings"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/workload/checklist"
	"github.com/candor-bench/candor/workload/loadstate"
	"github.com/candor-bench/candor/workload/sqlexec"
	"github.com/candor-bench/candor/workload/textfmt"
)

// Check checks the tables against the load's record:
//
//  1. the load completed;
//  2. every table sbtest1..N exists;
//  3. each holds exactly the ids 1..table-size (count, min and max): the delete/insert pairs put
//     back the id they delete (skipped once oltp_insert or oltp_delete has run);
//  4. when the load made them, Dolt's tables (sbdolt1, sbdolt2, sbtypes) exist and hold the ids
//     1..table-size (types_delete_insert puts back the row it deletes);
//
// and with full:
//
//  5. every c is 10 groups of digits and every pad 5 (119 and 59 characters), as the load and the
//     updates write them.
func (s *Sysbench) Check(ctx context.Context, db driver.DB, full bool) ([]report.Check, error) {
	fam, _, err := sqlexec.Dialect(db, "sysbench")
	if err != nil {
		return nil, err
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
	all := true
	if err := out.Add(fmt.Sprintf("the tables sbtest1..%d exist", rec.Tables), func(ch *report.Check) error {
		for t := 1; t <= rec.Tables; t++ {
			has, err := loadstate.TableExists(ctx, c, fam, tableName(t))
			if err != nil {
				return err
			}
			if !has {
				all = false
				checklist.Violate(ch, "there is no table %s: reload with candor sysbench load --drop", tableName(t))
				return nil
			}
		}
		return nil
	}); err != nil {
		return out, err
	}
	idsName := fmt.Sprintf("every table holds the ids 1..%s", textfmt.Thousands(int64(rec.TableSize)))
	lenName := "every c and pad of digit groups (119 and 59 characters)"
	if !all {
		out.Skip(idsName, "a table is missing")
		if full {
			out.Skip(lenName, "a table is missing")
		}
		return out, nil
	}
	if err := out.Add(idsName, func(ch *report.Check) error {
		if rec.Changed {
			ch.Skipped, ch.Reason = true, "oltp_insert or oltp_delete has run since the load: the rows are no longer the ids loaded"
			return nil
		}
		for t := 1; t <= rec.Tables; t++ {
			var n int64
			var lo, hi *int64
			if err := c.QueryRow(ctx, "SELECT count(*), min(id), max(id) FROM "+tableName(t)).Scan(&n, &lo, &hi); err != nil {
				return fmt.Errorf("counting the rows of %s: %w", tableName(t), err)
			}
			if n != int64(rec.TableSize) || deref(lo) != 1 || deref(hi) != int64(rec.TableSize) {
				checklist.Violate(ch, "%s holds %s rows with ids %d..%d, not the ids 1..%d", tableName(t), textfmt.Thousands(n), deref(lo), deref(hi), rec.TableSize)
			}
		}
		return nil
	}); err != nil {
		return out, err
	}
	if e := rec.extras(); e != 0 {
		if err := out.Add(fmt.Sprintf("Dolt's tables %s hold the ids 1..%s", strings.Join(e.names(), ", "), textfmt.Thousands(int64(rec.TableSize))), func(ch *report.Check) error {
			for _, t := range e.names() {
				has, err := loadstate.TableExists(ctx, c, fam, t)
				if err != nil {
					return err
				}
				if !has {
					checklist.Violate(ch, "there is no table %s: reload with candor sysbench load --drop --dolt-tables", t)
					continue
				}
				var n int64
				var lo, hi *int64
				if err := c.QueryRow(ctx, "SELECT count(*), min(id), max(id) FROM "+t).Scan(&n, &lo, &hi); err != nil {
					return fmt.Errorf("counting the rows of %s: %w", t, err)
				}
				if n != int64(rec.TableSize) || deref(lo) != 1 || deref(hi) != int64(rec.TableSize) {
					checklist.Violate(ch, "%s holds %s rows with ids %d..%d, not the ids 1..%d", t, textfmt.Thousands(n), deref(lo), deref(hi), rec.TableSize)
				}
			}
			return nil
		}); err != nil {
			return out, err
		}
	}
	if !full {
		return out, nil
	}
	err = out.Add(lenName, func(ch *report.Check) error {
		for t := 1; t <= rec.Tables; t++ {
			var bad int64
			q := fmt.Sprintf("SELECT count(*) FROM %s WHERE length(c) <> %d OR length(pad) <> %d", tableName(t), cGroups*(groupLen+1)-1, padGroups*(groupLen+1)-1)
			if err := c.QueryRow(ctx, q).Scan(&bad); err != nil {
				return fmt.Errorf("measuring c and pad of %s: %w", tableName(t), err)
			}
			if bad > 0 {
				checklist.Violate(ch, "%s has %s rows whose c or pad is not sysbench's digit groups", tableName(t), textfmt.Thousands(bad))
			}
		}
		return nil
	})
	return out, err
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
