package mysql_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/blockconn"
	"github.com/candor-bench/candor/driver/mysql"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/internal/drivertest"
)

// Integration tests against the MySQL or MariaDB server of CANDOR_TEST_MYSQL_URL (scripts/test
// starts a throwaway MariaDB with local_infile on). Each test gets a database of its own.

// The helpers every engine's tests share (internal/drivertest).
var (
	testCtx  = drivertest.Ctx
	connect  = drivertest.Connect
	mustExec = drivertest.MustExec
	count    = drivertest.Count
	freePort = drivertest.FreePort
)

// freshURL is the URL of a new database, with extra URL parameters.
func freshURL(t *testing.T, params string) string {
	u := dbtest.FreshMySQLURL(t, "candor_drv")
	if params != "" {
		u += "?" + params
	}
	return u
}

func openURL(t *testing.T, raw string) *mysql.DB {
	t.Helper()
	db, err := driver.Open(testCtx(t), raw)
	if err != nil {
		t.Fatalf("open %s: %v", driver.Redact(raw), err)
	}
	t.Cleanup(func() { db.Close() })
	return db.(*mysql.DB)
}

// table t (id int primary key, v bigint, s varchar) with rows ids 1..rows (v = id*10, s = 'r'||id).
func createTable(t *testing.T, c driver.Conn, rows int) {
	t.Helper()
	mustExec(t, c, "CREATE TABLE t (id INT PRIMARY KEY, v BIGINT NOT NULL, s VARCHAR(200) NOT NULL) ENGINE=InnoDB")
	for i := 1; i <= rows; i++ {
		mustExec(t, c, "INSERT INTO t VALUES (?, ?, ?)", i, int64(i)*10, fmt.Sprint("r", i))
	}
}

func TestOpenConnectVersion(t *testing.T) {
	raw := freshURL(t, "")
	db := openURL(t, raw)
	if db.Kind() != "mysql" {
		t.Errorf("Kind = %q", db.Kind())
	}
	if d := db.Dialect(); d.Name != "mysql" || d.Arrays || d.SingleWriter {
		t.Errorf("Dialect = %+v", d)
	}
	v, _ := db.Version(testCtx(t))
	if !strings.HasPrefix(v, "MariaDB ") && !strings.HasPrefix(v, "MySQL ") {
		t.Errorf("Version = %q", v)
	}
	t.Logf("version: %s, default isolation %s, bulk path %s, max_allowed_packet %d", v, db.DefaultIsolation(), db.BulkPath(), db.MaxAllowedPacket())
	// The throwaway server runs with the engines' default level and local_infile on.
	if db.DefaultIsolation() != driver.IsolationRepeatableRead {
		t.Errorf("DefaultIsolation = %q, want repeatable-read", db.DefaultIsolation())
	}
	if db.BulkPath() != mysql.BulkLoadData {
		t.Errorf("BulkPath = %q with local_infile on", db.BulkPath())
	}
	if strings.Contains(db.Redacted(), passwordOf(t, raw)) {
		t.Errorf("Redacted shows the password: %s", db.Redacted())
	}
	c := connect(t, db)
	var one int64
	if err := c.QueryRow(testCtx(t), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 = %d, %v", one, err)
	}
	// The mariadb:// scheme and an upper-case scheme reach the same server.
	for _, scheme := range []string{"mariadb", "MYSQL"} {
		db2, err := driver.Open(testCtx(t), scheme+strings.TrimPrefix(raw, "mysql"))
		if err != nil {
			t.Fatalf("open %s://: %v", scheme, err)
		}
		db2.Close()
	}
	// bulk=insert chooses the INSERT path whatever the server allows.
	if p := openURL(t, raw+"?bulk=insert").BulkPath(); p != mysql.BulkInsert {
		t.Errorf("bulk=insert: BulkPath = %q", p)
	}
}

func passwordOf(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	pw, ok := u.User.Password()
	if !ok || pw == "" {
		t.Fatalf("the test server's URL %s has no password: the redaction tests need one", driver.Redact(raw))
	}
	return pw
}

