package postgres

import (
	"context"
	"net/url"

	"github.com/jackc/pgx/v5"
)

// A connection pooler between candor and the server (PgBouncer) changes what a connection is. In
// session pooling a client connection keeps one server connection for its life: the direct path's
// named prepared statements work as on the server itself. In transaction pooling each transaction,
// and each statement outside one, may run on another server connection: a statement prepared on
// one is missing on the next ("prepared statement "candor_3" does not exist"). Open finds out which
// (probePooler) and, in transaction pooling, sends every statement with arguments through pgx in
// cache_describe mode (the unnamed statement, parsed, bound and executed in one exchange; only the
// descriptions are cached, on the client), unless the URL chose a mode that works there.
//
// pgx's default_query_exec_mode and statement_cache_capacity URL parameters are honoured: a mode
// other than cache_statement turns the direct path off (every statement through pgx in that mode);
// statement_cache_capacity bounds the direct path's prepared statements as it bounds pgx's cache,
// and 0 with cache_statement is refused (pgx would fail every statement).

// execMode applies the URL's default_query_exec_mode and statement_cache_capacity (pgx parsed
// them into cfg).
func (db *DB) execMode(q url.Values, cfg *pgx.ConnConfig) error {
	db.stmtCap = cfg.StatementCacheCapacity
	if q.Get("default_query_exec_mode") != "" && cfg.DefaultQueryExecMode != pgx.QueryExecModeCacheStatement {
		db.stmtCap = 0
		db.modeWhy = "the URL's default_query_exec_mode"
		return nil
	}
	if db.stmtCap <= 0 {
		return db.userError("statement_cache_capacity=%s in the URL %s leaves pgx's default mode, cache_statement, without its cache of prepared statements: remove it, or add default_query_exec_mode=cache_describe (or exec, or simple_protocol) to send statements without named prepared statements", q.Get("statement_cache_capacity"), db.redacted)
	}
	return nil
}

// backendPID is the server process serving c's current statement, asked with the simple protocol.
func backendPID(ctx context.Context, c *Conn) (uint32, error) {
	var pid int64
	c.viaPgx()
	err := c.pc.QueryRow(ctx, "SELECT pg_backend_pid()", pgx.QueryExecModeSimpleProtocol).Scan(&pid)
	return uint32(pid), err
}

// probePooler finds whether c reaches PostgreSQL through a connection pooler, and in which pooling,
// and chooses the statements' path there (see above). Without a pooler, the server process that
// answers is the one whose id the connection's greeting gave (BackendKeyData); a pooler greets
// with a key of its own. Its pooling: a second connection opens a transaction (so it holds a server
// connection) and asks for its server process, then c asks again. In session pooling c's server
// process never changes and is never another connection's; in transaction pooling the second
// connection takes c's idle server connection (PgBouncer reuses the last one freed first), or c
// is then served by another.
func (db *DB) probePooler(ctx context.Context, c *Conn, q url.Values) error {
	if db.engine != enginePostgres {
		return nil
	}
	pid1, err := backendPID(ctx, c)
	if err != nil || pid1 == c.pc.PgConn().PID() {
		return nil
	}
	c2, err := db.connect(ctx)
	if err != nil {
		return err
	}
	defer c2.Close()
	if _, err := c2.pc.Exec(ctx, "BEGIN", pgx.QueryExecModeSimpleProtocol); err != nil {
		return db.connectError(ctx, err)
	}
	pid2, err := backendPID(ctx, c2)
	if err != nil {
		return db.connectError(ctx, err)
	}
	pid3, err := backendPID(ctx, c)
	if err != nil {
		return db.connectError(ctx, err)
	}
	if _, err := c2.pc.Exec(ctx, "ROLLBACK", pgx.QueryExecModeSimpleProtocol); err != nil {
		return db.connectError(ctx, err)
	}
	if pid2 != pid1 && pid3 == pid1 {
		db.pooling = "session"
		return nil
	}
	db.pooling = "transaction"
	mode := q.Get("default_query_exec_mode")
	switch mode {
	case "cache_statement", "describe_exec":
		return db.userError("%s reaches PostgreSQL through a connection pooler in transaction pooling (PgBouncer's pool_mode=transaction: each transaction may run on another server connection), where default_query_exec_mode=%s fails (%s): use cache_describe, exec or simple_protocol, or leave it out and candor chooses cache_describe", db.redacted, mode, map[string]string{
			"cache_statement": "its named prepared statements stay on the server connection that prepared them",
			"describe_exec":   "its description and its execution are two exchanges, which may reach two server connections",
		}[mode])
	case "":
		db.cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
		db.stmtCap = 0
		db.modeWhy = "chosen by candor: the server is reached through a connection pooler in transaction pooling, where named prepared statements fail; unnamed statements, their descriptions cached"
		if q.Get("statement_cache_capacity") != "" {
			db.modeWhy += "; the URL's statement_cache_capacity bounds prepared statements, which this mode does not make"
		}
	default:
		db.modeWhy += ", through a connection pooler in transaction pooling"
	}
	return nil
}

// TransactionPooled reports whether Open found the server behind a connection pooler in
// transaction pooling: session state (an advisory lock, SET) does not outlive a transaction there.
func (db *DB) TransactionPooled() bool { return db.pooling == "transaction" }
