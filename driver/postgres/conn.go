package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/candor-bench/candor/driver"
)

// Conn is one PostgreSQL session, owned by one goroutine.
//
// Begin sends nothing: it remembers its BEGIN statement, and the transaction's first statement
// carries it in the same network write (a pgx batch of two queries with one Sync), so a transaction
// of n statements costs n+1 round trips instead of n+2 (New-Order at read committed: 3, not 4; a
// single statement at repeatable read or serializable: 2, not 3). The server runs exactly what it
// would have run: BEGIN, then the statement, in order; if BEGIN fails the statement is skipped and
// the error is BEGIN's. A transaction that ends before any statement sends nothing at all.
type Conn struct {
	pc *pgx.Conn
	// rowSlab hands out Row wrappers 64 at a time, so QueryRow costs no allocation of its own most of
	// the time while every Row stays a distinct value (a Row kept by the caller is never reused).
	rowSlab []row
	// begin is the BEGIN statement that the next statement carries, or "" outside a pending Begin.
	begin string
	// batch and queued are reused by every statement sent in a batch (no allocation per transaction).
	batch  pgx.Batch
	queued [3]pgx.QueuedQuery
	// carry: the next statement with arguments carries COMMIT (CarryCommit); ended: a carried COMMIT
	// ended the transaction (or the server left it), so Commit and Rollback send nothing.
	carry, ended bool
	// trips counts round trips (driver.RoundTripCounter); only the owning goroutine touches it.
	trips int64
	// watch is the connection's own watch of the caller's context (see enter).
	watch ctxWatch
	// cancels counts, for the DB, the statements fire stopped on the server (nil: not counted).
	cancels *driver.Cancels

	// The direct path (direct.go): statements prepared by SQL text, the parameters of the statement
	// being sent, and the results handed out.
	stmts     map[string]*pstmt
	stmtSeq   int
	stmtCap   int // at most this many prepared (the DB's stmtCap; 0: none, every statement through pgx)
	params    params
	dRowSlab  []directRow
	dRowsSlab []directRows
	// dRowFree and dRowsFree are the last results handed out, once scanned (a row) or closed (rows),
	// for the next statement to take again: a result is valid until the next statement on its
	// connection, as pgx's are, and a statement then allocates nothing for its result.
	dRowFree  *directRow
	dRowsFree *directRows
	dExec     direct
	// wire reads and writes the direct path's statements, and BEGIN, COMMIT and ROLLBACK, on the
	// socket pgconn opened (wire.go); pgxUsed: pgconn ran an exchange since wire's last, so the
	// transaction status is pgconn's, and wireTurn syncs pgconn before wire's next.
	wire    wire
	pgxUsed bool
	// bulk is the database's bulk path for CopyFrom (insert.go)
	bulk *bulkState
}

// newConn wraps a connection pgx opened. pgconn's login was its exchange (a write of it that took
// over 15 ms left pgconn's background reader waiting in a read of the socket): wire's first turn
// syncs pgconn first, as after any of pgx's.
func newConn(pc *pgx.Conn) *Conn {
	registerAsText(pc.TypeMap()) // numbers and bools bound to text parameters, as on candor's wire
	return &Conn{pc: pc, wire: wire{nc: pc.PgConn().Conn(), tx: 'I'}, stmtCap: statementCacheSize, pgxUsed: true}
}

// txStatus is the server's transaction status after the last exchange: 'I' idle, 'T' in a
// transaction, 'E' in a failed one.
func (c *Conn) txStatus() byte {
	if c.pgxUsed {
		return c.pc.PgConn().TxStatus()
	}
	return c.wire.tx // 'I' before any exchange, as pgconn's
}

// viaPgx marks an exchange through pgx (pgconn then holds the transaction status, and may have left
// its background reader in a read of the socket): every use of c.pc that talks to the server calls
// it first.
func (c *Conn) viaPgx() { c.pgxUsed = true }

// errConnBusy: a statement came while an earlier one's rows were still open on the connection.
var errConnBusy = errors.New("postgres: conn busy: an earlier statement's rows are still open on this connection (read or close them first)")

// wireTurn readies the socket for an exchange of wire's: refused while an answer is still unread
// (wire's or pgx's); after pgx's exchanges, pgconn's reading is drained and stopped first
// (SyncConn: a background read pgconn started after a slow write must not take wire's answer), and
// a connection pgconn closed (after a failure of its own) is lost.
func (c *Conn) wireTurn() error {
	pc := c.pc.PgConn()
	if c.wire.busy || pc.IsBusy() {
		return errConnBusy
	}
	if c.pgxUsed {
		if pc.IsClosed() {
			return c.wire.fail(fmt.Errorf("postgres: the connection was closed after a failure: %w", net.ErrClosed))
		}
		if err := pc.SyncConn(context.Background()); err != nil {
			return c.wire.fail(err)
		}
		c.pgxUsed = false
	}
	return nil
}