func TestBeginStatesIsolationAndAccessMode(t *testing.T) {
	db := openURL(t, freshURL(t, ""))
	c := connect(t, db)
	ctx := testCtx(t)
	createTable(t, c, 1)
	// The level of the transaction Begin started, told by how it behaves (the session variable does
	// not show a level set for one transaction, and information_schema.innodb_trx is a cache that
	// may lag): under SERIALIZABLE a plain read locks the row, so another session cannot lock it;
	// under READ COMMITTED a second read sees another session's commit, under REPEATABLE READ not.
	other := connect(t, db)
	level := func() string {
		var v1, v2 int64
		if err := c.QueryRow(ctx, "SELECT v FROM t WHERE id = ?", 1).Scan(&v1); err != nil {
			t.Fatal(err)
		}
		var x int64
		if err := other.QueryRow(ctx, "SELECT v FROM t WHERE id = ? FOR UPDATE NOWAIT", 1).Scan(&x); err != nil {
			return "SERIALIZABLE"
		}
		mustExec(t, other, "UPDATE t SET v = v + 1 WHERE id = ?", 1)
		if err := c.QueryRow(ctx, "SELECT v FROM t WHERE id = ?", 1).Scan(&v2); err != nil {
			t.Fatal(err)
		}
		if v2 != v1 {
			return "READ-COMMITTED"
		}
		return "REPEATABLE-READ"
	}
	for _, tc := range []struct {
		iso  driver.Isolation
		ro   bool
		want string
	}{
		{driver.IsolationDefault, false, "REPEATABLE-READ"},
		{driver.IsolationReadCommitted, true, "READ-COMMITTED"}, // for one transaction
		{driver.IsolationDefault, false, "REPEATABLE-READ"},
		{driver.IsolationReadCommitted, true, "READ-COMMITTED"},
		{driver.IsolationReadCommitted, false, "READ-COMMITTED"}, // twice in a row: the session's
		{driver.IsolationSerializable, false, "SERIALIZABLE"},
		{driver.IsolationRepeatableRead, true, "REPEATABLE-READ"},
		{driver.IsolationDefault, true, "REPEATABLE-READ"},
		{driver.IsolationSerializable, false, "SERIALIZABLE"},
		{driver.IsolationSerializable, false, "SERIALIZABLE"},
		{driver.IsolationReadCommitted, false, "READ-COMMITTED"},
		{driver.IsolationSerializable, false, "SERIALIZABLE"},
	} {
		if err := c.Begin(ctx, driver.TxOptions{Isolation: tc.iso, ReadOnly: tc.ro}); err != nil {
			t.Fatalf("Begin(%q, ro=%v): %v", tc.iso, tc.ro, err)
		}
		if got := level(); got != tc.want {
			t.Errorf("Begin(%q, ro=%v): isolation %s, want %s", tc.iso, tc.ro, got, tc.want)
		}
		// A read-only transaction refuses to write (error 1792).
		_, err := c.Exec(ctx, "UPDATE t SET v = v + 1 WHERE id = ?", 1)
		var me *gomysql.MySQLError
		if tc.ro && (!errors.As(err, &me) || me.Number != 1792) {
			t.Errorf("Begin(%q, ro=true): UPDATE gave %v, want error 1792", tc.iso, err)
		}
		if !tc.ro && err != nil {
			t.Errorf("Begin(%q, ro=false): UPDATE: %v", tc.iso, err)
		}
		if err := c.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Only the changes of level cost a statement: one per switch, none while the level holds.
	var name string
	var sets int64
	if err := c.QueryRow(ctx, "SHOW SESSION STATUS LIKE 'Com_set_option'").Scan(&name, &sets); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if err := c.Begin(ctx, driver.TxOptions{Isolation: driver.IsolationSerializable}); err != nil {
			t.Fatal(err)
		}
		if err := c.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var after int64
	if err := c.QueryRow(ctx, "SHOW SESSION STATUS LIKE 'Com_set_option'").Scan(&name, &after); err != nil {
		t.Fatal(err)
	}
	if after-sets != 0 {
		t.Errorf("5 transactions at the session's level ran %d SET statements, want 0", after-sets)
	}
	if err := c.Begin(ctx, driver.TxOptions{Isolation: "snapshot"}); err == nil {
		t.Error("Begin with an unknown isolation level succeeded")
	}
}

func TestCommitAndRollback(t *testing.T) {
	db := openURL(t, freshURL(t, ""))
	c := connect(t, db)
	ctx := testCtx(t)
	createTable(t, c, 0)

	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := mustExec(t, c, "INSERT INTO t VALUES (?, ?, ?)", 1, int64(10), "a"); n != 1 {
		t.Errorf("rows affected = %d", n)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, c, "t"); n != 0 {
		t.Fatalf("after rollback: %d rows", n)
	}
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "INSERT INTO t VALUES (?, ?, ?)", 1, int64(10), "a")
	mustExec(t, c, "INSERT INTO t VALUES (?, ?, ?)", 2, int64(20), "b")
	// Another session does not see uncommitted rows, then sees them after the commit.
	other := connect(t, db)
	if n := count(t, other, "t"); n != 0 {
		t.Fatalf("before commit, another session sees %d rows", n)
	}
	if err := c.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, other, "t"); n != 2 {
		t.Fatalf("after commit, another session sees %d rows", n)
	}
	// An UPDATE reports the rows it matched, even those it did not change (CLIENT_FOUND_ROWS).
	if n := mustExec(t, c, "UPDATE t SET v = v WHERE id <= ?", 2); n != 2 {
		t.Errorf("UPDATE of 2 unchanged rows reports %d", n)
	}
	// A failed statement is fatal, and rolling back after it works.
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO t VALUES (?, ?, ?)", 1, int64(10), "dup"); err == nil {
		t.Fatal("duplicate key accepted")
	} else if db.Classify(err) != driver.ErrFatal {
		t.Errorf("duplicate key classified %v", db.Classify(err))
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	// Rolling back with no transaction open is not an error.
	if err := c.Rollback(ctx); err != nil {
		t.Errorf("Rollback without a transaction: %v", err)
	}
}

