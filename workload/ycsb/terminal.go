package ycsb

import (
	"time"

	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// inputs are one operation's drawn inputs, in CoreWorkload's order of draws (doTransactionRead,
// ...Update, ...Insert, ...Scan, ...ReadModifyWrite): the operation, the record (not for an insert),
// the field read (readallfields=false) or the scan's length, the field written and the values.
type inputs struct {
	op Operation
	// keynum and key are the record touched; an insert takes its record number when it runs (see
	// terminal.draw), so they are set by the executor then.
	keynum int64
	key    string
	// field is the one field read (a read, a scan, a read-modify-write's read), -1 for every field.
	field int
	// scanLen is the records a scan asks for.
	scanLen int64
	// wfield is the one field written (an update, a read-modify-write), -1 for every field (an
	// insert, or writeallfields=true); vals are the values written, in field order (one for wfield).
	wfield int
	vals   []string
	buf    []byte
}

// mix is what every terminal draws from: the run's Core and the properties that shape the inputs.
type mix struct {
	core      *Core
	readAll   bool // readallfields
	writeAll  bool // writeallfields
	integrity bool // dataintegrity: values derived from the key and the field (constant lengths)
	fields    int
	// valueLen is every value's length with dataintegrity (fieldlengthdistribution=constant).
	valueLen int
}

// terminal is one emulated client (one of YCSB's client threads): its random stream, derived from
// the run's seed and its index, and the inputs it last drew. Between operations it keeps nothing
// else. A job record of the open loop is a terminal without a stream: sqlexec.Source.Draw fills its
// inputs from a terminal of the pool (DrawInto).
type terminal struct {
	mix *mix
	r   Source
	in  inputs
}

var _ sqlexec.Drawer = (*terminal)(nil)

// Next draws the terminal's next operation into its inputs; YCSB has no keying time.
func (t *terminal) Next() (int, time.Duration) { return int(t.draw(&t.in)), 0 }

// Think is 0: YCSB's threads submit as soon as they can (throughput mode), or the pacer decides
// (rate mode). (YCSB's -target paces each thread; candor's rate mode paces arrivals instead.)
func (*terminal) Think(int) time.Duration { return 0 }

// draw draws one operation into in, as CoreWorkload.doTransaction does: the operation, then
//
//	read               the record (nextKeynum), the field when readallfields=false
//	update             the record, the values (buildValues or buildSingleValue)
//	insert             the values of every field (buildValues)
//	scan               the record, the length, the field when readallfields=false
//	read_modify_write  the record, the field read when readallfields=false, the values
//
// An insert's record number is not drawn here but taken from the shared insert counter when the
// insert runs (exec.go), as YCSB's doTransactionInsert takes it right before db.insert: in rate mode
// arrivals are drawn in arrival order, dropped ones included, and a number taken by an arrival that
// never runs would never be acknowledged, holding back every read of a later insert. Its values are
// drawn here, from the terminal's stream, unless dataintegrity derives them from the key (then the
// executor builds them). The records read depend on the inserts acknowledged so far (nextKeynum
// draws again while beyond the last one), so with inserts the inputs depend on how the run went, as
// in YCSB; without inserts they are a function of the seed alone.
func (t *terminal) draw(in *inputs) Operation {
	m, c, r := t.mix, t.mix.core, t.r
	in.op = c.NextOperation(r)
	in.field, in.wfield, in.scanLen = -1, -1, 0
	in.vals, in.buf = in.vals[:0], in.buf[:0]
	in.keynum, in.key = -1, ""
	if in.op != OpInsert {
		in.keynum = c.NextKeynum(r)
		in.key = c.KeyName(in.keynum)
	}
	switch in.op {
	case OpRead:
		if !m.readAll {
			in.field = c.NextFieldIndex(r)
		}
	case OpUpdate:
		t.values(in, m.writeAll)
	case OpInsert:
		if !m.integrity {
			t.values(in, true)
		}
	case OpScan:
		in.scanLen = c.NextScanLength(r)
		if !m.readAll {
			in.field = c.NextFieldIndex(r)
		}
	default: // OpReadModifyWrite
		if !m.readAll {
			in.field = c.NextFieldIndex(r)
		}
		t.values(in, m.writeAll)
	}
	return in.op
}

// values draws the values written: every field's (buildValues) or one random field's
// (buildSingleValue: the field, then its length). Each value's length comes from the field-length
// generator, its characters from RandomByteIterator's alphabet, or from the key and the field name
// with dataintegrity.
func (t *terminal) values(in *inputs, all bool) {
	m, c, r := t.mix, t.mix.core, t.r
	first, n := 0, m.fields
	if !all {
		in.wfield = c.NextFieldIndex(r)
		first, n = in.wfield, 1
	}
	var ends [64]int
	end := ends[:0]
	for f := first; f < first+n; f++ {
		size := int(c.NextFieldLength(r))
		if m.integrity {
			in.buf = AppendDeterministicValue(in.buf, in.key, c.FieldNames()[f], size)
		} else {
			in.buf = AppendRandomValue(in.buf, r, size)
		}
		end = append(end, len(in.buf))
	}
	splitValues(in, end)
}

// splitValues makes in.vals from in.buf cut at ends: one string for all, then slices of it.
func splitValues(in *inputs, ends []int) {
	all := string(in.buf)
	start := 0
	for _, e := range ends {
		in.vals = append(in.vals, all[start:e])
		start = e
	}
}

// NewJob is a job record of the open loop (sqlexec.Source): a terminal without a stream.
func (t *terminal) NewJob() schedule.Terminal { return &terminal{mix: t.mix} }

// DrawInto draws the terminal's next operation into job's inputs.
func (t *terminal) DrawInto(job schedule.Terminal) int { return int(t.draw(&job.(*terminal).in)) }
