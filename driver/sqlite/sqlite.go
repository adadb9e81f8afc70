// Package sqlite is candor's embedded engine: the real C SQLite (mattn/go-sqlite3) through
// database/sql, one dedicated *sql.Conn per Connect.
//
// URL: sqlite:PATH (relative or absolute; sqlite://PATH is accepted too) with optional parameters
// ?synchronous=full|normal|off|extra&busy_timeout=MS. Every connection runs with journal_mode=WAL
// (readers do not block the writer), synchronous=FULL unless the URL says otherwise (a committed
// transaction survives a power loss), busy_timeout=10000 ms, cache_size=-262144 (256 MiB of page cache
// per connection) and foreign keys off. Pragmas reports the values the database actually runs with.
package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/mattn/go-sqlite3"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
)

func init() {
	driver.Register("sqlite", open)
	driver.Register("sqlite3", open)
	driver.DescribeDialect(dialect) // so that plans are checked against it before the file is opened
}

const (
	defaultBusyTimeoutMS = 10000
	cacheSizeKiB         = -262144 // negative: KiB, so 256 MiB per connection
)

// options are what the URL may set.
type options struct {
	path          string
	synchronous   string // OFF, NORMAL, FULL, EXTRA
	busyTimeoutMS int
}

// parseURL reads sqlite:PATH[?synchronous=...&busy_timeout=MS] (or sqlite://PATH...). The path is
// taken verbatim, not URL-unescaped, so that a file name is written as it is on disk.
func parseURL(raw string) (options, error) {
	o := options{synchronous: "FULL", busyTimeoutMS: defaultBusyTimeoutMS}
	i := strings.IndexByte(raw, ':')
	rest := strings.TrimPrefix(raw[i+1:], "//")
	path, query, _ := strings.Cut(rest, "?")
	if path == "" {
		return o, userr.Errorf("the SQLite URL %q names no file: use sqlite:PATH, for example sqlite:candor-tpcc.db", driver.Redact(raw))
	}
	if path == ":memory:" || strings.HasPrefix(path, "file:") {
		return o, userr.Errorf("the SQLite URL %q does not name a plain database file (in-memory and file: URI databases are not supported): use sqlite:PATH, for example sqlite:candor-tpcc.db", driver.Redact(raw))
	}
	o.path = path
	q, err := url.ParseQuery(query)
	if err != nil {
		return o, userr.Errorf("the parameters of the SQLite URL %q are malformed: use sqlite:PATH?synchronous=full&busy_timeout=10000", driver.Redact(raw))
	}
	for k, vs := range q {
		v := vs[len(vs)-1]
		switch k {
		case "synchronous":
			switch s := strings.ToUpper(v); s {
			case "OFF", "NORMAL", "FULL", "EXTRA":
				o.synchronous = s
			default:
				return o, userr.Errorf("synchronous=%s in the SQLite URL is not a level: use synchronous=full, normal, off or extra", v)
			}
		case "busy_timeout":
			ms, err := strconv.Atoi(v)
			if err != nil || ms < 0 {
				return o, userr.Errorf("busy_timeout=%s in the SQLite URL is not a number of milliseconds: use for example busy_timeout=10000", v)
			}
			o.busyTimeoutMS = ms
		default:
			return o, userr.Errorf("the SQLite URL parameter %q is unknown: use synchronous= and busy_timeout= only", k)
		}
	}
	return o, nil
}

// dsn is mattn's data source name: the file name, then the pragmas every new connection runs.
func (o options) dsn() string {
	return fmt.Sprintf("%s?_journal_mode=WAL&_synchronous=%s&_busy_timeout=%d&_cache_size=%d&_foreign_keys=0",
		o.path, o.synchronous, o.busyTimeoutMS, cacheSizeKiB)
}

// DB is an opened SQLite database file.
type DB struct {
	sqlDB    *sql.DB
	path     string
	redacted string
	version  string
	pragmas  map[string]string
	// maxLength is the connection's SQLITE_LIMIT_LENGTH (sqlite3_limit): the largest string, BLOB
	// or row, SQLITE_MAX_LENGTH unless the library was built with another.
	maxLength int64
}

var _ driver.DB = (*DB)(nil)

func open(ctx context.Context, _ *url.URL, raw string) (driver.DB, error) {
	o, err := parseURL(raw)
	if err != nil {
		return nil, err
	}
	if w, must := driver.MustExist(ctx); must {
		if err := mustExist(o.path, w); err != nil {
			return nil, err
		}
	}
	if err := checkPath(o.path); err != nil {
		return nil, err
	}
	sqlDB, err := sql.Open("sqlite3", o.dsn())
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	sqlDB.SetMaxOpenConns(0) // unlimited: every Connect gets its own connection
	db := &DB{sqlDB: sqlDB, path: o.path, redacted: driver.Redact(raw)}
	if err := db.inspect(ctx); err != nil {
		sqlDB.Close()
		return nil, err
	}
	return db, nil
}

