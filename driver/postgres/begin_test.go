package postgres

import (
	"context"
	"net"
	"sync/atomic"
	"testing"

	"github.com/candor-bench/candor/driver"
)

// countingConn counts the writes a connection makes to the server: pgx sends each round trip's
// messages (a query, or a batch with its Sync) in one write.
type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(b []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(b)
}

// countedConnect opens a connection whose writes to the server are counted.
func countedConnect(t *testing.T) (*Conn, *atomic.Int64) {
	t.Helper()
	db := openDB(t).(*DB)
	cfg := db.cfg.Copy()
	writes := new(atomic.Int64)
	dial := cfg.DialFunc
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countingConn{Conn: c, writes: writes}, nil
	}
	shadow := *db
	shadow.cfg = cfg
	c, err := shadow.connect(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, writes
}

// TestBeginTravelsWithTheFirstStatement: BEGIN costs no round trip of its own; a transaction of n
// statements is n+1 round trips, and one that ends before any statement sends nothing.
func TestBeginTravelsWithTheFirstStatement(t *testing.T) {
	c, writes := countedConnect(t)
	ctx := testCtx(t)
	tbl := testTable(t, c, 3)
	queryRow := "SELECT v FROM " + tbl + " WHERE id = $1"
	update := "UPDATE " + tbl + " SET v = v + 1 WHERE id = $1"
	query := "SELECT id FROM " + tbl + " WHERE id >= $1 ORDER BY id"

	// One pass to prepare every statement (preparing takes round trips of its own), then count.
	for pass := 0; pass < 2; pass++ {
		before := writes.Load()
		if err := c.Begin(ctx, driver.TxOptions{Isolation: driver.IsolationSerializable}); err != nil {
			t.Fatal(err)
		}
		var v int64
		if err := c.QueryRow(ctx, queryRow, 1).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if err := c.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if n := writes.Load() - before; pass == 1 && n != 2 {
			t.Errorf("Begin, QueryRow, Commit: %d round trips, want 2", n)
		}

		before = writes.Load()
		if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
			t.Fatal(err)
		}
		if n, err := c.Exec(ctx, update, 2); err != nil || n != 1 {
			t.Fatalf("Exec after Begin = %d, %v", n, err)
		}
		rows, err := c.Query(ctx, query, 2)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int32
		for rows.Next() {
			var id int32
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(ids) != 2 {
			t.Fatalf("Query in tx: %v, %v", ids, err)
		}
		if err := c.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if n := writes.Load() - before; pass == 1 && n != 3 {
			t.Errorf("Begin, Exec, Query, Commit: %d round trips, want 3", n)
		}

		before = writes.Load()
		if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := c.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.Begin(ctx, driver.TxOptions{ReadOnly: true}); err != nil {
			t.Fatal(err)
		}
		if err := c.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if n := writes.Load() - before; n != 0 {
			t.Errorf("transactions without statements: %d round trips, want 0", n)
		}
	}
	// The connection's own count (driver.RoundTripCounter) agrees with the writes, preparation aside:
	// the second pass prepared nothing.
	if n, ok := driver.RoundTrips(c); !ok || n == 0 {
		t.Errorf("RoundTrips = %d, %v", n, ok)
	}
	trips0, writes0 := c.RoundTrips(), writes.Load()
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	var w int64
	if err := c.QueryRow(ctx, queryRow, 3).Scan(&w); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, update, 3); err != nil {
		t.Fatal(err)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if trips, ws := c.RoundTrips()-trips0, writes.Load()-writes0; trips != 3 || ws != 3 {
		t.Errorf("Begin, QueryRow, Exec, Rollback: %d round trips counted, %d writes; want 3 and 3", trips, ws)
	}
	// The updates of the committed transactions (one per pass) are there.
	var v int64
	if err := c.QueryRow(ctx, "SELECT v FROM "+tbl+" WHERE id = 2").Scan(&v); err != nil || v != 22 {
		t.Fatalf("v = %d, %v; want 22", v, err)
	}
}

// TestBeginCarriedStatementFails: when the statement that carries BEGIN fails, the transaction is
// open and aborted (as if BEGIN had been sent alone): Rollback ends it and the session goes on;
// rows of a failed Query report the error.
func TestBeginCarriedStatementFails(t *testing.T) {
	db := openDB(t)
	c := connect(t, db)
	ctx := testCtx(t)
	tbl := testTable(t, c, 2)

	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO "+tbl+" VALUES ($1, $2, $3)", 1, int64(1), "dup"); err == nil {
		t.Fatal("duplicate key accepted")
	} else if db.Classify(err) != driver.ErrFatal {
		t.Errorf("duplicate key classified %v", db.Classify(err))
	}
	var one int
	if err := c.QueryRow(ctx, "SELECT 1").Scan(&one); err == nil {
		t.Error("a statement in the aborted transaction succeeded: BEGIN was not applied")
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	rows, err := c.Query(ctx, "SELECT 1 / (id - 1) FROM "+tbl+" ORDER BY id")
	if err == nil {
		for rows.Next() {
		}
		rows.Close()
		err = rows.Err()
	}
	if err == nil {
		t.Fatal("division by zero in a BEGIN-carrying Query reported no error")
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, "SELECT v FROM "+tbl+" WHERE id = 99").Scan(&one); err != driver.ErrNoRows {
		t.Fatalf("QueryRow of no row after Begin: %v, want driver.ErrNoRows", err)
	}
	if err := c.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, c, tbl); n != 2 {
		t.Fatalf("%d rows, want 2", n)
	}
}

