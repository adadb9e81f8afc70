package tpcc

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/workload/loadstate"
)

// Drop removes the TPC-C load from db: the nine tables and candor_load, as load --drop does, a
// sharded load's rows of its parts, and on the engines with a procedure mode the procedures candor
// creates (--procedures), so that nothing of candor's is left (workload.Dropper, `candor tpcc drop`).
func (w *Workload) Drop(ctx context.Context, db driver.DB) (bool, error) {
	dialect := db.Dialect().SQLFamily()
	if err := checkDialect(dialect); err != nil {
		return false, err
	}
	ctl, err := db.Connect(ctx)
	if err != nil {
		return false, err
	}
	defer ctl.Close()
	have, err := existingTables(ctx, ctl, db.Dialect())
	if err != nil {
		return false, fmt.Errorf("looking for the TPC-C tables: %w", err)
	}
	if len(have) > 0 {
		if err := dropTables(ctx, ctl, db.Dialect()); err != nil {
			return true, fmt.Errorf("dropping the TPC-C tables: %w", err)
		}
	}
	if DialectProcedures(db.Dialect()) == nil {
		if err := dropProcedures(ctx, ctl, dialect); err != nil {
			return len(have) > 0, fmt.Errorf("dropping candor's TPC-C procedures: %w", err)
		}
	}
	return len(have) > 0, loadstate.Drop(ctx, db, parts.Name)
}

// dropProcedures drops the procedures procedureSQL creates, under every signature they have in
// the current schema (PostgreSQL functions are known by name and argument types: an older
// candor's may differ).
func dropProcedures(ctx context.Context, c driver.Conn, dialect string) error {
	var names []string
	for _, s := range procedureSQL(dialect) {
		if n := procName(s); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if dialect != dialectPostgres {
		for _, n := range names {
			if _, err := c.Exec(ctx, "DROP PROCEDURE IF EXISTS "+n); err != nil {
				return err
			}
		}
		return nil
	}
	sigs, err := queryStrings(ctx, c, "SELECT p.oid::regprocedure::text FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace AND p.proname IN ('"+strings.Join(names, "', '")+"')")
	if err != nil {
		return err
	}
	for _, sig := range sigs {
		if _, err := c.Exec(ctx, "DROP FUNCTION IF EXISTS "+sig); err != nil {
			return err
		}
	}
	return nil
}