// inspect opens a first connection, which checks that the file is a usable database, and reads back
// the version and the settings connections actually run with.
func (db *DB) inspect(ctx context.Context) error {
	c, err := db.sqlDB.Conn(ctx)
	if err != nil {
		return openError(db.path, err)
	}
	defer c.Close()
	var version, journal string
	var synchronous, busy, cache, fk int64
	if err := c.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&version); err != nil {
		return openError(db.path, err)
	}
	for _, p := range []struct {
		sql  string
		dest any
	}{
		{"PRAGMA journal_mode", &journal},
		{"PRAGMA synchronous", &synchronous},
		{"PRAGMA busy_timeout", &busy},
		{"PRAGMA cache_size", &cache},
		{"PRAGMA foreign_keys", &fk},
	} {
		if err := c.QueryRowContext(ctx, p.sql).Scan(p.dest); err != nil {
			return openError(db.path, err)
		}
	}
	if err := c.Raw(func(dc any) error {
		sqc, ok := dc.(*sqlite3.SQLiteConn)
		if !ok {
			return fmt.Errorf("sqlite: unexpected driver connection %T", dc)
		}
		db.maxLength = int64(sqc.GetLimit(sqlite3.SQLITE_LIMIT_LENGTH))
		return nil
	}); err != nil {
		return openError(db.path, err)
	}
	if journal != "wal" {
		return userr.Errorf("the SQLite database %s cannot use write-ahead logging (journal_mode is %s): put it on a local file system", db.path, journal)
	}
	db.version = "SQLite " + version
	db.pragmas = map[string]string{
		"journal_mode": journal,
		"synchronous":  synchronousName(synchronous),
		"busy_timeout": strconv.FormatInt(busy, 10),
		"cache_size":   strconv.FormatInt(cache, 10),
		"foreign_keys": onOff(fk),
	}
	return nil
}

func synchronousName(v int64) string {
	switch v {
	case 0:
		return "off"
	case 1:
		return "normal"
	case 2:
		return "full"
	case 3:
		return "extra"
	}
	return strconv.FormatInt(v, 10)
}

func onOff(v int64) string {
	if v != 0 {
		return "on"
	}
	return "off"
}

func (db *DB) Kind() string { return "sqlite" }

// dialect: one writer at a time, no array parameters, no stored procedures.
var dialect = driver.Dialect{Name: "sqlite", SingleWriter: true}

func (db *DB) Dialect() driver.Dialect { return dialect }

func (db *DB) Redacted() string { return db.redacted }

// Limits: SQLite's SQLITE_MAX_LENGTH (sqlite3_limit's SQLITE_LIMIT_LENGTH) bounds a value and a
// row; a statement's bound values have no limit of their own, and candor holds them in memory at
// once, so it takes the same bound for them.
func (db *DB) Limits() driver.Limits {
	name := "SQLite's SQLITE_MAX_LENGTH"
	return driver.Limits{Value: db.maxLength, ValueName: name, Row: db.maxLength, RowName: name}
}

// Path is the database file as the URL named it.
func (db *DB) Path() string { return db.path }

// Pragmas are the settings connections run with, as SQLite reports them (journal_mode, synchronous,
// busy_timeout in ms, cache_size in pages or -KiB, foreign_keys), for disclosure in results.
// The map is a copy.
func (db *DB) Pragmas() map[string]string {
	m := make(map[string]string, len(db.pragmas))
	for k, v := range db.pragmas {
		m[k] = v
	}
	return m
}

// Connect opens a dedicated connection with its own statement cache.
func (db *DB) Connect(ctx context.Context) (driver.Conn, error) {
	sc, err := db.sqlDB.Conn(ctx)
	if err != nil {
		return nil, openError(db.path, err)
	}
	c := &Conn{sc: sc, stmts: make(map[string]*sql.Stmt)}
	c.rawInTx = func(dc any) error {
		sqc, ok := dc.(*sqlite3.SQLiteConn)
		if !ok {
			return fmt.Errorf("sqlite: unexpected driver connection %T", dc)
		}
		c.inTx = !sqc.AutoCommit()
		return nil
	}
	return c, nil
}

// Version is "SQLite " and the library's sqlite_version(), e.g. "SQLite 3.50.4".
func (db *DB) Version(ctx context.Context) (string, error) { return db.version, nil }

func (db *DB) Classify(err error) driver.ErrorClass { return classify(err) }

// DefaultIsolation: SQLite transactions are serializable (one writer; WAL readers see a snapshot).
func (db *DB) DefaultIsolation() driver.Isolation { return driver.IsolationSerializable }

func (db *DB) Close() error { return db.sqlDB.Close() }
