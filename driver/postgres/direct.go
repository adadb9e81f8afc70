package postgres

import (
	"context"
	"errors"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/candor-bench/candor/driver"
)

// The direct path: statements with arguments go straight to the socket (wire.go) without pgx in
// between. Each SQL text is prepared once per connection (Parse + Describe, as pgx's statement
// cache does), its arguments are encoded by encode.go straight into one reused buffer (pgx's type
// map only for the types it does not know), and its rows are decoded by decode.go straight from the
// bytes the server sent. What the server sees is what pgx sent: the same prepared statement executed
// with Bind and Execute, the same parameter and result formats (pgx's choice for every type),
// BEGIN and COMMIT as prepared statements in the same write with one Sync. A statement without
// arguments still goes through pgx (the simple protocol: DDL, several statements in one text).
//
// Measured against pgx's path (BenchmarkPointSelectCPU, scripts/bench section 3): pgx's generic
// encode and scan plans, its ExtendedQueryBuilder and its batch and rows wrappers cost about a
// quarter of the driver's CPU per TPC-C transaction, and pgconn's reading (wire.go) a further
// part.

// pstmt is a statement prepared on the connection for the direct path.
type pstmt struct {
	sd     *pgconn.StatementDescription
	rfmts  []int16                   // result formats: pgx's choice for each column's type
	fields []pgconn.FieldDescription // the columns as its rows describe them (formats included)
}

// directStmt returns sql's prepared statement, preparing it on first use; nil (and no error) when
// the connection holds stmtCap of them already (0: the direct path is off, pooler.go) and sql is not a BEGIN or COMMIT (sql
// then takes pgx's path, whose cache evicts; the seven BEGIN and COMMIT texts are always taken, so
// a statement already prepared can carry them).
func (c *Conn) directStmt(sql string, control bool) (*pstmt, error) {
	if st := c.stmts[sql]; st != nil {
		return st, nil
	}
	if len(c.stmts) >= c.stmtCap && !control {
		return nil, nil
	}
	if c.stmts == nil {
		c.stmts = make(map[string]*pstmt)
	}
	c.stmtSeq++
	name := "candor_" + strconv.Itoa(c.stmtSeq)
	if err := c.wireTurn(); err != nil {
		return nil, err
	}
	sd, err := c.wire.prepare(name, sql)
	if err != nil {
		return nil, err
	}
	st := &pstmt{sd: sd, rfmts: make([]int16, len(sd.Fields)), fields: make([]pgconn.FieldDescription, len(sd.Fields))}
	m := c.pc.TypeMap()
	copy(st.fields, sd.Fields)
	for i := range sd.Fields {
		st.rfmts[i] = m.FormatCodeForOID(sd.Fields[i].DataTypeOID)
		st.fields[i].Format = st.rfmts[i]
	}
	c.stmts[sql] = st
	return st, nil
}

// forget drops sql's statement when err says the server no longer holds it as prepared (a schema
// change: "cached plan must not change result type"), so that its next use prepares it again, as
// pgx's cache does.
func (c *Conn) forget(sql string, err error) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "0A000" || pgErr.Code == "26000") {
		delete(c.stmts, sql)
	}
}

// direct is one statement sent on the direct path (wire.go), maybe with BEGIN before it and COMMIT
// after it, all in one write with one Sync. next reads its rows; finish reads what follows them
// (the rest of its rows, a carried COMMIT, the ReadyForQuery) and frees the connection.
type direct struct {
	c        *Conn
	sql      string
	st       *pstmt
	commit   bool  // a COMMIT follows the statement
	err      error // the statement's failure (or BEGIN's)
	rowsDone bool  // the statement's result was read to its end
	done     bool  // the exchange was read to its end
	affected int64 // the rows the statement's tag counts
}

