package mysql_test

import (
	"testing"

	"github.com/candor-bench/candor/driver"
)

// A read-write transaction turns the session's autocommit off once and is then started by its first
// statement: one round trip less per transaction, one by one and in batches. Statements outside a
// transaction still commit themselves, an explicit Begin still sends START TRANSACTION, and a batch
// that failed with SET autocommit in front leaves neither kind of statement wrong.
func TestImplicitTransactions(t *testing.T) {
	t.Run("one-by-one", func(t *testing.T) { testImplicit(t, "") })
	t.Run("batches", func(t *testing.T) { testImplicit(t, "batches=on") })
}

func testImplicit(t *testing.T, params string) {
	db := openURL(t, freshURL(t, params))
	c := connect(t, db)
	other := connect(t, db)
	ctx := testCtx(t)
	createTable(t, c, 3)
	trips := func() int64 { n, _ := driver.RoundTrips(c); return n }
	var v int64
	value := func(id int) int64 {
		t.Helper()
		if err := other.QueryRow(ctx, "SELECT v FROM t WHERE id = ?", id).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	// tx runs one read-write transaction of an UPDATE with parameters, ended by end, and returns
	// its round trips.
	tx := func(opts driver.TxOptions, id int, to int64, end func() error) int64 {
		t.Helper()
		t0 := trips()
		if err := c.Begin(ctx, opts); err != nil {
			t.Fatal(err)
		}
		if n := mustExec(t, c, "UPDATE t SET v = ? WHERE id = ?", to, id); n != 1 {
			t.Fatalf("the update changed %d rows", n)
		}
		if opts.Explicit || opts.ReadOnly {
			// inside a transaction: another session does not see the change yet
			if got := value(id); got == to {
				t.Errorf("another session sees an uncommitted %d", got)
			}
		}
		if err := end(); err != nil {
			t.Fatal(err)
		}
		return trips() - t0
	}
	commit := func() error { return c.Commit(ctx) }
	rollback := func() error { return c.Rollback(ctx) }

	if n := tx(driver.TxOptions{}, 1, 11, commit); n != 3 {
		t.Errorf("the session's first transaction took %d round trips, want 3 (SET autocommit = 0, the update, COMMIT)", n)
	}
	if n := tx(driver.TxOptions{}, 1, 12, commit); n != 2 {
		t.Errorf("the next transaction took %d round trips, want 2 (the update, COMMIT)", n)
	}
	if got := value(1); got != 12 {
		t.Errorf("after the commits another session reads %d, want 12", got)
	}
	// started by its first statement, the transaction holds the update until it ends
	t0 := trips()
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "UPDATE t SET v = ? WHERE id = ?", 99, 2)
	if got := value(2); got != 20 {
		t.Errorf("another session reads %d inside an implicitly started transaction, want 20", got)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if got := value(2); got != 20 {
		t.Errorf("after the rollback another session reads %d, want 20", got)
	}
	if n := trips() - t0; n != 2 {
		t.Errorf("Begin, an update and Rollback took %d round trips, want 2", n)
	}
	// outside a transaction a statement commits itself: autocommit is turned on again first
	t0 = trips()
	mustExec(t, c, "UPDATE t SET v = ? WHERE id = ?", 31, 3)
	if got := value(3); got != 31 {
		t.Errorf("a statement outside a transaction is not committed: another session reads %d, want 31", got)
	}
	if n := trips() - t0; n != 2 {
		t.Errorf("a statement outside a transaction after one took %d round trips, want 2 (SET autocommit = 1, the statement)", n)
	}
	mustExec(t, c, "UPDATE t SET v = ? WHERE id = ?", 32, 3)
	if n := trips() - t0; n != 3 {
		t.Errorf("the next statement outside a transaction took %d round trips, want 1", n-2)
	}
	// Explicit sends START TRANSACTION whatever the session's autocommit; read-only too
	if n := tx(driver.TxOptions{Explicit: true}, 1, 13, commit); n != 3 {
		t.Errorf("an explicit transaction took %d round trips, want 3", n)
	}
	if n := tx(driver.TxOptions{}, 1, 14, rollback); n != 3 {
		t.Errorf("the first transaction after a statement outside one took %d round trips, want 3", n)
	}
	if n := tx(driver.TxOptions{Explicit: true}, 1, 15, rollback); n != 3 {
		t.Errorf("an explicit transaction on a session with autocommit off took %d round trips, want 3", n)
	}
	if got := value(1); got != 13 {
		t.Errorf("after a commit and two rollbacks another session reads %d, want 13", got)
	}
	if params == "" {
		return
	}

	// batches: Begin's SET autocommit = 0 goes in front of the first batch, once per session
	b := c.(driver.Batcher)
	t0 = trips()
	for i := range 2 {
		if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
			t.Fatal(err)
		}
		n, err := b.ExecBatch(ctx, "UPDATE t SET v = 41 WHERE id = 1; UPDATE t SET v = v + 1 WHERE id = 2", true, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(n) != 2 || n[0] != 1 || n[1] != 1 {
			t.Errorf("batch %d: rows affected %v, want [1 1] (the statements in front are not the caller's)", i, n)
		}
		if err := c.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := trips() - t0; n != 2 {
		t.Errorf("two transactions of one batch took %d round trips, want 2", n)
	}
	if got := value(2); got != 22 {
		t.Errorf("after two batches another session reads %d, want 22", got)
	}
	// a statement between a batch's COMMIT and Commit is outside any transaction: it commits itself
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ExecBatch(ctx, "UPDATE t SET v = 43 WHERE id = 1", true, nil); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "UPDATE t SET v = ? WHERE id = ?", 44, 1)
	if got := value(1); got != 44 {
		t.Errorf("a statement after a batch's COMMIT is not committed: another session reads %d, want 44", got)
	}
	if err := c.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// a batch outside a transaction carries SET autocommit = 1 in front and commits itself
	n, err := b.ExecBatch(ctx, "UPDATE t SET v = 50 WHERE id = 3", false, nil)
	if err != nil || len(n) != 1 || n[0] != 1 {
		t.Errorf("a batch outside a transaction: %v, %v, want [1]", n, err)
	}
	if got := value(3); got != 50 {
		t.Errorf("a batch outside a transaction is not committed: another session reads %d, want 50", got)
	}
	// a batch that fails after SET autocommit = 0 in front: autocommit is not known; the next
	// statement outside a transaction commits itself, the next transaction still rolls back
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	// the session's autocommit is on here (the batch above): Begin puts SET autocommit = 0 in front
	if _, err := b.ExecBatch(ctx, "UPDATE t SET v = 60 WHERE id = 3; UPDATE no_such_table SET v = 1", false, nil); err == nil {
		t.Fatal("a batch updating a missing table succeeded")
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if got := value(3); got != 50 {
		t.Errorf("after the failed batch's rollback another session reads %d, want 50", got)
	}
	mustExec(t, c, "UPDATE t SET v = ? WHERE id = ?", 70, 3)
	if got := value(3); got != 70 {
		t.Errorf("after a failed batch a statement outside a transaction is not committed: another session reads %d, want 70", got)
	}
	if n := tx(driver.TxOptions{}, 3, 80, rollback); n != 3 {
		t.Errorf("the transaction after it took %d round trips, want 3", n)
	}
	if got := value(3); got != 70 {
		t.Errorf("a rolled-back transaction after a failed batch left %d, want 70", got)
	}
	// and on a query batch
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	rows, err := b.QueryBatch(ctx, "UPDATE t SET v = 90 WHERE id = 3; SELECT v FROM t WHERE id = 3", false)
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() {
		t.Fatalf("a query batch returned no row: %v", rows.Err())
	}
	if err := rows.Scan(&v); err != nil || v != 90 {
		t.Errorf("a query batch read %d, %v, want 90", v, err)
	}
	rows.Close()
	if got := value(3); got != 70 {
		t.Errorf("inside a query batch's transaction another session reads %d, want 70", got)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if got := value(3); got != 70 {
		t.Errorf("after a query batch's rollback another session reads %d, want 70", got)
	}
}
