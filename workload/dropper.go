package workload

import (
	"context"

	"github.com/candor-bench/candor/driver"
)

// Dropper is a workload that removes its load from a database (`candor NAME drop`, as sysbench's
// and go-tpc's cleanup): its tables and its load record, nothing else. The core takes candor's lock
// on the database first, so a drop never runs under a load, run or check.
type Dropper interface {
	// Drop removes the workload's tables and load record from db and reports whether there were
	// any (none is no error).
	Drop(ctx context.Context, db driver.DB) (found bool, err error)
}
