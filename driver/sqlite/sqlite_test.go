package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/drivertest"
)

// The helpers every engine's tests share (internal/drivertest).
var (
	testCtx  = drivertest.Ctx
	mustExec = drivertest.MustExec
	count    = drivertest.Count
)

// openFile opens a new database in a fresh directory; params are the URL's query, if any.
func openFile(t *testing.T, params string) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	raw := "sqlite:" + path
	if params != "" {
		raw += "?" + params
	}
	db, err := driver.Open(testCtx(t), raw)
	if err != nil {
		t.Fatalf("open %s: %v", raw, err)
	}
	t.Cleanup(func() { db.Close() })
	return db.(*DB), path
}

func connect(t *testing.T, db driver.DB) *Conn {
	t.Helper()
	c, err := db.Connect(testCtx(t))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return c.(*Conn)
}

func createTable(t *testing.T, c driver.Conn) {
	mustExec(t, c, "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL, s TEXT NOT NULL)")
}

func TestOpenDefaults(t *testing.T) {
	db, _ := openFile(t, "")
	if db.Kind() != "sqlite" || db.DefaultIsolation() != driver.IsolationSerializable {
		t.Errorf("Kind %q, DefaultIsolation %q", db.Kind(), db.DefaultIsolation())
	}
	if d := db.Dialect(); d.Name != "sqlite" || !d.SingleWriter || d.Arrays {
		t.Errorf("Dialect = %+v", d)
	}
	v, err := db.Version(testCtx(t))
	if err != nil || !strings.HasPrefix(v, "SQLite 3.") {
		t.Errorf("Version = %q, %v", v, err)
	}
	t.Logf("version: %s", v)
	want := map[string]string{"journal_mode": "wal", "synchronous": "full", "busy_timeout": "10000",
		"cache_size": "-262144", "foreign_keys": "off"}
	if got := fmt.Sprint(db.Pragmas()); got != fmt.Sprint(want) {
		t.Errorf("Pragmas = %s, want %s", got, fmt.Sprint(want))
	}
	// Every connection runs with them, not just the first.
	c := connect(t, db)
	c2 := connect(t, db)
	for _, c := range []*Conn{c, c2} {
		var sync, busy, cache int64
		var journal string
		ctx := testCtx(t)
		if err := c.QueryRow(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
			t.Fatal(err)
		}
		c.QueryRow(ctx, "PRAGMA busy_timeout").Scan(&busy)
		c.QueryRow(ctx, "PRAGMA cache_size").Scan(&cache)
		c.QueryRow(ctx, "PRAGMA journal_mode").Scan(&journal)
		if sync != 2 || busy != 10000 || cache != -262144 || journal != "wal" {
			t.Errorf("connection runs synchronous=%d busy_timeout=%d cache_size=%d journal_mode=%s", sync, busy, cache, journal)
		}
	}
}

func TestURLParameters(t *testing.T) {
	db, _ := openFile(t, "synchronous=normal&busy_timeout=250")
	p := db.Pragmas()
	if p["synchronous"] != "normal" || p["busy_timeout"] != "250" {
		t.Errorf("Pragmas = %v", p)
	}
	p["synchronous"] = "changed"
	if db.Pragmas()["synchronous"] != "normal" {
		t.Error("Pragmas returned the DB's own map")
	}
	// The URL forms: sqlite:relative, sqlite:/absolute, sqlite://relative, sqlite:///absolute.
	dir := t.TempDir()
	t.Chdir(dir)
	for _, tc := range []struct{ raw, file string }{
		{"sqlite:rel.db", filepath.Join(dir, "rel.db")},
		{"sqlite:" + dir + "/abs.db", filepath.Join(dir, "abs.db")},
		{"sqlite://rel2.db", filepath.Join(dir, "rel2.db")},
		{"sqlite://" + dir + "/abs2.db", filepath.Join(dir, "abs2.db")},
		{"sqlite3:rel3.db?synchronous=OFF", filepath.Join(dir, "rel3.db")},
	} {
		db, err := driver.Open(testCtx(t), tc.raw)
		if err != nil {
			t.Errorf("Open(%s): %v", tc.raw, err)
			continue
		}
		db.Close()
		if _, err := os.Stat(tc.file); err != nil {
			t.Errorf("Open(%s) did not create %s: %v", tc.raw, tc.file, err)
		}
	}
}

