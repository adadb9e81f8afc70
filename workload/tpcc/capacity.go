package tpcc

import (
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/bulkload"
)

// What one load writes and holds, for the core's check before anything is dropped or created
// (run/loadsafety.go): the fault pass's load of a billion warehouses dropped the loaded tables,
// then ran out of memory.
const (
	// minWarehouseBytes is a lower bound of a loaded warehouse's size with its keys and indexes
	// (SQLite: 85 MiB for 1 warehouse, of which about 10 MiB is ITEM; PostgreSQL about 100 MB).
	minWarehouseBytes = 70 << 20
	// unitBytes bounds a load unit's rows in memory (a district's customers, history, orders and
	// order lines; a chunk of stock), made as the load goes.
	unitBytes = 8 << 20
)

// EstimateLoad is the load's size (workload.LoadEstimator).
func (w *Workload) EstimateLoad(loaders int) workload.LoadEstimate {
	W := int64(w.loadWarehouses())
	return workload.LoadEstimate{
		Rows:       ExpectedRows(w.loadWarehouses()),
		Bytes:      workload.Product(W, minWarehouseBytes),
		PeakMemory: workload.Product(bulkload.ChunksHeld(loaders), unitBytes),
	}
}

var _ workload.LoadEstimator = (*Workload)(nil)
