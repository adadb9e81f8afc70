package tpcc

import (
	"context"
	"fmt"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/workload/loadstate"
)

// Drop removes the TPC-C load from db: the nine tables and candor_load, as load --drop does, and a
// sharded load's rows of its parts (workload.Dropper, `candor tpcc drop`). Stored procedures
// (--procedures) stay: they hold no data.
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
	return len(have) > 0, loadstate.Drop(ctx, db, parts.Name)
}
