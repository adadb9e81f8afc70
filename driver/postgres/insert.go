package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/candor-bench/candor/driver"
)

// CopyFrom has two bulk paths (BulkPath tells which a database took):
//
//   - COPY ... FROM STDIN in binary format (pgx's CopyFrom), the default.
//   - Multi-row INSERT statements with the values as parameters ($1, $2, ...), as many rows each as
//     fit in maxInsertParams parameters and about maxInsertBytes bytes: for servers whose COPY does
//     not work (Doltgres 1.2.0's binary COPY fails at its end: "received unexpected EOF in COPY
//     data, missing file trailer"), chosen by bulk=insert in the URL, or by bulk=auto (the default)
//     when COPY fails on a database's first chunk with an error that is not the rows' own (see
//     copyRefused). bulk=copy never falls back.
//
// Under bulk=auto, until a COPY has succeeded on the database, each CopyFrom keeps a copy of the
// rows it sends (one chunk per loader held twice in memory, for the first chunks only) and, inside
// a transaction, sets a savepoint before its COPY, so that a refused COPY's rows can be sent again
// as INSERTs; the first success ends it for good, and the first refusal turns the database to
// INSERT for good.

// BulkInsert is the INSERT path, as BulkPath reports it.
const BulkInsert = "multi-row INSERT"

// bulkChoice is what the URL's bulk= parameter asks for.
type bulkChoice uint8

const (
	bulkAuto   bulkChoice = iota // COPY, and INSERT if the first chunk's COPY is refused
	bulkCopy                     // COPY only
	bulkInsert                   // multi-row INSERT always
)

// parseBulk reads the URL's bulk= value.
func parseBulk(v string) (bulkChoice, bool) {
	switch strings.ToLower(v) {
	case "", "auto":
		return bulkAuto, true
	case "copy":
		return bulkCopy, true
	case "insert":
		return bulkInsert, true
	}
	return 0, false
}

// Copy's state on a database: not yet known (auto, no COPY finished yet), known to work, or refused
// (INSERT from now on).
const (
	copyUnknown int32 = iota
	copyWorks
	copyRefusedState
)

// bulkState is a database's bulk path, shared by its connections.
type bulkState struct {
	choice bulkChoice
	copy   atomic.Int32 // copyUnknown, copyWorks or copyRefusedState
	mu     sync.Mutex
	note   string // why the database loads with INSERT after a refused COPY, once
}

func newBulkState(choice bulkChoice) *bulkState {
	b := &bulkState{choice: choice}
	switch choice {
	case bulkCopy:
		b.copy.Store(copyWorks)
	case bulkInsert:
		b.copy.Store(copyRefusedState)
	}
	return b
}

// maxInsertParams is the most parameters one statement may have on PostgreSQL's protocol (Bind's
// count is 16 bits).
const maxInsertParams = 65535

// maxInsertBytes bounds one INSERT statement's values, as driver/mysql's maxInsertBytes bounds its
// statements: beyond a few MB a statement loads no faster and only holds more memory on both sides.
// A row larger than this goes alone.
const maxInsertBytes = 4 << 20

// copyRefused reports whether err, a COPY's failure, is the server's refusal of COPY itself rather
// than the rows' fault or a lost connection: an error of SQLSTATE class 0A (feature not supported),
// 42 (the statement: "cannot copy to view", a syntax the server lacks), XX (internal: Doltgres's
// "received unexpected EOF in COPY data, missing file trailer" is XX000) or 08P01 (protocol
// violation). Data exceptions (22), constraint violations (23), serialization failures and the
// like are the rows' or the moment's, and INSERT would fail the same way.
func copyRefused(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || len(pe.Code) != 5 {
		return false
	}
	switch pe.Code[:2] {
	case "0A", "42", "XX":
		return true
	}
	return pe.Code == "08P01"
}

// BulkPath says how CopyFrom loads rows when it is not COPY, PostgreSQL's own path: BulkInsert, or
// "" for COPY. Under bulk=auto it changes from the second to the first when a first chunk's COPY
// is refused.
func (db *DB) BulkPath() string {
	if db.bulk.copy.Load() == copyRefusedState {
		return BulkInsert
	}
	return ""
}

// BulkNote says why the database loaded with INSERT though COPY was asked for or left to candor
// ("COPY failed on the first chunk (...): loading with multi-row INSERT"), or "".
func (db *DB) BulkNote() string {
	db.bulk.mu.Lock()
	defer db.bulk.mu.Unlock()
	return db.bulk.note
}

