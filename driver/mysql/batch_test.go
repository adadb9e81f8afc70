package mysql_test

import (
	"slices"
	"testing"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/mysql"
	"github.com/candor-bench/candor/internal/gmsstandin"
)

// TestMySQLBatch: statements sent in one round trip (Conn.ExecBatch, QueryBatch) with the pending
// Begin in front and COMMIT behind, the rows each statement affected, the result sets one after
// another, a failing statement stopping the batch, and transactions that sent nothing costing no
// round trip; on MariaDB and on Dolt's engine (TestBatchDoltStandin).
func TestMySQLBatch(t *testing.T) { testBatch(t, openURL(t, freshURL(t, "batches=on"))) }

// TestMySQLBatchesOff: without batches=on in the URL (or with batches=off): no batches,
// statements one by one.
func TestMySQLBatchesOff(t *testing.T) {
	for _, params := range []string{"", "batches=off"} {
		db := openURL(t, freshURL(t, params))
		if db.Dialect().Batches {
			t.Fatalf("%q: the dialect has batches", params)
		}
		testBatch(t, db)
	}
}

func TestBatchDoltStandin(t *testing.T) {
	testBatch(t, openURL(t, gmsstandin.FreshDoltURL(t, "candor_drv")+"?batches=on"))
}

func testBatch(t *testing.T, db *mysql.DB) {
	ctx := testCtx(t)
	c := connect(t, db)
	createTable(t, c, 5)
	b, ok := c.(driver.Batcher)
	if !ok {
		t.Fatalf("%T is not a driver.Batcher", c)
	}
	trips := func() int64 { n, _ := driver.RoundTrips(c); return n }
	if !db.Dialect().Batches {
		// Dolt's engine: refused before anything is sent; transactions still begin lazily.
		if _, err := b.ExecBatch(ctx, "UPDATE t SET v = 0", true, nil); err == nil {
			t.Fatalf("ExecBatch on %s succeeded", db.Dialect().Name)
		}
		if _, err := b.QueryBatch(ctx, "SELECT 1", false); err == nil {
			t.Fatalf("QueryBatch on %s succeeded", db.Dialect().Name)
		}
		testLazyBegin(t, c)
		return
	}

	// Begin, two updates and an insert, COMMIT: one round trip, Commit none.
	t0 := trips()
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := b.ExecBatch(ctx, "UPDATE t SET v = v + 1 WHERE id IN (1, 2); UPDATE t SET v = v + 1 WHERE id = 99; INSERT INTO t VALUES (6, 60, 'r6'), (7, 70, 'r7'), (8, 80, 'r8')", true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{2, 0, 3}; !slices.Equal(got, want) {
		t.Errorf("affected rows %v, want %v", got, want)
	}
	if err := c.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n := trips() - t0; n != 1 {
		t.Errorf("a transaction of one batch with its COMMIT took %d round trips, want 1", n)
	}
	if n := count(t, c, "t"); n != 8 {
		t.Errorf("%d rows after the commit, want 8", n)
	}

	// Begin, a batch of an update and two queries (the first result set is the first query's),
	// then Commit: two round trips.
	t0 = trips()
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	rs, err := b.QueryBatch(ctx, "UPDATE t SET v = v + 100 WHERE id = 3; SELECT v FROM t WHERE id = 3; SELECT id FROM t WHERE id >= 6 ORDER BY id", false)
	if err != nil {
		t.Fatal(err)
	}
	var v int64
	var sets [][]int64
	for {
		var set []int64
		for rs.Next() {
			if err := rs.Scan(&v); err != nil {
				t.Fatal(err)
			}
			set = append(set, v)
		}
		sets = append(sets, set)
		if !rs.NextResultSet() {
			break
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	rs.Close()
	if len(sets) != 2 || !slices.Equal(sets[0], []int64{130}) || !slices.Equal(sets[1], []int64{6, 7, 8}) {
		t.Errorf("result sets %v, want [[130] [6 7 8]]", sets)
	}
	if err := c.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n := trips() - t0; n != 2 {
		t.Errorf("a batch and COMMIT took %d round trips, want 2", n)
	}

	// A failing statement stops the batch: nothing after it runs, and Rollback undoes what ran.
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ExecBatch(ctx, "UPDATE t SET v = 0 WHERE id = 1; INSERT INTO t VALUES (1, 1, 'dup'); UPDATE t SET v = 0 WHERE id = 2", true, nil); err == nil {
		t.Fatal("a batch with a duplicate key succeeded")
	} else if db.Classify(err) != driver.ErrFatal {
		t.Errorf("duplicate key in a batch classed %v: %v", db.Classify(err), err)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	var v1, v2 int64
	if err := c.QueryRow(ctx, "SELECT v FROM t WHERE id = 1").Scan(&v1); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, "SELECT v FROM t WHERE id = 2").Scan(&v2); err != nil {
		t.Fatal(err)
	}
	if v1 != 11 || v2 != 21 {
		t.Errorf("after a failed batch rolled back: v %d, %d, want 11, 21", v1, v2)
	}

	testLazyBegin(t, c)
}

func testLazyBegin(t *testing.T, c driver.Conn) {
	ctx := testCtx(t)
	trips := func() int64 { n, _ := driver.RoundTrips(c); return n }
	var v int64
	// A transaction that sent nothing commits and rolls back without a round trip; one whose first
	// statement has parameters sends Begin's statements on their own first.
	t0 := trips()
	for _, end := range []func() error{func() error { return c.Commit(ctx) }, func() error { return c.Rollback(ctx) }} {
		if err := c.Begin(ctx, driver.TxOptions{ReadOnly: true, Isolation: driver.IsolationReadCommitted}); err != nil {
			t.Fatal(err)
		}
		if err := end(); err != nil {
			t.Fatal(err)
		}
	}
	if n := trips() - t0; n != 0 {
		t.Errorf("two empty transactions took %d round trips, want 0", n)
	}
	t0 = trips()
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "UPDATE t SET v = ? WHERE id = ?", 7, 4); err != nil {
		t.Fatal(err)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n := trips() - t0; n != 3 {
		t.Errorf("Begin, a statement with parameters and Rollback took %d round trips, want 3", n)
	}
	if err := c.QueryRow(ctx, "SELECT v FROM t WHERE id = 4").Scan(&v); err != nil || v != 40 {
		t.Errorf("after the rollback: v = %d, %v, want 40", v, err)
	}
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Begin(ctx, driver.TxOptions{}); err == nil {
		t.Error("Begin inside a transaction succeeded")
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
}
