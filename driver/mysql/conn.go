package mysql

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"unsafe"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/driver"
)

// Conn is one MySQL session, owned by one goroutine. Statements with arguments are prepared on the
// server once per SQL text (binary protocol: one round trip per execution); statements without
// arguments (BEGIN, COMMIT, DDL, SET) go as plain text, which is also one round trip and needs no
// statement slot on the server. As the protocol requires, a result (Row or Rows) must be read or
// closed before the next statement on the same connection.
type Conn struct {
	db    *DB
	sc    *sql.Conn
	stmts map[string]*sql.Stmt
	// sock is the session's socket; closing it interrupts a statement in progress (see watch).
	sock        net.Conn
	interruptFn func()
	interrupted atomic.Bool // the socket was closed by watch
	// Row and Rows wrappers are handed out 64 at a time: one allocation per 64 calls, and every value
	// the caller holds stays its own.
	rowSlab  []row
	rowsSlab []rows
	// sessIso is the session's isolation level as candor last set it (SET SESSION TRANSACTION
	// ISOLATION LEVEL), or the server's default; "" when it is one candor has no name for.
	sessIso driver.Isolation
	// lastIso is the level the previous Begin asked for.
	lastIso driver.Isolation
	// tx is the state of a transaction begun by Begin (txNone ... txEnded); pendSet and pendStart
	// are the statements Begin has not sent yet (SET [SESSION] TRANSACTION ..., or none; START
	// TRANSACTION [READ ONLY]), and pendSessIso, pendLastIso the levels before it; batch is the
	// text of the last batch.
	tx                       int
	pendSet, pendStart       string
	batch                    []byte
	pendSessIso, pendLastIso driver.Isolation
	// trips counts round trips (driver.RoundTripCounter): every statement, START TRANSACTION,
	// COMMIT and ROLLBACK included, goes through QueryRow, Query or Exec.
	trips int64
}

var (
	_ driver.Conn             = (*Conn)(nil)
	_ driver.RoundTripCounter = (*Conn)(nil)
	_ driver.Batcher          = (*Conn)(nil)
)

// RoundTrips is the number of round trips the session has made (driver.RoundTripCounter).
func (c *Conn) RoundTrips() int64 { return c.trips }

// Statements run in a context that cannot be cancelled, so that neither go-sql-driver (a hand-off
// to its watcher goroutine and back, per statement) nor database/sql (a goroutine per result) pays
// for cancellation on every round trip; measured, those hand-offs were the largest part of the
// driver's CPU per transaction. The caller's context is honoured all the same: watch registers a
// function that closes the session's socket if the context ends while the statement runs, which
// ends the statement with an error (reported as the context's error) and the session with it.
var noCancel = context.Background()

// watch arranges for the socket to be closed if ctx ends before stop is called; nil when ctx
// cannot end.
func (c *Conn) watch(ctx context.Context) (stop func() bool) {
	if ctx.Done() == nil || c.sock == nil {
		return nil
	}
	return context.AfterFunc(ctx, c.interruptFn)
}

func (c *Conn) interrupt() {
	c.interrupted.Store(true)
	c.sock.Close()
}

// failed returns err, or the context's error when ctx ended (and so interrupted the statement).
func failed(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("mysql: statement interrupted (%w): %v", context.Cause(ctx), err)
	}
	return err
}

// stmt returns the statement prepared for query on this connection, preparing it on first use.
func (c *Conn) stmt(query string) (*sql.Stmt, error) {
	if s, ok := c.stmts[query]; ok {
		return s, nil
	}
	s, err := c.sc.PrepareContext(noCancel, query)
	if err != nil {
		return nil, err
	}
	c.stmts[query] = s
	return s, nil
}

// setIsoSQL sets the session's level, setTxIsoSQL the next transaction's only; indexed by isoIndex.
var (
	setIsoSQL = [...]string{
		"SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
		"SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
		"SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE",
	}
	setTxIsoSQL = [...]string{
		"SET TRANSACTION ISOLATION LEVEL READ COMMITTED",
		"SET TRANSACTION ISOLATION LEVEL REPEATABLE READ",
		"SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
	}
)

// startSQL starts a transaction: read-write, read-only.
var startSQL = [...]string{"START TRANSACTION", "START TRANSACTION READ ONLY"}

