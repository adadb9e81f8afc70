package mysql_test

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/mysql"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/internal/gmsstandin"
)

// wireTable has a column of every type candor's wire decodes, and a row of each kind: typical
// values, the extremes, and NULLs.
const wireTable = `CREATE TABLE w (id INT PRIMARY KEY,
	ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, su SMALLINT UNSIGNED, mi MEDIUMINT, iu INT UNSIGNED,
	bi BIGINT, bu BIGINT UNSIGNED, fl FLOAT, db DOUBLE, de DECIMAL(20,6), ch CHAR(10), vc VARCHAR(100),
	tx TEXT, bl BLOB, dt DATE, dtm DATETIME(6), ts TIMESTAMP NULL, tm TIME(3), yr YEAR, bt BIT(12),
	en ENUM('a','bee'), big MEDIUMTEXT)`

var wireRows = []string{
	`(1, -5, 200, -300, 60000, -8000000, 4000000000, -9000000000000, 18446744073709551615, 1.5, -2.25,
		'12345678901234.123456', 'ab', 'héllo', 'some text', 0x00ff10, '2026-01-02', '2026-01-02 03:04:05.123456',
		'2026-05-06 07:08:09', '-12:34:56.789', 2026, b'101010101010', 'bee', REPEAT('x', 70000))`,
	`(2, -128, 255, -32768, 65535, 8388607, 0, 9223372036854775807, 0, -3.25e10, 1e300,
		'-0.000001', '', '', '', '', '1000-01-01', '9999-12-31 23:59:59.999999', NULL, '838:59:59', 1901, b'0', 'a', '')`,
	`(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
		NULL, NULL, NULL, NULL, NULL, NULL)`,
}

// refDB is database/sql with go-sql-driver's own prepared statements on the server of raw, with the
// configuration candor's URL gives.
func refDB(t *testing.T, raw string) *sql.DB {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	cfg := gomysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.DBName = "tcp", u.Host, u.Path[1:]
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	cfg.ParseTime, cfg.Loc, cfg.ClientFoundRows = true, time.UTC, true
	conn, err := gomysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ref := sql.OpenDB(conn)
	t.Cleanup(func() { ref.Close() })
	return ref
}