// ctxWatch interrupts a connection's statement when the caller's context ends, registered once per
// context instead of once per statement: pgx, given a context that can end, watches it around every
// statement (a channel and a context.AfterFunc registered and stopped on the context's lock, which
// every connection of a run shares), which cost 2 to 7 µs of CPU per point select in
// BenchmarkPointSelectCPU (its pgx paths against their -background twins). Statements are given
// context.Background() and the connection watches the caller's context itself: an AfterFunc
// registered when a context first comes, kept while the next statements come under the same context
// (a run's workers use one for the whole run).
//
// The watch is armed only while a statement runs (from enter to leave): an AfterFunc that fires
// between statements finds it disarmed and does nothing, so a context that ends while the
// connection is idle (a sampler's per-sample timeout, cancelled after its statement) never touches
// the connection. One that fires while armed sets a passed deadline on the socket, as pgx's own
// handler does; the statement fails, and leave clears the deadline. The lock orders the callback
// against enter and leave: once leave has disarmed, or enter has moved to another context, a
// callback of an earlier context cannot set a deadline any more.
type ctxWatch struct {
	mu    sync.Mutex
	ctx   context.Context // the context the registration watches
	stop  func() bool     // stops the registration on ctx
	armed bool            // a statement under ctx is running
	fired bool            // the callback set a deadline during this statement
}

// fire is the AfterFunc of ctx: it interrupts the running statement, if one runs under ctx.
func (c *Conn) fire(ctx context.Context) {
	w := &c.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ctx == ctx && w.armed && !w.fired {
		w.fired = true
		// The deadline first, so the statement fails for its caller at once; then the server
		// is told to stop it (counted in flight from before the caller is let go).
		if c.cancels != nil {
			c.cancels.Begin()
		}
		c.pc.PgConn().Conn().SetDeadline(time.Now())
		c.cancelOnServer()
	}
}

// cancelTimeout bounds a CancelRequest: its connection and its exchange.
const cancelTimeout = 3 * time.Second

// cancelOnServer sends PostgreSQL's CancelRequest for the statement running on the connection (on a
// connection of its own, with the session's key): the deadline fire sets ends candor's wait, not
// the server's work, which would go on to the statement's end (a pg_sleep(30), a long scan) holding
// its locks. Best effort: a server that cannot be reached has nothing running for candor either.
//
// The cancel is counted in flight (Cancels.Begin) by the caller; cancelOnServer ends it.
func (c *Conn) cancelOnServer() {
	ctx, cancel := context.WithTimeout(context.Background(), cancelTimeout)
	defer cancel()
	err := c.pc.PgConn().CancelRequest(ctx)
	if c.cancels != nil {
		c.cancels.End(err == nil)
	}
}

// enter begins a statement under ctx: it returns the context to give pgx, or ctx's error when ctx
// has ended (pgx would return it without sending anything). Every successful enter is followed by
// one leave.
func (c *Conn) enter(ctx context.Context) (context.Context, error) {
	if c.wire.busy {
		return nil, errConnBusy
	}
	if ctx.Done() == nil { // cannot end: pgx watches nothing either
		return ctx, nil
	}
	w := &c.watch
	if ctx != w.ctx {
		if w.stop != nil {
			w.stop() // a callback already running finds w.ctx changed below and does nothing
		}
		w.mu.Lock()
		w.ctx = ctx
		w.mu.Unlock()
		w.stop = context.AfterFunc(ctx, func() { c.fire(ctx) })
	}
	// Armed under the lock after checking ctx: a context that ended before is reported here, one
	// that ends after finds the watch armed, so no statement outlives its context unnoticed.
	w.mu.Lock()
	if err := ctx.Err(); err != nil {
		w.mu.Unlock()
		return nil, err
	}
	w.armed = true
	w.mu.Unlock()
	return context.Background(), nil
}

// leave ends a statement begun by enter, disarming the watch (and clearing a deadline its context
// set, as pgx's HandleUnwatchAfterCancel does); a failure while ctx has ended is ctx's error (as
// pgx reports it), wrapping the connection's.
func (c *Conn) leave(ctx context.Context, err error) error {
	if err != nil {
		err = tooLarge(err) // pgconn's refusal of a message past max_message_size, said clearly
	}
	if ctx.Done() == nil {
		return err
	}
	w := &c.watch
	w.mu.Lock()
	fired := w.fired
	w.armed, w.fired = false, false
	if fired {
		c.pc.PgConn().Conn().SetDeadline(time.Time{})
	}
	w.mu.Unlock()
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			return fmt.Errorf("%w: %w", cerr, err)
		}
	}
	return err
}

