package postgres

import (
	"context"
	"errors"
	"math"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/candor-bench/candor/driver"
)

// TestDirectRoundTrip sends values of every type the direct path encodes itself (and some it leaves
// to pgx) through a real PostgreSQL and reads them back, on candor's Conn and on a bare pgx.Conn
// with the same type map: the same value, or an error on both. NULLs, NUMERIC precision, text
// against bpchar, dates and timestamps across zones included.
func TestDirectRoundTrip(t *testing.T) {
	ctx := testCtx(t)
	db := openDB(t).(*DB)
	c := connect(t, db).(*Conn)
	ref, err := pgx.ConnectConfig(ctx, db.cfg)
	if err != nil {
		t.Fatal(err)
	}
	registerNumeric(ref.TypeMap())
	t.Cleanup(func() { ref.Close(context.Background()) })

	zone := time.FixedZone("UTC-3", -3*3600)
	ts := time.Date(2026, 11, 26, 18, 30, 1, 123456789, zone)
	s := "padded"
	cases := []struct {
		sql  string
		arg  any
		dest func() any
	}{
		{"SELECT $1::int2", int16(-32768), func() any { return new(int16) }},
		{"SELECT $1::int4", int32(math.MaxInt32), func() any { return new(int32) }},
		{"SELECT $1::int4", 7, func() any { return new(int64) }},
		{"SELECT $1::int8", int64(math.MinInt64), func() any { return new(int64) }},
		{"SELECT $1::int8", math.MaxInt64, func() any { return new(int) }},
		{"SELECT $1::int8", int64(1) << 40, func() any { return new(int32) }},    // out of range: both fail
		{"SELECT $1::int4", math.MaxInt32 + 1, func() any { return new(int64) }}, // likewise
		{"SELECT $1::float8", 0.1, func() any { return new(float64) }},
		{"SELECT $1::float8", math.Inf(-1), func() any { return new(float64) }},
		{"SELECT $1::float4", 1.5, func() any { return new(float64) }},
		{"SELECT $1::bool", true, func() any { return new(bool) }},
		{"SELECT $1::text", "héllo", func() any { return new(string) }},
		{"SELECT $1::text", "", func() any { return new(string) }},
		{"SELECT $1::varchar(10)", &s, func() any { return new(string) }},
		{"SELECT $1::char(10)", "ab", func() any { return new(string) }}, // bpchar keeps its padding
		{"SELECT $1::char(10)::text", "ab", func() any { return new(string) }},
		{"SELECT $1::name", "n", func() any { return new(string) }},
		{"SELECT $1::bytea", []byte{0, 1, 255}, func() any { return new([]byte) }},
		{"SELECT $1::bytea", []byte{}, func() any { return new([]byte) }},
		{"SELECT $1::timestamp", ts, func() any { return new(time.Time) }},
		{"SELECT $1::timestamptz", ts, func() any { return new(time.Time) }},
		{"SELECT $1::date", ts, func() any { return new(time.Time) }},
		{"SELECT $1::date", epochDays(-10958), func() any { return new(time.Time) }},
		{"SELECT 'infinity'::timestamp + $1 * interval '0'", 1, func() any { return new(time.Time) }},
		{"SELECT $1::numeric", scaled{123456789012345678, 16}, func() any { return new(string) }},
		{"SELECT $1::numeric", scaled{-5, 2}, func() any { return new(float64) }},
		{"SELECT ($1::numeric * 100)::int8", scaled{104949, 2}, func() any { return new(int64) }},
		{"SELECT $1::numeric(12,2)", 1.005, func() any { return new(float64) }},
		{"SELECT $1::int4[]", "{1,2,3}", func() any { return new([]int32) }},
		{"SELECT $1::int8[]", []int64{4, 5}, func() any { return new([]int64) }},
		{"SELECT $1::text[]", []string{"a", "b c"}, func() any { return new([]string) }},
		// NULLs: into a pointer to a pointer, a pgtype value, or a plain value (an error on both)
		{"SELECT $1::int8", nil, func() any { return new(*int64) }},
		{"SELECT $1::text", (*string)(nil), func() any { return new(*string) }},
		{"SELECT $1::int4", nil, func() any { return new(pgtype.Int4) }},
		{"SELECT $1::int8", nil, func() any { return new(int64) }},
		{"SELECT $1::timestamp", nil, func() any { return new(time.Time) }},
		{"SELECT $1::bytea", []byte(nil), func() any { return new([]byte) }},
	}
	for _, tc := range cases {
		got, want := tc.dest(), tc.dest()
		err := c.QueryRow(ctx, tc.sql, tc.arg).Scan(got)
		werr := ref.QueryRow(ctx, tc.sql, tc.arg).Scan(want)
		if c.stmts[tc.sql] == nil {
			t.Errorf("%s: not prepared on the direct path", tc.sql)
		}
		if (err != nil) != (werr != nil) {
			t.Errorf("%s with %T %v: error %v, pgx's %v", tc.sql, tc.arg, tc.arg, err, werr)
			continue
		}
		if err == nil && !sameScan(got, want) {
			t.Errorf("%s with %T %v: %v, pgx's %v", tc.sql, tc.arg, tc.arg,
				reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem())
		}
	}

	// several columns and rows on Query, and a row's NULL beside values
	rows, err := c.Query(ctx, "SELECT g, g::text, CASE WHEN g = 2 THEN NULL ELSE g * 0.5 END::float8 FROM generate_series(1, $1::int) g", 3)
	if err != nil {
		t.Fatal(err)
	}
	fd, ok := rows.(interface {
		FieldDescriptions() []pgconn.FieldDescription
	})
	if !ok {
		t.Fatalf("%T has no FieldDescriptions (workload/script and workload/tpch read the columns from it)", rows)
	}
	if f := fd.FieldDescriptions(); len(f) != 3 || f[0].Name != "g" || f[1].DataTypeOID != pgtype.TextOID {
		t.Fatalf("field descriptions %+v", f)
	}
	var n int32
	var txt string
	var f *float64
	var seen []string
	for rows.Next() {
		if err := rows.Scan(&n, &txt, &f); err != nil {
			t.Fatal(err)
		}
		fs := "NULL"
		if f != nil {
			fs = time.Duration(*f * float64(time.Second)).String()
		}
		seen = append(seen, txt+":"+fs)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if len(seen) != 3 || seen[0] != "1:500ms" || seen[1] != "2:NULL" || seen[2] != "3:1.5s" {
		t.Fatalf("rows %v", seen)
	}
	// a destination count that does not match, and a statement the server refuses
	if err := c.QueryRow(ctx, "SELECT $1::int4, 2", 1).Scan(&n); err == nil {
		t.Error("two columns scanned into one destination: no error")
	}
	if err := c.QueryRow(ctx, "SELECT 1/$1::int4", 0).Scan(&n); err == nil || errors.Is(err, driver.ErrNoRows) {
		t.Errorf("division by zero: %v", err)
	}
	if err := c.QueryRow(ctx, "SELECT 1 WHERE $1::bool", false).Scan(&n); !errors.Is(err, driver.ErrNoRows) {
		t.Errorf("no row: %v, want driver.ErrNoRows", err)
	}
	// the connection is usable after all of that
	if err := c.QueryRow(ctx, "SELECT $1::int4 + 1", 41).Scan(&n); err != nil || n != 42 {
		t.Fatalf("after the failures: %d, %v", n, err)
	}
}

// TestDirectStatementReprepared: a statement whose result type changes under it (the table
// altered) fails once, as with pgx's cache, and is prepared again on its next use.
func TestDirectStatementReprepared(t *testing.T) {
	ctx := testCtx(t)
	c := connect(t, openDB(t)).(*Conn)
	table := testTable(t, c, 3)
	q := "SELECT * FROM " + table + " WHERE id = $1"
	var id int32
	var v int64
	var s string
	if err := c.QueryRow(ctx, q, 1).Scan(&id, &v, &s); err != nil || v != 10 {
		t.Fatalf("%d, %v", v, err)
	}
	mustExec(t, c, "ALTER TABLE "+table+" ADD COLUMN extra int4 NOT NULL DEFAULT 5")
	var extra int32
	if err := c.QueryRow(ctx, q, 1).Scan(&id, &v, &s, &extra); err == nil {
		t.Fatal("the altered table's statement ran as prepared before")
	}
	if err := c.QueryRow(ctx, q, 1).Scan(&id, &v, &s, &extra); err != nil || extra != 5 {
		t.Fatalf("after re-preparing: %d, %v", extra, err)
	}
}

// TestDirectCacheFull: once a connection holds statementCacheSize statements of its own, further
// SQL texts take pgx's path (its cache evicts), inside a transaction as well, and give the same
// answers.
func TestDirectCacheFull(t *testing.T) {
	ctx := testCtx(t)
	c := connect(t, openDB(t)).(*Conn)
	var n int64
	for i := 0; i < statementCacheSize+3; i++ {
		if i == statementCacheSize+1 {
			if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		sql := "SELECT $1::int8 + " + strconv.Itoa(i)
		if err := c.QueryRow(ctx, sql, int64(1000)).Scan(&n); err != nil || n != int64(1000+i) {
			t.Fatalf("statement %d: %d, %v", i, n, err)
		}
		if i >= statementCacheSize && c.stmts[sql] != nil {
			t.Fatalf("statement %d prepared on the direct path beyond its %d", i, statementCacheSize)
		}
	}
	if len(c.stmts) != statementCacheSize {
		t.Fatalf("%d statements on the direct path, want %d", len(c.stmts), statementCacheSize)
	}
	if err := c.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// a statement of the full cache still carries BEGIN and COMMIT (prepared beyond the bound)
	for _, iso := range []driver.Isolation{driver.IsolationReadCommitted, driver.IsolationSerializable} {
		if err := c.Begin(ctx, driver.TxOptions{Isolation: iso}); err != nil {
			t.Fatal(err)
		}
		c.CarryCommit()
		if err := c.QueryRow(ctx, "SELECT $1::int8 + 0", int64(7)).Scan(&n); err != nil || n != 7 {
			t.Fatalf("%s, the cache full: %d, %v", iso, n, err)
		}
		if err := c.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if s := c.txStatus(); s != 'I' {
			t.Fatalf("%s: transaction status %c after the carried COMMIT", iso, s)
		}
	}
	if err := c.QueryRow(ctx, "SELECT $1::int8", int64(5)).Scan(&n); err != nil || n != 5 {
		t.Fatalf("after the transaction: %d, %v", n, err)
	}
}

// TestDirectBusy: a statement sent while an earlier one's rows are still open is refused with
// "conn busy" (as pgconn refuses one), and the connection works once the rows are closed.
func TestDirectBusy(t *testing.T) {
	ctx := testCtx(t)
	c := connect(t, openDB(t)).(*Conn)
	rows, err := c.Query(ctx, "SELECT g FROM generate_series(1, $1::int) g", 3)
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() {
		t.Fatalf("no first row: %v", rows.Err())
	}
	var n int64
	if err := c.QueryRow(ctx, "SELECT $1::int8", int64(1)).Scan(&n); err == nil || !strings.Contains(err.Error(), "conn busy") {
		t.Fatalf("a statement over open rows: %v, want conn busy", err)
	}
	if _, err := c.Exec(ctx, "SELECT 1"); err == nil || !strings.Contains(err.Error(), "conn busy") {
		t.Fatalf("a statement without arguments over open rows: %v, want conn busy", err)
	}
	rows.Close()
	if err := c.QueryRow(ctx, "SELECT $1::int8", int64(2)).Scan(&n); err != nil || n != 2 {
		t.Fatalf("after Close: %d, %v", n, err)
	}
}

// TestDirectResultsReused: a row once scanned and rows once closed are handed out again by the
// next statement, so a statement's result allocates nothing; until then the closed rows still
// answer Err, and an unclosed result is never taken again.
func TestDirectResultsReused(t *testing.T) {
	ctx := testCtx(t)
	c := connect(t, openDB(t).(*DB)).(*Conn)
	var n int64
	row := c.QueryRow(ctx, "SELECT $1::int8", 7)
	if err := row.Scan(&n); err != nil || n != 7 {
		t.Fatalf("QueryRow: %d, %v", n, err)
	}
	if again := c.QueryRow(ctx, "SELECT $1::int8 + 1", 7); again != row {
		t.Error("a scanned row was not taken again by the next QueryRow")
	} else if err := again.Scan(&n); err != nil || n != 8 {
		t.Fatalf("the row taken again: %d, %v", n, err)
	}
	query := func(sql string, args ...any) (driver.Rows, []int64) {
		t.Helper()
		rs, err := c.Query(ctx, sql, args...)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		var got []int64
		for rs.Next() {
			var v int64
			if err := rs.Scan(&v); err != nil {
				t.Fatal(err)
			}
			got = append(got, v)
		}
		return rs, got
	}
	rs, got := query("SELECT generate_series(1, $1::int)", 3)
	rs.Close()
	if rs.Err() != nil || !reflect.DeepEqual(got, []int64{1, 2, 3}) {
		t.Fatalf("rows %v, Err after Close %v", got, rs.Err())
	}
	open, got := query("SELECT generate_series(4, $1::int)", 5) // read but not closed yet
	if open != rs || !reflect.DeepEqual(got, []int64{4, 5}) {
		t.Errorf("closed rows not taken again (%p, %p), or wrong rows %v", open, rs, got)
	}
	open.Close()
	// A failing statement: its error answers Err after Close, and the statement after it runs.
	bad, err := c.Query(ctx, "SELECT 1/$1::int", 0)
	if err == nil {
		for bad.Next() {
		}
		bad.Close()
		err = bad.Err()
	}
	if err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Fatalf("division by zero: %v", err)
	}
	next, got := query("SELECT $1::int8", 9)
	next.Close()
	if !reflect.DeepEqual(got, []int64{9}) || next.Err() != nil {
		t.Errorf("after a failed statement: %v, %v", got, next.Err())
	}
	// Bytes, not allocations: the slabs the results came from before amortised their count to nothing,
	// not their size (unsafe.Sizeof of one of each per statement).
	each := func() {
		if err := c.QueryRow(ctx, "SELECT $1::int8", 1).Scan(&n); err != nil {
			t.Fatal(err)
		}
		rs, err := c.Query(ctx, "SELECT generate_series(1, $1::int)", 2)
		if err != nil {
			t.Fatal(err)
		}
		for rs.Next() {
		}
		rs.Close()
	}
	each()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	const rounds = 1000
	for range rounds {
		each()
	}
	runtime.ReadMemStats(&m1)
	perRound := float64(m1.TotalAlloc-m0.TotalAlloc) / rounds
	if results := float64(unsafe.Sizeof(directRow{}) + unsafe.Sizeof(directRows{})); perRound >= results {
		t.Errorf("%.0f bytes allocated per QueryRow and Query, as many as a new result of each (%.0f): not reused", perRound, results)
	}
}
