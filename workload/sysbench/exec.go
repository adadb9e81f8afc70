package sysbench

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// executor runs the drawn transactions on the workers' connections (schedule.Executor). A test
// with transactions (oltp_read_write, oltp_read_only, oltp_write_only, without --skip-trx) runs
// its statements between BEGIN and COMMIT at the run's isolation (a BEGIN sent as a statement of
// its own, driver.TxOptions.Explicit, as sysbench's is); the others send each statement
// alone (autocommit), as sysbench does. Each statement that completes, and the commit, is recorded
// as a part of the transaction on the worker's stripe (workload.PartTimer).
//
// Errors sysbench ignores and restarts the event for (its PostgreSQL driver: deadlock,
// serialization failure, unique violation; its MySQL driver's default --mysql-ignore-errors:
// deadlock, lock wait timeout) are retried here: the transaction is rolled back and run again
// (driver.Retry for the engine's retryable errors, and once more for a duplicate key, which a
// concurrent delete/insert of the same id causes), each retry counted.
type executor struct {
	iso driver.Isolation
	trx bool
	// readOnly: the test only reads (oltp_read_only): its transactions are read-only, which lets
	// SQLite's readers run beside each other (sysbench sends a plain BEGIN).
	readOnly bool
	// literal: the statements carry their values in the text (Dolt's oltp_delete_insert and
	// types_delete_insert, whose scripts send them so); typesRest is sbtypes' row after its id.
	literal   bool
	typesRest string
	slots     *sqlexec.Slots
	parts     workload.PartTimer
	stmts     []*statements // by table number (index 0 unused)
	// rec is each operation's index in the recorder (Ops: the operations the test uses).
	rec [numOps]int
	per []slotState
}

var _ schedule.Executor = (*executor)(nil)

// slotState is one worker's scratch space and tallies.
type slotState struct {
	buf []byte // a literal statement's text
	sum sql.NullInt64
	n   int64
	t   tally
}

// tally counts what the measured transactions did beyond the recorder's counts.
type tally struct {
	// Rows is the rows the selects returned; Affected the rows the updates, deletes and inserts
	// changed.
	Rows     int64 `json:"rows"`
	Affected int64 `json:"affected"`
	// DuplicateRetries are the transactions run again after a duplicate key.
	DuplicateRetries int64 `json:"duplicate_retries"`
}

func (t *tally) add(o *tally) {
	t.Rows += o.Rows
	t.Affected += o.Affected
	t.DuplicateRetries += o.DuplicateRetries
}

// Execute runs terminal t's drawn transaction on worker slot i.
func (e *executor) Execute(ctx context.Context, i int, t schedule.Terminal, op int, measured bool) schedule.Outcome {
	in := &t.(*terminal).in
	s := &e.per[i]
	var rows, affected, dups int64
	body := func(ctx context.Context, c driver.Conn) error {
		rows, affected = 0, 0
		for k := range in.stmts {
			st := &in.stmts[k]
			start := time.Now()
			r, a, err := e.run(ctx, c, s, st)
			if err != nil {
				return err
			}
			rows, affected = rows+r, affected+a
			e.parts.Done(i, e.rec[st.op], measured, start)
		}
		return nil
	}
	out := e.slots.Run(ctx, i, func(ctx context.Context, c driver.Conn) (int, error) {
		db := e.slots.DB(i)
		var total int
		for {
			var n int
			var err error
			if e.trx {
				n, err = driver.Retry(ctx, db, timedCommit{Conn: c, parts: e.parts, slot: i, op: e.rec[OpCommit], measured: measured},
					driver.TxOptions{Isolation: e.iso, ReadOnly: e.readOnly, Explicit: true}, sqlexec.MaxRetries, body)
			} else {
				n, err = sqlexec.Statement(ctx, db, c, e.iso, e.readOnly, body)
			}
			total += n
			if err != nil && duplicateKey(err) && total < sqlexec.MaxRetries && ctx.Err() == nil {
				total++
				driver.NoteRetry(ctx, db, err)
				dups++
				continue
			}
			return total, err
		}
	})
	if out.Err != nil {
		return out
	}
	e.slots.Done(i)
	if measured {
		s.t.Rows += rows
		s.t.Affected += affected
		s.t.DuplicateRetries += dups
	}
	return out
}

