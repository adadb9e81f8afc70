package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/candor-bench/candor/driver"
)

// Conn is one SQLite connection, owned by one goroutine, with its statements prepared once per SQL
// text.
type Conn struct {
	sc    *sql.Conn
	stmts map[string]*sql.Stmt
	// Row and Rows wrappers are handed out 64 at a time: one allocation per 64 calls, and every value
	// the caller holds stays its own.
	rowSlab  []row
	rowsSlab []rows
	// rawInTx asks the driver connection whether a transaction is open and stores the answer in inTx;
	// built once so that asking allocates nothing.
	rawInTx func(dc any) error
	inTx    bool
}

var _ driver.Conn = (*Conn)(nil)

// stmt returns the statement prepared for query on this connection, preparing it on first use.
func (c *Conn) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if s, ok := c.stmts[query]; ok {
		return s, nil
	}
	s, err := c.sc.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.stmts[query] = s
	return s, nil
}

// inTransaction reports whether SQLite has a transaction open on this connection (it may have
// rolled one back by itself after an error).
func (c *Conn) inTransaction() (bool, error) {
	if err := c.sc.Raw(c.rawInTx); err != nil {
		return false, err
	}
	return c.inTx, nil
}

// Begin: a read-write transaction takes the write lock up front (BEGIN IMMEDIATE), so that it waits
// for the lock at its start (up to busy_timeout) instead of failing halfway. A read-only one is
// deferred: in WAL mode readers never wait. Every isolation level is served as serializable, which
// is what SQLite provides.
func (c *Conn) Begin(ctx context.Context, opts driver.TxOptions) error {
	switch opts.Isolation {
	case driver.IsolationDefault, driver.IsolationReadCommitted, driver.IsolationRepeatableRead, driver.IsolationSerializable:
	default:
		return fmt.Errorf("sqlite: unknown isolation level %q", opts.Isolation)
	}
	if opts.ReadOnly {
		_, err := c.Exec(ctx, "BEGIN")
		return err
	}
	_, err := c.Exec(ctx, "BEGIN IMMEDIATE")
	return err
}

// Commit commits. If COMMIT fails and leaves the transaction open (SQLITE_BUSY), it is rolled back,
// so that a retry starts from a clean connection.
func (c *Conn) Commit(ctx context.Context) error {
	_, err := c.Exec(ctx, "COMMIT")
	if err != nil {
		if in, _ := c.inTransaction(); in {
			c.sc.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}
	return err
}

// Rollback rolls back the open transaction; it is not an error if SQLite already rolled it back
// after a failed statement.
func (c *Conn) Rollback(ctx context.Context) error {
	in, err := c.inTransaction()
	if err != nil || !in {
		return err
	}
	_, err = c.Exec(ctx, "ROLLBACK")
	return err
}

// row adapts *sql.Row: sql.ErrNoRows becomes driver.ErrNoRows.
type row struct {
	r   *sql.Row
	err error
}

func (r *row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	err := r.r.Scan(dest...)
	r.r = nil
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
	s, err := c.stmt(ctx, query)
	if err != nil {
		r.err = err
		return r
	}
	r.r = s.QueryRowContext(ctx, args...)
	return r
}

// rows adapts *sql.Rows to driver.Rows (whose Close returns nothing).
type rows struct{ r *sql.Rows }

func (r *rows) Next() bool             { return r.r.Next() }
func (r *rows) Scan(dest ...any) error { return r.r.Scan(dest...) }
func (r *rows) Err() error             { return r.r.Err() }
func (r *rows) Close()                 { r.r.Close() }

// Columns is the result's column names (workload/script's \gset reads them).
func (r *rows) Columns() []string { c, _ := r.r.Columns(); return c }

func (c *Conn) Query(ctx context.Context, query string, args ...any) (driver.Rows, error) {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	rs, err := s.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	if len(c.rowsSlab) == 0 {
		c.rowsSlab = make([]rows, 64)
	}
	r := &c.rowsSlab[0]
	c.rowsSlab = c.rowsSlab[1:]
	r.r = rs
	return r, nil
}

func (c *Conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return 0, err
	}
	res, err := s.ExecContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Close rolls back a transaction left open, so that the connection goes back to database/sql's
// pool clean, then closes the statements and the connection.
func (c *Conn) Close() error {
	var errs []error
	if in, err := c.inTransaction(); err == nil && in {
		if _, err := c.sc.ExecContext(context.Background(), "ROLLBACK"); err != nil {
			errs = append(errs, err)
		}
	}
	for q, s := range c.stmts {
		if err := s.Close(); err != nil {
			errs = append(errs, err)
		}
		delete(c.stmts, q)
	}
	if err := c.sc.Close(); err != nil && !errors.Is(err, sql.ErrConnDone) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
