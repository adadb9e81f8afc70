package tpcc

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/workload"
)

// The distributed engines' paths (distsql.go) run here against PostgreSQL, with --dialect forcing
// them: what is valid PostgreSQL is exercised for real; what only CockroachDB or YugabyteDB would
// run differently is listed in docs/databases.md as untested.

func TestCreateTableSQLPerEngine(t *testing.T) {
	crdb := createTableSQL(tHistory, dialectPostgres, dialectCockroach)
	if !strings.Contains(crdb, "h_id UUID NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,\n  h_c_id integer") {
		t.Errorf("CockroachDB history has no surrogate key first:\n%s", crdb)
	}
	if yb := createTableSQL(tHistory, dialectPostgres, dialectYugabyte); strings.Contains(yb, "PRIMARY KEY") || strings.Contains(yb, "h_id") {
		t.Errorf("YugabyteDB history got a key:\n%s", yb)
	}
	for _, engine := range []string{dialectCockroach, dialectYugabyte} {
		s := createTableSQL(tOrderLine, dialectPostgres, engine)
		if !strings.Contains(s, "PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)") {
			t.Errorf("%s: order_line is created without its key:\n%s", engine, s)
		}
	}
	if pg := createTableSQL(tOrderLine, dialectPostgres, "postgres"); strings.Contains(pg, "PRIMARY KEY") {
		t.Errorf("PostgreSQL gets its keys after the load, not in CREATE TABLE:\n%s", pg)
	}
	stmts, err := EngineSchemaSQL(dialectPostgres, dialectCockroach)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(stmts, ";\n")
	if strings.Contains(all, "ALTER TABLE") || strings.Contains(all, "CREATE UNIQUE INDEX") || !strings.Contains(all, "CREATE INDEX customer_name_idx") {
		t.Errorf("CockroachDB schema:\n%s", all)
	}
}

func TestProportional(t *testing.T) {
	cases := []struct {
		total   int
		weights []int
		want    []int
	}{
		{4, []int{2, 2}, []int{2, 2}},
		{5, []int{2, 2}, []int{3, 2}},
		{3, []int{10, 1, 1}, []int{1, 1, 1}},
		{10, []int{7, 3}, []int{7, 3}},
		{7, []int{20, 10, 10}, []int{3, 2, 2}}, // 3.5, 1.75, 1.75: the rest to the larger remainders
	}
	for _, c := range cases {
		got := proportional(c.total, c.weights)
		sum := 0
		for i, g := range got {
			sum += g
			if g < 1 || g != c.want[i] {
				t.Errorf("proportional(%d, %v) = %v, want %v", c.total, c.weights, got, c.want)
			}
		}
		if sum != c.total {
			t.Errorf("proportional(%d, %v) = %v sums to %d", c.total, c.weights, got, sum)
		}
	}
}

// openAs opens the database of a PostgreSQL URL as another engine of the family (--dialect).
func openAs(t *testing.T, raw, engine string) driver.DB {
	t.Helper()
	u, err := driver.ApplyDialect(raw, engine)
	if err != nil {
		t.Fatal(err)
	}
	db, err := driver.Open(context.Background(), u)
	if err != nil {
		t.Fatalf("opening %s: %v", driver.Redact(u), err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestDistributedPathsOnPostgres: a load, a run at the engine's default level (repeatable read for
// YugabyteDB) and check --full, through the YugabyteDB path: keys in CREATE TABLE, autocommit
// COPY, ANALYZE instead of VACUUM, the information_schema look-up, explicit transactions. The
// CockroachDB path, which differs only by history's surrogate key and its default level
// (serializable), runs end to end through the CLI in cmd/candor's TestDialectCockroachCLI, which
// asserts the same: each engine's path runs once per scripts/test.
func TestDistributedPathsOnPostgres(t *testing.T) {
	parallel(t)
	for _, engine := range []string{dialectYugabyte} {
		t.Run(engine, func(t *testing.T) {
			raw := dbtest.FreshPostgresURL(t, "candor_dist")
			db := openAs(t, raw, engine)
			ctx := context.Background()
			_, err := Load(ctx, db, LoadOptions{Warehouses: 1, Loaders: 2, Seed: 5, ToolVersion: "test"})
			if err != nil {
				t.Fatalf("load as %s: %v", engine, err)
			}
			for _, r := range checkAll(t, db, true) {
				if r.Skipped || !r.OK {
					t.Errorf("after the load: condition %d skipped=%v ok=%v %v", r.Condition, r.Skipped, r.OK, r.Violations)
				}
			}
			// The primary keys are there (made with the tables), history's only on CockroachDB.
			keyed := exec(t, db, "SELECT 1 FROM pg_constraint WHERE contype = 'p' AND conrelid::regclass::text = ANY($1::text[])",
				"{warehouse,district,customer,history,new_order,orders,order_line,item,stock}")
			wantKeyed := int64(8)
			if engine == dialectCockroach {
				wantKeyed = 9
				if n := count(t, db, "history WHERE h_id IS NULL"); n != 0 {
					t.Errorf("%d history rows without h_id", n)
				}
			}
			if keyed != wantKeyed {
				t.Errorf("%d tables with a primary key, want %d", keyed, wantKeyed)
			}
			// Statistics, and no VACUUM (which the distributed engines do not have).
			vacuumed := exec(t, db, "SELECT 1 FROM pg_stat_user_tables WHERE relname = ANY($1::text[]) AND (last_vacuum IS NOT NULL OR last_analyze IS NULL)",
				"{warehouse,district,customer,history,new_order,orders,order_line,item,stock}")
			if vacuumed != 0 {
				t.Errorf("%d tables were vacuumed or not analyzed", vacuumed)
			}
			if _, err := ReadLoadInfo(ctx, db); err != nil { // through information_schema
				t.Fatal(err)
			}

			if err := MarkRun(ctx, db); err != nil {
				t.Fatal(err)
			}
			o := drive(t, ctx, db, &Workload{}, workload.SessionConfig{Mode: ModeThroughput, Terminals: 4, Connections: 4,
				Warmup: 500 * time.Millisecond, Measure: 2 * time.Second, Grace: 10 * time.Second,
				Seed: 11, Isolation: db.DefaultIsolation()}, workload.RateOptions{})
			no := o.Totals.Counts[NewOrder]
			// The paths, not the speed: a busy machine completed 13 in one run (the checks below
			// judge what they wrote).
			if no.Completed == 0 {
				t.Errorf("no New-Order completed in 2 s")
			}
			var errs int64
			for op := 0; op < NumTxTypes; op++ {
				errs += o.Totals.Counts[op].Errors
			}
			t.Logf("%s on PostgreSQL at %s: %d New-Orders, %d errors, %d retries of New-Order", engine, db.DefaultIsolation(), no.Completed, errs, no.Retries)
			for _, r := range checkAll(t, db, true) {
				if r.Condition != 11 && (r.Skipped || !r.OK) {
					t.Errorf("after the run: condition %d skipped=%v ok=%v %v", r.Condition, r.Skipped, r.OK, r.Violations)
				}
			}
		})
	}
}
