package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

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
	// batch and queued are reused by every BEGIN-carrying statement (no allocation per transaction).
	batch  pgx.Batch
	queued [2]pgx.QueuedQuery
	// trips counts round trips (driver.RoundTripCounter); only the owning goroutine touches it.
	trips int64
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
	c.begin = sql
	return nil
}

// sendBegin sends a pending BEGIN on its own (before COPY, which cannot share a batch).
func (c *Conn) sendBegin(ctx context.Context) error {
	if c.begin == "" {
		return nil
	}
	sql := c.begin
	c.begin = ""
	c.trips++
	_, err := c.pc.Exec(ctx, sql) // no arguments: one round trip of the simple protocol
	return err
}

// carriesBegin reports whether the next statement, of args, should carry the pending BEGIN. A
// statement without arguments does not: pgx sends it with the simple protocol (it may hold several
// statements, or DDL that is better not kept prepared), so BEGIN goes alone before it, as it used to.
func (c *Conn) carriesBegin(ctx context.Context, args []any) (bool, error) {
	if c.begin == "" {
		return false, nil
	}
	if len(args) == 0 {
		return false, c.sendBegin(ctx)
	}
	return true, nil
}

// withBegin sends the pending BEGIN and sql with args in one batch and returns the batch's results
// positioned at sql's (BEGIN's result read). The caller reads sql's result and closes the batch. If
// BEGIN fails, the batch is closed and its error returned.
func (c *Conn) withBegin(ctx context.Context, sql string, args []any) (pgx.BatchResults, error) {
	c.queued[0] = pgx.QueuedQuery{SQL: c.begin}
	c.queued[1] = pgx.QueuedQuery{SQL: sql, Arguments: args}
	c.begin = ""
	c.batch.QueuedQueries = append(c.batch.QueuedQueries[:0], &c.queued[0], &c.queued[1])
	c.trips++ // both in one write, answered together
	br := c.pc.SendBatch(ctx, &c.batch)
	if _, err := br.Exec(); err != nil {
		br.Close()
		return nil, err
	}
	return br, nil
}

func (c *Conn) Commit(ctx context.Context) error {
	if c.begin != "" { // nothing was sent: nothing to commit
		c.begin = ""
		return nil
	}
	c.trips++
	tag, err := c.pc.Exec(ctx, "COMMIT")
	if err != nil {
		return err
	}
	if tag.String() == "ROLLBACK" {
		return errCommitRolledBack
	}
	return nil
}

func (c *Conn) Rollback(ctx context.Context) error {
	if c.begin != "" { // nothing was sent: nothing to roll back
		c.begin = ""
		return nil
	}
	c.trips++
	_, err := c.pc.Exec(ctx, "ROLLBACK")
	return err
}

// row adapts pgx.Row to driver.Row: pgx.ErrNoRows becomes driver.ErrNoRows. A row read from a
// batch (after a pending BEGIN) closes the batch once scanned; err is BEGIN's failure, if any.
type row struct {
	r   pgx.Row
	br  pgx.BatchResults
	err error
}

func (r *row) Scan(dest ...any) error {
	err := r.err
	if err == nil {
		err = r.r.Scan(dest...)
	}
	if r.br != nil {
		if cerr := r.br.Close(); err == nil {
			err = cerr
		}
	}
	r.r, r.br, r.err = nil, nil, nil // let the finished result go
	if err != nil && errors.Is(err, pgx.ErrNoRows) {
		return driver.ErrNoRows
	}
	return err
}

func (c *Conn) QueryRow(ctx context.Context, sql string, args ...any) driver.Row {
	if len(c.rowSlab) == 0 {
		c.rowSlab = make([]row, 64)
	}
	r := &c.rowSlab[0]
	c.rowSlab = c.rowSlab[1:]
	if carry, err := c.carriesBegin(ctx, args); err != nil {
		r.err = err
		return r
	} else if carry {
		r.br, r.err = c.withBegin(ctx, sql, args)
		if r.err == nil {
			r.r = r.br.QueryRow()
		}
		return r
	}
	c.trips++
	r.r = c.pc.QueryRow(ctx, sql, args...)
	return r
}

// Query returns pgx's own Rows, which already is a driver.Rows (and may be closed twice), or, after
// a pending BEGIN, batchRows.
func (c *Conn) Query(ctx context.Context, sql string, args ...any) (driver.Rows, error) {
	if carry, err := c.carriesBegin(ctx, args); err != nil {
		return nil, err
	} else if carry {
		br, err := c.withBegin(ctx, sql, args)
		if err != nil {
			return nil, err
		}
		rows, err := br.Query()
		if err != nil {
			rows.Close()
			br.Close()
			return nil, err
		}
		return &batchRows{Rows: rows, br: br}, nil
	}
	c.trips++
	rows, err := c.pc.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// batchRows are the rows of a statement sent in a batch after BEGIN: the batch is closed (and the
// connection free for the next statement) once the last row is read, as with pgx's own rows, or at
// Close.
type batchRows struct {
	pgx.Rows
	br  pgx.BatchResults
	err error // the batch's own error at close, when the rows had none
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
}

func (r *batchRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.err
}

func (c *Conn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	if carry, err := c.carriesBegin(ctx, args); err != nil {
		return 0, err
	} else if carry {
		br, err := c.withBegin(ctx, sql, args)
		if err != nil {
			return 0, err
		}
		tag, err := br.Exec()
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return 0, err
		}
		return tag.RowsAffected(), nil
	}
	c.trips++
	tag, err := c.pc.Exec(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

// CopyFrom loads rows with COPY ... FROM STDIN in binary format, inside the current transaction if
// one is open. table may be schema-qualified ("s.t").
func (c *Conn) CopyFrom(ctx context.Context, table string, columns []string, src driver.RowSource) (int64, error) {
	if err := c.sendBegin(ctx); err != nil {
		return 0, err
	}
	c.trips++ // the stream of rows, answered once at its end
	return c.pc.CopyFrom(ctx, pgx.Identifier(strings.Split(table, ".")), columns, src)
}

func (c *Conn) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.pc.Close(ctx)
}