// send sends sql with args on the direct path: alone, or after the pending BEGIN and before a
// carried COMMIT (carriesCommit), in one write. ok is false when sql must take pgx's path instead
// (the connection's statement cache is full). On success d.next reads sql's rows.
func (c *Conn) send(d *direct, sql string, args []any, allowCommit bool) (ok bool) {
	*d = direct{c: c, sql: sql}
	st, err := c.directStmt(sql, false)
	if err != nil {
		d.err, d.rowsDone, d.done = err, true, true
		return true
	}
	if st == nil {
		return false
	}
	d.st = st
	if err := c.params.encode(c.pc.TypeMap(), st.sd.ParamOIDs, args); err != nil {
		d.err, d.rowsDone, d.done = err, true, true
		return true
	}
	begin := c.begin
	commit := allowCommit && c.carriesCommit(args)
	if !commit {
		c.carry = false
	}
	var beginSt, commitSt *pstmt
	if begin != "" {
		beginSt, err = c.directStmt(begin, true)
	}
	if err == nil && commit {
		commitSt, err = c.directStmt("COMMIT", true)
	}
	if err != nil {
		c.carry = false
		d.err, d.rowsDone, d.done = err, true, true
		return true
	}
	if err := c.wireTurn(); err != nil {
		c.carry = false
		d.err, d.rowsDone, d.done = err, true, true
		return true
	}
	c.begin = ""
	c.trips++ // all in one write, answered together
	w := &c.wire
	if beginSt != nil {
		w.execute(beginSt, nil, nil)
	}
	w.execute(st, c.params.fmts, c.params.vals)
	if commitSt != nil {
		w.execute(commitSt, nil, nil)
	}
	d.commit = commitSt != nil
	w.syncMessage()
	if err := w.flush(); err != nil {
		c.carry = false
		d.err, d.rowsDone, d.done = err, true, true
		return true
	}
	w.busy = true
	if beginSt != nil {
		if _, err := w.nextRow(); err != nil { // BEGIN's result: no rows, its tag or its failure
			c.carry = false
			d.commit = false
			d.err, d.rowsDone = err, true
			d.finish()
		}
	}
	return true
}

// finish reads the rest of d's exchange (the statement's remaining rows, a carried COMMIT, the
// ReadyForQuery) and returns the rows the statement's tag counts and its outcome: the statement's
// failure first, then COMMIT's. Whether a carried COMMIT ended the transaction is the server's word,
// as in endBatch.
func (d *direct) finish() (int64, error) {
	if d.done {
		return d.affected, d.err
	}
	d.done = true
	c := d.c
	w := &c.wire
	defer func() { w.busy = false }()
	for !d.rowsDone {
		d.next()
	}
	if d.commit {
		c.carry = false
		var cerr error
		rolledBack := false
		if d.err == nil {
			var row bool
			if row, cerr = w.nextRow(); row {
				cerr = w.protocol("COMMIT returned a row")
			} else if cerr == nil {
				rolledBack = string(w.tag) == "ROLLBACK"
			}
		}
		if err := w.sync(); cerr == nil {
			cerr = err
		}
		if w.broken == nil {
			c.ended = w.tx == 'I'
		}
		switch {
		case d.err != nil:
		case cerr != nil:
			d.err = cerr
		case rolledBack:
			d.err = errCommitRolledBack
		}
	} else if err := w.sync(); d.err == nil {
		d.err = err
	}
	if d.err != nil {
		c.forget(d.sql, d.err)
	}
	return d.affected, d.err
}

// next moves to the statement's next row.
func (d *direct) next() bool {
	if d.rowsDone {
		return false
	}
	row, err := d.c.wire.nextRow()
	if row && err == nil {
		return true
	}
	d.rowsDone = true
	if err != nil {
		d.err = err
	} else {
		d.affected = rowsAffected(d.c.wire.tag)
	}
	return false
}

// scan decodes the current row into dest.
func (d *direct) scan(dest []any) error {
	if d.rowsDone || d.st == nil {
		return errors.New("postgres: Scan without a row")
	}
	return d.c.decodeRow(d.fields(), d.c.wire.values, dest)
}

// fields describes the statement's rows: as prepared, or as the server described them when it ran
// (a statement prepared without columns).
func (d *direct) fields() []pgconn.FieldDescription {
	if len(d.st.fields) == 0 && d.c.wire.desc != nil {
		return d.c.wire.desc
	}
	return d.st.fields
}