// closeWatch stops watching when the connection closes.
func (c *Conn) closeWatch() {
	w := &c.watch
	if w.stop != nil {
		w.stop()
		w.stop = nil
	}
	w.mu.Lock()
	w.ctx, w.armed = nil, false
	w.mu.Unlock()
}

var (
	_ driver.Conn             = (*Conn)(nil)
	_ driver.RoundTripCounter = (*Conn)(nil)
)

// RoundTrips is the number of round trips the session has made (driver.RoundTripCounter).
func (c *Conn) RoundTrips() int64 { return c.trips }

// A driver.RowSource is a pgx.CopyFromSource: CopyFrom passes it straight through.
var _ pgx.CopyFromSource = driver.RowSource(nil)

// beginSQL holds the BEGIN statement of every (isolation, read-only) combination, indexed by
// isolationIndex*2 + readOnly, so that Begin formats nothing.
var beginSQL = [...]string{
	"BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE",
	"BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY",
	"BEGIN ISOLATION LEVEL REPEATABLE READ READ WRITE",
	"BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
	"BEGIN ISOLATION LEVEL SERIALIZABLE READ WRITE",
	"BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY",
}

// beginStatement returns the BEGIN statement for opts; the default isolation is read committed.
func beginStatement(opts driver.TxOptions) (string, error) {
	i := 0
	switch opts.Isolation {
	case driver.IsolationDefault, driver.IsolationReadCommitted:
		i = 0
	case driver.IsolationRepeatableRead:
		i = 2
	case driver.IsolationSerializable:
		i = 4
	default:
		return "", fmt.Errorf("postgres: unknown isolation level %q", opts.Isolation)
	}
	if opts.ReadOnly {
		i++
	}
	return beginSQL[i], nil
}

// errCommitRolledBack: PostgreSQL answers COMMIT of a failed transaction with ROLLBACK, not an error.
var errCommitRolledBack = errors.New("postgres: COMMIT rolled the transaction back because an earlier statement in it failed")

// Begin opens a transaction: its BEGIN goes out with the first statement (see Conn).
func (c *Conn) Begin(ctx context.Context, opts driver.TxOptions) error {
	sql, err := beginStatement(opts)
	if err != nil {
		return err
	}
	c.begin, c.carry, c.ended = sql, false, false
	return nil
}

// sendBegin sends a pending BEGIN on its own (before COPY, which cannot share a batch).
func (c *Conn) sendBegin() error {
	if c.begin == "" {
		return nil
	}
	sql := c.begin
	c.begin = ""
	c.trips++
	if err := c.wireTurn(); err != nil {
		return err
	}
	_, err := c.wire.query(sql) // no arguments: one round trip of the simple protocol
	return err
}

// carriesBegin reports whether the next statement, of args, should carry the pending BEGIN. A
// statement without arguments does not: pgx sends it with the simple protocol (it may hold several
// statements, or DDL that is better not kept prepared), so BEGIN goes alone before it, as it used to.
func (c *Conn) carriesBegin(args []any) (bool, error) {
	if c.begin == "" {
		return false, nil
	}
	if len(args) == 0 {
		return false, c.sendBegin()
	}
	return true, nil
}

// carriesCommit reports whether the next statement, of args, carries COMMIT (CarryCommit; one
// without arguments does not, as with BEGIN: COMMIT then goes alone at Commit).
func (c *Conn) carriesCommit(args []any) bool {
	return c.carry && len(args) > 0
}

// withBegin sends sql with args in one batch with the pending BEGIN before it, if any, and COMMIT
// after it when it carries one (carriesCommit), and returns the batch's results positioned at sql's
// (BEGIN's result read). The caller reads sql's result, then endBatch. If BEGIN fails, the batch is
// closed and its error returned.
func (c *Conn) withBegin(ctx context.Context, sql string, args []any) (pgx.BatchResults, error) {
	q := c.batch.QueuedQueries[:0]
	begin := c.begin != ""
	if begin {
		c.queued[0] = pgx.QueuedQuery{SQL: c.begin}
		q = append(q, &c.queued[0])
	}
	c.queued[1] = pgx.QueuedQuery{SQL: sql, Arguments: args}
	q = append(q, &c.queued[1])
	if c.carriesCommit(args) {
		c.queued[2] = pgx.QueuedQuery{SQL: "COMMIT"}
		q = append(q, &c.queued[2])
	} else {
		c.carry = false
	}
	c.begin = ""
	c.batch.QueuedQueries = q
	c.trips++ // all in one write, answered together
	c.viaPgx()
	br := c.pc.SendBatch(ctx, &c.batch)
	if begin {
		if _, err := br.Exec(); err != nil {
			c.carry = false
			br.Close()
			return nil, err
		}
	}
	return br, nil
}

