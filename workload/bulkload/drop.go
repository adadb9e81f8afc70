package bulkload

import (
	"context"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/workload/loadstate"
)

// Drop removes the room's load from db (workload.Dropper): the tables (DropTables, as load --drop
// does) and the workload's record, with a sharded load's rows of its parts. found says there was a
// table or a record.
func (r Room) Drop(ctx context.Context, db driver.DB) (found bool, err error) {
	ctl, err := db.Connect(ctx)
	if err != nil {
		return false, err
	}
	defer ctl.Close()
	has, err := loadstate.TableExists(ctx, ctl, db.Dialect().SQLFamily(), r.Table)
	if err != nil {
		return false, err
	}
	st, err := loadstate.Read(ctx, db, r.Workload)
	if err != nil {
		return false, err
	}
	if !has && st.Status == loadstate.NotFound {
		return false, nil
	}
	if err := r.DropTables(ctx, ctl, st); err != nil {
		return true, err
	}
	return true, loadstate.Drop(ctx, db, r.Workload)
}