func TestCommitAndRollback(t *testing.T) {
	db, _ := openFile(t, "")
	c := connect(t, db)
	ctx := testCtx(t)
	createTable(t, c)

	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := mustExec(t, c, "INSERT INTO t VALUES (?, ?, ?)", 1, 10, "a"); n != 1 {
		t.Errorf("rows affected = %d", n)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, c, "t"); n != 0 {
		t.Fatalf("after rollback: %d rows", n)
	}
	if err := c.Begin(ctx, driver.TxOptions{Isolation: driver.IsolationSerializable}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, "INSERT INTO t VALUES (?, ?, ?)", 1, 10, "a")
	mustExec(t, c, "INSERT INTO t VALUES (?, ?, ?)", 2, 20, "b")
	if err := c.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, connect(t, db), "t"); n != 2 {
		t.Fatalf("after commit, another connection sees %d rows", n)
	}
	// Rolling back when there is no transaction (SQLite may have ended it) is not an error.
	if err := c.Rollback(ctx); err != nil {
		t.Fatalf("Rollback without a transaction: %v", err)
	}
	if err := c.Begin(ctx, driver.TxOptions{Isolation: "snapshot"}); err == nil {
		t.Error("Begin with an unknown isolation level succeeded")
	}
}

func TestQueryRowNoRowsAndQuery(t *testing.T) {
	db, _ := openFile(t, "")
	c := connect(t, db)
	ctx := testCtx(t)
	createTable(t, c)
	var n int
	if err := c.QueryRow(ctx, "SELECT v FROM t WHERE id = ?", 42).Scan(&n); !errors.Is(err, driver.ErrNoRows) {
		t.Fatalf("Scan of no row = %v, want driver.ErrNoRows", err)
	}
	if err := c.QueryRow(ctx, "SELECT nosuchcolumn FROM t").Scan(&n); err == nil || errors.Is(err, driver.ErrNoRows) {
		t.Fatalf("bad query: %v", err)
	}
	for i := 1; i <= 5; i++ {
		mustExec(t, c, "INSERT INTO t VALUES (?, ?, ?)", i, i*10, fmt.Sprint("r", i))
	}
	rows, err := c.Query(ctx, "SELECT id, s FROM t WHERE id > ? ORDER BY id", 2)
	if err != nil {
		t.Fatal(err)
	}
	// A nested query while rows are open works and does not disturb them.
	rows2, err := c.Query(ctx, "SELECT count(*) FROM t")
	if err != nil {
		t.Fatal(err)
	}
	got := drivertest.IDNames(t, rows) // closes rows, twice
	rows2.Close()
	if got != "3 r3,4 r4,5 r5" {
		t.Errorf("rows = %v", got)
	}
}

// source is a RowSource that reuses its values slice and its byte buffer, as the contract allows.
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
	s.vals = append(s.vals[:0], s.i, int64(s.i)*3, s.buf)
	return s.vals, nil
}

func (s *source) Err() error { return nil }

func TestCopyFrom(t *testing.T) {
	db, _ := openFile(t, "")
	c := connect(t, db)
	ctx := testCtx(t)
	createTable(t, c)
	cols := []string{"id", "v", "s"}

	// More rows than one transaction of its own holds, and not a multiple of the batch.
	const n = rowsPerTx*2 + 1234
	got, err := c.CopyFrom(ctx, "t", cols, &source{n: n})
	if err != nil || got != n {
		t.Fatalf("CopyFrom = %d, %v", got, err)
	}
	var cnt, sum int64
	var s, typ string
	if err := c.QueryRow(ctx, "SELECT count(*), sum(v) FROM t").Scan(&cnt, &sum); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, "SELECT s, typeof(s) FROM t WHERE id = ?", 4321).Scan(&s, &typ); err != nil {
		t.Fatal(err)
	}
	if cnt != n || sum != 3*n*(n+1)/2 || s != "name-4321" || typ != "text" {
		t.Fatalf("after CopyFrom: count %d sum %d, row 4321 %q (%s)", cnt, sum, s, typ)
	}
	if in, _ := c.inTransaction(); in {
		t.Fatal("CopyFrom left its own transaction open")
	}

	// Inside the caller's transaction, the rows go away with its rollback.
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, err := c.CopyFrom(ctx, "main.t", cols, &source{i: n, n: n + 3000}); err != nil || got != 3000 {
		t.Fatalf("CopyFrom in tx = %d, %v", got, err)
	}
	if cnt := count(t, c, "t"); cnt != n+3000 {
		t.Fatalf("in tx: %d rows", cnt)
	}
	if err := c.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if cnt := count(t, c, "t"); cnt != n {
		t.Fatalf("after rollback: %d rows", cnt)
	}

	// A failing load rolls back its own unfinished transaction (here: duplicate keys).
	if _, err := c.CopyFrom(ctx, "t", cols, &source{i: n - 10, n: n + 700}); err == nil {
		t.Fatal("CopyFrom of duplicate keys succeeded")
	}
	if in, _ := c.inTransaction(); in {
		t.Fatal("failed CopyFrom left its transaction open")
	}
	if cnt := count(t, c, "t"); cnt != n {
		t.Fatalf("after failed CopyFrom: %d rows", cnt)
	}
}