// endBatch reads a carried COMMIT's result, if the batch has one, and closes the batch; stmtErr is
// the statement's own outcome, returned first. Whether the transaction ended is the server's word
// (its transaction status after the batch): a statement that failed on the server leaves the
// transaction open and aborted, its COMMIT skipped, for Rollback; one that ran, even if the caller's
// scan of it failed (no row), was committed.
func (c *Conn) endBatch(br pgx.BatchResults, stmtErr error) error {
	if !c.carry {
		if err := br.Close(); stmtErr == nil {
			stmtErr = err
		}
		return stmtErr
	}
	c.carry = false
	tag, cerr := br.Exec()
	if err := br.Close(); cerr == nil {
		cerr = err
	}
	if reachedServer(stmtErr) && reachedServer(cerr) { // else pgconn's status may be older than wire's
		c.ended = c.txStatus() == 'I'
	}
	switch {
	case stmtErr != nil:
		return stmtErr
	case cerr != nil:
		return cerr
	case tag.String() == "ROLLBACK":
		return errCommitRolledBack
	}
	return nil
}

// reachedServer reports whether a batch's outcome err came from the server (nil, or its error):
// then the transaction status pgconn read after it is the server's word.
func reachedServer(err error) bool {
	var pgErr *pgconn.PgError
	return err == nil || errors.As(err, &pgErr)
}

// CarryCommit makes the transaction's next statement with arguments its last: COMMIT goes out in
// the same write after it (as BEGIN goes before the first), so a transaction of n statements costs
// n round trips instead of n+1 (TPC-C's Payment and Delivery: 1, New-Order: 2). The caller must not
// need to roll back after that statement succeeds on the server: a check of its result that fails
// afterwards finds the transaction committed (Rollback then sends nothing). If the statement fails
// on the server, the server skips the COMMIT and Rollback rolls back as usual. Commit after it sends
// nothing. Outside a transaction it does nothing; Query never carries it (its COMMIT goes alone).
// TPC-C's PostgreSQL transactions use it (workload/tpcc's carryCommit).
func (c *Conn) CarryCommit() { c.carry = c.begin != "" || c.txStatus() == 'T' }

func (c *Conn) Commit(ctx context.Context) error {
	c.carry = false
	if c.begin != "" { // nothing was sent: nothing to commit
		c.begin = ""
		return nil
	}
	if c.ended { // committed with its last statement (CarryCommit)
		c.ended = false
		return nil
	}
	c.trips++
	if _, err := c.enter(ctx); err != nil {
		return err
	}
	tag, err := c.wireQuery("COMMIT")
	if err = c.leave(ctx, err); err != nil {
		return err
	}
	if string(tag) == "ROLLBACK" {
		return errCommitRolledBack
	}
	return nil
}

func (c *Conn) Rollback(ctx context.Context) error {
	c.carry = false
	if c.begin != "" { // nothing was sent: nothing to roll back
		c.begin = ""
		return nil
	}
	if c.ended { // ended with its last statement (CarryCommit): nothing is open
		c.ended = false
		return nil
	}
	c.trips++
	if _, err := c.enter(ctx); err != nil {
		return err
	}
	_, err := c.wireQuery("ROLLBACK")
	return c.leave(ctx, err)
}

// wireQuery runs sql, without arguments, on wire (COMMIT, ROLLBACK).
func (c *Conn) wireQuery(sql string) ([]byte, error) {
	if err := c.wireTurn(); err != nil {
		return nil, err
	}
	return c.wire.query(sql)
}

// row adapts pgx.Row to driver.Row: pgx.ErrNoRows becomes driver.ErrNoRows. A row read from a
// batch (after a pending BEGIN) closes the batch once scanned; err is BEGIN's failure, if any.
type row struct {
	r   pgx.Row
	br  pgx.BatchResults
	err error
	// c and ctx: the statement's enter, left once scanned
	c   *Conn
	ctx context.Context
}

func (r *row) Scan(dest ...any) error {
	err := r.err
	if err == nil {
		err = r.r.Scan(dest...)
	}
	if r.br != nil {
		err = r.c.endBatch(r.br, err)
	}
	if r.c != nil {
		err = r.c.leave(r.ctx, err)
	}
	r.r, r.br, r.err, r.c, r.ctx = nil, nil, nil, nil, nil // let the finished result go
	if err != nil && errors.Is(err, pgx.ErrNoRows) {
		return driver.ErrNoRows
	}
	return err
}