// CopyFrom loads rows with COPY ... FROM STDIN in binary format or with multi-row INSERTs (see the
// bulk paths above), inside the current transaction if one is open. table may be schema-qualified
// ("s.t").
func (c *Conn) CopyFrom(ctx context.Context, table string, columns []string, src driver.RowSource) (n int64, err error) {
	if c.wire.busy {
		return 0, errConnBusy
	}
	if len(columns) == 0 {
		return 0, fmt.Errorf("postgres: CopyFrom into %s with no columns", table)
	}
	b := c.bulk
	if b == nil {
		b = newBulkState(bulkCopy)
	}
	if b.copy.Load() != copyWorks && c.begin == "" && c.txStatus() == 'I' {
		// Without the caller's transaction, one of its own, so that a failed load leaves no rows as
		// a failed COPY does on PostgreSQL: the INSERTs are several statements, and a refused
		// COPY may have stored some rows (Doltgres 1.2.0's does).
		if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
			return 0, err
		}
		defer func() {
			if err != nil {
				c.Rollback(context.WithoutCancel(ctx))
				return
			}
			if err = c.Commit(ctx); err != nil {
				n = 0
			}
		}()
	}
	switch b.copy.Load() {
	case copyRefusedState:
		return c.insertRows(ctx, table, columns, src)
	case copyWorks:
		return c.copyFrom(ctx, table, columns, src)
	}
	// Not known yet: COPY, keeping the rows sent and a savepoint to go back to.
	if err := c.sendPendingBegin(ctx); err != nil {
		return 0, err
	}
	inTx := c.txStatus() == 'T'
	if inTx {
		if _, err := c.Exec(ctx, "SAVEPOINT candor_copy"); err != nil {
			return 0, err
		}
	}
	kept := &keptRows{src: src}
	n, err = c.copyFrom(ctx, table, columns, kept)
	if err == nil {
		b.copy.CompareAndSwap(copyUnknown, copyWorks)
		if inTx {
			if _, err := c.Exec(ctx, "RELEASE SAVEPOINT candor_copy"); err != nil {
				return 0, err
			}
		}
		return n, nil
	}
	if !copyRefused(err) || kept.err != nil || ctx.Err() != nil {
		return n, err
	}
	if inTx {
		if _, rerr := c.Exec(ctx, "ROLLBACK TO SAVEPOINT candor_copy"); rerr != nil {
			return 0, fmt.Errorf("%w (and going back to the savepoint before it to load with INSERT failed: %v)", err, rerr)
		}
	}
	if b.copy.CompareAndSwap(copyUnknown, copyRefusedState) {
		b.mu.Lock()
		b.note = "COPY failed on the first chunk (" + oneLine(err.Error()) + "): loading with multi-row INSERT"
		b.mu.Unlock()
	} else if b.copy.Load() == copyWorks {
		return n, err // another connection's COPY succeeded: this failure is not COPY's refusal
	}
	return c.insertRows(ctx, table, columns, kept.replay())
}

// sendPendingBegin sends a pending BEGIN on its own (COPY cannot share its batch).
func (c *Conn) sendPendingBegin(ctx context.Context) error {
	if c.begin == "" {
		return nil
	}
	_, err := c.enter(ctx)
	if err == nil {
		err = c.leave(ctx, c.sendBegin())
	}
	return err
}

// copyFrom is COPY ... FROM STDIN in binary format through pgx.
func (c *Conn) copyFrom(ctx context.Context, table string, columns []string, src driver.RowSource) (int64, error) {
	if err := c.sendPendingBegin(ctx); err != nil {
		return 0, err
	}
	c.trips++ // the stream of rows, answered once at its end
	c.viaPgx()
	return c.pc.CopyFrom(ctx, pgx.Identifier(strings.Split(table, ".")), columns, src)
}

// oneLine is a message on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// keptRows passes src's rows through and keeps a copy of each (byte slices copied too: a source may
// reuse them), to be sent again by replay.
type keptRows struct {
	src  driver.RowSource
	rows [][]any
	err  error // src's own error, or its Values'
}

func (k *keptRows) Next() bool { return k.src.Next() }

func (k *keptRows) Values() ([]any, error) {
	vals, err := k.src.Values()
	if err != nil {
		k.err = err
		return nil, err
	}
	row := make([]any, len(vals))
	for i, v := range vals {
		if b, ok := v.([]byte); ok && b != nil {
			v = append([]byte(nil), b...)
		}
		row[i] = v
	}
	k.rows = append(k.rows, row)
	return vals, nil
}

