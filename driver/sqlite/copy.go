package sqlite

import (
	"context"
	sqldriver "database/sql/driver"
	"fmt"
	"strings"

	"github.com/candor-bench/candor/driver"
)

const (
	// maxVariables is SQLite's limit of bound parameters per statement (SQLITE_MAX_VARIABLE_NUMBER
	// since 3.32).
	maxVariables = 32766
	// maxRowsPerInsert caps the rows of one INSERT: beyond a few hundred, bigger statements load no
	// faster.
	maxRowsPerInsert = 500
	// rowsPerTx is the size of the transactions CopyFrom opens itself when the connection has none.
	rowsPerTx = 50000
	// insertBytes bounds the values of one INSERT (held in memory until it runs): past it the
	// statement runs with the rows it has, at least one, however large.
	insertBytes = 4 << 20
)

// CopyFrom loads rows with prepared multi-row INSERT statements (INSERT INTO t (a, b) VALUES
// (?, ?), (?, ?), ...). If the connection has a transaction open, the rows go into it; otherwise
// CopyFrom commits every rowsPerTx rows in transactions of its own (BEGIN IMMEDIATE ... COMMIT)
// and rolls back the unfinished one on error.
//
// SQLite has no separate text and binary parameters: a []byte value would be stored as a BLOB,
// which never equals a TEXT value. candor has no binary columns, so []byte values are stored as
// TEXT (and copied, since a RowSource may reuse its buffers).
func (c *Conn) CopyFrom(ctx context.Context, table string, columns []string, src driver.RowSource) (n int64, err error) {
	ncol := len(columns)
	if ncol == 0 || ncol > maxVariables {
		return 0, fmt.Errorf("sqlite: CopyFrom into %s with %d columns", table, ncol)
	}
	perInsert := min(maxRowsPerInsert, maxVariables/ncol)
	full, err := c.stmt(ctx, insertSQL(table, columns, perInsert))
	if err != nil {
		return 0, err
	}

	inTx, err := c.inTransaction()
	if err != nil {
		return 0, err
	}
	own := !inTx     // CopyFrom manages its own transactions
	ownOpen := false // one of them is open
	sinceCommit := 0 // rows inserted in the open one
	defer func() {
		if err != nil && ownOpen {
			c.sc.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()

	args := make([]any, 0, perInsert*ncol)
	rowsIn := 0  // rows in args
	bytesIn := 0 // bytes of their values
	insert := func() error {
		if own && !ownOpen {
			if _, err := c.Exec(ctx, "BEGIN IMMEDIATE"); err != nil {
				return err
			}
			ownOpen = true
		}
		if rowsIn == perInsert {
			if _, err := full.ExecContext(ctx, args...); err != nil {
				return err
			}
		} else { // the last, shorter statement: used once, so not cached
			s, err := c.sc.PrepareContext(ctx, insertSQL(table, columns, rowsIn))
			if err != nil {
				return err
			}
			_, err = s.ExecContext(ctx, args...)
			s.Close()
			if err != nil {
				return err
			}
		}
		n += int64(rowsIn)
		sinceCommit += rowsIn
		clear(args) // no value kept past its statement
		args, rowsIn, bytesIn = args[:0], 0, 0
		if ownOpen && sinceCommit >= rowsPerTx {
			if _, err := c.Exec(ctx, "COMMIT"); err != nil {
				return err
			}
			ownOpen, sinceCommit = false, 0
		}
		return nil
	}

	for src.Next() {
		vals, err := src.Values()
		if err != nil {
			return n, err
		}
		if len(vals) != ncol {
			return n, fmt.Errorf("sqlite: CopyFrom into %s: a row has %d values for %d columns", table, len(vals), ncol)
		}
		for _, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			bytesIn += valueBytes(v)
			args = append(args, v)
		}
		if rowsIn++; rowsIn == perInsert || bytesIn >= insertBytes {
			if err := insert(); err != nil {
				return n, err
			}
		}
	}
	if err := src.Err(); err != nil {
		return n, err
	}
	if rowsIn > 0 {
		if err := insert(); err != nil {
			return n, err
		}
	}
	if ownOpen {
		if _, err := c.Exec(ctx, "COMMIT"); err != nil {
			return n, err
		}
		ownOpen = false
	}
	return n, nil
}

// valueBytes is about the memory a bound value holds: a string's or bytes' length, 8 otherwise.
func valueBytes(v any) int {
	if vr, ok := v.(sqldriver.Valuer); ok {
		if x, err := vr.Value(); err == nil {
			v = x
		}
	}
	switch x := v.(type) {
	case string:
		return len(x)
	case []byte:
		return len(x)
	}
	return 8
}

// insertSQL is INSERT INTO "table" ("a", "b") VALUES (?, ?), ... with rows rows.
func insertSQL(table string, columns []string, rows int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	for i, part := range strings.Split(table, ".") {
		if i > 0 {
			b.WriteByte('.')
		}
		quoteIdent(&b, part)
	}
	b.WriteString(" (")
	for i, col := range columns {
		if i > 0 {
			b.WriteString(", ")
		}
		quoteIdent(&b, col)
	}
	b.WriteString(") VALUES ")
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for i := range columns {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('?')
		}
		b.WriteByte(')')
	}
	return b.String()
}

func quoteIdent(b *strings.Builder, name string) {
	b.WriteByte('"')
	b.WriteString(strings.ReplaceAll(name, `"`, `""`))
	b.WriteByte('"')
}