// run sends one statement and returns the rows it returned and the rows it changed.
func (e *executor) run(ctx context.Context, c driver.Conn, s *slotState, st *stmt) (rows, affected int64, err error) {
	q := e.stmts[st.table].byOp[st.op]
	if e.literal {
		switch st.op {
		case OpTypesDelete:
			s.buf = appendTypesDelete(s.buf[:0], st.id)
		case OpTypesInsert:
			s.buf = appendTypesInsert(s.buf[:0], st.id, e.typesRest)
		case OpDelete:
			s.buf = appendDelete(s.buf[:0], st.id)
		case OpInsert:
			s.buf = appendInsert(s.buf[:0], st.id, st.k, st.c, st.pad)
		}
		affected, err = c.Exec(ctx, string(s.buf))
		return 0, affected, err
	}
	switch st.op {
	case OpCoveringIndexScan, OpGroupbyScan, OpIndexJoin, OpIndexJoinScan, OpIndexScan, OpTableScan, OpTypesTableScan:
		return e.query(ctx, c, s, q)
	case OpPointSelect:
		return e.query(ctx, c, s, q, st.id)
	case OpSimpleRange, OpOrderRange, OpDistinctRange:
		return e.query(ctx, c, s, q, st.id, st.id2)
	case OpSumRange:
		err = c.QueryRow(ctx, q, st.id, st.id2).Scan(&s.sum)
		return 1, 0, err
	case OpRandomPoints:
		rs, err := c.Query(ctx, q, st.args...)
		if err != nil {
			return 0, 0, err
		}
		defer rs.Close()
		for rs.Next() {
			rows++
		}
		return rows, 0, rs.Err()
	case OpRandomRanges:
		err = c.QueryRow(ctx, q, st.args...).Scan(&s.n)
		return 1, 0, err
	case OpIndexUpdate, OpDelete:
		affected, err = c.Exec(ctx, q, st.id)
	case OpNonIndexUpdate:
		affected, err = c.Exec(ctx, q, st.c, st.id)
	case OpInsert:
		if st.id == 0 { // oltp_insert: the engine numbers the row
			affected, err = c.Exec(ctx, q, st.k, st.c, st.pad)
		} else {
			affected, err = c.Exec(ctx, q, st.id, st.k, st.c, st.pad)
		}
	}
	return 0, affected, err
}

// query runs a select and reads every row without decoding it: sysbench's drivers fetch the
// rows and count them, never converting a value (candor's drivers decode only on Scan).
func (e *executor) query(ctx context.Context, c driver.Conn, s *slotState, q string, args ...any) (rows, affected int64, err error) {
	rs, err := c.Query(ctx, q, args...)
	if err != nil {
		return 0, 0, err
	}
	defer rs.Close()
	for rs.Next() {
		rows++
	}
	return rows, 0, rs.Err()
}

// timedCommit records each commit that succeeds as the part "commit".
type timedCommit struct {
	driver.Conn
	parts    workload.PartTimer
	slot     int
	op       int // the commit's index in the recorder
	measured bool
}

func (c timedCommit) Commit(ctx context.Context) error {
	start := time.Now()
	err := c.Conn.Commit(ctx)
	if err == nil {
		c.parts.Done(c.slot, c.op, c.measured, start)
	}
	return err
}

// duplicateKey reports whether err is a unique violation: SQLSTATE 23505 (PostgreSQL and its
// family), MySQL's 1062 ("Duplicate entry"), SQLite's UNIQUE or PRIMARY KEY constraint.
func duplicateKey(err error) bool {
	var st interface{ SQLState() string }
	if errors.As(err, &st) && st.SQLState() == "23505" {
		return true
	}
	m := err.Error()
	return strings.Contains(m, "Error 1062") || strings.Contains(m, "Duplicate entry") ||
		strings.Contains(m, "UNIQUE constraint failed") || strings.Contains(m, "duplicate key value")
}
