package kv

import (
	"context"
	"slices"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// executor runs the terminals' operations on the workers' connections (schedule.Executor): one
// statement each, with retries, reconnecting when a connection is lost (sqlexec.Slots.RunStatement),
// and counting the operations completed (Slots.Done, for the round trips per operation).
type executor struct {
	iso   driver.Isolation
	stmts *statements
	slots *sqlexec.Slots
	per   []slotState
}

var _ schedule.Executor = (*executor)(nil)

// slotState is one worker's scratch space and tallies; only its worker touches it until the run is
// over.
type slotState struct {
	args     []any
	idx      []int
	distinct []int64
	writeSQL map[int]string // the upsert of n rows, built on first use
	k        int64
	v        []byte
	// rows is the last statement's rows: found by a read, counted by a scan, deleted by a delete.
	rows int64
	// t tallies the measured operations that completed.
	t tally
}

// tally counts what the measured operations did, beyond the recorder's counts.
type tally struct {
	ReadStatements int64 `json:"read_statements"`
	// ReadKeys are the distinct keys asked for, ReadFound those found; ReadEmpty counts the reads
	// that found no row at all (what CockroachDB's kv prints at the end).
	ReadKeys  int64 `json:"read_keys"`
	ReadFound int64 `json:"read_found"`
	ReadEmpty int64 `json:"read_empty"`
	// WriteKeys are the distinct keys upserted (a batch drawing a key twice writes it once).
	WriteStatements  int64 `json:"write_statements"`
	WriteKeys        int64 `json:"write_keys"`
	ScanStatements   int64 `json:"scan_statements"`
	ScanRows         int64 `json:"scan_rows"`
	DeleteStatements int64 `json:"delete_statements"`
	DeleteKeys       int64 `json:"delete_keys"`
	Deleted          int64 `json:"deleted"`
}

func (t *tally) add(o *tally) {
	t.ReadStatements += o.ReadStatements
	t.ReadKeys += o.ReadKeys
	t.ReadFound += o.ReadFound
	t.ReadEmpty += o.ReadEmpty
	t.WriteStatements += o.WriteStatements
	t.WriteKeys += o.WriteKeys
	t.ScanStatements += o.ScanStatements
	t.ScanRows += o.ScanRows
	t.DeleteStatements += o.DeleteStatements
	t.DeleteKeys += o.DeleteKeys
	t.Deleted += o.Deleted
}

func newExecutor(slots *sqlexec.Slots, stmts *statements, iso driver.Isolation) *executor {
	e := &executor{iso: iso, stmts: stmts, slots: slots, per: make([]slotState, slots.Len())}
	for i := range e.per {
		e.per[i].writeSQL = map[int]string{}
	}
	return e
}

// Execute runs terminal t's drawn operation on worker slot i.
func (e *executor) Execute(ctx context.Context, i int, t schedule.Terminal, op int, measured bool) schedule.Outcome {
	in := &t.(*terminal).in
	s := &e.per[i]
	var fn func(ctx context.Context, c driver.Conn) error
	switch op {
	case OpRead:
		fn = func(ctx context.Context, c driver.Conn) error { return e.read(ctx, c, s, in) }
	case OpWrite:
		fn = e.writeFn(s, in)
	case OpScan:
		fn = func(ctx context.Context, c driver.Conn) error { return e.scan(ctx, c, s, in) }
	case OpDelete:
		fn = func(ctx context.Context, c driver.Conn) error { return e.del(ctx, c, s, in) }
	}
	out := e.slots.RunStatement(ctx, i, e.iso, op == OpRead || op == OpScan, fn)
	if out.Err != nil {
		return out
	}
	e.slots.Done(i)
	if measured {
		s.count(op, in)
	}
	return out
}

// count tallies a completed operation.
func (s *slotState) count(op int, in *inputs) {
	switch op {
	case OpRead:
		keys := s.distinctKeys(in.keys)
		s.t.ReadStatements++
		s.t.ReadKeys += keys
		s.t.ReadFound += s.rows
		if s.rows == 0 {
			s.t.ReadEmpty++
		}
	case OpWrite:
		s.t.WriteStatements++
		s.t.WriteKeys += int64(len(s.args) / 2)
	case OpScan:
		s.t.ScanStatements++
		s.t.ScanRows += s.rows
	case OpDelete:
		s.t.DeleteStatements++
		s.t.DeleteKeys += s.distinctKeys(in.keys)
		s.t.Deleted += s.rows
	}
}

// distinctKeys is the number of distinct keys among keys.
func (s *slotState) distinctKeys(keys []int64) int64 {
	if len(keys) <= 1 {
		return int64(len(keys))
	}
	s.distinct = append(s.distinct[:0], keys...)
	slices.Sort(s.distinct)
	return int64(len(slices.Compact(s.distinct)))
}

// keyArgs fills the slot's argument list with keys.
func (s *slotState) keyArgs(keys []int64) []any {
	s.args = s.args[:0]
	for _, k := range keys {
		s.args = append(s.args, k)
	}
	return s.args
}

func (e *executor) read(ctx context.Context, c driver.Conn, s *slotState, in *inputs) error {
	s.rows = 0
	rows, err := c.Query(ctx, e.stmts.read, s.keyArgs(in.keys)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(&s.k, &s.v); err != nil {
			return err
		}
		s.rows++
	}
	return rows.Err()
}

// writeFn builds a write's statement and arguments once (not per retry): the distinct keys in key
// order, each with its last drawn value (what upserting the batch row by row would leave), since
// one statement may not upsert a key twice on PostgreSQL and CockroachDB, and rows locked in key
// order cannot deadlock with another batch's.
func (e *executor) writeFn(s *slotState, in *inputs) func(ctx context.Context, c driver.Conn) error {
	s.idx = s.idx[:0]
	for i := range in.keys {
		s.idx = append(s.idx, i)
	}
	slices.SortStableFunc(s.idx, func(a, b int) int { return cmpInt64(in.keys[a], in.keys[b]) })
	s.args = s.args[:0]
	for j, i := range s.idx {
		if j+1 < len(s.idx) && in.keys[s.idx[j+1]] == in.keys[i] {
			continue // a later draw of the same key wins
		}
		s.args = append(s.args, in.keys[i], in.vals[i])
	}
	n := len(s.args) / 2
	sql, ok := s.writeSQL[n]
	if !ok {
		sql = e.stmts.write(n)
		s.writeSQL[n] = sql
	}
	return func(ctx context.Context, c driver.Conn) error {
		_, err := c.Exec(ctx, sql, s.args...)
		return err
	}
}

func (e *executor) scan(ctx context.Context, c driver.Conn, s *slotState, in *inputs) error {
	s.rows = 0
	return c.QueryRow(ctx, e.stmts.scan, s.keyArgs(in.keys)...).Scan(&s.rows)
}

func (e *executor) del(ctx context.Context, c driver.Conn, s *slotState, in *inputs) error {
	n, err := c.Exec(ctx, e.stmts.del, s.keyArgs(in.keys)...)
	s.rows = n
	return err
}
