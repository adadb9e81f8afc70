// Package driver is what a database must provide to candor: a way to open it from a URL, dedicated
// connections with explicit transactions, a bulk path for loading, and a classification of its errors.
// Each engine lives in a sub-package (driver/postgres, driver/sqlite) that registers itself by URL
// scheme; workloads keep their own SQL per dialect name.
package driver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/candor-bench/candor/userr"
)

// ErrNoRows is returned by Row.Scan when the query returned no row, whatever the engine.
var ErrNoRows = errors.New("no rows in result set")

// Dialect names an engine's SQL flavour and what it can do. Workloads choose statements by Name and
// take faster paths where a capability allows.
type Dialect struct {
	Name string // "postgres", "sqlite", "cockroachdb", "yugabytedb", "mysql", "mariadb", "tidb", "dolt"
	// Family is the dialect whose statements this one runs, with overrides where its SQL must
	// differ: "postgres" for CockroachDB and YugabyteDB, "mysql" for MariaDB, TiDB and Dolt. Empty
	// means Name (see SQLFamily).
	Family string
	// Arrays: the engine takes array parameters (= ANY($1), unnest), so a set of rows can be read or
	// written in one statement.
	Arrays bool
	// SingleWriter: one writer at a time (SQLite). Read-write transactions take the write lock up front.
	SingleWriter bool
	// Procedures: the engine runs server-side procedures that candor can create (PL/pgSQL on
	// PostgreSQL, stored procedures on MySQL/MariaDB), which the --procedures mode needs.
	Procedures bool
	// Batches: the engine runs several statements sent in one round trip and stops at the first
	// that fails (driver.Batcher; MySQL's multi-statements on MySQL, MariaDB and TiDB). Dolt's
	// engine runs the statements after a failed one too, COMMIT included, so it has none.
	Batches bool
}

// Isolation is a transaction isolation level; the zero value means the engine's default.
type Isolation string

const (
	IsolationDefault        Isolation = ""
	IsolationReadCommitted  Isolation = "read-committed"
	IsolationRepeatableRead Isolation = "repeatable-read"
	IsolationSerializable   Isolation = "serializable"
)

// TxOptions are the options of one transaction.
type TxOptions struct {
	ReadOnly  bool
	Isolation Isolation
	// Explicit asks for a statement that starts the transaction (START TRANSACTION) where the
	// engine could start it with its first statement instead (the MySQL family's sessions with
	// autocommit off): for a workload that reproduces a tool which sends BEGIN, as sysbench does.
	Explicit bool
}

// DB is an opened database: a factory of dedicated connections.
type DB interface {
	Kind() string // the dialect's name: "postgres", "sqlite", "cockroachdb", "mysql", "tidb", ...
	Dialect() Dialect
	// Redacted is the URL with any password replaced, safe to print and store.
	Redacted() string
	// Connect opens a dedicated session, to be owned by one goroutine.
	Connect(ctx context.Context) (Conn, error)
	// Version is the server's version string.
	Version(ctx context.Context) (string, error)
	// Classify tells what an error returned by this engine means for the transaction that saw it.
	Classify(err error) ErrorClass
	// Isolation is the level transactions run at when TxOptions leave it unset.
	DefaultIsolation() Isolation
	Close() error
}

// Conn is one session. Transactions are begun and ended on the connection itself (no per-transaction
// object), and statements are prepared and cached by their SQL text on first use.
type Conn interface {
	Begin(ctx context.Context, opts TxOptions) error
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
	QueryRow(ctx context.Context, sql string, args ...any) Row
	Query(ctx context.Context, sql string, args ...any) (Rows, error)
	Exec(ctx context.Context, sql string, args ...any) (rowsAffected int64, err error)
	// CopyFrom loads rows into table as fast as the engine allows (COPY on PostgreSQL, large
	// prepared multi-row inserts on SQLite), inside the connection's current transaction if any.
	CopyFrom(ctx context.Context, table string, columns []string, src RowSource) (int64, error)
	Close() error
}

// RoundTripCounter is an optional ability of a Conn: the round trips it has made to the server
// since it was opened, each statement, BEGIN, COMMIT and ROLLBACK sent with its own wait for an
// answer counting one, and several sent in one write counting one. Preparing a statement on its
// first use (once per connection) is not counted. An embedded engine has none.
type RoundTripCounter interface {
	RoundTrips() int64
}

// ServerCanceller is a DB that stops on the server a statement interrupted by its context
// (PostgreSQL's CancelRequest, MySQL's KILL QUERY), not only abandons it, and counts those it
// stopped: a run says how many were still running when its grace period ended.
type ServerCanceller interface {
	ServerCancels() int64
}

// RoundTrips returns c's round trips, and false when its engine does not count them.
func RoundTrips(c Conn) (int64, bool) {
	if rt, ok := c.(RoundTripCounter); ok {
		return rt.RoundTrips(), true
	}
	return 0, false
}