func TestQueryRowAndQuery(t *testing.T) {
	db := openURL(t, freshURL(t, ""))
	c := connect(t, db)
	ctx := testCtx(t)
	createTable(t, c, 10)
	var n int64
	if err := c.QueryRow(ctx, "SELECT v FROM t WHERE id = ?", 42).Scan(&n); !errors.Is(err, driver.ErrNoRows) {
		t.Fatalf("Scan of no row = %v, want driver.ErrNoRows", err)
	}
	if err := c.QueryRow(ctx, "SELECT v FROM t WHERE id = 42").Scan(&n); !errors.Is(err, driver.ErrNoRows) {
		t.Fatalf("Scan of no row (no arguments) = %v, want driver.ErrNoRows", err)
	}
	if err := c.QueryRow(ctx, "SELECT nosuchcolumn FROM t WHERE id = ?", 1).Scan(&n); err == nil || errors.Is(err, driver.ErrNoRows) {
		t.Fatalf("bad query: %v", err)
	}
	// Rows held by the caller stay independent of later calls. (On this protocol a result must be
	// read before the next statement, so r1 is scanned first.)
	r1 := c.QueryRow(ctx, "SELECT v FROM t WHERE id = ?", 7)
	if err := r1.Scan(&n); err != nil || n != 70 {
		t.Fatalf("Scan = %d, %v", n, err)
	}
	r2 := c.QueryRow(ctx, "SELECT v FROM t WHERE id = ?", 8)
	if r1 == r2 {
		t.Fatal("QueryRow returned the same Row twice")
	}
	if err := r2.Scan(&n); err != nil || n != 80 {
		t.Fatalf("Scan = %d, %v", n, err)
	}
	// Money as DECIMAL converts to exact int64 cents in SQL; DATETIME(6) scans into time.Time.
	var cents int64
	var ts time.Time
	if err := c.QueryRow(ctx, "SELECT CAST(CAST(? AS DECIMAL(12,2)) * 100 AS SIGNED), CAST(? AS DATETIME(6))", "12345.67", "2026-01-02 03:04:05.123456").Scan(&cents, &ts); err != nil {
		t.Fatal(err)
	}
	if cents != 1234567 || !ts.Equal(time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC)) {
		t.Errorf("cents %d, time %v", cents, ts)
	}
	rows, err := c.Query(ctx, "SELECT id, s FROM t WHERE id > ? ORDER BY id", 7)
	if err != nil {
		t.Fatal(err)
	}
	got := drivertest.IDNames(t, rows) // closes rows, twice
	if got != "8 r8,9 r9,10 r10" {
		t.Errorf("rows = %v", got)
	}
	if _, err := c.Query(ctx, "SELECT nosuchcolumn FROM t WHERE id > ?", 1); err == nil {
		t.Error("bad query returned no error")
	}
}