func isoIndex(iso driver.Isolation) (int, error) {
	switch iso {
	case driver.IsolationReadCommitted:
		return 0, nil
	case driver.IsolationRepeatableRead:
		return 1, nil
	case driver.IsolationSerializable:
		return 2, nil
	}
	return 0, fmt.Errorf("mysql: unknown isolation level %q", iso)
}

// Begin starts a transaction at the level asked for (the server's default when unset), stated
// before START TRANSACTION [READ ONLY] only when it differs from the session's level: a
// connection running one level costs one round trip per Begin, not two. A level that differs from
// the session's is set for the next transaction only (SET TRANSACTION: Stock-Level at read committed
// among repeatable-read transactions costs one statement, and the next transaction none); asked for
// twice in a row, it becomes the session's level.
//
// Begin sends nothing itself: the statements are kept and sent in front of the transaction's first
// batch (ExecBatch, QueryBatch: one round trip for both), or on their own before its first other
// statement. A transaction that sent nothing commits or rolls back without a round trip.
func (c *Conn) Begin(ctx context.Context, opts driver.TxOptions) error {
	iso := opts.Isolation
	if iso == driver.IsolationDefault {
		iso = c.db.defaultIso
	}
	i, err := isoIndex(iso)
	if err != nil {
		return err
	}
	if c.tx != txNone {
		return fmt.Errorf("mysql: Begin inside a transaction")
	}
	c.pendSessIso, c.pendLastIso = c.sessIso, c.lastIso
	last := c.lastIso
	c.lastIso = iso
	c.pendSet = ""
	switch {
	case iso == c.sessIso:
	case iso == last:
		c.pendSet = setIsoSQL[i]
		c.sessIso = iso
	default:
		c.pendSet = setTxIsoSQL[i]
	}
	ro := 0
	if opts.ReadOnly {
		ro = 1
	}
	c.pendStart = startSQL[ro]
	c.tx = txPending
	return nil
}

// Transaction states of a Conn.
const (
	txNone    = iota // no transaction begun by Begin
	txPending        // Begin's statements are not sent yet (c.pending)
	txOpen           // sent: the server has a transaction open (or failed to open it)
	txEnded          // ended by a batch's COMMIT: Commit has nothing left to send
)

// flushBegin sends a pending Begin's statements before a statement that cannot carry them (one
// with parameters, prepared on the server, or any statement without batches): in one round trip
// with batches, else each in its own.
func (c *Conn) flushBegin(ctx context.Context) error {
	if c.tx != txPending {
		return nil
	}
	c.tx = txOpen
	qs := [2]string{c.pendSet, c.pendStart}
	if c.db.cfg.MultiStatements && c.pendSet != "" {
		qs = [2]string{"", c.pendSet + "; " + c.pendStart}
	}
	for _, q := range qs {
		if q == "" {
			continue
		}
		c.trips++
		stop := c.watch(ctx)
		_, err := c.sc.ExecContext(noCancel, q)
		if stop != nil {
			stop()
		}
		if err != nil {
			// A level set for this transaction only may still be pending: the next Begin states
			// its level whatever it is.
			c.sessIso = ""
			return failed(ctx, err)
		}
	}
	return nil
}

