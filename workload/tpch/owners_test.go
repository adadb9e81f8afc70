package tpch

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/loadstate"
	"github.com/candor-bench/candor/workload/tpcc"
	"github.com/candor-bench/candor/workload/tpch/dbgen"
)

// TestLoadBesideTPCC: `tpch load --drop` on a database holding TPC-C created region, nation and
// supplier, then stopped on "relation customer already exists". Now the load checks every table it
// makes against what exists and whose it is before it creates or drops any: TPC-C's customer is
// refused, naming the table, its owner and what to do, with and without --drop; no TPC-H table is
// made and TPC-C's data stays whole. The other way round, `tpcc load --drop` refuses TPC-H's.
func TestLoadBesideTPCC(t *testing.T) {
	for _, e := range loadDBs[:2] { // SQLite and PostgreSQL
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			db := e.open(t)
			ctx := testCtx(t)
			if _, err := tpcc.Load(ctx, db, tpcc.LoadOptions{Warehouses: 1, Loaders: 2, Seed: 1}); err != nil {
				t.Fatal(err)
			}
			for _, drop := range []bool{false, true} {
				_, err := loadData(ctx, db, workload.LoadOptions{Loaders: 1, Seed: 1, Drop: drop}, testSF)
				if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), "holds the table customer of its tpcc load") || !strings.Contains(err.Error(), "candor tpcc drop --db") {
					t.Errorf("tpch load (drop %v) beside TPC-C: %v, want a user error naming customer, tpcc and candor tpcc drop", drop, err)
				}
			}
			c, err := db.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for _, tb := range []string{"region", "nation", "supplier", "lineitem"} {
				if ok, err := loadstate.TableExists(ctx, c, db.Dialect().SQLFamily(), tb); err != nil || ok {
					t.Errorf("after the refused tpch loads, table %s exists (%v)", tb, err)
				}
			}
			if st, err := loadstate.Read(ctx, db, workloadName); err != nil || st.Status != loadstate.NotFound {
				t.Errorf("after the refused tpch loads, a tpch load is recorded: %+v, %v", st, err)
			}
			var n int64
			if err := c.QueryRow(ctx, "SELECT count(*) FROM customer").Scan(&n); err != nil || n != tpcc.CustomersPerDistrict*tpcc.DistrictsPerWarehouse {
				t.Errorf("TPC-C's customer holds %d rows (%v), want %d", n, err, tpcc.CustomersPerDistrict*tpcc.DistrictsPerWarehouse)
			}
			if info, err := tpcc.ReadLoadInfo(ctx, db); err != nil || !info.Completed || info.Warehouses != 1 {
				t.Errorf("TPC-C's load after the refused tpch loads: %+v, %v", info, err)
			}
		})
	}
}

// TestTPCCLoadBesideTPCH: `tpcc load --drop` on a database holding a TPC-H load (here one begun and
// stopped after its customer table) refuses to drop TPC-H's customer, and leaves it.
func TestTPCCLoadBesideTPCH(t *testing.T) {
	db := loadDBs[0].open(t)
	ctx := testCtx(t)
	c, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := loadstate.Begin(ctx, db, workloadName, record{SF: testSF}, 1, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, createSQL(db.Dialect().SQLFamily(), dbgen.Customer)); err != nil {
		t.Fatal(err)
	}
	_, err = tpcc.Load(ctx, db, tpcc.LoadOptions{Warehouses: 1, Loaders: 1, Seed: 1, Drop: true})
	if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), "holds the table customer of its tpch load") || !strings.Contains(err.Error(), "candor tpch drop --db") {
		t.Errorf("tpcc load --drop beside TPC-H: %v, want a user error naming customer, tpch and candor tpch drop", err)
	}
	for _, tb := range []string{"customer", "warehouse"} {
		if ok, err := loadstate.TableExists(ctx, c, db.Dialect().SQLFamily(), tb); err != nil || ok != (tb == "customer") {
			t.Errorf("after the refused tpcc load, table %s exists: %v (%v)", tb, ok, err)
		}
	}
}
