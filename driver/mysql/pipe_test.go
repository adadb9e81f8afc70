package mysql_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/mysql"
	"github.com/candor-bench/candor/internal/drivertest"
	"github.com/candor-bench/candor/internal/gmsstandin"
)

// TestPipe: a pipeline's statements go in one round trip with a pending Begin's in front, their
// answers come in order (rows, affected rows, a text statement's), a failing statement does not stop
// those behind it and the transaction's rollback undoes them all, and a pipeline left unread is read
// to its end before the session's next statement.
func TestPipe(t *testing.T) { testPipe(t, freshURL(t, "")) }

// TestNoPipes: Dolt's engine, pipelines=off and go-sql-driver's statements give no pipeline
// (Dolt 2.3.1 ends a statement when the client writes while it runs); driver.PipeOf then runs the
// statements one by one.
func TestNoPipes(t *testing.T) {
	for name, raw := range map[string]string{
		"dolt-standin":  gmsstandin.FreshDoltURL(t, "candor_drv"),
		"pipelines=off": freshURL(t, "pipelines=off"),
	} {
		c := connect(t, openURL(t, raw))
		if p := c.(driver.Pipeliner).Pipe(); p != nil {
			t.Errorf("%s: a pipeline", name)
		}
		var seq driver.SeqPipe
		p := driver.PipeOf(c, &seq)
		if p != driver.Pipe(&seq) {
			t.Fatalf("%s: PipeOf gave %T", name, p)
		}
		p.Query("SELECT ? + 1", 41)
		p.Query("SELECT ? + 2", 40)
		if err := p.Send(testCtx(t)); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			var v int64
			rows, err := p.Rows()
			if err != nil || !rows.Next() || rows.Scan(&v) != nil || v != 42 {
				t.Fatalf("%s: %d, %v", name, v, err)
			}
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func testPipe(t *testing.T, raw string) {
	db := openURL(t, raw)
	c := connect(t, db)
	other := connect(t, db)
	ctx := testCtx(t)
	createTable(t, c, 5)
	trips := func() int64 { n, _ := driver.RoundTrips(c); return n }
	value := func(id int) int64 {
		t.Helper()
		var v int64
		if err := other.QueryRow(ctx, "SELECT v FROM t WHERE id = ?", id).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	pl, ok := c.(driver.Pipeliner)
	if !ok || pl.Pipe() == nil {
		t.Fatal("the session has no pipeline")
	}
	// warm: the statements are prepared on first use, in round trips of their own
	for range 2 {
		if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
			t.Fatal(err)
		}
		p := pl.Pipe()
		p.Exec("UPDATE t SET v = v + ? WHERE id = ?", 1, 1)
		p.Query("SELECT id, s FROM t WHERE id <= ? ORDER BY id", 3)
		p.Exec("UPDATE t SET v = v + 1 WHERE id = 2")
		p.Query("SELECT v FROM t WHERE id = ?", 1)
		t0 := trips()
		if err := p.Send(ctx); err != nil {
			t.Fatal(err)
		}
		if n, err := p.Affected(); err != nil || n != 1 {
			t.Fatalf("first update: %d, %v", n, err)
		}
		rows, err := p.Rows()
		if err != nil {
			t.Fatal(err)
		}
		if got := drivertest.IDNames(t, rows); got != "1 r1,2 r2,3 r3" {
			t.Errorf("rows %q", got)
		}
		if n, err := p.Affected(); err != nil || n != 1 {
			t.Fatalf("text update: %d, %v", n, err)
		}
		rows, err = p.Rows()
		if err != nil {
			t.Fatal(err)
		}
		var v int64
		if !rows.Next() || rows.Scan(&v) != nil {
			t.Fatalf("the last query: %v", rows.Err())
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if n := trips() - t0; n != 1 {
			t.Errorf("the pipeline took %d round trips", n)
		}
		if err := c.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := value(1), value(2); a != 12 || b != 22 {
		t.Fatalf("after two committed pipelines: %d, %d", a, b)
	}

	// A duplicate key in the middle: the statements behind it ran, and the rollback undoes them.
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	p := pl.Pipe()
	p.Exec("UPDATE t SET v = v + ? WHERE id = ?", 100, 1)
	p.Exec("INSERT INTO t VALUES (?, ?, ?)", 2, 0, "dup")
	p.Exec("UPDATE t SET v = v + ? WHERE id = ?", 100, 3)
	if err := p.Send(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := p.Affected(); err != nil || n != 1 {
		t.Fatalf("update before the failure: %d, %v", n, err)
	}
	_, err := p.Affected()
	var me *gomysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1062 {
		t.Fatalf("duplicate key: %v", err)
	}
	if err := p.Close(); err != nil { // the third ran and succeeded
		t.Fatalf("Close after the failure: %v", err)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if a, b := value(1), value(3); a != 12 || b != 30 {
		t.Fatalf("after the rollback: %d, %d (want 12, 30)", a, b)
	}

	// Left unread: the next statement reads the answers first. A query queued with the wrong
	// arguments fails Send, which writes nothing.
	p = pl.Pipe()
	p.Exec("UPDATE t SET v = v + ? WHERE id = ?", 1, 4)
	p.Query("SELECT v FROM t WHERE id = ?", 4)
	if err := p.Send(ctx); err != nil {
		t.Fatal(err)
	}
	var v int64
	if err := c.QueryRow(ctx, "SELECT v FROM t WHERE id = ?", 4).Scan(&v); err != nil || v != 41 {
		t.Fatalf("after an unread pipeline: %d, %v", v, err)
	}
	p = pl.Pipe()
	p.Exec("UPDATE t SET v = v + ? WHERE id = ?", 1)
	p.Exec("UPDATE t SET v = v + ? WHERE id = ?", 1, 5)
	if err := p.Send(ctx); err == nil {
		t.Fatal("Send of a statement with a missing argument succeeded")
	}
	p.Close()
	if got := value(5); got != 50 {
		t.Fatalf("a pipeline that failed to queue changed a row: %d", got)
	}
}

// TestPipeCarriesCommit: a read-only transaction's last pipeline carries its COMMIT (one round trip
// for Begin's statement, the read and COMMIT; Commit then sends nothing), also when its read fails;
// a read-write transaction's pipeline never carries it, and a session without pipelines sends it
// on its own.
func TestPipeCarriesCommit(t *testing.T) {
	ctx := testCtx(t)
	db := openURL(t, freshURL(t, ""))
	c := connect(t, db)
	createTable(t, c, 3)
	trips := func(c driver.Conn) int64 { n, _ := driver.RoundTrips(c); return n }
	commits := func() int64 { // this session's COMMITs, as the server counts them
		t.Helper()
		var name string
		var n int64
		if err := c.QueryRow(ctx, "SHOW SESSION STATUS LIKE 'Com_commit'").Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	readOnly := func(query string) (int64, error) {
		t.Helper()
		if err := c.Begin(ctx, driver.TxOptions{ReadOnly: true}); err != nil {
			t.Fatal(err)
		}
		c.(interface{ CarryCommit() }).CarryCommit()
		p := c.(driver.Pipeliner).Pipe()
		p.Query(query, 2)
		if err := p.Send(ctx); err != nil {
			t.Fatal(err)
		}
		var v int64
		rows, err := p.Rows()
		if err == nil {
			if rows.Next() {
				err = rows.Scan(&v)
			} else if err = rows.Err(); err == nil {
				t.Fatal("no row")
			}
		}
		if cerr := p.Close(); err == nil {
			err = cerr
		}
		return v, err
	}
	const read = "SELECT v FROM t WHERE id = ?"
	readOnly(read) // prepared in a round trip of its own
	c.Commit(ctx)
	n0, k0 := trips(c), commits()
	if v, err := readOnly(read); err != nil || v != 20 {
		t.Fatalf("read-only pipeline: %d, %v (want 20)", v, err)
	}
	if err := c.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// the status read is a round trip of its own
	if n, k := trips(c)-n0, commits()-k0; n != 2 || k != 1 {
		t.Errorf("read-only transaction: %d round trips (want 1, and 1 for the status read), %d COMMITs (want 1)", n-1, k)
	}

	// a read that fails on the server as it runs: the carried COMMIT still ends the transaction,
	// and Rollback finds nothing to undo
	if _, err := readOnly("SELECT (SELECT v FROM t WHERE id >= ?)"); err == nil {
		t.Fatal("a subquery of two rows as a value did not fail")
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := readOnly(read); err != nil || v != 20 {
		t.Fatalf("the next read-only transaction: %d, %v (want 20)", v, err)
	}
	if err := c.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	// read-write: COMMIT goes on its own, after the pipeline
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	c.(interface{ CarryCommit() }).CarryCommit()
	p := c.(driver.Pipeliner).Pipe()
	p.Exec("UPDATE t SET v = v + ? WHERE id = ?", 5, 2)
	if err := p.Send(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	n0, k0 = trips(c), commits()
	if err := c.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n, k := trips(c)-n0, commits()-k0; n != 2 || k != 1 {
		t.Errorf("read-write Commit after CarryCommit: %d round trips (want 1, and 1 for the status read), %d COMMITs (want 1)", n-1, k)
	}
	if v, err := readOnly(read); err != nil || v != 25 {
		t.Fatalf("after the read-write transaction: %d, %v (want 25)", v, err)
	}
	c.Commit(ctx)

	// no pipelines: nothing carries it, Commit sends it
	c2 := connect(t, openURL(t, freshURL(t, "pipelines=off")))
	if err := c2.Begin(ctx, driver.TxOptions{ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	c2.(interface{ CarryCommit() }).CarryCommit()
	var seq driver.SeqPipe
	sp := driver.PipeOf(c2, &seq)
	sp.Query("SELECT ? + 1", 1)
	if err := sp.Send(ctx); err != nil {
		t.Fatal(err)
	}
	var v int64
	if rows, err := sp.Rows(); err != nil || !rows.Next() || rows.Scan(&v) != nil || v != 2 {
		t.Fatalf("without pipelines: %d, %v", v, err)
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	n0 = trips(c2)
	if err := c2.Commit(ctx); err != nil || trips(c2)-n0 != 1 {
		t.Errorf("Commit without pipelines: %v, %d round trips (want 1)", err, trips(c2)-n0)
	}
}

// TestPipelineBounded: a pipeline takes at most mysql.PipeCap-1 statements; one more fails its Send
// with the bound named, nothing of it is sent (the rows are unchanged), and the session goes on.
func TestPipelineBounded(t *testing.T) {
	db := openURL(t, freshURL(t, ""))
	c := connect(t, db)
	ctx := testCtx(t)
	createTable(t, c, 1)
	p := c.(driver.Pipeliner).Pipe()
	for range mysql.PipeCap - 1 {
		p.Exec("UPDATE t SET v = v + ? WHERE id = ?", 1, 1)
	}
	if err := p.Send(ctx); err != nil {
		t.Fatalf("a pipeline of %d statements: %v", mysql.PipeCap-1, err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	p = c.(driver.Pipeliner).Pipe()
	for range mysql.PipeCap {
		p.Exec("UPDATE t SET v = v + ? WHERE id = ?", 1, 1)
	}
	if err := p.Send(ctx); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("at most %d statements", mysql.PipeCap-1)) {
		t.Fatalf("a pipeline of %d statements: %v, want the bound named", mysql.PipeCap, err)
	}
	p.Close()
	var v int64
	if err := c.QueryRow(ctx, "SELECT v FROM t WHERE id = ?", 1).Scan(&v); err != nil || v != 10+int64(mysql.PipeCap-1) {
		t.Fatalf("after the pipelines: v = %d, %v; want %d (the refused one sent nothing)", v, err, 10+mysql.PipeCap-1)
	}
}