// TestOwnWireMatchesGoSQLDriver reads rows of every column type through candor's wire and through
// go-sql-driver's prepared statements (database/sql) from the same server: the values must be the
// same, as any and as text. It writes them back through the wire with an argument of every kind and
// reads them again.
func TestOwnWireMatchesGoSQLDriver(t *testing.T) {
	raw := freshURL(t, "")
	c := connect(t, openURL(t, raw))
	if !c.(*mysql.Conn).OwnWire() {
		t.Fatal("the session does not use candor's wire")
	}
	ctx := testCtx(t)
	mustExec(t, c, wireTable)
	for _, r := range wireRows {
		mustExec(t, c, "INSERT INTO w VALUES "+r)
	}
	ref := refDB(t, raw)
	const q = "SELECT * FROM w WHERE id >= ? ORDER BY id"
	read := func(rows interface {
		Next() bool
		Scan(...any) error
	}) [][]any {
		var out [][]any
		for rows.Next() {
			vals := make([]any, 24)
			dest := make([]any, 24)
			for i := range dest {
				dest[i] = &vals[i]
			}
			if err := rows.Scan(dest...); err != nil {
				t.Fatal(err)
			}
			row := make([]any, 0, 24)
			for _, v := range vals {
				if b, ok := v.([]byte); ok {
					v = string(b) // it aliases the driver's buffer until the next row
				}
				row = append(row, v)
			}
			out = append(out, row)
		}
		return out
	}
	rows, err := c.Query(ctx, q, 1)
	if err != nil {
		t.Fatal(err)
	}
	got := read(rows)
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	rr, err := ref.QueryContext(ctx, q, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := read(rr)
	rr.Close()
	if len(got) != len(wireRows) || !reflect.DeepEqual(got, want) {
		for i := range min(len(got), len(want)) {
			for j := range got[i] {
				if !reflect.DeepEqual(got[i][j], want[i][j]) {
					t.Errorf("row %d column %d: %#v, go-sql-driver's %#v", i+1, j+1, trim(got[i][j]), trim(want[i][j]))
				}
			}
		}
		t.Fatalf("%d rows, go-sql-driver's %d", len(got), len(want))
	}

	// Every row written back through the wire with its values as arguments reads the same again.
	mustExec(t, c, "CREATE TABLE w2 LIKE w")
	ins := "INSERT INTO w2 VALUES (" + strings.TrimSuffix(strings.Repeat("?, ", 24), ", ") + ")"
	for _, row := range got {
		args := make([]any, len(row))
		for i, v := range row {
			switch x := v.(type) {
			case string:
				args[i] = []byte(x) // bytes, as a string would go
			default:
				args[i] = x
			}
		}
		if n, err := c.Exec(ctx, ins, args...); err != nil || n != 1 {
			t.Fatalf("insert through the wire: %d, %v", n, err)
		}
	}
	rows, err = c.Query(ctx, strings.Replace(q, "FROM w ", "FROM w2 ", 1), 1)
	if err != nil {
		t.Fatal(err)
	}
	again := read(rows)
	rows.Close()
	if !reflect.DeepEqual(again, got) {
		t.Errorf("written back and read again: %v, want %v", trim(again), trim(got))
	}
}

// trim shortens long values in messages.
func trim(v any) any {
	if s := fmt.Sprint(v); len(s) > 200 {
		return s[:200] + "..."
	}
	return v
}

// TestOwnWireErrorsAndResults: a server's error leaves the session usable, and is classified as
// go-sql-driver's would be; an argument count that does not match is refused before anything is
// sent; a statement whose table changed reads its new columns; a procedure's result sets come one
// after another, and Exec discards them.
func TestOwnWireErrorsAndResults(t *testing.T) {
	db := openURL(t, freshURL(t, ""))
	c := connect(t, db)
	ctx := testCtx(t)
	createTable(t, c, 3)
	_, err := c.Exec(ctx, "INSERT INTO t VALUES (?, ?, ?)", 1, 1, "dup")
	var me *gomysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1062 || string(me.SQLState[:]) != "23000" {
		t.Fatalf("duplicate key: %v", err)
	}
	if cl, ok := db.FailureClass(err); !ok || cl != driver.FailConstraint {
		t.Errorf("duplicate key classified %v, %v", cl, ok)
	}
	if _, err := c.Exec(ctx, "SELECT v FROM t WHERE id = ?", 1, 2); err == nil || !strings.Contains(err.Error(), "expected 1 arguments, got 2") {
		t.Errorf("two arguments for one: %v", err)
	}
	var v int64
	if err := c.QueryRow(ctx, "SELECT v FROM t WHERE id = ?", 2).Scan(&v); err != nil || v != 20 {
		t.Fatalf("after the errors: %d, %v", v, err)
	}
	// Exec of a statement with rows discards them.
	if n, err := c.Exec(ctx, "SELECT * FROM t WHERE id >= ?", 1); err != nil || n != 0 {
		t.Fatalf("Exec of a SELECT: %d, %v", n, err)
	}
	// The table changes under the prepared statement: the server sends its new columns.
	const all = "SELECT * FROM t WHERE id = ?"
	var id int64
	var s string
	if err := c.QueryRow(ctx, all, 3).Scan(&id, &v, &s); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "ALTER TABLE t ADD COLUMN extra VARCHAR(10) NOT NULL DEFAULT 'e'")
	var extra string
	if err := c.QueryRow(ctx, all, 3).Scan(&id, &v, &s, &extra); err != nil || extra != "e" {
		t.Fatalf("after ALTER TABLE: %q, %v", extra, err)
	}
	rows, err := c.Query(ctx, all, 3)
	if err != nil {
		t.Fatal(err)
	}
	if cols := rows.(interface{ Columns() []string }).Columns(); strings.Join(cols, ",") != "id,v,s,extra" {
		t.Errorf("columns after ALTER TABLE: %v", cols)
	}
	rows.Close()

	mustExec(t, c, `CREATE PROCEDURE two(IN k INT) BEGIN SELECT id FROM t WHERE id <= k ORDER BY id; SELECT s FROM t WHERE id = k; END`)
	rows, err = c.Query(ctx, "CALL two(?)", 2)
	if err != nil {
		t.Fatal(err)
	}
	br, ok := rows.(driver.BatchRows)
	if !ok {
		t.Fatalf("rows %T have no NextResultSet", rows)
	}
	var seen []string
	for {
		for br.Next() {
			var x string
			if err := br.Scan(&x); err != nil {
				t.Fatal(err)
			}
			seen = append(seen, x)
		}
		if !br.NextResultSet() {
			break
		}
	}
	if err := br.Err(); err != nil {
		t.Fatal(err)
	}
	br.Close()
	if strings.Join(seen, ",") != "1,2,r2" {
		t.Errorf("the procedure's result sets: %v", seen)
	}
	if _, err := c.Exec(ctx, "CALL two(?)", 3); err != nil {
		t.Fatalf("Exec of CALL: %v", err)
	}
	if err := c.QueryRow(ctx, "SELECT v FROM t WHERE id = ?", 3).Scan(&v); err != nil || v != 30 {
		t.Fatalf("after CALL: %d, %v", v, err)
	}
}

