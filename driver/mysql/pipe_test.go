package mysql_test

import (
	"errors"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/driver"
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
