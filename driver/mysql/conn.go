package mysql

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"unsafe"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/driver"
)

// Conn is one MySQL session, owned by one goroutine. Statements with arguments are prepared on the
// server once per SQL text (binary protocol: one round trip per execution, on candor's own wire,
// wire.go, where the session has it); statements without arguments (BEGIN, COMMIT, DDL, SET) go
// as plain text, which is also one round trip and needs no statement slot on the server. Several
// statements may go in one round trip as a pipeline (Pipe, pipe.go) or a batch (ExecBatch,
// QueryBatch). As the protocol requires, a result (Row or Rows) must be read or closed before the
// next statement on the same connection.
type Conn struct {
	db *DB
	// sc holds the session in database/sql (whose pool never hands it to anyone else) and closes
	// it; every statement goes straight to dc, go-sql-driver's connection, reached once through
	// sc.Raw (see driverConn).
	sc    *sql.Conn
	dc    driverConn
	conv  sqldriver.NamedValueChecker // dc's converter of unusual argument types
	stmts map[string]sqldriver.Stmt
	// w runs the statements with arguments on candor's own wire (wire.go), prepared once per SQL
	// text in wstmts; nil when the session cannot use it, and they go through stmts.
	w      *wire
	wstmts map[string]*wstmt
	// offWire says why the session could not take candor's wire (newWire), when it was meant to.
	offWire string
	wtick   uint64            // counts the uses of wstmts' statements (wstmt.used), for evicting the least recent
	pp      pipe              // the session's pipeline (pipe.go), reused
	args    []sqldriver.Value // the arguments of the statement being sent
	vals    []sqldriver.Value // the values of the current row
	// sock is the session's socket; closing it interrupts a statement in progress (see watch).
	sock        net.Conn
	unwatchFn   func() bool
	interrupted atomic.Bool // the socket was closed by watch
	// id is the session's connection id on the server (0: unknown), for KILL QUERY when a statement
	// is interrupted: closing the socket alone leaves the server running it.
	id uint32
	// state is gen<<1, plus 1 while a statement runs (from watch to its stop); gen numbers the
	// registrations of watch's function, watched is the context of the last, watchStop removes it.
	state     atomic.Uint64
	gen       uint64
	watched   context.Context
	watchStop func() bool
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
	// are the statements Begin has not sent yet (SET [SESSION] TRANSACTION ..., or none; SET
	// autocommit = 0, START TRANSACTION READ ONLY, or none), and pendSessIso, pendLastIso the
	// levels before it; batch is the text of the last batch, lead the number of statements
	// batchText put in front of the caller's, leadOn whether SET autocommit = 1 is one of them.
	tx                       int
	pendSet, pendStart       string
	batch                    []byte
	pendSessIso, pendLastIso driver.Isolation
	lead                     int
	leadOn                   bool
	// ac is the session's autocommit as candor left it (acOn, acOff, acUnknown): see Begin.
	ac int
	// readOnly: the transaction Begin began is read-only; carry: its next pipeline carries COMMIT
	// (CarryCommit).
	readOnly, carry bool
	// trips counts round trips (driver.RoundTripCounter): every statement goes through QueryRow,
	// Query, Exec, a batch or send (Begin's statements, SET autocommit, COMMIT and ROLLBACK).
	trips int64
}

var (
	_ driver.Conn             = (*Conn)(nil)
	_ driver.RoundTripCounter = (*Conn)(nil)
	_ driver.Batcher          = (*Conn)(nil)
)

// RoundTrips is the number of round trips the session has made (driver.RoundTripCounter).
func (c *Conn) RoundTrips() int64 { return c.trips }

