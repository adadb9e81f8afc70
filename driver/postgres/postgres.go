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
	"strconv"
	"strings"
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
	// MaxMessageDefault bounds the body of one message candor reads from the server (a row, an
	// error) when the URL sets no max_message_size: the buffer a connection grows to read it. The
	// server's own limit is 1 GiB; a benchmark's rows are far smaller.
	MaxMessageDefault = 64 << 20
	// maxMessageLeast is the smallest max_message_size the URL may set.
	maxMessageLeast = 64 << 10
)

// DB is an opened PostgreSQL database: a parsed configuration from which connections are made.
type DB struct {
	engine   *engine
	cfg      *pgx.ConnConfig
	redacted string
	raw      string          // the URL as given: a library's message that echoes it whole shows redacted instead
	version  string          // "PostgreSQL 15.18 (Debian ...)", read when Open connected
	doltgres string          // Doltgres's own release (dolt_version()); "" on other servers
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
	// sockets: SocketEnv's kind, and the held sockets a run's connections got (driver/blockconn)
	sockets *blockconn.Tally
	// maxMessage bounds a message's body read from the server (max_message_size in the URL, else
	// MaxMessageDefault), on candor's wire and pgconn's alike
	maxMessage int
	// bulk is CopyFrom's path (bulk= in the URL; insert.go), shared by the connections
	bulk *bulkState
}

var _ driver.DB = (*DB)(nil)

// open is the driver.Opener for the postgres:// and postgresql:// schemes.
func open(ctx context.Context, u *url.URL, raw string) (driver.DB, error) {
	db := &DB{engine: engineFor(u.Scheme), redacted: driver.Redact(raw), raw: raw, cancels: new(driver.Cancels)}
	sockets, err := blockconn.NewTally(SocketEnv)
	if err != nil {
		return nil, err
	}
	db.sockets = sockets
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
	if db.maxMessage, err = db.messageBound(q.Get("max_message_size")); err != nil {
		return nil, err
	}
	delete(cfg.RuntimeParams, "max_message_size") // candor's, not a server setting
	choice, ok := parseBulk(q.Get("bulk"))
	if !ok {
		return nil, db.userError("bulk=%s in the URL %s is not a bulk path: use bulk=auto (COPY, and multi-row INSERT if the server refuses COPY), bulk=copy or bulk=insert", q.Get("bulk"), db.redacted)
	}
	db.bulk = newBulkState(choice)
	delete(cfg.RuntimeParams, "bulk") // candor's, not a server setting
	// The socket's kind is chosen at each dial, not here: with SocketEnv=held, a run's own
	// connections (their context marked by blockconn.ForRun) are held, no other.
	base := cfg.DialFunc
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return db.sockets.Dial(ctx, base)(ctx, network, addr)
	}
	// raw system calls on the netpoller's sockets: blockconn's own are left as they are (they have
	// no descriptor to give), those past its MaxLive are wrapped
	cfg.DialFunc = rawsock.Dial(cfg.DialFunc)
	if testDialWrap != nil {
		dial := cfg.DialFunc
		cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return testDialWrap(c), nil
		}
	}
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
	if db.engine == engineDoltgres && q.Get("bulk") == "" {
		// Doltgres 1.2.0's binary COPY fails at its end ("missing file trailer"): INSERT from the
		// start, unless the URL says otherwise
		db.bulk = newBulkState(bulkInsert)
	}
	if tc, ok := c.pc.PgConn().Conn().(*tls.Conn); ok {
		db.tls = tls.VersionName(tc.ConnectionState().Version)
	}
	if err := db.probePooler(ctx, c, q); err != nil {
		return nil, err
	}
	return db, nil
}

// Kind is the engine: "postgres", "cockroachdb", "yugabytedb" or "doltgres".
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
	pc.PgConn().Frontend().SetMaxBodyLen(db.maxMessage)
	c := newConn(pc)
	c.wire.maxBody = db.maxMessage
	c.cancels = db.cancels
	c.stmtCap = db.stmtCap
	c.bulk = db.bulk
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
	if k := db.sockets.Describe(); k != "" {
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

// messageBound is the URL's max_message_size, a size in bytes or with PostgreSQL's units (kB, MB,
// GB: 256MB), from 64kB to 1GB; MaxMessageDefault when it is empty.
func (db *DB) messageBound(v string) (int, error) {
	if v == "" {
		return MaxMessageDefault, nil
	}
	num, unit := v, 1
	for _, u := range []struct {
		suffix string
		bytes  int
	}{{"kB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}} {
		if strings.HasSuffix(v, u.suffix) {
			num, unit = strings.TrimSuffix(v, u.suffix), u.bytes
			break
		}
	}
	n, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil || n <= 0 || n > wireMaxMessage/unit || n*unit < maxMessageLeast {
		return 0, db.userError("max_message_size=%s in the URL %s is not a size from 64kB to 1GB: give it in bytes or as 256MB (kB, MB, GB)", v, db.redacted)
	}
	return n * unit, nil
}

// SocketEnv chooses the sockets' kind (driver/blockconn's Kind): "held" makes a run's own
// connections raw blocking reads that keep their thread and P (a P per connection: the fewest
// context switches when the server shares the driver's CPUs, see docs/performance/sysbench.md),
// unset or "netpoll" leaves them on Go's netpoller (the default: it costs the least CPU per TPC-C
// transaction, and it serves any number of connections); anything else is refused.
const SocketEnv = "CANDOR_PG_SOCKET"

// testDialWrap, when a test sets it, wraps every socket the database dials (a socket whose writes
// are slow, say).
var testDialWrap func(net.Conn) net.Conn

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