// TestOwnWireGoSQLDriverByEnv: CANDOR_MYSQL_PREPARED=go-sql-driver leaves the prepared statements
// to go-sql-driver, for measuring one against the other.
func TestOwnWireGoSQLDriverByEnv(t *testing.T) {
	t.Setenv(mysql.PreparedEnv, "go-sql-driver")
	c := connect(t, openURL(t, freshURL(t, "")))
	if c.(*mysql.Conn).OwnWire() {
		t.Fatal("the session uses candor's wire")
	}
	var v int64
	if err := c.QueryRow(testCtx(t), "SELECT ? + 1", 41).Scan(&v); err != nil || v != 42 {
		t.Fatalf("%d, %v", v, err)
	}
}

// TestOwnWireDoltStandin: Dolt's engine (go-mysql-server) takes candor's wire too.
func TestOwnWireDoltStandin(t *testing.T) {
	db := openURL(t, gmsstandin.FreshDoltURL(t, "candor_drv"))
	c := connect(t, db)
	if !c.(*mysql.Conn).OwnWire() {
		t.Fatal("the session does not use candor's wire")
	}
	if p := db.ClientPath(); strings.Contains(p, "go-sql-driver") {
		t.Errorf("client path %q", p)
	}
	ctx := testCtx(t)
	mustExec(t, c, "CREATE TABLE t (id INT PRIMARY KEY, v BIGINT NOT NULL, s VARCHAR(200) NOT NULL, d DECIMAL(12,2), ts DATETIME(6))")
	at := time.Date(2026, 11, 27, 6, 7, 8, 123456000, time.UTC)
	for i := 1; i <= 3; i++ {
		if n, err := c.Exec(ctx, "INSERT INTO t VALUES (?, ?, ?, ? * 0.01, ?)", i, int64(i)*10, fmt.Sprint("r", i), 1234, at); err != nil || n != 1 {
			t.Fatalf("insert: %d, %v", n, err)
		}
	}
	rows, err := c.Query(ctx, "SELECT id, v, s, d, ts FROM t WHERE id >= ? ORDER BY id", 2)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id, v int64
		var s, d string
		var ts time.Time
		if err := rows.Scan(&id, &v, &s, &d, &ts); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %d %s %s %s", id, v, s, d, ts.Format(time.RFC3339Nano)))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	want := "2 20 r2 12.34 2026-11-27T06:07:08.123456Z,3 30 r3 12.34 2026-11-27T06:07:08.123456Z"
	if strings.Join(got, ",") != want {
		t.Errorf("rows %q, want %q", strings.Join(got, ","), want)
	}
	if n, err := c.Exec(ctx, "UPDATE t SET v = v + ? WHERE id <= ?", 1, 2); err != nil || n != 2 {
		t.Fatalf("update: %d, %v", n, err)
	}
}