// Batcher is an optional ability of a Conn whose engine runs several statements sent in one round
// trip (MySQL's multi-statements). The statements carry no parameters: a caller writes into them
// only values it computed itself (integers, dates, amounts; never text from a user). The statements
// a pending Begin has not sent yet go in front of the batch, in the same round trip.
type Batcher interface {
	// ExecBatch runs stmts (separated by semicolons) and appends the rows each affected to
	// affected. With commit, COMMIT ends the batch and the transaction, and Commit sends nothing.
	// The server stops at the first statement that fails; its error is returned.
	ExecBatch(ctx context.Context, stmts string, commit bool, affected []int64) ([]int64, error)
	// QueryBatch runs stmts and returns the rows of those that return rows, one result set after
	// another. The caller reads every set (NextResultSet until false) and then Err, which reports
	// a later statement's failure, COMMIT's included.
	QueryBatch(ctx context.Context, stmts string, commit bool) (BatchRows, error)
}

// BatchRows are the result sets of a batch: Next and Scan read the current one, NextResultSet moves
// to the next and is false when there is none (or on an error, which Err then returns).
type BatchRows interface {
	Rows
	NextResultSet() bool
}

// Pipeliner is an optional ability of a Conn whose protocol takes several statements in one write
// and answers each in turn (MySQL's: each statement a command of its own, prepared, with its
// parameters). The server runs them one after another and goes on after one fails, so a caller
// pipelines only inside a transaction it rolls back on any error, and never COMMIT: a statement
// that ran after a failed one is undone with the rest.
type Pipeliner interface {
	// Pipe returns the connection's pipeline, empty, or nil when the session has none. The
	// statements a pending Begin has not sent yet go in front, in the same write.
	Pipe() Pipe
}

// Pipe is a pipeline: statements queued by Exec and Query, written by Send in one round trip, their
// answers read by Affected and Rows in the order queued. Close reads what is left and must be called
// before the connection's next statement (which otherwise reads it first).
type Pipe interface {
	// Exec queues a statement whose rows, if any, are not read; without arguments it goes as text
	// (not prepared: its text may differ each time).
	Exec(query string, args ...any)
	// Query queues a statement whose rows are read.
	Query(query string, args ...any)
	// Send writes the queued statements and reads the answers of Begin's in front. An error queueing
	// a statement (its prepare, its arguments) is returned here, before anything is written.
	Send(ctx context.Context) error
	// Affected reads the next answer, of a statement queued by Exec: the rows it affected.
	Affected() (int64, error)
	// Rows reads the next answer, of a statement queued by Query; its rows are read or closed before
	// the next answer is (reading the next closes them).
	Rows() (Rows, error)
	// Close reads the answers left and ends the pipeline; it returns the first error among them.
	Close() error
}

// Simulator is an optional ability of a Conn that runs no statements (the null engine,
// driver/null): an operation on it is complete once Simulate returns, after the engine's service
// time. Executors (workload/sqlexec's Slots.Run, TPC-C's deferred Delivery) call it instead of the
// operation's statements; the operation's inputs are drawn as on any engine.
type Simulator interface {
	Simulate(ctx context.Context) error
}

// Simulated returns c's Simulator, and false when c runs statements.
func Simulated(c Conn) (Simulator, bool) {
	s, ok := c.(Simulator)
	return s, ok
}

// Row is the result of QueryRow. Scan returns ErrNoRows when there was no row. A Row is valid until
// the next statement on its connection (an engine may hand the same one out again).
type Row interface {
	Scan(dest ...any) error
}

// Rows is the result of Query; Close must be called (it is safe to call twice). Rows, Err
// included, are valid until the next statement on their connection (an engine may hand the same
// ones out again).
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// RowSource feeds CopyFrom, one row at a time. The slice Values returns may be reused by the next
// call to Next.
type RowSource interface {
	Next() bool
	Values() ([]any, error)
	Err() error
}

// ErrorClass is what an error means for the transaction that saw it.
type ErrorClass int

const (
	// ErrFatal: not retried; the transaction counts as an error.
	ErrFatal ErrorClass = iota
	// ErrRetry: serialization failure, deadlock or busy lock; the whole transaction is retried.
	ErrRetry
	// ErrConnLost: the connection is gone; it is re-opened and the transaction retried.
	ErrConnLost
)

func (c ErrorClass) String() string {
	switch c {
	case ErrRetry:
		return "retry"
	case ErrConnLost:
		return "connection lost"
	}
	return "fatal"
}

// Opener opens a database from a parsed URL.
type Opener func(ctx context.Context, u *url.URL, raw string) (DB, error)

var openers = map[string]Opener{}

// Register makes an engine available under a URL scheme. It is called from the engine package's init.
func Register(scheme string, open Opener) { openers[scheme] = open }