// Statements run without a context (go-sql-driver's context-free calls), so that neither
// go-sql-driver (a hand-off to its watcher goroutine and back, per statement) nor database/sql (a
// goroutine per result) pays for cancellation on every round trip; measured, those hand-offs were
// the largest part of the driver's CPU per transaction. The caller's context is honoured all the
// same: watch registers a function that closes the session's socket if the context ends while the
// statement runs, which ends the statement with an error (reported as the context's error) and the
// session with it.
//
// watch arranges for the socket to be closed if ctx ends before stop is called; nil when ctx
// cannot end. The function is registered (context.AfterFunc) once per context, not per statement:
// a session's statements mostly come with the same context (a run's), and registering and
// removing it cost a lock and a map update on the context each time (measured: 7% of the driver's
// CPU per TPC-C transaction). Between statements the function leaves the socket
// alone; the next statement sees that the context ended before it sends anything. A function
// registered for an earlier context may run late (AfterFunc runs it in a goroutine of its own):
// it acts only while a statement of its own registration runs (state holds the registration's
// number and whether a statement runs, in one word).
func (c *Conn) watch(ctx context.Context) (stop func() bool) {
	if ctx.Done() == nil || c.sock == nil {
		return nil
	}
	if ctx != c.watched {
		c.unregister()
		c.gen++
		gen := c.gen
		c.watched, c.watchStop = ctx, context.AfterFunc(ctx, func() { c.interrupt(gen) })
	}
	c.state.Store(c.gen<<1 | 1)
	if ctx.Err() != nil { // ended between the caller's check and now: the function may have passed
		c.interruptNow()
	}
	return c.unwatchFn
}

// unwatch ends a statement's watch (the stop watch returns).
func (c *Conn) unwatch() bool {
	c.state.Store(c.gen << 1)
	return true
}

// unregister removes the function watch registered, if any.
func (c *Conn) unregister() {
	if c.watchStop != nil {
		c.watchStop()
		c.watched, c.watchStop = nil, nil
	}
}

// interrupt closes the socket if a statement of registration gen is running (it is the function
// watch registers).
func (c *Conn) interrupt(gen uint64) {
	if c.state.Load() != gen<<1|1 {
		return
	}
	c.interruptNow()
}

func (c *Conn) interruptNow() {
	c.interrupted.Store(true)
	// The socket first, so the statement fails for its caller whatever the server does next (a
	// killed SLEEP returns 1, with no error); then the server is told to stop it (counted in flight
	// from before the caller is let go).
	c.db.kills.Begin()
	c.sock.Close()
	c.db.killQuery(c.id)
}

// failed returns err, or the context's error when ctx ended (and so interrupted the statement).
func failed(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("mysql: statement interrupted (%w): %v", context.Cause(ctx), err)
	}
	return err
}

// driverConn is what Conn calls of go-sql-driver's connection: Prepare, and text statements
// through the context-free Exec and Query (no arguments: they go as COM_QUERY); prepared
// statements run through the driver.Stmt's Exec and Query with a reused []driver.Value.
//
// database/sql is bypassed for every statement: its locks (closemu, the driverConn mutex), its
// Rows bookkeeping, argument checks and reflection-based conversions cost more CPU per statement
// than the protocol itself (measured: docs/performance/driver-cpu-mysql.md, "Driver CPU per
// transaction without database/sql"). database/sql's rule that the driver's connection is used only inside Raw's function
// guards a connection the pool may hand to another user; a Conn's *sql.Conn is its own until
// Close, and is used by one goroutine, so the driver's connection is kept. A connection that
// fails is closed by go-sql-driver, whose every later call returns driver.ErrBadConn (classified
// as a lost connection: the session is replaced by its owner), and Close closes it for good.
// Execer and Queryer are the driver's context-free calls, on purpose: the caller's context is
// watched by Conn (see watch).
type driverConn interface {
	sqldriver.Conn
	sqldriver.Execer
	sqldriver.Queryer
}

// rawConn reaches go-sql-driver's connection of sc (see driverConn).
func rawConn(sc *sql.Conn) (driverConn, sqldriver.NamedValueChecker, error) {
	var dc any
	if err := sc.Raw(func(d any) error { dc = d; return nil }); err != nil {
		return nil, nil, err
	}
	c, ok := dc.(driverConn)
	conv, ok2 := dc.(sqldriver.NamedValueChecker)
	if !ok || !ok2 {
		return nil, nil, fmt.Errorf("mysql: the driver's connection %T lacks Exec, Query or CheckNamedValue", dc)
	}
	return c, conv, nil
}

