package tpch

import (
	"strconv"
	"sync"
	"time"

	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/workload/tpch/queries"
)

// A stream is one of TPC-H's sequences of operations (clause 5.1.2): the power test's query stream
// (with RF1 before and RF2 after; --repeat times), a query stream of the throughput test, or its
// refresh stream. It is a finite terminal of the closed loop: Next gives its steps in order, then
// schedule.Done; a throughput stream is schedule.Gated on the power test's end.

// Stream ids: the power test's stream is 0 (stream 0 of Appendix A), the throughput test's query
// streams 1..S, and its refresh stream RefreshStream.
const RefreshStream = -1

// step is one operation of a stream.
type step struct {
	op int // opOf(q), OpRF1 or OpRF2
	q  int // the query, 1..22; 0 for a refresh function
	// set is a refresh function's update set (1-based).
	set    int
	params queries.Params
	// repeat is the power test's repeat (0-based); 0 elsewhere.
	repeat int
}

// timing is one executed step: clause 5.3.7's timing interval and what the step did.
type timing struct {
	step
	stream     int
	start, end time.Time
	rows       int64
	err        string
	// mismatch is validation mode's finding: the answer differs from the reference.
	mismatch string
}

// seconds is the timing interval in seconds.
func (t *timing) seconds() float64 { return t.end.Sub(t.start).Seconds() }

// stream is one stream's state. The scheduler calls Next and Think, and the executor runs the
// current step, from one goroutine at a time (whichever worker holds it).
type stream struct {
	id    int
	steps []step
	next  int
	cur   *step
	// gate, when set, holds the stream until the power test has ended; done is closed when this
	// stream is Done (the power test's opens the throughput test's gate).
	gate     <-chan struct{}
	done     chan struct{}
	doneOnce sync.Once
	// times are the executed steps, in order (read once the run is over).
	times []timing
}

var _ schedule.Gated = (*stream)(nil)

func newStream(id int, steps []step, gate <-chan struct{}) *stream {
	return &stream{id: id, steps: steps, gate: gate, done: make(chan struct{})}
}

// Next is the stream's next step, or schedule.Done after its last.
func (s *stream) Next() (int, time.Duration) {
	if s.next == len(s.steps) {
		s.doneOnce.Do(func() { close(s.done) })
		return schedule.Done, 0
	}
	s.cur = &s.steps[s.next]
	s.next++
	return s.cur.op, 0
}

// Think is none: a stream submits its next query when the previous one returned (clause 5.3.2).
func (*stream) Think(int) time.Duration { return 0 }

// Gate is the power test's end for a throughput stream, nil for the power stream.
func (s *stream) Gate() <-chan struct{} { return s.gate }

// label names the stream in tables: "power", "stream 1", "refresh".
func (s *stream) label() string { return streamLabel(s.id) }

func streamLabel(id int) string {
	switch id {
	case 0:
		return "power"
	case RefreshStream:
		return "refresh"
	}
	return "stream " + strconv.Itoa(id)
}

// plan is a run's streams.
type plan struct {
	power   *stream   // nil without the power test
	streams []*stream // the throughput test's query streams
	refresh *stream   // the throughput test's refresh stream (nil without refresh functions)
	// firstSet is the first refresh set the run uses, sets the number of sets it uses.
	firstSet, sets int
}

// terminals are the plan's streams, the power test's first.
func (p *plan) terminals() []*stream {
	var t []*stream
	if p.power != nil {
		t = append(t, p.power)
	}
	t = append(t, p.streams...)
	if p.refresh != nil {
		t = append(t, p.refresh)
	}
	return t
}

// paramsFunc gives query q's parameters for stream s (repeat r).
type paramsFunc func(s, r, q int) queries.Params

// drawnParams are qgen's role: each stream's parameters drawn from a stream of its own derived from
// the run's seed (stream s, repeat r, query q), by clause 2.4.x.3's rules.
func drawnParams(seed uint64, sf float64) paramsFunc {
	return func(s, r, q int) queries.Params {
		return queries.Draw(q, gen.New(gen.Derive(seed, "tpch", "stream", s, "repeat", r, "query", q)), sf)
	}
}

// validationParams are clause 2.4.x.4's for every stream.
func validationParams(sf float64) paramsFunc {
	return func(_, _, q int) queries.Params { return queries.Validation(q, sf) }
}

// buildPlan makes a run's streams (clause 5.3.3): the power test (RF1, stream 0's queries, RF2;
// repeat times), then, gated on its end, streams query streams and a refresh stream of one RF1 and
// RF2 pair per query stream (clause 5.3.6). Refresh sets are used in order from firstSet.
func buildPlan(o Options, firstSet int, params paramsFunc) *plan {
	p := &plan{firstSet: firstSet}
	set := firstSet
	refresh := !o.NoRefresh && !o.Validate
	var gate <-chan struct{}
	if o.Test == TestPower || o.Test == TestBoth {
		var steps []step
		for r := range o.Repeat {
			if refresh {
				steps = append(steps, step{op: OpRF1, set: set, repeat: r})
			}
			for _, q := range queries.StreamOrder(0) {
				steps = append(steps, step{op: opOf(q), q: q, params: params(0, r, q), repeat: r})
			}
			if refresh {
				steps = append(steps, step{op: OpRF2, set: set, repeat: r})
				set++
			}
		}
		p.power = newStream(0, steps, nil)
		gate = p.power.done
	}
	if o.Test == TestThroughput || o.Test == TestBoth {
		for s := 1; s <= o.Streams; s++ {
			var steps []step
			for _, q := range queries.StreamOrder(s) {
				steps = append(steps, step{op: opOf(q), q: q, params: params(s, 0, q)})
			}
			p.streams = append(p.streams, newStream(s, steps, gate))
		}
		if refresh {
			var steps []step
			for range o.Streams {
				steps = append(steps, step{op: OpRF1, set: set}, step{op: OpRF2, set: set})
				set++
			}
			p.refresh = newStream(RefreshStream, steps, gate)
		}
	}
	p.sets = set - firstSet
	return p
}
