package tpcc

import (
	"math"
	"testing"
)

// TestEstimateLoad: the load's rows are ExpectedRows, its bytes at least minWarehouseBytes a
// warehouse, and a count whose figures overflow int64 saturates instead of wrapping around (the
// core refuses it: run's TestLoadSafety).
func TestEstimateLoad(t *testing.T) {
	w := &Workload{Options: Options{Warehouses: 2}}
	e := w.EstimateLoad(2)
	if e.Rows != ExpectedRows(2) || e.Bytes != 2*minWarehouseBytes || e.PeakMemory <= 0 || e.PeakMemory > 1<<30 {
		t.Errorf("EstimateLoad(2 warehouses) = %+v", e)
	}
	w.Warehouses = math.MaxInt
	if e := w.EstimateLoad(2); e.Rows != math.MaxInt64 || e.Bytes != math.MaxInt64 {
		t.Errorf("EstimateLoad(%d warehouses) = %+v, want saturated rows and bytes", w.Warehouses, e)
	}
}
