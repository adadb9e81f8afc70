package run

import (
	"context"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload/tpcc"
)

// Loaded reports whether the database at url holds a complete TPC-C load of w warehouses, so the
// one-shot command can skip loading. No candor data at all is "not loaded"; a half-finished load or
// one of another size is a user error naming the fix, never silently replaced.
func Loaded(ctx context.Context, url string, w int) (bool, error) {
	db, err := driver.Open(ctx, url)
	if err != nil {
		return false, err
	}
	defer db.Close()
	has, err := tpcc.HasData(ctx, db)
	if err != nil || !has {
		return false, err
	}
	info, err := tpcc.ReadLoadInfo(ctx, db)
	if err != nil {
		return false, err
	}
	switch {
	case !info.Completed:
		return false, userr.Errorf("the load of %s never completed (it was interrupted): reload it with candor tpcc load --drop --db %s --warehouses %d", db.Redacted(), db.Redacted(), w)
	case info.Warehouses != w:
		return false, userr.Errorf("%s holds %d warehouses, not %d: pass --warehouses %d, or reload with candor tpcc load --drop --db %s --warehouses %d", db.Redacted(), info.Warehouses, w, info.Warehouses, db.Redacted(), w)
	}
	return true, nil
}
