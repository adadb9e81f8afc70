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
type Conn struct {
	pc *pgx.Conn
	// rowSlab hands out Row wrappers 64 at a time, so QueryRow costs no allocation of its own most of
	// the time while every Row stays a distinct value (a Row kept by the caller is never reused).
	rowSlab []row
}

var _ driver.Conn = (*Conn)(nil)

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

func (c *Conn) Begin(ctx context.Context, opts driver.TxOptions) error {
	sql, err := beginStatement(opts)
	if err != nil {
		return err
	}
	_, err = c.pc.Exec(ctx, sql) // no arguments: one round trip of the simple protocol
	return err
}

func (c *Conn) Commit(ctx context.Context) error {
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
	_, err := c.pc.Exec(ctx, "ROLLBACK")
	return err
}

// row adapts pgx.Row to driver.Row: pgx.ErrNoRows becomes driver.ErrNoRows.
type row struct{ r pgx.Row }

func (r *row) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	r.r = nil // let the finished result go
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
	r.r = c.pc.QueryRow(ctx, sql, args...)
	return r
}

// Query returns pgx's own Rows, which already is a driver.Rows (and may be closed twice).
func (c *Conn) Query(ctx context.Context, sql string, args ...any) (driver.Rows, error) {
	rows, err := c.pc.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

func (c *Conn) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	tag, err := c.pc.Exec(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

// CopyFrom loads rows with COPY ... FROM STDIN in binary format, inside the current transaction if
// one is open. table may be schema-qualified ("s.t").
func (c *Conn) CopyFrom(ctx context.Context, table string, columns []string, src driver.RowSource) (int64, error) {
	return c.pc.CopyFrom(ctx, pgx.Identifier(strings.Split(table, ".")), columns, src)
}

func (c *Conn) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.pc.Close(ctx)
}
