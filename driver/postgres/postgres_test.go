package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/drivertest"
)

// pgURL is the test server; its absence fails the test: these tests exist to run against a real
// PostgreSQL.
func pgURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("CANDOR_TEST_PG_URL")
	if u == "" {
		t.Fatal("CANDOR_TEST_PG_URL is not set: run scripts/test (it starts a throwaway PostgreSQL), " +
			"or export CANDOR_TEST_PG_URL=postgres://user:pass@127.0.0.1:5432/db")
	}
	return u
}

// The helpers every engine's tests share (internal/drivertest).
var (
	testCtx  = drivertest.Ctx
	connect  = drivertest.Connect
	mustExec = drivertest.MustExec
	count    = drivertest.Count
	freePort = drivertest.FreePort
)

func openDB(t *testing.T) driver.DB {
	t.Helper()
	db, err := driver.Open(testCtx(t), pgURL(t))
	if err != nil {
		t.Fatalf("open %s: %v", driver.Redact(pgURL(t)), err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

var tableSeq atomic.Int64

// testTable creates a table (id int primary key, v int8, s text) with rows ids 1..rows (v = id*10,
// s = 'r'||id), named uniquely so that tests of other packages using the same database never
// collide, and drops it at the end.
func testTable(t *testing.T, c driver.Conn, rows int) string {
	t.Helper()
	ctx := testCtx(t)
	name := fmt.Sprintf("candor_drvtest_%d_%d", os.Getpid(), tableSeq.Add(1))
	mustExec(t, c, "CREATE TABLE "+name+" (id int PRIMARY KEY, v int8 NOT NULL, s text NOT NULL)")
	if rows > 0 {
		mustExec(t, c, "INSERT INTO "+name+" SELECT i, i*10, 'r'||i FROM generate_series(1, $1::int) i", rows)
	}
	t.Cleanup(func() {
		if _, err := c.Exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+name); err != nil {
			t.Errorf("drop %s: %v", name, err)
		}
	})
	return name
}

func TestOpenConnectVersion(t *testing.T) {
	db := openDB(t)
	if db.Kind() != "postgres" {
		t.Errorf("Kind = %q", db.Kind())
	}
	if d := db.Dialect(); d.Name != "postgres" || !d.Arrays || d.SingleWriter {
		t.Errorf("Dialect = %+v", d)
	}
	if db.DefaultIsolation() != driver.IsolationReadCommitted {
		t.Errorf("DefaultIsolation = %q", db.DefaultIsolation())
	}
	v, err := db.Version(testCtx(t))
	if err != nil || !strings.HasPrefix(v, "PostgreSQL ") || len(v) < len("PostgreSQL 9") {
		t.Errorf("Version = %q, %v", v, err)
	}
	t.Logf("version: %s", v)
	c := connect(t, db)
	var one int
	if err := c.QueryRow(testCtx(t), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 = %d, %v", one, err)
	}
	// The scheme is case-insensitive.
	db3, err := driver.Open(testCtx(t), "POSTGRES"+strings.TrimPrefix(pgURL(t), "postgres"))
	if err != nil {
		t.Fatalf("open POSTGRES://: %v", err)
	}
	db3.Close()
	// The postgresql:// scheme works too, and a password never shows in Redacted.
	u, _ := url.Parse(pgURL(t))
	u.Scheme = "postgresql"
	if _, has := u.User.Password(); !has {
		u.User = url.UserPassword(u.User.Username(), "not-shown-pw")
	}
	db2, err := driver.Open(testCtx(t), u.String())
	if err != nil {
		// A server that checks passwords refuses the made-up one; that is not what is tested here.
		if !strings.Contains(err.Error(), "refused user") {
			t.Fatalf("open postgresql://: %v", err)
		}
	} else {
		defer db2.Close()
		if r := db2.Redacted(); strings.Contains(r, "not-shown-pw") || !strings.HasPrefix(r, "postgresql://") {
			t.Errorf("Redacted = %q", r)
		}
	}
}

func TestBeginStatesIsolationAndAccessMode(t *testing.T) {
	db := openDB(t)
	c := connect(t, db)
	ctx := testCtx(t)
	for _, tc := range []struct {
		iso      driver.Isolation
		ro       bool
		wantIso  string
		wantRead string
	}{
		{driver.IsolationDefault, false, "read committed", "off"},
		{driver.IsolationReadCommitted, true, "read committed", "on"},
		{driver.IsolationRepeatableRead, false, "repeatable read", "off"},
		{driver.IsolationRepeatableRead, true, "repeatable read", "on"},
		{driver.IsolationSerializable, false, "serializable", "off"},
		{driver.IsolationSerializable, true, "serializable", "on"},
	} {
		if err := c.Begin(ctx, driver.TxOptions{Isolation: tc.iso, ReadOnly: tc.ro}); err != nil {
			t.Fatalf("Begin(%q, ro=%v): %v", tc.iso, tc.ro, err)
		}
		var iso, ro string
		if err := c.QueryRow(ctx, "SELECT current_setting('transaction_isolation'), current_setting('transaction_read_only')").Scan(&iso, &ro); err != nil {
			t.Fatal(err)
		}
		if iso != tc.wantIso || ro != tc.wantRead {
			t.Errorf("Begin(%q, ro=%v): isolation %q read_only %q, want %q %q", tc.iso, tc.ro, iso, ro, tc.wantIso, tc.wantRead)
		}
		if err := c.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Begin(ctx, driver.TxOptions{Isolation: "snapshot"}); err == nil {
		t.Error("Begin with an unknown isolation level succeeded")
	}
}

func TestCommitAndRollback(t *testing.T) {
	db := openDB(t)
	c := connect(t, db)
	ctx := testCtx(t)
	tbl := testTable(t, c, 0)

	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := mustExec(t, c, "INSERT INTO "+tbl+" VALUES ($1, $2, $3)", 1, int64(10), "a"); n != 1 {
		t.Errorf("rows affected = %d", n)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, c, tbl); n != 0 {
		t.Fatalf("after rollback: %d rows", n)
	}

	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "INSERT INTO "+tbl+" VALUES ($1, $2, $3)", 1, int64(10), "a")
	mustExec(t, c, "INSERT INTO "+tbl+" VALUES ($1, $2, $3)", 2, int64(20), "b")
	if err := c.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// Another connection sees the committed rows.
	if n := count(t, connect(t, db), tbl); n != 2 {
		t.Fatalf("after commit: %d rows", n)
	}

	// COMMIT of a transaction in which a statement failed is an error, not a silent rollback.
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "INSERT INTO "+tbl+" VALUES ($1, $2, $3)", 3, int64(30), "c")
	if _, err := c.Exec(ctx, "INSERT INTO "+tbl+" VALUES ($1, $2, $3)", 1, int64(10), "dup"); err == nil {
		t.Fatal("duplicate key accepted")
	} else if db.Classify(err) != driver.ErrFatal {
		t.Errorf("duplicate key classified %v", db.Classify(err))
	}
	if err := c.Commit(ctx); err == nil {
		t.Fatal("COMMIT of a failed transaction returned no error")
	}
	if n := count(t, c, tbl); n != 2 {
		t.Fatalf("after failed commit: %d rows", n)
	}
}

func TestQueryRowNoRows(t *testing.T) {
	db := openDB(t)
	c := connect(t, db)
	var n int
	err := c.QueryRow(testCtx(t), "SELECT 1 WHERE $1::int = 2", 1).Scan(&n)
	if !errors.Is(err, driver.ErrNoRows) {
		t.Fatalf("Scan of no row = %v, want driver.ErrNoRows", err)
	}
	// Rows held by the caller stay independent of later calls.
	r1 := c.QueryRow(testCtx(t), "SELECT 7")
	var a int
	if err := r1.Scan(&a); err != nil || a != 7 {
		t.Fatalf("Scan = %d, %v", a, err)
	}
	r2 := c.QueryRow(testCtx(t), "SELECT 8")
	if r1 == r2 {
		t.Fatal("QueryRow returned the same Row twice")
	}
}

func TestQuery(t *testing.T) {
	db := openDB(t)
	c := connect(t, db)
	tbl := testTable(t, c, 10)
	rows, err := c.Query(testCtx(t), "SELECT id, s FROM "+tbl+" WHERE id > $1 ORDER BY id", 7)
	if err != nil {
		t.Fatal(err)
	}
	got := drivertest.IDNames(t, rows) // closes rows, twice
	if got != "8 r8,9 r9,10 r10" {
		t.Errorf("rows = %v", got)
	}
	if _, err := c.Query(testCtx(t), "SELECT nosuchcolumn FROM "+tbl); err == nil {
		t.Error("bad query returned no error")
	}
}

// source is a RowSource that reuses its values slice, as the contract allows.
type source struct {
	i, n int
	vals []any
	buf  []byte
}

func (s *source) Next() bool {
	s.i++
	return s.i <= s.n
}

func (s *source) Values() ([]any, error) {
	s.buf = fmt.Appendf(s.buf[:0], "name-%d", s.i)
	s.vals = append(s.vals[:0], s.i, int64(s.i)*3, string(s.buf))
	return s.vals, nil
}

func (s *source) Err() error { return nil }

func TestCopyFrom(t *testing.T) {
	db := openDB(t)
	c := connect(t, db)
	ctx := testCtx(t)
	tbl := testTable(t, c, 0)
	const n = 5000

	got, err := c.CopyFrom(ctx, tbl, []string{"id", "v", "s"}, &source{n: n})
	if err != nil || got != n {
		t.Fatalf("CopyFrom = %d, %v", got, err)
	}
	var cnt, sum int64
	var s string
	if err := c.QueryRow(ctx, "SELECT count(*), sum(v), max(s) FILTER (WHERE id = 4321) FROM "+tbl).Scan(&cnt, &sum, &s); err != nil {
		t.Fatal(err)
	}
	if cnt != n || sum != 3*n*(n+1)/2 || s != "name-4321" {
		t.Fatalf("after CopyFrom: count %d sum %d s %q", cnt, sum, s)
	}

	// Inside a transaction, the copied rows go away with its rollback.
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	src := &source{i: n, n: 2 * n}
	if got, err := c.CopyFrom(ctx, tbl, []string{"id", "v", "s"}, src); err != nil || got != n {
		t.Fatalf("CopyFrom in tx = %d, %v", got, err)
	}
	if cnt := count(t, c, tbl); cnt != 2*n {
		t.Fatalf("in tx: %d rows", cnt)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if cnt := count(t, c, tbl); cnt != n {
		t.Fatalf("after rollback: %d rows", cnt)
	}
	// A schema-qualified name works.
	if got, err := c.CopyFrom(ctx, "public."+tbl, []string{"id", "v", "s"}, &source{i: 3 * n, n: 3*n + 10}); err != nil || got != 10 {
		t.Fatalf("CopyFrom public.%s = %d, %v", tbl, got, err)
	}
}

// TestStatementsArePreparedOnce: the same SQL text run many times is prepared once on the server.
func TestStatementsArePreparedOnce(t *testing.T) {
	db := openDB(t)
	c := connect(t, db)
	ctx := testCtx(t)
	tbl := testTable(t, c, 100)
	q := "SELECT v FROM " + tbl + " WHERE id = $1"
	for i := 1; i <= 50; i++ {
		var v int64
		if err := c.QueryRow(ctx, q, i).Scan(&v); err != nil || v != int64(i)*10 {
			t.Fatalf("row %d: v %d, %v", i, v, err)
		}
	}
	var prepared int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_prepared_statements WHERE statement = $1", q).Scan(&prepared); err != nil {
		t.Fatal(err)
	}
	if prepared != 1 {
		t.Fatalf("%q is prepared %d times on the server, want 1", q, prepared)
	}
}

// TestDeadlockIsRetry provokes a real deadlock: two transactions update two rows in opposite orders.
func TestDeadlockIsRetry(t *testing.T) {
	db := openDB(t)
	a, b := connect(t, db), connect(t, db)
	ctx := testCtx(t)
	tbl := testTable(t, a, 2)
	for _, c := range []driver.Conn{a, b} {
		c.Exec(ctx, "SET deadlock_timeout = '100ms'") // superusers only; the default 1 s is fine too
	}
	err := drivertest.Deadlock(t, db, a, b, "UPDATE "+tbl+" SET v = v + 1 WHERE id = $1", 20*time.Millisecond)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "40P01" {
		t.Fatalf("error %v is not a deadlock", err)
	}
}

// TestSerializationFailureIsRetry: a repeatable-read transaction updates a row that another one
// changed after its snapshot.
func TestSerializationFailureIsRetry(t *testing.T) {
	db := openDB(t)
	a, b := connect(t, db), connect(t, db)
	ctx := testCtx(t)
	tbl := testTable(t, a, 1)
	if err := a.Begin(ctx, driver.TxOptions{Isolation: driver.IsolationRepeatableRead}); err != nil {
		t.Fatal(err)
	}
	var v int64
	if err := a.QueryRow(ctx, "SELECT v FROM "+tbl+" WHERE id = 1").Scan(&v); err != nil {
		t.Fatal(err)
	}
	mustExec(t, b, "UPDATE "+tbl+" SET v = v + 1 WHERE id = 1")
	_, err := a.Exec(ctx, "UPDATE "+tbl+" SET v = v + 100 WHERE id = 1")
	a.Rollback(ctx)
	if err == nil {
		t.Fatal("no serialization failure")
	}
	if cl := db.Classify(err); cl != driver.ErrRetry {
		t.Fatalf("%v classified %v, want retry", err, cl)
	}
	// driver.Retry runs the transaction again and succeeds.
	retries, err := driver.Retry(ctx, db, a, driver.TxOptions{Isolation: driver.IsolationRepeatableRead}, 3,
		func(ctx context.Context, c driver.Conn) error {
			_, err := c.Exec(ctx, "UPDATE "+tbl+" SET v = v + 100 WHERE id = 1")
			return err
		})
	if err != nil || retries != 0 {
		t.Fatalf("Retry = %d, %v", retries, err)
	}
}

// TestTerminatedConnectionIsConnLost: a backend killed by the server reports a lost connection.
func TestTerminatedConnectionIsConnLost(t *testing.T) {
	db := openDB(t)
	a, b := connect(t, db), connect(t, db)
	ctx := testCtx(t)
	var pid int32
	if err := a.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	var ok bool
	if err := b.QueryRow(ctx, "SELECT pg_terminate_backend($1)", pid).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend = %v, %v", ok, err)
	}
	for i := range 2 { // the first error tells of the shutdown, the next of a closed connection
		var one int
		err := a.QueryRow(ctx, "SELECT 1").Scan(&one)
		if err == nil {
			t.Fatalf("query %d on a terminated connection succeeded", i)
		}
		if cl := db.Classify(err); cl != driver.ErrConnLost {
			t.Fatalf("query %d: %v classified %v, want connection lost", i, err, cl)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want driver.ErrorClass
	}{
		{&pgconn.PgError{Code: "40001"}, driver.ErrRetry},
		{fmt.Errorf("wrapped: %w", &pgconn.PgError{Code: "40P01"}), driver.ErrRetry},
		{&pgconn.PgError{Code: "55P03"}, driver.ErrRetry},
		{&pgconn.PgError{Code: "57P01"}, driver.ErrConnLost},
		{&pgconn.PgError{Code: "57P02"}, driver.ErrConnLost},
		{&pgconn.PgError{Code: "57P03"}, driver.ErrConnLost},
		{&pgconn.PgError{Code: "08006"}, driver.ErrConnLost},
		{&pgconn.PgError{Code: "23505"}, driver.ErrFatal},
		{&pgconn.PgError{Code: "42P01"}, driver.ErrFatal},
		{io.EOF, driver.ErrConnLost},
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), driver.ErrConnLost},
		{pgconn.ErrConnClosed, driver.ErrConnLost},
		{&net.OpError{Op: "read", Err: errors.New("reset")}, driver.ErrConnLost},
		{context.Canceled, driver.ErrFatal},
		{driver.ErrNoRows, driver.ErrFatal},
		{errors.New("something else"), driver.ErrFatal},
	} {
		if got := classify(tc.err); got != tc.want {
			t.Errorf("classify(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestUserErrors(t *testing.T) {
	const pw = "Secr3t-pw-4242"
	base, err := url.Parse(pgURL(t))
	if err != nil {
		t.Fatal(err)
	}
	user := base.User.Username()
	withPW := func(user, host, db string) string {
		u := *base
		u.User = url.UserPassword(user, pw)
		if host != "" {
			u.Host = host
		}
		if db != "" {
			u.Path = "/" + db
		}
		return u.String()
	}
	hostOnly := base.Hostname()
	drivertest.UserErrors(t, []drivertest.UserErrorCase{
		{Name: "nothing listening", URL: withPW(user, net.JoinHostPort("127.0.0.1", freePort(t)), ""), PW: pw,
			Want: []string{"cannot reach PostgreSQL at 127.0.0.1:", "(connection refused)", "start the server or fix --db"}},
		{Name: "unknown user", URL: withPW("candor_no_such_user", "", ""), PW: pw,
			Want: []string{"refused user candor_no_such_user", "check the user and password in --db"}},
		{Name: "missing database", URL: withPW(user, "", "candor_no_such_db"), PW: pw,
			Want: []string{"database candor_no_such_db does not exist on " + hostOnly, "createdb candor_no_such_db"}},
		{Name: "bad parameter", URL: withPW(user, "", "") + "?sslmode=sometimes", PW: pw,
			Want: []string{"is malformed", "postgres://user:pass@host:port/db"}},
		{Name: "bad bulk path", URL: withPW(user, "", "") + "?bulk=fast", PW: pw,
			Want: []string{"bulk=fast in the URL", "is not a bulk path: use bulk=auto"}},
		{Name: "bad port", URL: "postgres://" + user + ":" + pw + "@127.0.0.1:port/db", PW: pw,
			Want: []string{"is malformed"}},
		{Name: "unknown scheme", URL: "mysqlx://" + user + ":" + pw + "@127.0.0.1/db", PW: pw,
			Want: []string{`scheme "mysqlx" is not supported`, "postgres"}},
		// A password that is a letter or a word of the message: the message is left as it is (a
		// mask of every "e", or of "refused", would show the password).
		{Name: "password e", URL: "postgres://" + user + ":e@" + net.JoinHostPort("127.0.0.1", freePort(t)) + "/db",
			Want: []string{"cannot reach PostgreSQL at 127.0.0.1:", "(connection refused)", "start the server or fix --db"}, NotWant: []string{"xxxxx"}},
		{Name: "password refused", URL: "postgres://" + user + ":refused@" + net.JoinHostPort("127.0.0.1", freePort(t)) + "/db",
			Want: []string{"(connection refused)"}, NotWant: []string{"xxxxx"}},
		{Name: "password e, missing database", URL: "postgres://" + user + ":e@" + base.Host + "/candor_no_such_db",
			Want: []string{"database candor_no_such_db does not exist", "createdb candor_no_such_db"}, NotWant: []string{"xxxxx"}},
	})
}

// BenchmarkQueryRow measures the driver's cost of one prepared point query (go test -bench . -benchmem).
func BenchmarkQueryRow(b *testing.B) {
	c := drivertest.Connect(b, drivertest.Open(b, os.Getenv("CANDOR_TEST_PG_URL")))
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		var v int64
		if err := c.QueryRow(ctx, "SELECT $1::int8 + 1", int64(i)).Scan(&v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTransaction: BEGIN, one update, COMMIT.
func BenchmarkTransaction(b *testing.B) {
	c := drivertest.Connect(b, drivertest.Open(b, os.Getenv("CANDOR_TEST_PG_URL")))
	ctx := context.Background()
	c.Exec(ctx, "CREATE TEMP TABLE bench (id int PRIMARY KEY, v int8)")
	c.Exec(ctx, "INSERT INTO bench VALUES (1, 0)")
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Exec(ctx, "UPDATE bench SET v = v + $1 WHERE id = 1", int64(1)); err != nil {
			b.Fatal(err)
		}
		if err := c.Commit(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCopyFrom loads rows of (int, int8, text) with COPY; see rows/s.
func BenchmarkCopyFrom(b *testing.B) {
	c := drivertest.Connect(b, drivertest.Open(b, os.Getenv("CANDOR_TEST_PG_URL")))
	ctx := context.Background()
	if _, err := c.Exec(ctx, "CREATE TEMP TABLE bench_copy (id int, v int8, s text)"); err != nil {
		b.Fatal(err)
	}
	const rows = 100000
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.CopyFrom(ctx, "bench_copy", []string{"id", "v", "s"}, &source{n: rows}); err != nil {
			b.Fatal(err)
		}
		c.Exec(ctx, "TRUNCATE bench_copy")
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// TestWrongServer: a postgres:// URL at MariaDB's port names what answered (no "%!w(<nil>)" from
// the protocol error), at once.
func TestWrongServer(t *testing.T) {
	raw := os.Getenv("CANDOR_TEST_MYSQL_URL")
	if raw == "" {
		t.Fatal("CANDOR_TEST_MYSQL_URL is not set: run the tests with scripts/test, which starts a throwaway MariaDB")
	}
	my, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = driver.Open(drivertest.Ctx(t), "postgres://postgres@"+my.Host+"/candor")
	if err == nil {
		t.Fatal("Open succeeded at MariaDB's port")
	}
	drivertest.CheckUserError(t, err, "", "cannot connect to PostgreSQL at "+my.Host, "speaks MySQL's protocol", "use mysql://")
	if strings.Contains(err.Error(), "%!") {
		t.Errorf("message holds a formatting mark: %v", err)
	}
	if el := time.Since(start); el > 8*time.Second {
		t.Errorf("refused after %v", el)
	}
}

// TestInterruptCancelsOnServer: a statement whose context ends is stopped on the server too
// (CancelRequest), not only abandoned by candor: the session's backend is idle again at once, where it
// would sleep on for 30 s, and the DB counts the cancel.
func TestInterruptCancelsOnServer(t *testing.T) {
	db := openDB(t)
	c := connect(t, db)
	obs := connect(t, db)
	var pid int64
	if err := c.QueryRow(testCtx(t), "SELECT pg_backend_pid()::int8").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(testCtx(t), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := c.Exec(ctx, "SELECT pg_sleep($1::float8)", 30.0); err == nil {
		t.Fatal("the statement outlived its context")
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("the interrupted statement returned after %v", el)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		var active int64
		if err := obs.QueryRow(testCtx(t), "SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND state = 'active'", pid).Scan(&active); err != nil {
			t.Fatal(err)
		}
		if active == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("backend %d still runs the interrupted statement", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := db.(*DB).ServerCancels(); n != 1 {
		t.Errorf("ServerCancels = %d, want 1", n)
	}
}