// batchText is stmts with a pending Begin's statements in front and COMMIT behind when commit.
func (c *Conn) batchText(stmts string, commit bool) string {
	if c.tx != txPending && !commit {
		return stmts
	}
	b := c.batch[:0]
	if c.tx == txPending {
		if c.pendSet != "" {
			b = append(append(b, c.pendSet...), "; "...)
		}
		b = append(append(b, c.pendStart...), "; "...)
	}
	b = append(b, stmts...)
	if commit {
		b = append(b, "; COMMIT"...)
	}
	c.batch = b
	// The text lives in c.batch until the next batch: go-sql-driver copies it into its packet
	// buffer and neither it nor database/sql keeps it, so it is not copied into a string first.
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// batchStart is what every batch does first: it checks the context and that batches are on, builds
// the batch's text (a pending Begin in front, COMMIT behind with commit), marks the transaction
// open and counts the round trip. pending says a held-back Begin went in front.
func (c *Conn) batchStart(ctx context.Context, stmts string, commit bool) (text string, pending bool, err error) {
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	if err := c.batches(); err != nil {
		return "", false, err
	}
	pending = c.tx == txPending
	text = c.batchText(stmts, commit)
	if pending {
		c.tx = txOpen
	}
	c.trips++
	return text, pending, nil
}

// ExecBatch runs stmts, statements without parameters separated by semicolons, in one round trip
// (the protocol's multi-statements; a pending Begin's statements go in front), and appends the rows
// each of them affected to affected. With commit, COMMIT ends the batch and the transaction (Commit
// then sends nothing). The server stops at the first statement that fails and returns its error; the
// transaction then stays open for Rollback.
func (c *Conn) ExecBatch(ctx context.Context, stmts string, commit bool, affected []int64) ([]int64, error) {
	text, pending, err := c.batchStart(ctx, stmts, commit)
	if err != nil {
		return affected, err
	}
	stop := c.watch(ctx)
	var all []int64
	err = c.sc.Raw(func(dc any) error {
		ex, ok := dc.(sqldriver.ExecerContext)
		if !ok {
			return fmt.Errorf("mysql: the driver's connection %T runs no statements", dc)
		}
		res, err := ex.ExecContext(noCancel, text, nil)
		if err != nil {
			return err
		}
		mr, ok := res.(gomysql.Result)
		if !ok {
			return fmt.Errorf("mysql: the driver's result %T has no affected rows per statement", res)
		}
		all = mr.AllRowsAffected()
		return nil
	})
	if stop != nil {
		stop()
	}
	if err != nil {
		if pending {
			c.sessIso = ""
		}
		return affected, failed(ctx, err)
	}
	if commit {
		c.tx = txEnded
	}
	// the pending Begin's statements and COMMIT affect no rows and are not the caller's
	if pending {
		n := 1 // START TRANSACTION, and SET TRANSACTION before it
		if c.pendSet != "" {
			n = 2
		}
		all = all[min(n, len(all)):]
	}
	if commit && len(all) > 0 {
		all = all[:len(all)-1]
	}
	return append(affected, all...), nil
}

// batches refuses a batch on an engine without them (driver.Dialect.Batches).
func (c *Conn) batches() error {
	if !c.db.cfg.MultiStatements {
		return fmt.Errorf("mysql: no batches of statements on %s (the URL's batches=on turns them on; Dolt's engine has none: it goes on after a failing statement): send one statement at a time", c.db.engine.title)
	}
	return nil
}

// QueryBatch runs stmts as ExecBatch does and returns the rows of the statements that return rows,
// one result set after another (BatchRows.NextResultSet moves to the next); the statements that
// return none are skipped. With commit, COMMIT ends the batch and the transaction. The caller reads
// every result set to the end: an error of a later statement (COMMIT's included) shows in Err once
// NextResultSet reaches it.
func (c *Conn) QueryBatch(ctx context.Context, stmts string, commit bool) (driver.BatchRows, error) {
	text, pending, err := c.batchStart(ctx, stmts, commit)
	if err != nil {
		return nil, err
	}
	stop := c.watch(ctx)
	rs, err := c.sc.QueryContext(noCancel, text)
	if err != nil {
		if stop != nil {
			stop()
		}
		if pending {
			c.sessIso = ""
		}
		return nil, failed(ctx, err)
	}
	if commit {
		// COMMIT is the batch's last statement: if it fails, Err says so and the caller rolls back
		c.tx = txEnded
	}
	if len(c.rowsSlab) == 0 {
		c.rowsSlab = make([]rows, 64)
	}
	r := &c.rowsSlab[0]
	c.rowsSlab = c.rowsSlab[1:]
	r.r, r.ctx, r.stop = rs, ctx, stop
	return r, nil
}

func (c *Conn) Commit(ctx context.Context) error {
	switch c.tx {
	case txPending:
		c.endPending()
		return nil
	case txEnded:
		c.tx = txNone
		return nil
	}
	c.tx = txNone
	_, err := c.Exec(ctx, "COMMIT")
	return err
}

// endPending ends a transaction that sent nothing: the session is as it was before its Begin.
func (c *Conn) endPending() {
	c.tx = txNone
	c.sessIso, c.lastIso = c.pendSessIso, c.pendLastIso
}

// Rollback rolls back the open transaction. It is not an error if the server already rolled it back
// (InnoDB does after a deadlock).
func (c *Conn) Rollback(ctx context.Context) error {
	if c.tx == txPending {
		c.endPending()
		return nil
	}
	c.tx = txNone
	_, err := c.Exec(ctx, "ROLLBACK")
	return err
}

// row adapts *sql.Row: sql.ErrNoRows becomes driver.ErrNoRows. The statement's result is read by
// Scan, so the context is watched until then.
type row struct {
	r    *sql.Row
	err  error
	ctx  context.Context
	stop func() bool
}

func (r *row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	err := r.r.Scan(dest...)
	if r.stop != nil {
		r.stop()
	}
	err = failed(r.ctx, err)
	r.r, r.ctx, r.stop = nil, nil, nil
	if errors.Is(err, sql.ErrNoRows) {
		return driver.ErrNoRows
	}
	return err
}

func (c *Conn) QueryRow(ctx context.Context, query string, args ...any) driver.Row {
	if len(c.rowSlab) == 0 {
		c.rowSlab = make([]row, 64)
	}
	r := &c.rowSlab[0]
	c.rowSlab = c.rowSlab[1:]
	if err := ctx.Err(); err != nil {
		r.err = err
		return r
	}
	if err := c.flushBegin(ctx); err != nil {
		r.err = err
		return r
	}
	c.trips++
	r.ctx, r.stop = ctx, c.watch(ctx)
	if len(args) == 0 {
		r.r = c.sc.QueryRowContext(noCancel, query)
		return r
	}
	s, err := c.stmt(query)
	if err != nil {
		if r.stop != nil {
			r.stop()
		}
		r.err = failed(ctx, err)
		return r
	}
	r.r = s.QueryRowContext(noCancel, args...)
	return r
}

// rows adapts *sql.Rows to driver.Rows (whose Close returns nothing); the context is watched until
// Close.
type rows struct {
	r    *sql.Rows
	ctx  context.Context
	stop func() bool
}

func (r *rows) Next() bool             { return r.r.Next() }
func (r *rows) Scan(dest ...any) error { return failed(r.ctx, r.r.Scan(dest...)) }
func (r *rows) Err() error             { return failed(r.ctx, r.r.Err()) }

// Columns is the result's column names (workload/script's \gset reads them).
func (r *rows) Columns() []string { c, _ := r.r.Columns(); return c }

// NextResultSet moves to the next result set of a batch (driver.BatchRows).
func (r *rows) NextResultSet() bool { return r.r.NextResultSet() }
func (r *rows) Close() {
	r.r.Close()
	if r.stop != nil {
		r.stop()
		r.stop = nil
	}
}

func (c *Conn) Query(ctx context.Context, query string, args ...any) (driver.Rows, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.flushBegin(ctx); err != nil {
		return nil, err
	}
	c.trips++
	stop := c.watch(ctx)
	var rs *sql.Rows
	var err error
	if len(args) == 0 {
		rs, err = c.sc.QueryContext(noCancel, query)
	} else {
		var s *sql.Stmt
		if s, err = c.stmt(query); err == nil {
			rs, err = s.QueryContext(noCancel, args...)
		}
	}
	if err != nil {
		if stop != nil {
			stop()
		}
		return nil, failed(ctx, err)
	}
	if len(c.rowsSlab) == 0 {
		c.rowsSlab = make([]rows, 64)
	}
	r := &c.rowsSlab[0]
	c.rowsSlab = c.rowsSlab[1:]
	r.r, r.ctx, r.stop = rs, ctx, stop
	return r, nil
}

func (c *Conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := c.flushBegin(ctx); err != nil {
		return 0, err
	}
	c.trips++
	stop := c.watch(ctx)
	var res sql.Result
	var err error
	if len(args) == 0 {
		res, err = c.sc.ExecContext(noCancel, query)
	} else {
		var s *sql.Stmt
		if s, err = c.stmt(query); err == nil {
			res, err = s.ExecContext(noCancel, args...)
		}
	}
	if stop != nil {
		stop()
	}
	if err != nil {
		return 0, failed(ctx, err)
	}
	return res.RowsAffected()
}

// Close closes the statements and the session (the server rolls back a transaction left open; the
// connection is never reused: the DB keeps no idle connections). After an interrupted statement the
// session is already gone, and closing it reports nothing.
func (c *Conn) Close() error {
	var errs []error
	for q, s := range c.stmts {
		if err := s.Close(); err != nil && !errors.Is(err, sql.ErrConnDone) {
			errs = append(errs, err)
		}
		delete(c.stmts, q)
	}
	if err := c.sc.Close(); err != nil && !errors.Is(err, sql.ErrConnDone) {
		errs = append(errs, err)
	}
	if c.interrupted.Load() {
		return nil
	}
	return errors.Join(errs...)
}
