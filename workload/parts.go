package workload

import (
	"time"

	"github.com/candor-bench/candor/measure"
)

// Parts of operations: a workload may time the pieces of an operation (each statement of a
// transaction, its commit) as operations of their own, so that the report shows one latency spectrum
// per statement kind beside the transaction's. A part is an ordinary entry of Ops (after the
// operations a terminal returns) that Info.Parts maps to the operation it is a part of. The core
// then
//
//   - marks it in the result (report.TxResult.PartOf, with Info.PartNote as PartNote), so the
//     console, the page and the shared warnings count it apart from the operations themselves;
//   - leaves it out of the operations the driver's CPU is divided by (Outcome.Completed).
//
// The executor records a part from inside Execute, on its worker's slot, with a PartTimer: the
// worker's own stripe, so recording takes no contended lock. A part's response and service time
// are both from its start (the statement's call) to its end, and its lag is 0: the intended start
// belongs to the whole operation. Only parts that completed are recorded; an error is the whole
// operation's, so it is counted once. A part carries the whole's measured flag, so parts and wholes
// fall in the same window.

// PartTimer records parts into a run's recorder (Env.Rec).
type PartTimer struct {
	rec *measure.Recorder
}

// NewPartTimer is a PartTimer on rec.
func NewPartTimer(rec *measure.Recorder) PartTimer { return PartTimer{rec: rec} }

// Done records that part op, started at start, completed just now on worker slot.
func (p PartTimer) Done(slot, op int, measured bool, start time.Time) {
	if p.rec == nil {
		return
	}
	d := time.Since(start)
	p.rec.Stripe(slot).Done(op, measured, measure.Event{Response: d, Service: d})
}

// IsPart reports whether op (an Ops name) is a part of another operation in in.
func (in Info) IsPart(op string) bool {
	_, ok := in.Parts[op]
	return ok
}
