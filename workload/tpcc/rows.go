package tpcc

import (
	"context"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/workload"
)

// ExpectedRows is the number of rows the initial population of W warehouses has (clause 4.3.3.1),
// with order lines counted at their expected 10 per order (5..15 uniform): used for progress bars.
func ExpectedRows(W int) int64 {
	perWarehouse := int64(1 + // warehouse
		DistrictsPerWarehouse + // district
		DistrictsPerWarehouse*CustomersPerDistrict*2 + // customer and history
		DistrictsPerWarehouse*OrdersPerDistrict + // orders
		DistrictsPerWarehouse*(OrdersPerDistrict-FirstUndelivered+1) + // new_order
		DistrictsPerWarehouse*OrdersPerDistrict*10 + // order_line
		StockPerWarehouse)
	return workload.Sum(Items, workload.Product(int64(W), perWarehouse)) // saturating: an absurd W stays absurd
}

// HasData reports whether the database holds any candor TPC-C table (complete or not).
func HasData(ctx context.Context, db driver.DB) (bool, error) {
	c, err := db.Connect(ctx)
	if err != nil {
		return false, err
	}
	defer c.Close()
	have, err := existingTables(ctx, c, db.Dialect())
	return len(have) > 0, err
}