func TestInsertSQL(t *testing.T) {
	got := insertSQL("main.t", []string{"a", `b"c`}, 2)
	want := `INSERT INTO "main"."t" ("a", "b""c") VALUES (?,?),(?,?)`
	if got != want {
		t.Errorf("insertSQL = %s, want %s", got, want)
	}
}

func TestStatementsArePreparedOnce(t *testing.T) {
	db, _ := openFile(t, "")
	c := connect(t, db)
	ctx := testCtx(t)
	createTable(t, c)
	q := "SELECT count(*) FROM t WHERE id > ?"
	before := len(c.stmts)
	for i := range 20 {
		var n int
		if err := c.QueryRow(ctx, q, i).Scan(&n); err != nil {
			t.Fatal(err)
		}
	}
	s := c.stmts[q]
	if s == nil || len(c.stmts) != before+1 {
		t.Fatalf("cache has %d statements (before: %d), query cached: %v", len(c.stmts), before, s != nil)
	}
	mustExec(t, c, "INSERT INTO t VALUES (?, ?, ?)", 1, 1, "x")
	var n int
	if err := c.QueryRow(ctx, q, 0).Scan(&n); err != nil || n != 1 {
		t.Fatalf("count = %d, %v", n, err)
	}
	if c.stmts[q] != s {
		t.Fatal("statement was prepared again")
	}
}

// TestBusyIsRetry provokes a real SQLITE_BUSY: two writers, a short busy_timeout.
func TestBusyIsRetry(t *testing.T) {
	db, _ := openFile(t, "busy_timeout=20")
	a, b := connect(t, db), connect(t, db)
	ctx := testCtx(t)
	createTable(t, a)
	if err := a.Begin(ctx, driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, a, "INSERT INTO t VALUES (1, 1, 'a')")
	start := time.Now()
	err := b.Begin(ctx, driver.TxOptions{})
	if err == nil {
		t.Fatal("a second writer got the write lock")
	}
	if cl := db.Classify(err); cl != driver.ErrRetry {
		t.Fatalf("%v classified %v, want retry", err, cl)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("busy after %v with busy_timeout=20", d)
	}
	// A reader is not blocked by the writer (WAL) and sees the last committed state.
	if err := b.Begin(ctx, driver.TxOptions{ReadOnly: true}); err != nil {
		t.Fatalf("read-only Begin while a writer is active: %v", err)
	}
	if n := count(t, b, "t"); n != 0 {
		t.Errorf("reader sees %d uncommitted rows", n)
	}
	if err := b.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// Now the second writer gets through, and driver.Retry works end to end.
	retries, err := driver.Retry(ctx, db, b, driver.TxOptions{}, 3, func(ctx context.Context, c driver.Conn) error {
		_, err := c.Exec(ctx, "INSERT INTO t VALUES (2, 2, 'b')")
		return err
	})
	if err != nil || retries != 0 {
		t.Fatalf("Retry = %d, %v", retries, err)
	}
	if n := count(t, a, "t"); n != 2 {
		t.Errorf("%d rows", n)
	}
}

func TestClassify(t *testing.T) {
	db, _ := openFile(t, "")
	c := connect(t, db)
	createTable(t, c)
	mustExec(t, c, "INSERT INTO t VALUES (1, 1, 'a')")
	_, err := c.Exec(testCtx(t), "INSERT INTO t VALUES (1, 1, 'a')")
	if err == nil || db.Classify(err) != driver.ErrFatal {
		t.Errorf("constraint violation %v classified %v", err, db.Classify(err))
	}
	if cl := db.Classify(errors.New("other")); cl != driver.ErrFatal {
		t.Errorf("other error classified %v", cl)
	}
}