// Schemes lists the registered URL schemes.
func Schemes() []string {
	s := make([]string, 0, len(openers))
	for k := range openers {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// Open opens the database named by a URL such as postgres://user:pass@host:5432/db or sqlite:PATH.
// Malformed or unknown URLs are user errors. Open checks that the database answers.
func Open(ctx context.Context, raw string) (DB, error) {
	if raw == "" {
		return nil, userr.Errorf("no database given: pass --db URL, for example --db sqlite:candor-tpcc.db or --db postgres://user:pass@127.0.0.1:5432/candor")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return nil, userr.Errorf("the database URL %q is malformed: use postgres://user:pass@host:port/db, mysql://user:pass@host:port/db or sqlite:PATH (schemes: %s)", Redact(raw), strings.Join(Schemes(), ", "))
	}
	if u.User != nil {
		// Engines' own parsers split user information at different '@'s (pgx at the first, Go at
		// the last), so a host could be read from the password and printed in a message.
		if end := strings.LastIndex(raw, "@"+u.Host); end > 0 && strings.Contains(raw[strings.Index(raw, "//")+2:end], "@") {
			return nil, userr.Errorf("the user name or password of the database URL %s holds an '@': write it as %%40, for example postgres://user:p%%40ss@host:port/db", Redact(raw))
		}
	}
	open, ok := openers[strings.ToLower(u.Scheme)]
	if !ok {
		return nil, userr.Errorf("the database URL scheme %q is not supported: use one of %s", u.Scheme, strings.Join(Schemes(), ", "))
	}
	return open(ctx, u, raw)
}

// Retry runs fn in a transaction until it commits, fails with a non-retryable error (retryable: the
// engine's ErrRetry, or a workload's ConflictError), or the context
// ends. It returns the number of retries. A lost connection is reported to the caller (who owns the
// connection and must replace it) as an error of class ErrConnLost. The first retried attempt's
// error goes into the RetryNote ctx carries, if any.
func Retry(ctx context.Context, db DB, c Conn, opts TxOptions, maxRetries int, fn func(ctx context.Context, c Conn) error) (retries int, err error) {
	for {
		err = runTx(ctx, c, opts, fn)
		if err == nil {
			return retries, nil
		}
		if !retryable(db, err) || retries >= maxRetries || ctx.Err() != nil {
			return retries, err
		}
		retries++
		NoteRetry(ctx, db, err)
		d := retryPause(retries)
		select {
		case <-ctx.Done():
			return retries, err
		case <-time.After(d):
		}
	}
}

// RetryNote is what an operation's retried attempts failed with, for the causes a result shows
// beside its retries: Retry fills the note its context carries (WithRetryNote) with the error of
// the operation's first retried attempt and its class, and leaves it alone after that. The run's
// scheduler gives each worker a note, empties it before each operation and records what it holds.
type RetryNote struct {
	Err   error        // the first retried attempt's error; nil: no retry
	Class FailureClass // FailureOf(db, Err)
}

type retryNoteKey struct{}

// WithRetryNote returns ctx carrying n, which Retry fills.
func WithRetryNote(ctx context.Context, n *RetryNote) context.Context {
	return context.WithValue(ctx, retryNoteKey{}, n)
}

// NoteRetry puts err, which the caller is about to retry, into the note ctx carries when the note
// is still empty. Retry calls it; so does a workload's own retry loop (pgbench scripts' retries,
// sysbench's of duplicate keys). It costs a context lookup per retry.
func NoteRetry(ctx context.Context, db DB, err error) {
	if n, _ := ctx.Value(retryNoteKey{}).(*RetryNote); n != nil && n.Err == nil {
		n.Err, n.Class = err, FailureOf(db, err)
	}
}

// retryPause is the pause before retry n (1, 2, ...): 1 ms doubling up to 64 ms, so that the
// conflicting transaction can finish (CockroachDB and YugabyteDB recommend an exponential backoff
// for client-side retries; on PostgreSQL at SERIALIZABLE with many terminals per warehouse a linear
// 1..10 ms pause left about 7% of New-Orders failing after 10 retries). It is deterministic: no
// random jitter, whose stream would not derive from the run's seed.
func retryPause(n int) time.Duration {
	return time.Millisecond << min(n-1, 6)
}

// ErrRollback is returned by a transaction function that decided to roll back as a normal business
// outcome (TPC-C's 1% of New-Orders with an unused item). Retry rolls back and returns it.
var ErrRollback = errors.New("transaction rolled back by design")

func runTx(ctx context.Context, c Conn, opts TxOptions, fn func(ctx context.Context, c Conn) error) error {
	if err := c.Begin(ctx, opts); err != nil {
		return err
	}
	if err := fn(ctx, c); err != nil {
		if rbErr := c.Rollback(context.WithoutCancel(ctx)); rbErr != nil {
			// Even a planned rollback that failed is an error: the transaction may still be open.
			return fmt.Errorf("rollback failed: %w (after: %v)", rbErr, err)
		}
		return err
	}
	return c.Commit(ctx)
}
