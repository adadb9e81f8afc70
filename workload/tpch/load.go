// Package tpch is TPC-H (standard revision 3.0.x) on the workload contract.
package tpch

import (
	"context"
	"errors"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/workload"
)

// loadData creates TPC-H's eight tables on db, loads them at scale factor sf with the rows of
// package dbgen (o.Loaders parts in parallel through the engine's bulk path, package bulkload),
// then builds the primary keys and indexes (schema.go) and records the load in candor_workloads
// under "tpch" with sf (package loadstate). It refuses a database that already holds TPC-H's tables
// or record, unless o.Drop.
func loadData(ctx context.Context, db driver.DB, o workload.LoadOptions, sf float64) (workload.LoadResult, error) {
	return workload.LoadResult{}, errors.New("tpch: load not yet implemented")
}

// loadedSF reads the scale factor of the complete TPC-H load recorded on db: ok false when there
// is none; a user error naming the fix for a half-finished load.
func loadedSF(ctx context.Context, db driver.DB) (sf float64, ok bool, err error) {
	return 0, false, errors.New("tpch: not yet implemented")
}