// source is a RowSource of rows (id, v, s, d, ts) that reuses its values slice and byte buffer, as
// the contract allows; s holds the characters that need escaping, and every 7th row has NULLs.
type source struct {
	i, n int
	wide int // length of s, to make rows big
	vals []any
	buf  []byte
}

func (s *source) Next() bool {
	s.i++
	return s.i <= s.n
}

var base = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func (s *source) Values() ([]any, error) {
	s.buf = fmt.Appendf(s.buf[:0], "name-%d\t'q'\\ \"x\"\n", s.i)
	for len(s.buf) < s.wide {
		s.buf = append(s.buf, 'w')
	}
	var d, ts any = dec(int64(s.i)*101 - 5000), base.Add(time.Duration(s.i) * time.Microsecond)
	if s.i%7 == 0 {
		d, ts = nil, nil
	}
	s.vals = append(s.vals[:0], s.i, int64(s.i)*3, s.buf, d, ts)
	return s.vals, nil
}

func (s *source) Err() error { return nil }

// dec is an exact amount in cents that writes itself as text, as TPC-C's generator's values do.
type dec int64

func (d dec) AppendText(b []byte) ([]byte, error) {
	v, sign := int64(d), ""
	if v < 0 {
		v, sign = -v, "-"
	}
	return fmt.Appendf(b, "%s%d.%02d", sign, v/100, v%100), nil
}

const copyTable = `CREATE TABLE c (id INT PRIMARY KEY, v BIGINT NOT NULL, s VARCHAR(2000) NOT NULL,
	d DECIMAL(12,2) NULL, ts DATETIME(6) NULL) ENGINE=InnoDB`

func TestCopyFrom(t *testing.T) {
	for _, tc := range []struct{ name, params, path string }{
		{"load data", "", mysql.BulkLoadData},
		{"insert", "bulk=insert", mysql.BulkInsert},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openURL(t, freshURL(t, tc.params))
			c := connect(t, db)
			ctx := testCtx(t)
			mustExec(t, c, copyTable)
			cols := []string{"id", "v", "s", "d", "ts"}
			// Rows wide enough that the INSERT path needs several statements (over 4 MB).
			const n = 12000
			got, err := c.CopyFrom(ctx, "c", cols, &source{n: n, wide: 400})
			if err != nil || got != n {
				t.Fatalf("CopyFrom = %d, %v", got, err)
			}
			if p := db.BulkPath(); p != tc.path {
				t.Errorf("BulkPath = %q, want %q", p, tc.path)
			}
			var cnt, sum, nulls, dsum int64
			if err := c.QueryRow(ctx, "SELECT count(*), sum(v), sum(d IS NULL), CAST(sum(d) * 100 AS SIGNED) FROM c").Scan(&cnt, &sum, &nulls, &dsum); err != nil {
				t.Fatal(err)
			}
			var wantD int64
			for i := int64(1); i <= n; i++ {
				if i%7 != 0 {
					wantD += i*101 - 5000
				}
			}
			if cnt != n || sum != 3*n*(n+1)/2 || nulls != n/7 || dsum != wantD {
				t.Fatalf("after CopyFrom: count %d sum %d nulls %d sum(d) %d (want %d)", cnt, sum, nulls, dsum, wantD)
			}
			var s string
			var ts time.Time
			if err := c.QueryRow(ctx, "SELECT s, ts FROM c WHERE id = ?", 4321).Scan(&s, &ts); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(s, "name-4321\t'q'\\ \"x\"\nwww") || len(s) != 400 || !ts.Equal(base.Add(4321*time.Microsecond)) {
				t.Fatalf("row 4321: s %q (%d bytes), ts %v", s, len(s), ts)
			}

			// Inside the caller's transaction, the rows go away with its rollback.
			if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
				t.Fatal(err)
			}
			if got, err := c.CopyFrom(ctx, "c", cols, &source{i: n, n: n + 3000}); err != nil || got != 3000 {
				t.Fatalf("CopyFrom in tx = %d, %v", got, err)
			}
			if cnt := count(t, c, "c"); cnt != n+3000 {
				t.Fatalf("in tx: %d rows", cnt)
			}
			if err := c.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			if cnt := count(t, c, "c"); cnt != n {
				t.Fatalf("after rollback: %d rows", cnt)
			}

			// Duplicate keys fail the copy (LOAD DATA LOCAL would only warn), and a copy outside a
			// transaction leaves nothing behind.
			_, err = c.CopyFrom(ctx, "c", cols, &source{i: n - 10, n: n + 700})
			if err == nil {
				t.Fatal("CopyFrom of duplicate keys succeeded")
			}
			t.Logf("duplicate keys: %v", err)
			if cnt := count(t, c, "c"); cnt != n {
				t.Fatalf("after a failed CopyFrom: %d rows", cnt)
			}
			// A value too long for its column fails too.
			if _, err := c.CopyFrom(ctx, "c", cols, &source{i: 2 * n, n: 2*n + 5, wide: 3000}); err == nil {
				t.Fatal("CopyFrom of too long a value succeeded")
			}
			if cnt := count(t, c, "c"); cnt != n {
				t.Fatalf("after a failed CopyFrom: %d rows", cnt)
			}
		})
	}
}

