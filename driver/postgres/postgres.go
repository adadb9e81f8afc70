// Package postgres is candor's PostgreSQL engine: pgx v5 directly, one *pgx.Conn per Connect, no pool
// and no database/sql in between. Statements are prepared on first use and cached by their SQL text.
//
// URLs: postgres://user:pass@host:port/db (or postgresql://...), with pgx's query parameters
// (sslmode, connect_timeout, ...). Open connects once to check the server and reports what is wrong
// (unreachable, refused credentials, missing database) as a user error.
package postgres

import (
	"context"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/candor-bench/candor/driver"
)

func init() {
	driver.Register("postgres", open)
	driver.Register("postgresql", open)
}

const (
	// statementCacheSize bounds the prepared statements kept per connection; TPC-C needs a few dozen.
	statementCacheSize = 512
	// connectTimeout applies when the URL sets no connect_timeout.
	connectTimeout = 10 * time.Second
)

// DB is an opened PostgreSQL database: a parsed configuration from which connections are made.
type DB struct {
	cfg      *pgx.ConnConfig
	redacted string
	password string // only to scrub it from error messages
	version  string // "PostgreSQL 15.18 (Debian ...)", read when Open connected
}

var _ driver.DB = (*DB)(nil)

// open is the driver.Opener for the postgres:// and postgresql:// schemes.
func open(ctx context.Context, u *url.URL, raw string) (driver.DB, error) {
	db := &DB{redacted: driver.Redact(raw)}
	if u.User != nil {
		db.password, _ = u.User.Password()
	}
	// pgx recognises the URL form only by a lower-case scheme (u.Scheme is lower-cased already).
	connString := u.Scheme + raw[len(u.Scheme):]
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return nil, db.userError("the PostgreSQL URL %s is malformed (%s): use postgres://user:pass@host:port/db", db.redacted, parseProblem(err))
	}
	q := u.Query()
	if q.Get("connect_timeout") == "" {
		cfg.ConnectTimeout = connectTimeout
	}
	if q.Get("statement_cache_capacity") == "" {
		cfg.StatementCacheCapacity = statementCacheSize
	}
	db.cfg = cfg

	// Connect once to check that the server answers and accepts us, and to read its version.
	c, err := db.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	v := c.pc.PgConn().ParameterStatus("server_version")
	if v == "" {
		if err := c.pc.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
			return nil, err
		}
	}
	db.version = "PostgreSQL " + v
	return db, nil
}

func (db *DB) Kind() string { return "postgres" }

// Dialect: PostgreSQL takes array parameters (= ANY($1), unnest) and has concurrent writers.
func (db *DB) Dialect() driver.Dialect { return driver.Dialect{Name: "postgres", Arrays: true} }

func (db *DB) Redacted() string { return db.redacted }

// Connect opens a dedicated connection. Failures are user errors naming the cause.
func (db *DB) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := db.connect(ctx)
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (db *DB) connect(ctx context.Context) (*Conn, error) {
	pc, err := pgx.ConnectConfig(ctx, db.cfg)
	if err != nil {
		return nil, db.connectError(ctx, err)
	}
	return &Conn{pc: pc}, nil
}

// Version is the server_version the server reported when Open connected, e.g.
// "PostgreSQL 15.18 (Debian 15.18-0+deb12u1)".
func (db *DB) Version(ctx context.Context) (string, error) { return db.version, nil }

func (db *DB) Classify(err error) driver.ErrorClass { return classify(err) }

// DefaultIsolation is read committed, PostgreSQL's own default; candor always states it explicitly
// in BEGIN so that a server configured otherwise does not change what is measured.
func (db *DB) DefaultIsolation() driver.Isolation { return driver.IsolationReadCommitted }

// Close releases nothing: connections are owned and closed by their users.
func (db *DB) Close() error { return nil }
