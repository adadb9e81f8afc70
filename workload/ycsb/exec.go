package ycsb

import (
	"bytes"
	"context"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// executor runs the terminals' operations on the workers' connections (schedule.Executor), as YCSB's
// JDBC binding sends them: each operation one statement (a read-modify-write two: the read, then the
// update), with retries, reconnecting when a connection is lost (sqlexec.Slots.RunStatement), and
// counting the operations completed (Slots.Done, for the round trips per operation).
//
// A read-modify-write is YCSB's two calls, db.read then db.update, measured together as one
// READ-MODIFY-WRITE: at the engine's default isolation each statement is its own transaction, so
// another client may write the record between them, as in YCSB (whose JDBC binding runs with
// autocommit); with --isolation set, both run in one transaction at that level (sqlexec.Statement),
// which YCSB cannot do.
type executor struct {
	iso   driver.Isolation
	stmts *statements
	slots *sqlexec.Slots
	mix   *mix
	per   []slotState
}

var _ schedule.Executor = (*executor)(nil)

// slotState is one worker's scratch space and tallies; only its worker touches it until the run is
// over.
type slotState struct {
	args []any
	cols [][]byte
	dest []any
	key  []byte
	want []byte
	// found says the last read found its record; rows is the last scan's records or the last
	// write's rows affected; badValues counts the fields of the last read that dataintegrity's
	// values do not match.
	found     bool
	rows      int64
	badValues int
	// inserted and insertFailed count the run's inserts, warm-up and grace included (the record of
	// the data in candor_workloads keeps them).
	inserted, insertFailed int64
	// t tallies the measured operations that completed.
	t tally
}

// tally counts what the measured operations did, beyond the recorder's counts.
type tally struct {
	// ReadsNotFound are reads that found no record (YCSB's Status.NOT_FOUND, which YCSB measures
	// as READ-FAILED).
	Reads         int64 `json:"reads"`
	ReadsNotFound int64 `json:"reads_not_found"`
	// UpdatesNotFound are updates that changed no row (YCSB's JDBC binding: UNEXPECTED_STATE).
	Updates         int64 `json:"updates"`
	UpdatesNotFound int64 `json:"updates_not_found"`
	Inserts         int64 `json:"inserts"`
	// ScannedRecords are the records the scans returned, ScansShort the scans that returned fewer
	// than they asked for (they ran off the end of the table).
	Scans          int64 `json:"scans"`
	ScannedRecords int64 `json:"scanned_records"`
	ScansShort     int64 `json:"scans_short"`
	// ReadModifyWritesNotFound are read-modify-writes whose read found no record (the update then
	// changed nothing).
	ReadModifyWrites         int64 `json:"read_modify_writes"`
	ReadModifyWritesNotFound int64 `json:"read_modify_writes_not_found"`
	// VerifyFailed are the reads (and read-modify-writes) whose values differ from dataintegrity's
	// (YCSB's VERIFY measurement, status UNEXPECTED_STATE), of VerifyChecked.
	VerifyChecked int64 `json:"verify_checked,omitempty"`
	VerifyFailed  int64 `json:"verify_failed,omitempty"`
}

func (t *tally) add(o *tally) {
	t.Reads += o.Reads
	t.ReadsNotFound += o.ReadsNotFound
	t.Updates += o.Updates
	t.UpdatesNotFound += o.UpdatesNotFound
	t.Inserts += o.Inserts
	t.Scans += o.Scans
	t.ScannedRecords += o.ScannedRecords
	t.ScansShort += o.ScansShort
	t.ReadModifyWrites += o.ReadModifyWrites
	t.ReadModifyWritesNotFound += o.ReadModifyWritesNotFound
	t.VerifyChecked += o.VerifyChecked
	t.VerifyFailed += o.VerifyFailed
}

func newExecutor(slots *sqlexec.Slots, stmts *statements, m *mix, iso driver.Isolation) *executor {
	e := &executor{iso: iso, stmts: stmts, slots: slots, mix: m, per: make([]slotState, slots.Len())}
	for i := range e.per {
		s := &e.per[i]
		s.cols = make([][]byte, stmts.allCols)
		for j := range s.cols {
			s.dest = append(s.dest, &s.cols[j])
		}
	}
	return e
}

// Execute runs terminal t's drawn operation on worker slot i.
func (e *executor) Execute(ctx context.Context, i int, t schedule.Terminal, op int, measured bool) schedule.Outcome {
	in := &t.(*terminal).in
	s := &e.per[i]
	var fn func(ctx context.Context, c driver.Conn) error
	readOnly := false
	switch Operation(op) {
	case OpRead:
		fn, readOnly = func(ctx context.Context, c driver.Conn) error { return e.read(ctx, c, s, in) }, true
	case OpUpdate:
		fn = func(ctx context.Context, c driver.Conn) error { return e.update(ctx, c, s, in) }
	case OpInsert:
		return e.insert(ctx, i, s, in, measured)
	case OpScan:
		fn, readOnly = func(ctx context.Context, c driver.Conn) error { return e.scan(ctx, c, s, in) }, true
	default:
		fn = func(ctx context.Context, c driver.Conn) error {
			if err := e.read(ctx, c, s, in); err != nil {
				return err
			}
			return e.update(ctx, c, s, in)
		}
	}
	out := e.slots.RunStatement(ctx, i, e.iso, readOnly, fn)
	if out.Err != nil {
		return out
	}
	e.slots.Done(i)
	if measured {
		s.count(Operation(op), in, e.mix.integrity)
	}
	return out
}

// insert is doTransactionInsert: the next record number from the shared insert counter, the
// record's key and values, the INSERT, and the acknowledgement whatever happened (YCSB's finally),
// so that reads may choose the record from then on (a failed insert leaves a record that reads will
// not find, as in YCSB).
func (e *executor) insert(ctx context.Context, i int, s *slotState, in *inputs, measured bool) schedule.Outcome {
	c := e.mix.core
	in.keynum = c.NextInsertKeynum()
	s.key = AppendKeyName(s.key[:0], in.keynum, c.cfg.ZeroPadding, c.cfg.Ordered())
	in.key = string(s.key)
	if e.mix.integrity {
		in.buf, in.vals = in.buf[:0], in.vals[:0]
		var ends []int
		for _, f := range c.FieldNames() {
			in.buf = AppendDeterministicValue(in.buf, in.key, f, e.mix.valueLen)
			ends = append(ends, len(in.buf))
		}
		splitValues(in, ends)
	}
	s.args = append(s.args[:0], in.key)
	for _, v := range in.vals {
		s.args = append(s.args, v)
	}
	out := e.slots.RunStatement(ctx, i, e.iso, false, func(ctx context.Context, c driver.Conn) error {
		var err error
		s.rows, err = c.Exec(ctx, e.stmts.insert, s.args...)
		return err
	})
	if err := c.AcknowledgeInsert(in.keynum); err != nil && out.Err == nil {
		out.Err = err
	}
	if out.Err != nil {
		s.insertFailed++
		return out
	}
	e.slots.Done(i)
	s.inserted++
	if measured {
		s.t.Inserts++
	}
	return out
}

// read fetches the record's fields (every field, or in.field alone) and, with dataintegrity,
// verifies them as verifyRow does.
func (e *executor) read(ctx context.Context, c driver.Conn, s *slotState, in *inputs) error {
	s.found, s.badValues = false, 0
	sql, n, first := e.stmts.readAll, e.stmts.allCols, 0
	if in.field >= 0 {
		sql, n, first = e.stmts.readOne[in.field], 1, in.field
	} else if e.stmts.keyFirst {
		first = -1 // column 0 is YCSB_KEY
	}
	rows, err := c.Query(ctx, sql, in.key)
	if err != nil {
		return err
	}
	defer rows.Close()
	if rows.Next() {
		if err := rows.Scan(s.dest[:n]...); err != nil {
			return err
		}
		s.found = true
		if e.mix.integrity {
			s.verify(e.mix, in.key, s.cols[:n], first)
		}
	}
	return rows.Err()
}

// verify counts the fields of cols (field first+j in column j; column 0 is the key when first is
// -1) that differ from buildDeterministicValue.
func (s *slotState) verify(m *mix, key string, cols [][]byte, first int) {
	names := m.core.FieldNames()
	for j, v := range cols {
		f := first + j
		if f < 0 {
			continue
		}
		s.want = AppendDeterministicValue(s.want[:0], key, names[f], m.valueLen)
		if v == nil || !bytes.Equal(v, s.want) {
			s.badValues++
		}
	}
}

func (e *executor) update(ctx context.Context, c driver.Conn, s *slotState, in *inputs) error {
	sql := e.stmts.updateAll
	if in.wfield >= 0 {
		sql = e.stmts.updateOne[in.wfield]
	}
	s.args = s.args[:0]
	for _, v := range in.vals {
		s.args = append(s.args, v)
	}
	s.args = append(s.args, in.key)
	var err error
	s.rows, err = c.Exec(ctx, sql, s.args...)
	return err
}

func (e *executor) scan(ctx context.Context, c driver.Conn, s *slotState, in *inputs) error {
	s.rows = 0
	sql, n := e.stmts.scanAll, e.stmts.allCols
	if in.field >= 0 {
		sql, n = e.stmts.scanOne[in.field], 1
	}
	rows, err := c.Query(ctx, sql, in.key, in.scanLen)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(s.dest[:n]...); err != nil {
			return err
		}
		s.rows++
	}
	return rows.Err()
}

// count tallies a completed operation (inserts are tallied by insert).
func (s *slotState) count(op Operation, in *inputs, integrity bool) {
	switch op {
	case OpRead:
		s.t.Reads++
		if !s.found {
			s.t.ReadsNotFound++
		}
	case OpUpdate:
		s.t.Updates++
		if s.rows == 0 {
			s.t.UpdatesNotFound++
		}
	case OpScan:
		s.t.Scans++
		s.t.ScannedRecords += s.rows
		if s.rows < in.scanLen {
			s.t.ScansShort++
		}
	case OpReadModifyWrite:
		s.t.ReadModifyWrites++
		if !s.found {
			s.t.ReadModifyWritesNotFound++
		}
	}
	if integrity && (op == OpRead || op == OpReadModifyWrite) && s.found {
		s.t.VerifyChecked++
		if s.badValues > 0 {
			s.t.VerifyFailed++
		}
	}
}