// TestStatementsArePreparedOnce: the same SQL text run many times is prepared once on the server.
func TestStatementsArePreparedOnce(t *testing.T) {
	db := openURL(t, freshURL(t, ""))
	c := connect(t, db)
	ctx := testCtx(t)
	createTable(t, c, 50)
	prepared := func() int64 {
		var name string
		var n int64
		if err := c.QueryRow(ctx, "SHOW SESSION STATUS LIKE 'Com_stmt_prepare'").Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := prepared()
	for i := 1; i <= 50; i++ {
		var v int64
		if err := c.QueryRow(ctx, "SELECT v FROM t WHERE id = ?", i).Scan(&v); err != nil || v != int64(i)*10 {
			t.Fatalf("row %d: v %d, %v", i, v, err)
		}
	}
	if d := prepared() - before; d != 1 {
		t.Fatalf("50 executions prepared %d statements on the server, want 1", d)
	}
}

// TestDeadlockIsRetry provokes a real deadlock: two transactions update two rows in opposite orders.
func TestDeadlockIsRetry(t *testing.T) {
	db := openURL(t, freshURL(t, ""))
	a, b := connect(t, db), connect(t, db)
	ctx := testCtx(t)
	createTable(t, a, 2)
	const upd = "UPDATE t SET v = v + 1 WHERE id = ?"
	err := drivertest.Deadlock(t, db, a, b, upd, 100*time.Millisecond)
	var me *gomysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1213 {
		t.Fatalf("error %v is not a deadlock", err)
	}
	// driver.Retry runs a transaction again after a retryable error and succeeds.
	retries, err := driver.Retry(ctx, db, a, driver.TxOptions{}, 3, func(ctx context.Context, c driver.Conn) error {
		_, err := c.Exec(ctx, upd, 1)
		return err
	})
	if err != nil || retries != 0 {
		t.Fatalf("Retry = %d, %v", retries, err)
	}
}

// TestLockWaitTimeoutIsRetry: a row lock held longer than innodb_lock_wait_timeout.
func TestLockWaitTimeoutIsRetry(t *testing.T) {
	db := openURL(t, freshURL(t, ""))
	a, b := connect(t, db), connect(t, db)
	ctx := testCtx(t)
	createTable(t, a, 1)
	mustExec(t, b, "SET SESSION innodb_lock_wait_timeout = 1")
	if err := a.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, a, "UPDATE t SET v = v + 1 WHERE id = ?", 1)
	retries, err := driver.Retry(ctx, db, b, driver.TxOptions{}, 1, func(ctx context.Context, c driver.Conn) error {
		var v int64
		return c.QueryRow(ctx, "SELECT v FROM t WHERE id = ? FOR UPDATE", 1).Scan(&v)
	})
	a.Rollback(ctx)
	var me *gomysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1205 {
		t.Fatalf("error %v is not a lock wait timeout", err)
	}
	if retries != 1 {
		t.Errorf("the lock wait timeout was retried %d times, want 1 (the limit)", retries)
	}
}