// TestBeginBeforeStatementWithoutArguments: a statement without arguments goes by the simple
// protocol (it may hold several statements), so BEGIN goes alone before it; the transaction still
// covers it.
func TestBeginBeforeStatementWithoutArguments(t *testing.T) {
	db := openDB(t)
	c := connect(t, db)
	ctx := testCtx(t)
	tbl := testTable(t, c, 1)
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "INSERT INTO "+tbl+" VALUES (2, 20, 'b'); INSERT INTO "+tbl+" VALUES (3, 30, 'c')")
	if n := count(t, c, tbl); n != 3 {
		t.Fatalf("in the transaction: %d rows, want 3", n)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, c, tbl); n != 1 {
		t.Fatalf("after rollback: %d rows, want 1", n)
	}
}

// TestCarryCommit: a statement that carries COMMIT (CarryCommit) ends the transaction in the same
// write: Begin, QueryRow or Exec, Commit is one round trip, and the change is committed. A carried
// statement that fails on the server leaves the transaction for Rollback (its COMMIT skipped, the
// earlier change rolled back); one that ran but found no row is committed, and Rollback after it
// sends nothing. Outside a transaction CarryCommit does nothing.
func TestCarryCommit(t *testing.T) {
	c, writes := countedConnect(t)
	ctx := testCtx(t)
	tbl := testTable(t, c, 3)
	queryRow := "UPDATE " + tbl + " SET v = v + 1 WHERE id = $1 RETURNING v"
	update := "UPDATE " + tbl + " SET v = v + 1 WHERE id = $1"
	value := func(id int) int64 {
		t.Helper()
		var v int64
		if err := c.QueryRow(ctx, "SELECT v FROM "+tbl+" WHERE id = $1", id).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for pass := 0; pass < 2; pass++ { // the first pass prepares the statements
		before := writes.Load()
		if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
			t.Fatal(err)
		}
		c.CarryCommit()
		var v int64
		if err := c.QueryRow(ctx, queryRow, 1).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if err := c.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if n := writes.Load() - before; pass == 1 && n != 1 {
			t.Errorf("Begin, QueryRow carrying COMMIT, Commit: %d round trips, want 1", n)
		}
		if got := value(1); got != v || got != int64(11+pass) {
			t.Fatalf("after the carried commit id 1 holds %d (the statement returned %d), want %d", got, v, 11+pass)
		}

		before = writes.Load()
		if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
			t.Fatal(err)
		}
		if n, err := c.Exec(ctx, update, 2); err != nil || n != 1 {
			t.Fatalf("Exec = %d, %v", n, err)
		}
		c.CarryCommit()
		if n, err := c.Exec(ctx, update, 3); err != nil || n != 1 {
			t.Fatalf("Exec carrying COMMIT = %d, %v", n, err)
		}
		if err := c.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if n := writes.Load() - before; pass == 1 && n != 2 {
			t.Errorf("Begin, Exec, Exec carrying COMMIT, Commit: %d round trips, want 2", n)
		}
		if a, b := value(2), value(3); a != int64(21+pass) || b != int64(31+pass) {
			t.Fatalf("after the carried commit ids 2, 3 hold %d, %d; want %d, %d", a, b, 21+pass, 31+pass)
		}
	}

	// A carried statement failing on the server: the COMMIT is skipped, Rollback rolls back.
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, update, 2); err != nil {
		t.Fatal(err)
	}
	c.CarryCommit()
	if _, err := c.Exec(ctx, "UPDATE "+tbl+" SET v = v / $1 WHERE id = 3", 0); err == nil {
		t.Fatal("division by zero succeeded")
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if got := value(2); got != 22 {
		t.Fatalf("after a failed carried statement and Rollback id 2 holds %d, want 22 (rolled back)", got)
	}

	// A carried statement that ran but found no row: committed; Rollback sends nothing.
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, update, 2); err != nil {
		t.Fatal(err)
	}
	c.CarryCommit()
	var v int64
	if err := c.QueryRow(ctx, queryRow, 99).Scan(&v); err != driver.ErrNoRows {
		t.Fatalf("no row: %v, want driver.ErrNoRows", err)
	}
	before := writes.Load()
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n := writes.Load() - before; n != 0 {
		t.Errorf("Rollback after a carried commit: %d round trips, want 0", n)
	}
	if got := value(2); got != 23 {
		t.Fatalf("after a carried commit of a statement without rows id 2 holds %d, want 23", got)
	}

	// Outside a transaction: nothing to carry.
	c.CarryCommit()
	if _, err := c.Exec(ctx, update, 1); err != nil {
		t.Fatal(err)
	}
	if c.carry || c.ended {
		t.Errorf("outside a transaction CarryCommit left carry %v, ended %v", c.carry, c.ended)
	}
}
