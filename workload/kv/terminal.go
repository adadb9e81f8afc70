package kv

import (
	"time"

	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// inputs are one operation's drawn inputs: its type, its keys (--batch of them for a read, a write
// or a delete; the start key of a bounded scan, none for a whole-table scan) and a write's values,
// which point into buf.
type inputs struct {
	op   int
	keys []int64
	vals [][]byte
	buf  []byte
}

// mix is what every terminal draws from: the run's resolved options.
type mix struct {
	read, del, span    int // percent
	spanLimit, batch   int
	minBytes, maxBytes int
}

// terminal is one emulated client (CockroachDB's worker, kvOp): its key generator (which holds its
// random stream, derived from the run's seed and its index) and the inputs it last drew. Between
// operations it keeps nothing else. A job record of the open loop is a terminal without a
// generator: sqlexec.Source.Draw fills its inputs from a terminal of the pool (DrawInto).
type terminal struct {
	mix *mix
	g   *keyGen
	in  inputs
}

var _ sqlexec.Drawer = (*terminal)(nil)

// Next draws the terminal's next operation into its inputs; there is no keying time.
func (t *terminal) Next() (int, time.Duration) { return t.draw(&t.in), 0 }

// Think is 0: kv's terminals submit as soon as they can (throughput mode), or the pacer decides
// (rate mode).
func (*terminal) Think(int) time.Duration { return 0 }

// draw draws one operation into in, in CockroachDB's order (kvOp.run): a number in [0, 100) picks
// read, delete, scan or write by their percentages in that order; then the keys (and, for a write,
// each key's value after it).
func (t *terminal) draw(in *inputs) int {
	m, g := t.mix, t.g
	in.keys, in.vals, in.buf = in.keys[:0], in.vals[:0], in.buf[:0]
	p := g.r.IntRange(0, 99)
	switch {
	case p < m.read:
		in.op = OpRead
		for range m.batch {
			in.keys = append(in.keys, g.readKey())
		}
	case p-m.read < m.del:
		in.op = OpDelete
		for range m.batch {
			in.keys = append(in.keys, g.readKey())
		}
	case p-m.read-m.del < m.span:
		in.op = OpScan
		if m.spanLimit > 0 {
			in.keys = append(in.keys, g.readKey())
		}
	default:
		in.op = OpWrite
		if need := m.batch * m.maxBytes; in.buf == nil || cap(in.buf) < need {
			// Never nil, so that an empty value is empty, not NULL.
			in.buf = make([]byte, 0, max(1, min(need, 1<<20)))
		}
		for range m.batch {
			in.keys = append(in.keys, g.writeKey())
			start := len(in.buf)
			in.buf = fillBlock(g.r, in.buf, m.minBytes, m.maxBytes)
			// A later append may move buf; the value keeps pointing at its bytes either way.
			in.vals = append(in.vals, in.buf[start:len(in.buf):len(in.buf)])
		}
	}
	return in.op
}

// NewJob is a job record of the open loop (sqlexec.Source): a terminal without a generator.
func (t *terminal) NewJob() schedule.Terminal { return &terminal{mix: t.mix} }

// DrawInto draws the terminal's next operation into job's inputs.
func (t *terminal) DrawInto(job schedule.Terminal) int { return t.draw(&job.(*terminal).in) }