// TestKilledConnectionIsConnLost: a session killed by the server reports a lost connection.
func TestKilledConnectionIsConnLost(t *testing.T) {
	db := openURL(t, freshURL(t, ""))
	a, b := connect(t, db), connect(t, db)
	ctx := testCtx(t)
	var id int64
	if err := a.QueryRow(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	mustExec(t, b, fmt.Sprintf("KILL CONNECTION %d", id))
	time.Sleep(100 * time.Millisecond)
	for i := range 2 {
		var one int64
		err := a.QueryRow(ctx, "SELECT ?", 1).Scan(&one)
		if err == nil {
			t.Fatalf("query %d on a killed connection succeeded", i)
		}
		if cl := db.Classify(err); cl != driver.ErrConnLost {
			t.Fatalf("query %d: %v classified %v, want connection lost", i, err, cl)
		}
	}
}

func TestUserErrors(t *testing.T) {
	raw := dbtest.MySQLURL(t)
	base, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	realPW := passwordOf(t, raw)
	const pw = "Wr0ng-pw-4242"
	user := base.User.Username()
	with := func(user, password, host, db string) string {
		u := *base
		u.User = url.UserPassword(user, password)
		if host != "" {
			u.Host = host
		}
		if db != "" {
			u.Path = "/" + db
		}
		return u.String()
	}
	drivertest.UserErrors(t, []drivertest.UserErrorCase{
		{Name: "nothing listening", URL: with(user, realPW, net.JoinHostPort("127.0.0.1", freePort(t)), ""), PW: realPW,
			Want: []string{"cannot reach MySQL at 127.0.0.1:", "(connection refused)", "start the server or fix --db"}},
		{Name: "wrong password", URL: with(user, pw, "", ""), PW: pw,
			Want: []string{"refused user " + user, "Access denied", "check the user and password in --db"}},
		{Name: "unknown user", URL: with("candor_no_such_user", pw, "", ""), PW: pw,
			Want: []string{"refused user candor_no_such_user", "check the user and password in --db"}},
		{Name: "missing database", URL: with(user, realPW, "", "candor_no_such_db"), PW: realPW,
			Want: []string{"database candor_no_such_db does not exist on MySQL at " + base.Host, "CREATE DATABASE candor_no_such_db"}},
		{Name: "mariadb scheme", URL: "mariadb" + strings.TrimPrefix(with(user, realPW, "", "candor_no_such_db"), "mysql"), PW: realPW,
			Want: []string{"database candor_no_such_db does not exist on MariaDB at"}},
		{Name: "bad parameter", URL: with(user, realPW, "", "") + "?bulk=copy", PW: realPW,
			Want: []string{"bulk=copy", "auto, load-data or insert"}},
		{Name: "no database", URL: "mysql://" + user + ":" + realPW + "@" + base.Host, PW: realPW,
			Want: []string{"names no database", "mysql://user:pass@host:port/db"}},
		// A password that is a letter or a word of the message: the message is left as it is (a
		// mask of every "e", or of "refused", would show the password).
		{Name: "password e", URL: with(user, "e", net.JoinHostPort("127.0.0.1", freePort(t)), ""),
			Want: []string{"cannot reach MySQL at 127.0.0.1:", "(connection refused)", "start the server or fix --db"}, NotWant: []string{"xxxxx"}},
		{Name: "password refused", URL: with(user, "refused", net.JoinHostPort("127.0.0.1", freePort(t)), ""),
			Want: []string{"(connection refused)"}, NotWant: []string{"xxxxx"}},
		{Name: "wrong password e", URL: with(user, "e", "", ""),
			Want: []string{"refused user " + user, "Access denied", "check the user and password in --db"}, NotWant: []string{"xxxxx"}},
	})
}

// BenchmarkTransaction: START TRANSACTION, one prepared update, COMMIT (go test -bench . -benchmem).
func BenchmarkTransaction(b *testing.B) {
	raw := dbtest.FreshMySQLURL(b, "candor_bench")
	c := drivertest.Connect(b, drivertest.Open(b, raw))
	ctx, cancel := context.WithCancel(context.Background()) // a context that can end, as a run's can
	defer cancel()
	c.Exec(ctx, "CREATE TABLE bench (id INT PRIMARY KEY, v BIGINT)")
	c.Exec(ctx, "INSERT INTO bench VALUES (1, 0)")
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Exec(ctx, "UPDATE bench SET v = v + ? WHERE id = 1", int64(1)); err != nil {
			b.Fatal(err)
		}
		if err := c.Commit(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
}

// cpuTime is the process's CPU time so far (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCopyFrom loads rows of (int, bigint, text, decimal, datetime) on both paths; see rows/s.
func BenchmarkCopyFrom(b *testing.B) {
	for _, params := range []string{"", "?bulk=insert"} {
		b.Run("bulk"+params, func(b *testing.B) {
			raw := dbtest.FreshMySQLURL(b, "candor_bench") + params
			c := drivertest.Connect(b, drivertest.Open(b, raw))
			ctx := context.Background()
			if _, err := c.Exec(ctx, copyTable); err != nil {
				b.Fatal(err)
			}
			const rows = 100000
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.CopyFrom(ctx, "c", []string{"id", "v", "s", "d", "ts"}, &source{n: rows}); err != nil {
					b.Fatal(err)
				}
				c.Exec(ctx, "TRUNCATE c")
			}
			b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// TestContextInterrupts: a statement runs until its context ends, then stops at once with the
// context's error (not a lost connection); a context that ends after its statement finished leaves
// the session alone.
// It holds on each socket kind (SocketEnv): the netpoller's, and driver/blockconn's held sockets
// (a run's own connections: blockconn.ForRun), whose reads a context ends by shutting the socket
// down.
func TestContextInterrupts(t *testing.T) {
	for _, kind := range []string{blockconn.Netpoll, blockconn.Held} {
		t.Run(kind, func(t *testing.T) {
			t.Setenv(mysql.SocketEnv, kind)
			testContextInterrupts(t, kind)
		})
	}
}

func testContextInterrupts(t *testing.T, kind string) {
	db := openURL(t, freshURL(t, ""))
	live := blockconn.Live()
	if c := connect(t, db); blockconn.Live() != live {
		t.Fatalf("%s=%s: a connection outside a run is on blockconn's socket", mysql.SocketEnv, kind)
	} else {
		c.Close()
	}
	c, err := db.Connect(blockconn.ForRun(testCtx(t), 1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if own := blockconn.Live() > live; own != (kind != blockconn.Netpoll) {
		t.Fatalf("%s=%s: the session's socket is blockconn's: %v", mysql.SocketEnv, kind, own)
	}
	if p := db.ClientPath(); (kind != blockconn.Netpoll) != strings.Contains(p, kind+" sockets") {
		t.Fatalf("%s=%s: client path %q", mysql.SocketEnv, kind, p)
	}
	ctx, cancel := context.WithCancel(testCtx(t))
	var one int64
	if err := c.QueryRow(ctx, "SELECT ?", 1).Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT = %d, %v", one, err)
	}
	rows, err := c.Query(ctx, "SELECT ? UNION ALL SELECT 2", 1)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
	}
	rows.Close()
	mustExec(t, c, "DO ?", 1)
	cancel() // after the statements: nothing happens to the session
	if err := c.QueryRow(testCtx(t), "SELECT ?", 2).Scan(&one); err != nil || one != 2 {
		t.Fatalf("after a finished statement's context ended: %d, %v", one, err)
	}

	short, cancel2 := context.WithTimeout(testCtx(t), 200*time.Millisecond)
	defer cancel2()
	start := time.Now()
	_, err = c.Exec(short, "DO SLEEP(?)", 20)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a statement past its deadline returned %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the statement stopped after %v, not at its deadline", d)
	}
	if cl := db.Classify(err); cl != driver.ErrFatal {
		t.Errorf("%v classified %v, want fatal", err, cl)
	}
	// The session is gone; the next statement says so.
	if _, err := c.Exec(testCtx(t), "DO ?", 1); err == nil || db.Classify(err) != driver.ErrConnLost {
		t.Errorf("the next statement: %v (class %v), want a lost connection", err, db.Classify(err))
	}
	if err := c.Close(); err != nil {
		t.Errorf("closing an interrupted session: %v", err)
	}
	// A context per statement, each ended right after its statement (as sysmon's sampler does): a
	// late-running interrupt of an earlier context must leave the later statements alone.
	c2 := connect(t, db)
	for i := range 300 {
		each, end := context.WithTimeout(testCtx(t), time.Minute)
		rows, err := c2.Query(each, "SELECT ? UNION ALL SELECT 2", i)
		if err != nil {
			t.Fatalf("statement %d with a context of its own: %v", i, err)
		}
		for rows.Next() {
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Fatalf("statement %d with a context of its own: %v", i, err)
		}
		end()
		runtime.Gosched()
	}
	// An already ended context runs nothing.
	done, cancel3 := context.WithCancel(context.Background())
	cancel3()
	if _, err := connect(t, db).Exec(done, "DO ?", 1); !errors.Is(err, context.Canceled) {
		t.Errorf("Exec with an ended context: %v", err)
	}
}

// TestWrongServer: a mysql:// URL at a server that waits for the client to speak (PostgreSQL's
// port, an HTTP server) fails within the connect timeout, not when that server gives up, and names
// what answered.
func TestWrongServer(t *testing.T) {
	pg, err := url.Parse(dbtest.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	cases := []struct {
		name, host string
		want       []string
	}{
		{"postgres port", pg.Host, []string{"cannot connect to MySQL at " + pg.Host, "speaks PostgreSQL's protocol", "use postgres://"}},
		{"http server", strings.TrimPrefix(srv.URL, "http://"), []string{"speaks HTTP", "check the port"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := driver.Open(drivertest.Ctx(t), "mysql://candor:pw@"+tc.host+"/candor?connect_timeout=2")
			if err == nil {
				t.Fatal("Open succeeded")
			}
			drivertest.CheckUserError(t, err, "", tc.want...)
			if el := time.Since(start); el > 8*time.Second {
				t.Errorf("refused after %v (connect_timeout=2)", el)
			}
		})
	}
}

// TestInterruptKillsQuery: a statement whose context ends is stopped on the server too (KILL QUERY),
// not only abandoned by candor: the session's thread leaves it at once, where it would sleep on for
// 30 s, and the DB counts the kill. On candor's wire and on go-sql-driver's statements.
func TestInterruptKillsQuery(t *testing.T) {
	for _, path := range []string{"own wire", "go-sql-driver"} {
		t.Run(path, func(t *testing.T) {
			if path == "go-sql-driver" {
				t.Setenv(mysql.PreparedEnv, "go-sql-driver")
			}
			db := openURL(t, freshURL(t, ""))
			c := connect(t, db)
			obs := connect(t, db)
			var id int64
			if err := c.QueryRow(testCtx(t), "SELECT CONNECTION_ID()").Scan(&id); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(testCtx(t), 500*time.Millisecond)
			defer cancel()
			start := time.Now()
			if _, err := c.Exec(ctx, "SELECT SLEEP(?)", 30); err == nil {
				t.Fatal("the statement outlived its context")
			}
			if el := time.Since(start); el > 5*time.Second {
				t.Fatalf("the interrupted statement returned after %v", el)
			}
			deadline := time.Now().Add(5 * time.Second)
			for {
				var running int64
				if err := obs.QueryRow(testCtx(t), "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ? AND INFO LIKE 'SELECT SLEEP%'", id).Scan(&running); err != nil {
					t.Fatal(err)
				}
				if running == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("session %d still runs the interrupted statement", id)
				}
				time.Sleep(50 * time.Millisecond)
			}
			if n := db.ServerCancels(); n != 1 {
				t.Errorf("ServerCancels = %d, want 1", n)
			}
		})
	}
}