// stmt returns the statement prepared for query on this connection, preparing it on first use;
// past wstmtCap statements one of them (any: this path is for TLS and measuring) is closed first.
func (c *Conn) stmt(query string) (sqldriver.Stmt, error) {
	if s, ok := c.stmts[query]; ok {
		return s, nil
	}
	if len(c.stmts) >= wstmtCap {
		for q, s := range c.stmts {
			delete(c.stmts, q)
			if err := s.Close(); err != nil {
				return nil, err
			}
			break
		}
	}
	s, err := c.dc.Prepare(query)
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

// startSQL starts a transaction, whatever the session's autocommit: read-write, read-only.
var startSQL = [...]string{"START TRANSACTION", "START TRANSACTION READ ONLY"}

// The session's autocommit, and the statements that set it. A session with autocommit off starts a
// transaction with its first statement (as Connector/J's setAutoCommit(false) sessions do), so a
// read-write Begin costs no statement of its own: one round trip less per transaction when
// statements go one by one, and with batches one result less, whose OK the server would send (and
// flush) on its own before it runs the rest of the batch.
const (
	acOn      = iota // the server's default: each statement outside a transaction commits itself
	acOff            // off: the next statement starts a transaction
	acUnknown        // SET autocommit = 0 was sent in a batch that failed: it may have run
)

const (
	autocommitOffSQL = "SET autocommit = 0"
	autocommitOnSQL  = "SET autocommit = 1"
)

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
//
// A read-write transaction is started by turning the session's autocommit off (SET autocommit =
// 0, once per session) rather than by START TRANSACTION: from then on its first statement starts
// it, and Begin has nothing to send unless the level changes. A read-only one (or one asked to be
// Explicit) is started by START TRANSACTION [READ ONLY], which autocommit does not affect. A
// statement run outside a transaction turns autocommit back on first (ready), so it commits itself
// as it would on a fresh session.
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
	c.readOnly, c.carry = opts.ReadOnly, false
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
	switch {
	case opts.ReadOnly:
		c.pendStart = startSQL[1]
	case opts.Explicit:
		c.pendStart = startSQL[0]
	case c.ac == acOff:
		c.pendStart = "" // the transaction's first statement starts it
	default:
		c.pendStart = autocommitOffSQL
	}
	c.tx = txPending
	return nil
}

// sentBegin records the end of the statements of a pending Begin that were sent: with ok, they
// ran; else any of them may have, or not.
func (c *Conn) sentBegin(ok bool) {
	if c.pendStart != autocommitOffSQL {
		return
	}
	if ok {
		c.ac = acOff
	} else {
		c.ac = acUnknown
	}
}

// ready is what a statement does first: outside a transaction, it turns the session's autocommit
// back on if a Begin turned it off (a round trip of its own); inside, it sends a pending Begin's
// statements (flushBegin).
func (c *Conn) ready(ctx context.Context) error {
	c.endPipe()
	if c.outside() {
		if c.ac == acOn {
			return nil
		}
		if err := c.send(ctx, autocommitOnSQL); err != nil {
			return err
		}
		c.ac = acOn
		return nil
	}
	return c.flushBegin(ctx)
}

// outside says the server has no transaction of Begin's open: none was begun, or a batch's COMMIT
// ended it (Commit then sends nothing).
func (c *Conn) outside() bool { return c.tx == txNone || c.tx == txEnded }

// send runs q, one of candor's own statements without parameters (Begin's, SET autocommit, COMMIT,
// ROLLBACK) whose result is not read, in a round trip of its own: on candor's wire when the
// session has it.
func (c *Conn) send(ctx context.Context, q string) error {
	c.endPipe()
	c.trips++
	stop := c.watch(ctx)
	var err error
	if c.w != nil {
		err = c.w.run(q)
	} else {
		_, err = c.dc.Exec(q, nil)
	}
	if stop != nil {
		stop()
	}
	if err != nil {
		return failed(ctx, err)
	}
	return nil
}

