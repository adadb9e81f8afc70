package tpcc

import (
	"time"

	"github.com/candor-bench/candor/schedule"
)

// Open-loop arrivals (ModeRate). The standard's terminals are a closed loop: each waits for its
// response, thinks, keys, submits. In rate mode transactions arrive at the times a pacer says
// (schedule.RunRate), whatever the database does, and each arrival needs what a terminal would have
// keyed: a type and inputs. They come from a pool of terminal states:
//
//   - The pool has one terminal per district by default (10 per warehouse, clause 4.2.2), each bound
//     to its home warehouse and district, with its own card deck (clause 5.2.4.2) and random stream,
//     exactly as in the other modes.
//   - Arrival i is drawn from terminal i mod N, round-robin: every terminal, and so every warehouse
//     and district, gets the same share of arrivals, and the whole mix follows the decks (each
//     terminal's every 23 arrivals are one pass of its deck). A terminal may have several arrivals in
//     flight at once: each arrival's inputs are copied into a job record of its own when drawn.
//   - Draws happen in arrival order from one goroutine, so the same seed and plan give the same
//     sequence of inputs per terminal whatever the database did; dropped arrivals are drawn too.

// arrivalSource draws arrivals round-robin from a pool of terminals (schedule.Source).
type arrivalSource struct {
	pool  []*terminal
	group []int // terminal -> worker group (its warehouse's endpoint); nil: one group
}

var _ schedule.Source = (*arrivalSource)(nil)

// arrival is an open-loop job record: one arrival's home warehouse and district and its inputs,
// drawn when it arrived (Draw). It is a schedule.Terminal only to travel through the scheduler.
type arrival struct {
	w, d int
	in   txInputs
}

// Next is never called on a job record: it has no further work.
func (*arrival) Next() (int, time.Duration) { return schedule.Done, 0 }

// Think is never called on a job record.
func (*arrival) Think(int) time.Duration { return 0 }

// NewJob returns an empty record for one arrival's inputs.
func (s *arrivalSource) NewJob() schedule.Terminal { return &arrival{} }

// Draw draws arrival i from terminal i mod N: its next card and that transaction's inputs, drawn
// into job along with the terminal's home warehouse and district.
func (s *arrivalSource) Draw(i int64, job schedule.Terminal) (op, group int) {
	k := int(i % int64(len(s.pool)))
	t := s.pool[k]
	op, _ = t.Next()
	j := job.(*arrival)
	j.w, j.d = t.home()
	t.draw(op, &j.in)
	if s.group != nil {
		group = s.group[k]
	}
	return op, group
}