// TestOwnWireLongCommands: a command of 16 MiB or more goes in several packets numbered 0..k, and its
// answer's are numbered on from k+1: at the packet boundary (a payload of 16 MiB - 2, - 1 (followed
// by an empty packet), and 16 MiB) and at 20 MB, alone and in a pipeline behind a transaction's
// Begin and in front of its COMMIT. Each row is in, whole, counted as the server counted it, and the
// session goes on. The wire expected every answer at sequence 1, and lost the session while the
// server committed the row.
func TestOwnWireLongCommands(t *testing.T) {
	db := openURL(t, freshURL(t, ""))
	c := connect(t, db)
	ctx := testCtx(t)
	mustExec(t, c, "CREATE TABLE big (id INT PRIMARY KEY, b LONGBLOB NOT NULL) ENGINE=InnoDB")
	// COM_STMT_EXECUTE's payload for an int and a []byte below 16 MiB: command 1, statement id 4,
	// flags 1, iterations 4, null bitmap 1, bound 1, types 2+2, the int 8, the bytes' length 4, then
	// the bytes.
	const overhead = 28
	sizes := []int{1<<24 - 2 - overhead, 1<<24 - 1 - overhead, 1<<24 - overhead, 20_000_000}
	id := 0
	for _, n := range sizes {
		v := make([]byte, n)
		for i := range v {
			v[i] = byte(i * 7)
		}
		id++
		if k, err := c.Exec(ctx, "INSERT INTO big VALUES (?, ?)", id, v); err != nil || k != 1 {
			t.Fatalf("%d bytes alone: %d rows, %v", n, k, err)
		}
		// in a transaction whose Begin and COMMIT ride with it (candor's pipelines)
		id++
		if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
			t.Fatal(err)
		}
		if k, err := c.Exec(ctx, "INSERT INTO big VALUES (?, ?)", id, v); err != nil || k != 1 {
			t.Fatalf("%d bytes in a transaction: %d rows, %v", n, k, err)
		}
		if err := c.Commit(ctx); err != nil {
			t.Fatalf("%d bytes: commit: %v", n, err)
		}
		var got int64
		var sum string
		if err := c.QueryRow(ctx, "SELECT COUNT(*), GROUP_CONCAT(DISTINCT MD5(b)) FROM big WHERE id IN (?, ?) AND LENGTH(b) = ?", id-1, id, n).Scan(&got, &sum); err != nil || got != 2 {
			t.Fatalf("%d bytes: %d whole rows, %v", n, got, err)
		}
		if strings.Contains(sum, ",") {
			t.Errorf("%d bytes: the two rows differ: %s", n, sum)
		}
	}
	if k := count(t, c, "big"); k != int64(2*len(sizes)) {
		t.Errorf("%d rows, want %d", k, 2*len(sizes))
	}
	// A 20 MB row read back, then a small statement: the session's buffers, grown for the 20 MB
	// parameters and row, are back under mysql.BufKeep.
	var b []byte
	if err := c.QueryRow(ctx, "SELECT b FROM big WHERE id = ?", id).Scan(&b); err != nil || len(b) != sizes[len(sizes)-1] {
		t.Fatalf("the 20 MB row read back: %d bytes, %v", len(b), err)
	}
	if out, big, read, ok := mysql.Buffers(c); !ok || max(out, big, read) < 20_000_000 {
		t.Fatalf("after a 20 MB row: buffers out %d, big %d, read-ahead %d (on the wire: %v): the test reads the wrong thing", out, big, read, ok)
	}
	var one int
	if err := c.QueryRow(ctx, "SELECT ?", 1).Scan(&one); err != nil || one != 1 {
		t.Fatalf("a small statement after it: %d, %v", one, err)
	}
	if out, big, read, _ := mysql.Buffers(c); max(out, big, read) > mysql.BufKeep {
		t.Errorf("after a 20 MB exchange and a small one: buffers out %d, big %d, read-ahead %d bytes, want each at most %d", out, big, read, mysql.BufKeep)
	}
}

// TestOwnWirePreparedBounded: a session that runs more distinct SQL texts than mysql.WstmtCap keeps
// at most that many prepared, on candor's wire (and on go-sql-driver's statements,
// CANDOR_MYSQL_PREPARED=go-sql-driver), the least recently used closed on the server
// (COM_STMT_CLOSE: the session's Com_stmt_prepare less its Com_stmt_close stays bounded), alone
// and in a pipeline; every result is right, and a statement used again after its eviction is
// prepared again and right too.
func TestOwnWirePreparedBounded(t *testing.T) {
	raw := freshURL(t, "")
	t.Run("wire", func(t *testing.T) { testPreparedBounded(t, raw) })
	t.Run("go-sql-driver", func(t *testing.T) {
		t.Setenv(mysql.PreparedEnv, "go-sql-driver")
		testPreparedBounded(t, raw)
	})
}

