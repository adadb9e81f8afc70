package sysbench

import (
	"time"

	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// stmt is one statement of a drawn transaction: its kind, its table, and its parameters (ids,
// k, the c and pad strings; args for the select_random_* lists).
type stmt struct {
	op      int
	table   int
	id, id2 int64
	k       int64
	c, pad  string
	args    []any
}

// inputs are one transaction's statements, drawn at dispatch.
type inputs struct {
	stmts []stmt
}

// plan is what every terminal draws from: the run's resolved options and distribution.
type plan struct {
	o       *Options
	steps   []step
	d       *dist
	threads int
	// oneTable: the test works on sbtest1 alone without drawing a table (oltp_delete_insert).
	oneTable bool
}

// terminal is one of sysbench's threads: its random stream (derived from the run's seed and its
// index) and the transaction it last drew. Its index is sysbench's thread id, which
// select_random_* confine their k values to (a slice of table-size / threads per thread).
type terminal struct {
	p   *plan
	r   *gen.Rand
	tid int
	in  inputs
}

var _ sqlexec.Drawer = (*terminal)(nil)

// Next draws the next transaction; there is no keying time.
func (t *terminal) Next() (int, time.Duration) { return t.draw(&t.in), 0 }

// Think is 0: sysbench's threads submit as soon as they can (throughput mode), or the pacer
// decides (rate mode; sysbench's --rate is an open loop too).
func (*terminal) Think(int) time.Duration { return 0 }

// NewJob is a job record of the open loop: a terminal without a stream.
func (t *terminal) NewJob() schedule.Terminal { return &terminal{p: t.p} }

// DrawInto draws the terminal's next transaction into job's inputs.
func (t *terminal) DrawInto(job schedule.Terminal) int { return t.draw(&job.(*terminal).in) }

// id is oltp_common.lua's get_id: sysbench.rand.default(1, table_size).
func (t *terminal) id() int64 { return int64(t.p.d.draw(t.r, 1, uint32(t.p.o.TableSize))) }

// table is get_table_num: sysbench.rand.uniform(1, tables).
func (t *terminal) table() int { return int(uniformU32(t.r, 1, uint32(t.p.o.Tables))) }

// randStr draws a c (10 groups) or pad (5 groups) value.
func (t *terminal) randStr(groups int) string {
	var b [120]byte
	return string(appendDigits(b[:0], t.r, groups))
}

// draw draws one transaction into in, in the order sysbench's scripts draw: per group its table,
// then per statement its values in the order the script sets them.
func (t *terminal) draw(in *inputs) int {
	p, o := t.p, t.p.o
	in.stmts = in.stmts[:0]
	for _, s := range p.steps {
		switch s.op {
		case OpRandomPoints:
			lo, hi := t.slice()
			st := stmt{op: s.op, table: 1, args: make([]any, o.RandomPoints)}
			for i := range st.args {
				st.args[i] = int64(p.d.draw(t.r, lo, hi))
			}
			in.stmts = append(in.stmts, st)
			continue
		case OpRandomRanges:
			lo, hi := t.slice()
			st := stmt{op: s.op, table: 1, args: make([]any, 2*o.NumberOfRanges)}
			for i := 0; i < len(st.args); i += 2 {
				v := int64(p.d.draw(t.r, lo, hi))
				st.args[i], st.args[i+1] = v, v+int64(o.Delta)
			}
			in.stmts = append(in.stmts, st)
			continue
		case OpCoveringIndexScan, OpGroupbyScan, OpIndexJoin, OpIndexJoinScan, OpIndexScan, OpTableScan, OpTypesTableScan:
			in.stmts = append(in.stmts, stmt{op: s.op, table: 1}) // Dolt's scans: no parameters
			continue
		case OpTypesDelete: // types_delete_insert.lua: sysbench.rand.default for the id
			id := t.id()
			in.stmts = append(in.stmts, stmt{op: OpTypesDelete, table: 1, id: id}, stmt{op: OpTypesInsert, table: 1, id: id})
			continue
		case OpInsert: // oltp_insert: uniform table, k, c, pad
			tb := t.table()
			k := t.id()
			in.stmts = append(in.stmts, stmt{op: OpInsert, table: tb, k: k, c: t.randStr(cGroups), pad: t.randStr(padGroups)})
			continue
		}
		tb := 1 // oltp_delete_insert: the script's one table, none drawn
		if !p.oneTable {
			tb = t.table()
		}
		for range s.count {
			switch s.op {
			case OpSimpleRange, OpSumRange, OpOrderRange, OpDistinctRange:
				id := t.id()
				in.stmts = append(in.stmts, stmt{op: s.op, table: tb, id: id, id2: id + int64(o.RangeSize) - 1})
			case OpNonIndexUpdate:
				c := t.randStr(cGroups)
				in.stmts = append(in.stmts, stmt{op: s.op, table: tb, id: t.id(), c: c})
			case OpDelete:
				id := t.id()
				if o.Test == "oltp_delete" {
					in.stmts = append(in.stmts, stmt{op: OpDelete, table: tb, id: id})
					continue
				}
				k := t.id()
				c, pad := t.randStr(cGroups), t.randStr(padGroups)
				in.stmts = append(in.stmts, stmt{op: OpDelete, table: tb, id: id},
					stmt{op: OpInsert, table: tb, id: id, k: k, c: c, pad: pad})
			default: // point selects, index updates
				in.stmts = append(in.stmts, stmt{op: s.op, table: tb, id: t.id()})
			}
		}
	}
	return OpTransaction
}

// slice is the k range select_random_* draw from for this thread: [rlen*tid, rlen*tid + rlen]
// with rlen = table_size / threads, as sysbench's Lua computes it and its C draw truncates it.
func (t *terminal) slice() (lo, hi uint32) {
	rlen := float64(t.p.o.TableSize) / float64(t.p.threads)
	rmin := rlen * float64(t.tid%t.p.threads)
	return uint32(rmin), uint32(rmin + rlen)
}