// Transaction states of a Conn.
const (
	txNone    = iota // no transaction begun by Begin
	txPending        // Begin's statements are not sent yet (c.pending)
	txOpen           // sent: the server has a transaction open (or failed to open it)
	txEnded          // ended by a batch's COMMIT or a pipeline's: Commit has nothing left to send
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
	if c.db.cfg.MultiStatements && c.pendSet != "" && c.pendStart != "" {
		qs = [2]string{"", c.pendSet + "; " + c.pendStart}
	}
	for _, q := range qs {
		if q == "" {
			continue
		}
		if err := c.send(ctx, q); err != nil {
			// A level set for this transaction only may still be pending: the next Begin states
			// its level whatever it is.
			c.sessIso = ""
			c.sentBegin(false)
			return err
		}
	}
	c.sentBegin(true)
	return nil
}

// batchText is stmts with a pending Begin's statements in front (or, outside a transaction, SET
// autocommit = 1 when a Begin turned it off) and COMMIT behind when commit. It sets c.lead, the
// number of statements in front, and c.leadOn, whether SET autocommit = 1 is one of them.
func (c *Conn) batchText(stmts string, commit bool) string {
	c.lead, c.leadOn = 0, false
	b := c.batch[:0]
	switch {
	case c.tx == txPending:
		for _, q := range [2]string{c.pendSet, c.pendStart} {
			if q != "" {
				b = append(append(b, q...), "; "...)
				c.lead++
			}
		}
	case c.outside() && c.ac != acOn:
		b = append(append(b, autocommitOnSQL...), "; "...)
		c.lead, c.leadOn = 1, true
	}
	if c.lead == 0 && !commit {
		return stmts
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
	c.endPipe()
	pending = c.tx == txPending
	text = c.batchText(stmts, commit)
	if pending {
		c.tx = txOpen
	}
	c.trips++
	return text, pending, nil
}

// batchSent records what a batch's statements in front did: ok says they all ran (the batch, or at
// least its statements in front, succeeded).
func (c *Conn) batchSent(pending, ok bool) {
	if pending {
		if !ok {
			// a level set for this transaction only may still be pending: the next Begin states
			// its level whatever it is
			c.sessIso = ""
		}
		c.sentBegin(ok)
	}
	if c.leadOn {
		if ok {
			c.ac = acOn
		} else {
			c.ac = acUnknown
		}
	}
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
	res, err := c.dc.Exec(text, nil)
	if err == nil {
		mr, ok := res.(gomysql.Result)
		if !ok {
			err = fmt.Errorf("mysql: the driver's result %T has no affected rows per statement", res)
		} else {
			all = mr.AllRowsAffected()
		}
	}
	if stop != nil {
		stop()
	}
	c.batchSent(pending, err == nil)
	if err != nil {
		return affected, failed(ctx, err)
	}
	if commit {
		c.tx = txEnded
	}
	// the statements in front and COMMIT affect no rows and are not the caller's
	all = all[min(c.lead, len(all)):]
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
	rs, err := c.dc.Query(text, nil)
	// The first statement's error is Query's; a later one's shows while the rows are read: with
	// two statements in front, the second's outcome is not known here.
	c.batchSent(pending, err == nil && c.lead <= 1)
	if err != nil {
		if stop != nil {
			stop()
		}
		return nil, failed(ctx, err)
	}
	if commit {
		// COMMIT is the batch's last statement: if it fails, Err says so and the caller rolls back
		c.tx = txEnded
	}
	return c.newRows(rs, ctx, stop), nil
}

// CarryCommit makes the transaction's next pipeline (Pipe) its last: COMMIT goes in the same write
// behind its statements, so a read-only transaction of one pipeline costs one round trip (TPC-C's
// Order-Status and Stock-Level). Only a read-only transaction carries it: the server runs every
// command of a pipeline, those after a failing one too, and committing a read-only transaction
// changes nothing whichever statement failed. In a read-write transaction or outside one it does
// nothing, and without pipelines (SeqPipe) nothing carries it. Commit after a carried COMMIT sends
// nothing; Rollback after one sends ROLLBACK, which finds nothing to undo.
func (c *Conn) CarryCommit() { c.carry = c.readOnly && (c.tx == txPending || c.tx == txOpen) }

func (c *Conn) Commit(ctx context.Context) error {
	c.carry = false
	switch c.tx {
	case txPending:
		c.endPending()
		return nil
	case txEnded:
		c.tx = txNone
		return nil
	}
	return c.end(ctx, "COMMIT")
}

// end sends COMMIT or ROLLBACK, as it is: never with SET autocommit = 1 before it (ready), which
// would commit what it should roll back. After it, no transaction is open.
func (c *Conn) end(ctx context.Context, q string) error {
	c.tx = txNone
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.send(ctx, q)
}

// endPending ends a transaction that sent nothing: the session is as it was before its Begin.
func (c *Conn) endPending() {
	c.tx = txNone
	c.sessIso, c.lastIso = c.pendSessIso, c.pendLastIso
}

// Rollback rolls back the open transaction. It is not an error if the server already rolled it back
// (InnoDB does after a deadlock).
func (c *Conn) Rollback(ctx context.Context) error {
	c.carry = false
	if c.tx == txPending {
		c.endPending()
		return nil
	}
	return c.end(ctx, "ROLLBACK")
}

// rows is a statement's result read through the driver's own interface (driver.Rows into a reused
// slice of values, assign into the caller's destinations), with database/sql's Rows semantics: Next
// moves to the next row (false at the end of a result set, or on an error, which Err reports), Scan
// converts the current row, NextResultSet moves to the next result set of a batch, Close discards
// what is left. The context is watched until Close.
type rows struct {
	c      *Conn
	r      sqldriver.Rows
	ctx    context.Context
	stop   func() bool
	vals   []sqldriver.Value // the current row: its []byte values live in the driver's buffer until the next Next
	err    error             // what ended the rows; io.EOF at the end of a result set
	closed bool
	row    bool  // Next returned a row that Scan may read
	w      wrows // the result, when it comes through candor's wire (r.r is then &w)
}

func (r *rows) Next() bool {
	r.row = false
	if r.closed {
		return false
	}
	if r.own() {
		r.err = r.w.next() // Scan decodes the row straight into its destinations
	} else {
		if r.vals == nil {
			r.vals = r.c.values(len(r.r.Columns()))
		}
		r.err = r.r.Next(r.vals)
	}
	if r.err == nil {
		r.row = true
		return true
	}
	if r.err != io.EOF {
		r.close()
		return false
	}
	if ns, ok := r.r.(sqldriver.RowsNextResultSet); !ok || !ns.HasNextResultSet() {
		r.close()
	}
	return false
}

func (r *rows) Scan(dest ...any) error {
	switch {
	case r.closed:
		return failed(r.ctx, errRowsClosed)
	case !r.row:
		return errors.New("sql: Scan called without calling Next")
	case r.own():
		if len(dest) != len(r.w.cols) {
			return fmt.Errorf("sql: expected %d destination arguments in Scan, not %d", len(r.w.cols), len(dest))
		}
		return r.w.scan(dest)
	case len(dest) != len(r.vals):
		return fmt.Errorf("sql: expected %d destination arguments in Scan, not %d", len(r.vals), len(dest))
	}
	for i, v := range r.vals {
		if err := assign(dest[i], v); err != nil {
			return fmt.Errorf("sql: Scan error on column index %d, name %q: %w", i, r.r.Columns()[i], err)
		}
	}
	return nil
}

var errRowsClosed = errors.New("sql: Rows are closed")

func (r *rows) Err() error {
	if r.err == io.EOF {
		return nil
	}
	return failed(r.ctx, r.err)
}

// Columns is the result's column names (workload/script's \gset reads them).
func (r *rows) Columns() []string {
	if r.closed {
		return nil
	}
	return r.r.Columns()
}

// NextResultSet moves to the next result set of a batch (driver.BatchRows).
func (r *rows) NextResultSet() bool {
	r.row = false
	if r.closed {
		return false
	}
	ns, ok := r.r.(sqldriver.RowsNextResultSet)
	if !ok {
		r.close()
		return false
	}
	r.vals = nil
	if r.err = ns.NextResultSet(); r.err != nil {
		r.close()
		return false
	}
	return true
}

func (r *rows) Close() { r.close() }

// own says the rows come through candor's wire (r.w), whose rows Scan decodes itself.
func (r *rows) own() bool { return r.r == sqldriver.Rows(&r.w) }

// close discards the rows left, stops watching the context and returns the driver's error, if
// discarding failed (the session is then lost, and its next statement says so).
func (r *rows) close() error {
	if r.closed {
		return nil
	}
	r.closed, r.row, r.vals = true, false, nil
	err := r.r.Close()
	if r.stop != nil {
		r.stop()
		r.stop = nil
	}
	if err != nil && (r.err == nil || r.err == io.EOF) {
		r.err = err
	}
	return err
}

// values is a slice of n values for a result's rows, the connection's own: one result is read at a
// time on a session.
func (c *Conn) values(n int) []sqldriver.Value {
	if cap(c.vals) < n {
		c.vals = make([]sqldriver.Value, n)
	}
	v := c.vals[:n]
	clear(v)
	return v
}

// row is QueryRow's result: its first row, read by Scan (database/sql's Row).
type row struct {
	rows
	err error
}

func (r *row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	for _, d := range dest {
		if _, ok := d.(*sql.RawBytes); ok {
			r.close()
			return errors.New("sql: RawBytes isn't allowed on Row.Scan")
		}
	}
	if !r.Next() {
		err := r.Err()
		r.close()
		if err != nil {
			return err
		}
		return driver.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		r.close()
		return failed(r.ctx, err)
	}
	return failed(r.ctx, r.close())
}

// newRow hands out a row from the slab of 64: one allocation per 64 calls, and every value the
// caller holds stays its own.
func (c *Conn) newRow() *row {
	if len(c.rowSlab) == 0 {
		c.rowSlab = make([]row, 64)
	}
	r := &c.rowSlab[0]
	c.rowSlab = c.rowSlab[1:]
	r.c = c
	return r
}

// newRows is newRow for Query and QueryBatch.
func (c *Conn) newRows(rs sqldriver.Rows, ctx context.Context, stop func() bool) *rows {
	if len(c.rowsSlab) == 0 {
		c.rowsSlab = make([]rows, 64)
	}
	r := &c.rowsSlab[0]
	c.rowsSlab = c.rowsSlab[1:]
	r.c, r.r, r.ctx, r.stop = c, rs, ctx, stop
	return r
}

// query sends query: as text without arguments, else as its prepared statement's execution with
// args converted as go-sql-driver takes them; on candor's wire, the answer is read into wr.
func (c *Conn) query(query string, args []any, wr *wrows) (sqldriver.Rows, error) {
	if len(args) == 0 {
		return c.dc.Query(query, nil)
	}
	if c.w != nil {
		s, err := c.wrun(query, args)
		if err != nil {
			return nil, err
		}
		ncols, _, status, err := c.w.result(s)
		if err != nil {
			return nil, err
		}
		return wr.start(c.w, s, ncols, status), nil
	}
	s, vals, err := c.prepared(query, args)
	if err != nil {
		return nil, err
	}
	return s.Query(vals)
}

// wrun sends the execution of query's statement with args on candor's wire, preparing it on first
// use.
func (c *Conn) wrun(query string, args []any) (*wstmt, error) {
	s, err := c.wprepared(query)
	if err != nil {
		return nil, err
	}
	if s.nParams != len(args) {
		return nil, fmt.Errorf("sql: expected %d arguments, got %d", s.nParams, len(args))
	}
	if err := c.w.execute(s, args, c.conv); err != nil {
		return nil, err
	}
	return s, c.w.flush()
}

// wstmtCap bounds the statements prepared on candor's wire per session, as driver/postgres's
// statementCacheSize bounds its own: TPC-C needs a few dozen; a script or captured workload of more
// distinct SQL texts closes the least recently used ones (COM_STMT_CLOSE) rather than holding the
// server's statements (max_prepared_stmt_count, 16,382 across all sessions by default) without end.
const wstmtCap = 256

// wprepared is query's statement on candor's wire, prepared on first use; past wstmtCap statements,
// the least recently used one is closed on the server, in the same write as the new one's prepare.
// A pipeline's statements are its most recent, never the one closed (wstmtCap is far more than a
// pipeline's statements).
func (c *Conn) wprepared(query string) (*wstmt, error) {
	c.wtick++
	if s, ok := c.wstmts[query]; ok {
		s.used = c.wtick
		return s, nil
	}
	if len(c.wstmts) >= wstmtCap {
		var lru string
		var oldest *wstmt
		for q, s := range c.wstmts {
			if oldest == nil || s.used < oldest.used {
				lru, oldest = q, s
			}
		}
		delete(c.wstmts, lru)
		c.w.forget(oldest.id)
	}
	s, err := c.w.prepare(query)
	if err != nil {
		return nil, err
	}
	s.used = c.wtick
	c.wstmts[query] = s
	return s, nil
}

// prepared is query's statement, prepared on first use, and args as its driver values.
func (c *Conn) prepared(query string, args []any) (sqldriver.Stmt, []sqldriver.Value, error) {
	s, err := c.stmt(query)
	if err != nil {
		return nil, nil, err
	}
	if want := s.NumInput(); want >= 0 && want != len(args) {
		return nil, nil, fmt.Errorf("sql: expected %d arguments, got %d", want, len(args))
	}
	vals, err := c.driverArgs(args)
	return s, vals, err
}

// driverArgs is args as driver values, as go-sql-driver takes them (in a slice reused from statement
// to statement: neither go-sql-driver nor wire keeps it).
func (c *Conn) driverArgs(args []any) ([]sqldriver.Value, error) {
	vals := c.args[:0]
	for i, a := range args {
		v, err := driverArg(c.conv, a)
		if err != nil {
			return nil, fmt.Errorf("sql: converting argument $%d type: %w", i+1, err)
		}
		vals = append(vals, v)
	}
	c.args = vals
	return vals, nil
}

func (c *Conn) QueryRow(ctx context.Context, query string, args ...any) driver.Row {
	r := c.newRow()
	if err := ctx.Err(); err != nil {
		r.err = err
		return r
	}
	if err := c.ready(ctx); err != nil {
		r.err = err
		return r
	}
	c.trips++
	stop := c.watch(ctx)
	rs, err := c.query(query, args, &r.w)
	if err != nil {
		if stop != nil {
			stop()
		}
		r.err = failed(ctx, err)
		return r
	}
	r.r, r.ctx, r.stop = rs, ctx, stop
	return r
}

func (c *Conn) Query(ctx context.Context, query string, args ...any) (driver.Rows, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.ready(ctx); err != nil {
		return nil, err
	}
	c.trips++
	stop := c.watch(ctx)
	r := c.newRows(nil, ctx, stop)
	rs, err := c.query(query, args, &r.w)
	if err != nil {
		if stop != nil {
			stop()
		}
		return nil, failed(ctx, err)
	}
	r.r = rs
	return r, nil
}

func (c *Conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := c.ready(ctx); err != nil {
		return 0, err
	}
	c.trips++
	stop := c.watch(ctx)
	n, err := c.exec(query, args)
	if stop != nil {
		stop()
	}
	if err != nil {
		return 0, failed(ctx, err)
	}
	return n, nil
}

// exec is query for statements whose rows, if any, are not read: it returns the rows affected.
func (c *Conn) exec(query string, args []any) (int64, error) {
	var res sqldriver.Result
	var err error
	switch {
	case len(args) == 0:
		res, err = c.dc.Exec(query, nil)
	case c.w != nil:
		s, err := c.wrun(query, args)
		if err != nil {
			return 0, err
		}
		ncols, affected, status, err := c.w.result(s)
		if err == nil && (ncols > 0 || status&statusMoreResults != 0) {
			err = c.w.discard(ncols > 0, status)
		}
		return affected, err
	default:
		var s sqldriver.Stmt
		var vals []sqldriver.Value
		if s, vals, err = c.prepared(query, args); err != nil {
			return 0, err
		}
		res, err = s.Exec(vals)
	}
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Close closes the statements and the session (the server rolls back a transaction left open; the
// connection is never reused: the DB keeps no idle connections). After an interrupted statement the
// session is already gone, and closing it reports nothing.
func (c *Conn) Close() error {
	c.unregister()
	var errs []error
	for q, s := range c.stmts {
		if err := s.Close(); err != nil && !errors.Is(err, sqldriver.ErrBadConn) {
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

// OwnWire says whether the session runs its prepared statements on candor's own wire (wire.go)
// rather than through go-sql-driver's statements.
func (c *Conn) OwnWire() bool { return c.w != nil }
