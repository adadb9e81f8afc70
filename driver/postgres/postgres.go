// Package postgres is candor's PostgreSQL engine: pgx v5 directly, one *pgx.Conn per Connect, no pool
// and no database/sql in between. Statements are prepared on first use and cached by their SQL text;
// those with arguments run straight on pgconn, pgx's low-level layer (direct.go).
//
// URLs: postgres://user:pass@host:port/db (or postgresql://...), with pgx's query parameters
// (sslmode, connect_timeout, ...). Open connects once to check the server and reports what is wrong
// (unreachable, refused credentials, missing database) as a user error. The same driver reaches
// CockroachDB (cockroachdb://...) and YugabyteDB (yugabytedb://...): see engines.go.
package postgres

import (
	"context"
	"crypto/tls"
	"net"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/blockconn"
	"github.com/candor-bench/candor/driver/rawsock"
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
	engine   *engine
	cfg      *pgx.ConnConfig
	redacted string
	raw      string          // the URL as given: a library's message that echoes it whole shows redacted instead
	version  string          // "PostgreSQL 15.18 (Debian ...)", read when Open connected
	cancels  *driver.Cancels // statements stopped on the server when their context ended (Conn.cancelOnServer)
	// stmtCap bounds the statements the direct path prepares per connection (statement_cache_capacity
	// in the URL, else statementCacheSize); 0 turns the direct path off: every statement goes
	// through pgx in cfg.DefaultQueryExecMode (pooler.go).
	stmtCap int
	// pooling is what Open found between candor and the server: "" (the server itself),
	// "session" or "transaction" (pooler.go); modeWhy says why the statements take the mode they do.
	pooling string
	modeWhy string
	tls     string // "TLS 1.3" when the connection Open made is encrypted, else ""
}

var _ driver.DB = (*DB)(nil)

// open is the driver.Opener for the postgres:// and postgresql:// schemes.
func open(ctx context.Context, u *url.URL, raw string) (driver.DB, error) {
	db := &DB{engine: engineFor(u.Scheme), redacted: driver.Redact(raw), raw: raw, cancels: new(driver.Cancels)}
	// pgx recognises the URL form only by a lower-case postgres:// or postgresql:// scheme (u.Scheme
	// is lower-cased already); CockroachDB and YugabyteDB are reached as PostgreSQL.
	scheme := u.Scheme
	if db.engine != enginePostgres {
		scheme = "postgres"
	}
	connString := scheme + raw[len(u.Scheme):]
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
	if err := db.execMode(q, cfg); err != nil {
		return nil, err
	}
	// The socket's kind is chosen at each dial, not here: a run asks for held sockets
	// (blockconn.Prefer) after the database is opened, for its own connections only.
	base := cfg.DialFunc
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return blockconn.DialKind(socketKind(), base)(ctx, network, addr)
	}
	// raw system calls on the netpoller's sockets: blockconn's own are left as they are (they have
	// no descriptor to give), those past its MaxLive are wrapped
	cfg.DialFunc = rawsock.Dial(cfg.DialFunc)
	db.cfg = cfg

	// Connect once to check that the server answers and accepts us, and to read its version.
	c, err := db.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if db.version, err = db.readVersion(ctx, c); err != nil {
		return nil, err
	}
	if tc, ok := c.pc.PgConn().Conn().(*tls.Conn); ok {
		db.tls = tls.VersionName(tc.ConnectionState().Version)
	}
	if err := db.probePooler(ctx, c, q); err != nil {
		return nil, err
	}
	return db, nil
}

// Kind is the engine: "postgres", "cockroachdb" or "yugabytedb".
func (db *DB) Kind() string { return db.engine.name }

// Dialect is the engine's (engines.go).
func (db *DB) Dialect() driver.Dialect { return db.engine.dialect() }

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
	registerNumeric(pc.TypeMap())
	c := newConn(pc)
	c.cancels = db.cancels
	c.stmtCap = db.stmtCap
	return c, nil
}

// ServerCancels is how many statements interrupted by their context were stopped on the server
// (CancelRequest), once the requests under way are over.
func (db *DB) ServerCancels() int64 { return db.cancels.Count(cancelTimeout + time.Second) }

// Version is the server's version as read when Open connected, e.g. "PostgreSQL 15.18 (Debian
// 15.18-0+deb12u1)", or version() on CockroachDB and YugabyteDB.
func (db *DB) Version(ctx context.Context) (string, error) { return db.version, nil }

// ClientPath says how the sessions send their statements and use their sockets, for the
// disclosure.
func (db *DB) ClientPath() string {
	path := "statements with arguments on candor's wire (direct.go), the rest through pgconn"
	if db.stmtCap == 0 {
		path = "every statement with arguments through pgx, default_query_exec_mode=" + db.cfg.DefaultQueryExecMode.String() + " (" + db.modeWhy + "); BEGIN, COMMIT and ROLLBACK on candor's wire with the simple protocol"
	} else if db.pooling != "" {
		path += "; through a connection pooler in " + db.pooling + " pooling (named prepared statements stay on the session's server connection)"
	}
	if k := blockconn.Describe(socketKind(), SocketEnv); k != "" {
		path += "; " + k
	}
	if db.tls != "" {
		path += "; encrypted with " + db.tls + " (Go's crypto/tls: candor's wire writes and reads through it)"
	} else {
		path += "; not encrypted"
	}
	return path
}

func (db *DB) Classify(err error) driver.ErrorClass { return classify(err) }

// DefaultIsolation is the engine's effective default: read committed on PostgreSQL, serializable on
// CockroachDB, repeatable read (snapshot) on YugabyteDB (see engines.go). candor always states the
// level explicitly in BEGIN so that a server configured otherwise does not change what is measured.
func (db *DB) DefaultIsolation() driver.Isolation { return db.engine.defaultIso }

// Close releases nothing: connections are owned and closed by their users.
func (db *DB) Close() error { return nil }

// SocketEnv chooses the sockets' kind (driver/blockconn's kinds): "blocking" makes reads and
// writes blocking system calls on the socket's own descriptor, "held" raw blocking reads that keep
// their thread and P (a P per connection: the fewest context switches when the server shares the
// driver's CPUs, see docs/performance/sysbench.md), anything else leaves them on Go's
// netpoller (the default: it costs the least CPU per TPC-C transaction, and it serves any number of
// connections).
const SocketEnv = "CANDOR_PG_SOCKET"

// socketKind is the kind SocketEnv asks for.
func socketKind() string { return blockconn.KindOf(SocketEnv) }

// pgMaxField is PostgreSQL's largest value of a field (a varlena's 1 GB), and its largest message
// (PQ_LARGE_MESSAGE_LIMIT, 1 GB less one byte), which a statement's parameters or a row read back
// must fit in.
const pgMaxField = 1<<30 - 1

// Limits are PostgreSQL's 1 GB limits on a field and on a message; CockroachDB and YugabyteDB have
// others of their own, not stated here.
func (db *DB) Limits() driver.Limits {
	if db.engine != enginePostgres {
		return driver.Limits{}
	}
	return driver.Limits{Value: pgMaxField, ValueName: "PostgreSQL's 1 GB limit on a field",
		Row: pgMaxField, RowName: "PostgreSQL's 1 GB limit on a message (a statement's values, or a row read back)"}
}