func testPreparedBounded(t *testing.T, raw string) {
	db := openURL(t, raw)
	c := connect(t, db)
	ctx := testCtx(t)
	status := func(name string) int64 {
		var k string
		var v int64
		if err := c.QueryRow(ctx, "SHOW SESSION STATUS LIKE '"+name+"'").Scan(&k, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return v
	}
	prepared0, closed0 := status("Com_stmt_prepare"), status("Com_stmt_close")
	n := mysql.WstmtCap + 40
	for i := range n {
		var got int64
		if i%2 == 0 {
			if err := c.QueryRow(ctx, fmt.Sprintf("SELECT ? + %d", i), 1).Scan(&got); err != nil || got != int64(i+1) {
				t.Fatalf("statement %d: %d, %v; want %d", i, got, err, i+1)
			}
			continue
		}
		if err := c.Begin(ctx, driver.TxOptions{ReadOnly: true}); err != nil {
			t.Fatal(err)
		}
		if err := c.QueryRow(ctx, fmt.Sprintf("SELECT ? * %d", i), 2).Scan(&got); err != nil || got != int64(2*i) {
			t.Fatalf("statement %d in a transaction: %d, %v; want %d", i, got, err, 2*i)
		}
		if err := c.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var got int64
	if err := c.QueryRow(ctx, "SELECT ? + 0", 5).Scan(&got); err != nil || got != 5 { // evicted, prepared again
		t.Fatalf("the first statement again: %d, %v", got, err)
	}
	if k := mysql.Prepared(c); k > mysql.WstmtCap {
		t.Errorf("%d statements kept prepared, want at most %d", k, mysql.WstmtCap)
	}
	live := (status("Com_stmt_prepare") - prepared0) - (status("Com_stmt_close") - closed0)
	if live > int64(mysql.WstmtCap) || live < int64(mysql.WstmtCap)/2 {
		t.Errorf("after %d distinct statements the server holds %d of the session's prepared, want at most %d (and the count to see them)", n+1, live, mysql.WstmtCap)
	}
}

// TestTLSPreferred: with tls=preferred a session takes candor's wire when the server offers no
// TLS (the stand-in), and go-sql-driver's statements when it does and TLS was negotiated
// (scripts/test's MariaDB has TLS on); the client path says which.
func TestTLSPreferred(t *testing.T) {
	plain := openURL(t, gmsstandin.FreshDoltURL(t, "candor_drv")+"?tls=preferred")
	if c := connect(t, plain); !c.(*mysql.Conn).OwnWire() {
		t.Errorf("tls=preferred at a server without TLS: the session is not on candor's wire (client path %q)", plain.ClientPath())
	}
	if p := plain.ClientPath(); strings.Contains(p, "TLS") || strings.Contains(p, "go-sql-driver") {
		t.Errorf("tls=preferred at a server without TLS: client path %q", p)
	}
	if os.Getenv("CANDOR_TEST_MYSQL_TLS_CA") == "" {
		t.Fatal("CANDOR_TEST_MYSQL_TLS_CA is not set: the test MariaDB must have TLS on; run it through scripts/test")
	}
	secure := openURL(t, dbtest.FreshMySQLURL(t, "candor_drv")+"?tls=preferred")
	c := connect(t, secure)
	if c.(*mysql.Conn).OwnWire() {
		t.Errorf("tls=preferred at a server with TLS: the session is on candor's wire")
	}
	if n, err := c.Exec(testCtx(t), "DO ?", 1); err != nil || n != 0 {
		t.Errorf("a statement over TLS: %d, %v", n, err)
	}
	if p, want := secure.ClientPath(), "prepared statements through go-sql-driver, one per round trip (TLS: candor's wire does not speak it)"; !strings.HasPrefix(p, want) {
		t.Errorf("tls=preferred at a server with TLS: client path %q, want %q", p, want)
	}
}
