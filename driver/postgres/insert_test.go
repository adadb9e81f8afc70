package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/candor-bench/candor/driver"
)

// openBulk opens the test server with bulk=<path> in its URL.
func openBulk(t *testing.T, path string) *DB {
	t.Helper()
	u := pgURL(t)
	if strings.Contains(u, "?") {
		u += "&bulk=" + path
	} else {
		u += "?bulk=" + path
	}
	db, err := driver.Open(testCtx(t), u)
	if err != nil {
		t.Fatalf("open with bulk=%s: %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db.(*DB)
}

// blobSource gives rows (id, v, s) with s of size bytes, reusing its values and its text's bytes.
type blobSource struct {
	i, n, size int
	vals       []any
	buf        []byte
}

func (s *blobSource) Next() bool { s.i++; return s.i <= s.n }
func (s *blobSource) Values() ([]any, error) {
	// The row's number and a quote and a backslash (characters COPY and INSERT escape apart),
	// repeated to size: made by doubling, not one append per repeat (half a million appends a
	// value took most of a minute under the race detector).
	s.buf = fmt.Appendf(s.buf[:0], "%d'\\", s.i)
	for len(s.buf) < s.size {
		s.buf = append(s.buf, s.buf...)
	}
	s.vals = append(s.vals[:0], s.i, int64(s.i)*3, string(s.buf[:s.size]))
	return s.vals, nil
}
func (s *blobSource) Err() error { return nil }

// TestCopyFromInsert: bulk=insert loads with multi-row INSERTs, each bounded by the protocol's
// 65535 parameters (25,000 rows of 3 columns: 2 statements) and by maxInsertBytes (rows of 1.5 MB:
// 2 a statement), the same rows as COPY, and inside a transaction they go with its rollback.
func TestCopyFromInsert(t *testing.T) {
	ins := openBulk(t, "insert")
	c := connect(t, ins)
	ctx := testCtx(t)
	tbl := testTable(t, c, 0)
	const n = 25000
	if got, err := c.CopyFrom(ctx, tbl, []string{"id", "v", "s"}, &source{n: n}); err != nil || got != n {
		t.Fatalf("CopyFrom = %d, %v", got, err)
	}
	if ins.BulkPath() != BulkInsert || ins.BulkNote() != "" {
		t.Errorf("BulkPath %q, BulkNote %q", ins.BulkPath(), ins.BulkNote())
	}
	var cnt, sum int64
	var s string
	if err := c.QueryRow(ctx, "SELECT count(*), sum(v), max(s) FILTER (WHERE id = 23456) FROM "+tbl).Scan(&cnt, &sum, &s); err != nil {
		t.Fatal(err)
	}
	if cnt != n || sum != 3*n*(n+1)/2 || s != "name-23456" {
		t.Fatalf("after CopyFrom: count %d sum %d s %q", cnt, sum, s)
	}

	// Large values through INSERT and through COPY: the same text.
	cp := connect(t, openBulk(t, "copy"))
	big := testTable(t, c, 0)
	bigCopy := testTable(t, cp, 0)
	if got, err := c.CopyFrom(ctx, big, []string{"id", "v", "s"}, &blobSource{n: 5, size: 1500000}); err != nil || got != 5 {
		t.Fatalf("CopyFrom of large values = %d, %v", got, err)
	}
	if got, err := cp.CopyFrom(ctx, bigCopy, []string{"id", "v", "s"}, &blobSource{n: 5, size: 1500000}); err != nil || got != 5 {
		t.Fatalf("COPY of large values = %d, %v", got, err)
	}
	var diff int64
	if err := c.QueryRow(ctx, "SELECT count(*) FROM "+big+" a FULL JOIN "+bigCopy+" b USING (id) WHERE a.s IS DISTINCT FROM b.s OR a.v IS DISTINCT FROM b.v").Scan(&diff); err != nil || diff != 0 {
		t.Fatalf("large values: %d rows differ between INSERT and COPY (%v)", diff, err)
	}

	// Inside a transaction, the rows go away with its rollback.
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, err := c.CopyFrom(ctx, tbl, []string{"id", "v", "s"}, &source{i: n, n: n + 10}); err != nil || got != 10 {
		t.Fatalf("CopyFrom in tx = %d, %v", got, err)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if cnt := count(t, c, tbl); cnt != n {
		t.Fatalf("after rollback: %d rows", cnt)
	}
	// A row's own fault is the statement's error.
	if _, err := c.CopyFrom(ctx, tbl, []string{"id", "v", "s"}, &source{n: 2}); err == nil || !strings.Contains(err.Error(), "23505") {
		t.Fatalf("duplicate keys through INSERT: %v", err)
	}
}

// TestCopyFallsBackToInsert: under bulk=auto, a COPY the server refuses on the first chunk (COPY
// into a view, which INSERT reaches through a rule: "cannot copy to view", 42809) loads the same
// rows with INSERT, says so, and stays on INSERT; inside a transaction too (a savepoint before the
// COPY). bulk=copy keeps COPY's error.
func TestCopyFallsBackToInsert(t *testing.T) {
	ctx := testCtx(t)
	setup := connect(t, openDB(t))
	tbl := testTable(t, setup, 0)
	view := tbl + "_v"
	mustExec(t, setup, "CREATE VIEW "+view+" AS SELECT * FROM "+tbl)
	mustExec(t, setup, "CREATE RULE "+view+"_ins AS ON INSERT TO "+view+" DO INSTEAD INSERT INTO "+tbl+" VALUES (NEW.*)")
	t.Cleanup(func() { setup.Exec(context.WithoutCancel(ctx), "DROP VIEW IF EXISTS "+view) })

	strict := connect(t, openBulk(t, "copy"))
	if _, err := strict.CopyFrom(ctx, view, []string{"id", "v", "s"}, &source{n: 10}); err == nil || !strings.Contains(err.Error(), "42809") {
		t.Fatalf("bulk=copy into a view: %v", err)
	}

	for _, inTx := range []bool{false, true} {
		db := openBulk(t, "auto")
		c := connect(t, db)
		base := 0
		if inTx {
			base = 10000
			if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := c.CopyFrom(ctx, view, []string{"id", "v", "s"}, &source{i: base, n: base + 3000}); err != nil || got != 3000 {
			t.Fatalf("in a transaction %v: CopyFrom = %d, %v", inTx, got, err)
		}
		if got, err := c.CopyFrom(ctx, view, []string{"id", "v", "s"}, &source{i: base + 3000, n: base + 3010}); err != nil || got != 10 {
			t.Fatalf("in a transaction %v: the second CopyFrom = %d, %v", inTx, got, err)
		}
		if inTx {
			if err := c.Commit(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if db.BulkPath() != BulkInsert || !strings.HasPrefix(db.BulkNote(), "COPY failed on the first chunk (ERROR: cannot copy to view") || !strings.HasSuffix(db.BulkNote(), "): loading with multi-row INSERT") {
			t.Errorf("BulkPath %q, BulkNote %q", db.BulkPath(), db.BulkNote())
		}
		var cnt, sum int64
		if err := c.QueryRow(ctx, fmt.Sprintf("SELECT count(*), sum(v) FROM %s WHERE id > %d AND id <= %d", tbl, base, base+3010)).Scan(&cnt, &sum); err != nil {
			t.Fatal(err)
		}
		if want := int64(3*(base+3010)*(base+3011)/2 - 3*base*(base+1)/2); cnt != 3010 || sum != want {
			t.Errorf("in a transaction %v: %d rows, sum %d, want 3010 and %d", inTx, cnt, sum, want)
		}
	}

	// A COPY that works stays COPY, with nothing to say.
	db := openBulk(t, "auto")
	c := connect(t, db)
	if got, err := c.CopyFrom(ctx, tbl, []string{"id", "v", "s"}, &source{i: 20000, n: 20100}); err != nil || got != 100 {
		t.Fatalf("CopyFrom into the table = %d, %v", got, err)
	}
	if db.BulkPath() != "" || db.BulkNote() != "" || db.bulk.copy.Load() != copyWorks {
		t.Errorf("after a COPY that worked: BulkPath %q, BulkNote %q", db.BulkPath(), db.BulkNote())
	}
}

// TestCopyRefused: the errors that turn bulk=auto to INSERT are the server's refusals of COPY
// itself (Doltgres 1.2.0's text, as its core/dataloader/binarydataloader.go raises it and its
// castSQLError sends it: XX000), not the rows' faults or a lost connection.
func TestCopyRefused(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Severity: "ERROR", Code: "XX000", Message: "received unexpected EOF in COPY data, missing file trailer"}, true},
		{fmt.Errorf("copying: %w", &pgconn.PgError{Code: "XX000", Message: "partial record found at end of data load"}), true},
		{&pgconn.PgError{Code: "42809", Message: `cannot copy to view "v"`}, true},
		{&pgconn.PgError{Code: "0A000", Message: "COPY is not supported"}, true},
		{&pgconn.PgError{Code: "08P01", Message: "insufficient data left in message"}, true},
		{&pgconn.PgError{Code: "23505", Message: "duplicate key value violates unique constraint"}, false},
		{&pgconn.PgError{Code: "22P02", Message: "invalid input syntax for type integer"}, false},
		{&pgconn.PgError{Code: "40001"}, false},
		{&pgconn.PgError{Code: "57P01"}, false},
		{&net.OpError{Op: "read", Err: errors.New("reset")}, false},
		{context.Canceled, false},
	} {
		if got := copyRefused(tc.err); got != tc.want {
			t.Errorf("copyRefused(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestInsertSQL(t *testing.T) {
	if got, want := insertSQL("INSERT INTO t (a, b) VALUES ", 2, 2), "INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4)"; got != want {
		t.Errorf("insertSQL = %q, want %q", got, want)
	}
}