func (k *keptRows) Err() error {
	if err := k.src.Err(); err != nil {
		k.err = err
		return err
	}
	return nil
}

// replay is a source of the rows kept, then of the rest of src (COPY may have stopped reading it
// before its end).
func (k *keptRows) replay() driver.RowSource { return &replayRows{kept: k.rows, src: k.src, i: -1} }

type replayRows struct {
	kept [][]any
	src  driver.RowSource
	i    int
}

func (r *replayRows) Next() bool {
	if r.i+1 < len(r.kept) {
		r.i++
		return true
	}
	r.i = len(r.kept)
	return r.src.Next()
}

func (r *replayRows) Values() ([]any, error) {
	if r.i < len(r.kept) {
		return r.kept[r.i], nil
	}
	return r.src.Values()
}

func (r *replayRows) Err() error { return r.src.Err() }

// insertRows loads src with multi-row INSERT statements, each of at most maxInsertParams parameters
// and, past its first row, about maxInsertBytes bytes of values. Each statement must insert every
// row it carries.
func (c *Conn) insertRows(ctx context.Context, table string, columns []string, src driver.RowSource) (int64, error) {
	ncol := len(columns)
	if ncol > maxInsertParams {
		return 0, fmt.Errorf("postgres: CopyFrom into %s: %d columns are more than one statement's %d parameters", table, ncol, maxInsertParams)
	}
	var head strings.Builder
	head.WriteString("INSERT INTO ")
	head.WriteString(pgx.Identifier(strings.Split(table, ".")).Sanitize())
	head.WriteString(" (")
	for i, col := range columns {
		if i > 0 {
			head.WriteString(", ")
		}
		head.WriteString(pgx.Identifier{col}.Sanitize())
	}
	head.WriteString(") VALUES ")
	prefix := head.String()
	maxRows := maxInsertParams / ncol
	texts := map[int]string{} // statement text by its rows
	var (
		n     int64
		args  = make([]any, 0, min(maxRows, 1024)*ncol)
		bytes int
	)
	flush := func() error {
		rows := len(args) / ncol
		sql, ok := texts[rows]
		if !ok {
			sql = insertSQL(prefix, ncol, rows)
			if len(texts) < 64 {
				texts[rows] = sql
			}
		}
		got, err := c.Exec(ctx, sql, args...)
		if err != nil {
			return fmt.Errorf("inserting %d rows into %s: %w", rows, table, err)
		}
		if got != int64(rows) {
			return fmt.Errorf("postgres: inserting %d rows into %s: the server inserted %d", rows, table, got)
		}
		n += got
		clear(args)
		args, bytes = args[:0], 0
		return nil
	}
	for src.Next() {
		vals, err := src.Values()
		if err != nil {
			return n, err
		}
		if len(vals) != ncol {
			return n, fmt.Errorf("postgres: CopyFrom into %s: a row has %d values for %d columns", table, len(vals), ncol)
		}
		size := 0
		for _, v := range vals {
			size += valueBytes(v)
		}
		if len(args) > 0 && (len(args)/ncol == maxRows || bytes+size > maxInsertBytes) {
			if err := flush(); err != nil {
				return n, err
			}
		}
		for _, v := range vals {
			if b, ok := v.([]byte); ok && b != nil { // the source may reuse it for its next row
				v = append([]byte(nil), b...)
			}
			args = append(args, v)
		}
		bytes += size
	}
	if err := src.Err(); err != nil {
		return n, err
	}
	if len(args) > 0 {
		if err := flush(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// insertSQL is prefix followed by rows tuples of ncol parameters: ($1, $2), ($3, $4).
func insertSQL(prefix string, ncol, rows int) string {
	var b strings.Builder
	b.Grow(len(prefix) + rows*ncol*8)
	b.WriteString(prefix)
	p := 1
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for i := range ncol {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(p))
			p++
		}
		b.WriteByte(')')
	}
	return b.String()
}

// valueBytes is about how many bytes v takes as a parameter: its length for text and bytes, 16 for
// the rest (numbers, dates, an exact decimal).
func valueBytes(v any) int {
	switch x := v.(type) {
	case string:
		return len(x) + 4
	case []byte:
		return len(x) + 4
	}
	return 16
}