func TestUserErrors(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("this is not a database\n", 200)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, url string
		want      []string
	}{
		{"missing directory", "sqlite:" + dir + "/no/such/dir/x.db",
			[]string{"the directory " + dir + "/no/such/dir", "does not exist", "mkdir -p"}},
		{"not a database", "sqlite:" + notDB,
			[]string{notDB + " is not a SQLite database (file is not a database)", "point --db at"}},
		{"a directory", "sqlite:" + dir,
			[]string{dir + " is a directory, not a SQLite database file"}},
		{"no path", "sqlite:", []string{"names no file", "sqlite:PATH"}},
		{"in memory", "sqlite::memory:", []string{"in-memory", "sqlite:PATH"}},
		{"bad synchronous", "sqlite:" + dir + "/x.db?synchronous=sometimes", []string{"synchronous=sometimes", "full, normal, off"}},
		{"bad busy_timeout", "sqlite:" + dir + "/x.db?busy_timeout=-5", []string{"busy_timeout=-5"}},
		{"unknown parameter", "sqlite:" + dir + "/x.db?journal_mode=delete", []string{`"journal_mode" is unknown`}},
		{"unknown scheme", "sqlit:" + dir + "/x.db", []string{`scheme "sqlit" is not supported`, "sqlite"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := driver.Open(testCtx(t), tc.url)
			if err == nil {
				db.Close()
				t.Fatalf("Open(%s) succeeded", tc.url)
			}
			checkUserError(t, err, tc.want...)
		})
	}
	// The wording of permission errors, whatever the user running the tests.
	checkUserError(t, pathError("/x/y.db", &os.PathError{Op: "access", Path: "/x/y.db", Err: syscall.EACCES}),
		"cannot write /x/y.db (permission denied)", "fix its permissions")
}

func checkUserError(t *testing.T, err error, want ...string) {
	t.Helper()
	drivertest.CheckUserError(t, err, "", want...)
}

// TestPermissionDenied opens databases the user may not write. Root may write anything, so as root
// the test runs itself again as user nobody.
func TestPermissionDenied(t *testing.T) {
	if dir := os.Getenv("CANDOR_SQLITE_PERM_DIR"); dir != "" {
		permissionCases(t, dir)
		return
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	ro := filepath.Join(dir, "ro") // a directory the user may not write
	w := filepath.Join(dir, "w")   // a directory anyone may write, holding a file they may not
	for _, d := range []string{ro, w} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(w, 0o777)
	owned := filepath.Join(w, "owned.db")
	db, err := driver.Open(testCtx(t), "sqlite:"+owned)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	os.Remove(owned + "-wal")
	os.Remove(owned + "-shm")
	if os.Geteuid() != 0 {
		os.Chmod(ro, 0o555)
		os.Chmod(owned, 0o444)
		permissionCases(t, dir)
		return
	}
	// As root: run this test as nobody, from a copy of the test binary nobody may execute.
	for p := dir; p != "/"; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o001 == 0 {
			os.Chmod(p, fi.Mode().Perm()|0o001) // make the path traversable (t.TempDir's parents are 0700)
		}
	}
	bin := filepath.Join(dir, "sqlite.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestPermissionDenied$", "-test.v")
	cmd.Env = append(os.Environ(), "CANDOR_SQLITE_PERM_DIR="+dir)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	t.Logf("as nobody:\n%s", out)
	if err != nil {
		t.Fatalf("the test as user nobody failed: %v", err)
	}
}

// permissionCases: a directory the user may not write, and a database file they may not write.
func permissionCases(t *testing.T, dir string) {
	for _, tc := range []struct{ url, want string }{
		{"sqlite:" + filepath.Join(dir, "ro", "x.db"), "cannot write " + filepath.Join(dir, "ro") + " (permission denied)"},
		{"sqlite:" + filepath.Join(dir, "w", "owned.db"), "cannot write " + filepath.Join(dir, "w", "owned.db") + " (permission denied)"},
	} {
		db, err := driver.Open(testCtx(t), tc.url)
		if err == nil {
			db.Close()
			t.Errorf("Open(%s) succeeded", tc.url)
			continue
		}
		checkUserError(t, err, tc.want, "fix its permissions")
	}
}