func (c *Conn) QueryRow(ctx context.Context, sql string, args ...any) driver.Row {
	pctx, err := c.enter(ctx)
	if err == nil && len(args) > 0 {
		if dr := c.queryRowDirect(ctx, sql, args); dr != nil {
			return dr
		}
	}
	if len(c.rowSlab) == 0 {
		c.rowSlab = make([]row, 64)
	}
	r := &c.rowSlab[0]
	c.rowSlab = c.rowSlab[1:]
	if err != nil {
		r.err = err
		return r
	}
	r.c, r.ctx = c, ctx
	if carry, err := c.carriesBegin(args); err != nil {
		r.err = err
		return r
	} else if carry || c.carriesCommit(args) {
		r.br, r.err = c.withBegin(pctx, sql, args)
		if r.err == nil {
			r.r = r.br.QueryRow()
		}
		return r
	}
	c.trips++
	c.viaPgx()
	r.r = c.pc.QueryRow(pctx, sql, args...)
	return r
}

// Query returns pgx's own Rows, which already is a driver.Rows (and may be closed twice), or, after
// a pending BEGIN, batchRows.
func (c *Conn) Query(ctx context.Context, sql string, args ...any) (driver.Rows, error) {
	pctx, err := c.enter(ctx)
	if err != nil {
		return nil, err
	}
	if len(args) > 0 {
		if rows, ok, err := c.queryDirect(ctx, sql, args); ok {
			return rows, err
		}
	}
	if carry, err := c.carriesBegin(args); err != nil {
		return nil, c.leave(ctx, err)
	} else if carry {
		c.carry = false // rows are read by the caller: its COMMIT goes alone
		br, err := c.withBegin(pctx, sql, args)
		if err != nil {
			return nil, c.leave(ctx, err)
		}
		rows, err := br.Query()
		if err != nil {
			rows.Close()
			br.Close()
			return nil, c.leave(ctx, err)
		}
		return &batchRows{Rows: rows, br: br, c: c, ctx: ctx}, nil
	}
	c.trips++
	c.viaPgx()
	rows, err := c.pc.Query(pctx, sql, args...)
	if err != nil {
		return nil, c.leave(ctx, err)
	}
	return &batchRows{Rows: rows, c: c, ctx: ctx}, nil
}

// batchRows are a statement's rows, maybe of a batch sent after BEGIN: the batch is closed (and the
// connection free for the next statement) once the last row is read, as with pgx's own rows, or at
// Close; so is the statement's watch (leave).
type batchRows struct {
	pgx.Rows
	br  pgx.BatchResults
	err error // the batch's own error at close, when the rows had none
	c   *Conn // until left
	ctx context.Context
}

func (r *batchRows) Next() bool {
	if r.Rows.Next() {
		return true
	}
	r.Close()
	return false
}

func (r *batchRows) Close() {
	r.Rows.Close()
	if r.br != nil {
		r.err = r.br.Close()
		r.br = nil
	}
	if r.c != nil {
		r.c.leave(r.ctx, nil)
		r.c = nil
	}
}

func (r *batchRows) Err() error {
	err := r.Rows.Err()
	if err == nil {
		err = r.err
	}
	if err != nil && r.ctx != nil {
		if cerr := r.ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			return fmt.Errorf("%w: %w", cerr, err)
		}
	}
	return err
}

func (c *Conn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	pctx, err := c.enter(ctx)
	if err != nil {
		return 0, err
	}
	n, err := c.exec(pctx, sql, args)
	return n, c.leave(ctx, err)
}

func (c *Conn) exec(ctx context.Context, sql string, args []any) (int64, error) {
	if len(args) > 0 {
		if n, ok, err := c.execDirect(sql, args); ok {
			return n, err
		}
	}
	if carry, err := c.carriesBegin(args); err != nil {
		return 0, err
	} else if carry || c.carriesCommit(args) {
		br, err := c.withBegin(ctx, sql, args)
		if err != nil {
			return 0, err
		}
		tag, err := br.Exec()
		if err = c.endBatch(br, err); err != nil {
			return 0, err
		}
		return tag.RowsAffected(), nil
	}
	c.trips++
	c.viaPgx()
	tag, err := c.pc.Exec(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (c *Conn) Close() error {
	c.closeWatch()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := c.pc.Close(ctx)
	if c.wire.broken != nil { // wire.go closed the socket already: pgconn's goodbye cannot be sent
		return nil
	}
	return err
}