// directRow is QueryRow's result on the direct path.
type directRow struct {
	d   direct
	ctx context.Context
}

func (r *directRow) Scan(dest ...any) error {
	d := &r.d
	var err error
	if d.next() {
		err = d.scan(dest)
		if _, ferr := d.finish(); err == nil {
			err = ferr
		}
	} else if _, err = d.finish(); err == nil {
		err = driver.ErrNoRows
	}
	c := d.c
	err = c.leave(r.ctx, err)
	r.d, r.ctx = direct{}, nil
	c.dRowFree = r // scanned: the next QueryRow's
	return err
}

// directRows is Query's result on the direct path: the connection is free for the next statement
// once the last row is read, or at Close.
type directRows struct {
	d      direct
	ctx    context.Context
	err    error
	closed bool
	fields []pgconn.FieldDescription
}

// FieldDescriptions describes the columns, as pgx.Rows does (workloads read the column names and
// count from it).
func (r *directRows) FieldDescriptions() []pgconn.FieldDescription { return r.fields }

func (r *directRows) Next() bool {
	if r.closed {
		return false
	}
	if r.d.next() {
		if len(r.fields) == 0 {
			r.fields = r.d.fields()
		}
		return true
	}
	r.Close()
	return false
}

func (r *directRows) Scan(dest ...any) error {
	if r.closed {
		return errors.New("postgres: Scan on closed rows")
	}
	return r.d.scan(dest)
}

func (r *directRows) Close() {
	if r.closed {
		return
	}
	r.closed = true
	_, r.err = r.d.finish()
	c := r.d.c
	r.err = c.leave(r.ctx, r.err)
	r.d, r.ctx = direct{}, nil
	c.dRowsFree = r // closed: the next Query's (Err still answers until then)
}

func (r *directRows) Err() error { return r.err }

// queryRowDirect is QueryRow on the direct path (after enter); nil when sql takes pgx's path.
func (c *Conn) queryRowDirect(ctx context.Context, sql string, args []any) driver.Row {
	r := c.dRowFree
	if r == nil {
		if len(c.dRowSlab) == 0 {
			c.dRowSlab = make([]directRow, 32)
		}
		r = &c.dRowSlab[0]
	}
	if !c.send(&r.d, sql, args, true) {
		return nil
	}
	if r == c.dRowFree {
		c.dRowFree = nil
	} else {
		c.dRowSlab = c.dRowSlab[1:]
	}
	r.ctx = ctx
	return r
}

// queryDirect is Query on the direct path (after enter); ok is false when sql takes pgx's path.
func (c *Conn) queryDirect(ctx context.Context, sql string, args []any) (_ driver.Rows, ok bool, err error) {
	r := c.dRowsFree
	if r != nil {
		*r = directRows{} // the closed rows of an earlier statement, whose handle is no longer valid
	} else {
		if len(c.dRowsSlab) == 0 {
			c.dRowsSlab = make([]directRows, 32)
		}
		r = &c.dRowsSlab[0]
	}
	if !c.send(&r.d, sql, args, false) {
		return nil, false, nil
	}
	if r == c.dRowsFree {
		c.dRowsFree = nil
	} else {
		c.dRowsSlab = c.dRowsSlab[1:]
	}
	r.ctx = ctx
	if r.d.st != nil {
		r.fields = r.d.st.fields
	}
	if r.d.done { // failed before any row: the error now, as pgx's Query reports it
		err := c.leave(ctx, r.d.err)
		r.d, r.ctx = direct{}, nil
		c.dRowsFree = r // never handed out
		return nil, true, err
	}
	return r, true, nil
}

// execDirect is Exec on the direct path (after enter); ok is false when sql takes pgx's path.
func (c *Conn) execDirect(sql string, args []any) (n int64, ok bool, err error) {
	d := &c.dExec
	if !c.send(d, sql, args, true) {
		return 0, false, nil
	}
	n, err = d.finish()
	*d = direct{}
	return n, true, err
}
