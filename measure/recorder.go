package measure

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/driver"
)

// Event is one finished operation as a worker saw it.
type Event struct {
	Response   time.Duration // completion - intended start
	Service    time.Duration // completion - dispatch
	Lag        time.Duration // dispatch - intended start
	Retries    int           // attempts beyond the first
	Err        bool          // failed (after any retries)
	RolledBack bool          // business rollback: a completed operation, not an error
	Reconnects int           // connections re-established while running it
	// Fail is why a failed operation failed (driver.FailureOf; FailNone counts as a statement
	// error) and Msg its message (driver.FailureMessage), for the failure counts and messages.
	Fail driver.FailureClass
	Msg  string
	// RetryFail and RetryMsg are what the operation's first retried attempt failed with (its
	// class and driver.FailureMessage), when Retries > 0: the retries' cause, counted with all of
	// the operation's Retries (driver.RetryNote).
	RetryFail driver.FailureClass
	RetryMsg  string
	// InWindow: the operation completed inside the measurement window (clause 5.4 of TPC-C counts
	// those), whichever window its intended start fell in.
	InWindow bool
}

// Counts are per-operation counters.
type Counts struct {
	// Completed operations finished without error; business rollbacks are included.
	Completed int64 `json:"completed"`
	// Errors finished with an error; they are not in Completed.
	Errors int64 `json:"errors"`
	// Rollbacks is the number of business rollbacks among Completed.
	Rollbacks int64 `json:"rollbacks"`
	// Retries is the total of Event.Retries.
	Retries int64 `json:"retries"`
	// Reconnects is the total of Event.Reconnects.
	Reconnects int64 `json:"reconnects"`
	// Incomplete operations never finished: still in flight when the grace period after the window
	// ran out, or due but never dispatched. They have no latency and are in no histogram.
	Incomplete int64 `json:"incomplete"`
	// Overflow counts values above HighestMicros (any kind), recorded at HighestMicros.
	Overflow int64 `json:"overflow"`
	// Dropped arrivals of an open-loop run found the backlog full and were never run (counted,
	// never silent). They have no latency and are in no histogram.
	Dropped int64 `json:"dropped"`
	// Failures are Errors by class (index driver.FailureClass; FailNone unused): every error is
	// counted in exactly one class.
	Failures [driver.NumFailureClasses]int64 `json:"-"`
	// CompletedInWindow counts the operations completed without error whose completion fell inside
	// the measurement window, whether or not their intended start did (it is counted among the
	// measured counts however the operation itself was labelled).
	CompletedInWindow int64 `json:"-"`
}

// Add adds o to c.
func (c *Counts) Add(o Counts) {
	c.Completed += o.Completed
	c.Errors += o.Errors
	c.Rollbacks += o.Rollbacks
	c.Retries += o.Retries
	c.Reconnects += o.Reconnects
	c.Incomplete += o.Incomplete
	c.Overflow += o.Overflow
	c.Dropped += o.Dropped
	for i, n := range o.Failures {
		c.Failures[i] += n
	}
	c.CompletedInWindow += o.CompletedInWindow
}

// set is one histogram per op and kind, and counters per op.
type set struct {
	hist   [][NumKinds]*hdr.Histogram
	counts []Counts
	// msgs are the distinct failure messages per op (measured sets only), at most
	// MaxFailureMessages each; retried the distinct messages of retried attempts, with the retries
	// they caused.
	msgs    [][]FailureMessage
	retried [][]FailureMessage
}

func newSet(ops int) *set {
	s := &set{hist: make([][NumKinds]*hdr.Histogram, ops), counts: make([]Counts, ops), msgs: make([][]FailureMessage, ops),
		retried: make([][]FailureMessage, ops)}
	for op := range s.hist {
		for k := range s.hist[op] {
			s.hist[op][k] = NewHistogram()
		}
	}
	return s
}

// stripeSet is what a stripe records into between ticks: per op and kind a dense count array
// (dense.go), counters and failure messages as in set.
type stripeSet struct {
	hist    [][NumKinds]dense
	counts  []Counts
	msgs    [][]FailureMessage
	retried [][]FailureMessage
}

func newStripeSet(ops int) *stripeSet {
	s := &stripeSet{hist: make([][NumKinds]dense, ops), counts: make([]Counts, ops), msgs: make([][]FailureMessage, ops),
		retried: make([][]FailureMessage, ops)}
	for op := range s.hist {
		for k := range s.hist[op] {
			s.hist[op][k] = newDense()
		}
	}
	return s
}

// reset empties s, clearing only the touched part of each count array.
func (s *stripeSet) reset() {
	for op := range s.hist {
		for k := range s.hist[op] {
			s.hist[op][k].reset()
		}
	}
	clear(s.counts)
	for op := range s.msgs {
		s.msgs[op] = s.msgs[op][:0]
		s.retried[op] = s.retried[op][:0]
	}
}

// Stripe is the part of a Recorder one group of writers records into. Its mutex is uncontended
// except for the moment a Tick swaps its histograms.
type Stripe struct {
	mu  sync.Mutex
	cur [2]*stripeSet // [0]: events outside the measurement window; [1]: measured events
	// att counts the stripe's attempts since the run began, warm-up included, never reset by a
	// Tick (Recorder.Attempts: the core stops a run whose every attempt fails).
	att Attempts
	_   [48]byte
}

// Attempts are a run's finished attempts since it began, warm-up and drain included: those that
// succeeded, those that failed other than by a lost connection (an outage the run rides out is no
// sign the workload cannot run), and the first such failure's message.
type Attempts struct {
	OK, Failed int64
	First      FailureMessage
	FirstOp    int
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Done records one finished operation of type op. measured says whether it belongs to the
// measurement window (the scheduler decides: its intended start is inside the window). It does not
// allocate. See the package comment for where an error's latencies go.
func (s *Stripe) Done(op int, measured bool, e Event) {
	s.mu.Lock()
	st := s.cur[b2i(measured)]
	h := &st.hist[op]
	c := &st.counts[op]
	if e.Err {
		c.Errors++
		fail := e.Fail
		if fail == driver.FailNone || fail >= driver.NumFailureClasses {
			fail = driver.FailStatement
		}
		c.Failures[fail]++
		if fail != driver.FailConnLost {
			if s.att.Failed == 0 {
				s.att.First, s.att.FirstOp = FailureMessage{Class: fail, Text: e.Msg, Count: 1}, op
			}
			s.att.Failed++
		}
		if measured && e.Msg != "" {
			addMessage(&st.msgs[op], fail, e.Msg, 1) // allocates only for a new message
		}
		c.Overflow += h[ErrorResponse].record(Micros(e.Response))
	} else {
		s.att.OK++
		if e.InWindow {
			s.cur[1].counts[op].CompletedInWindow++
		}
		c.Completed++
		if e.RolledBack {
			c.Rollbacks++
		}
		c.Overflow += h[Response].record(Micros(e.Response))
		c.Overflow += h[Service].record(Micros(e.Service))
	}
	c.Overflow += h[Lag].record(Micros(e.Lag))
	c.Retries += int64(e.Retries)
	if e.Retries > 0 && measured && e.RetryMsg != "" {
		// The message is compared with the kept ones before it is kept: a cause seen before
		// costs no allocation.
		addMessage(&st.retried[op], e.RetryFail, e.RetryMsg, int64(e.Retries))
	}
	c.Reconnects += int64(e.Reconnects)
	s.mu.Unlock()
}

// Incomplete counts one operation of type op that never finished (see Counts.Incomplete).
func (s *Stripe) Incomplete(op int, measured bool) {
	s.mu.Lock()
	s.cur[b2i(measured)].counts[op].Incomplete++
	s.mu.Unlock()
}

// Dropped counts one arrival of type op that was dropped (see Counts.Dropped).
func (s *Stripe) Dropped(op int, measured bool) {
	s.mu.Lock()
	s.cur[b2i(measured)].counts[op].Dropped++
	s.mu.Unlock()
}

// Recorder collects latencies from many writers. Writers record into stripes; Tick turns what was
// recorded since the previous Tick into an Interval and adds its measured events to the run totals.
//
// Memory is fixed at creation: ops x NumKinds x (2 x stripes + 3) histograms of about 184 KiB each
// (5 ops and 2 stripes: 140 histograms, about 25 MiB), whatever the run length.
type Recorder struct {
	ops     []string
	tags    [][NumKinds]string
	stripes []Stripe

	tickMu   sync.Mutex // serializes Tick, Begin and Totals
	spare    *stripeSet // swapped into a stripe at each Tick; the swapped-out set becomes the spare
	iv       Interval
	tot      Totals
	last     time.Time
	winStart time.Time
	winEnd   time.Time
}

// MaxDefaultStripes caps the default stripe count: each stripe costs 2 x ops x NumKinds histograms
// (about 3.7 MiB for 5 ops), and a stripe's lock is held for well under a microsecond per event, so
// more stripes than this buys nothing measurable.
const MaxDefaultStripes = 8

// DefaultStripes is GOMAXPROCS, at most MaxDefaultStripes.
func DefaultStripes() int {
	return min(runtime.GOMAXPROCS(0), MaxDefaultStripes)
}

// NewRecorder returns a Recorder for operations named ops (index = op) with the given number of
// stripes (<= 0: DefaultStripes). Names become log tags "<op>.<kind>", so they must be non-empty and
// free of commas, spaces, dots and line breaks; NewRecorder panics otherwise, or on duplicates (the
// names are the workload's constants, so that is a programming error). The first interval starts now
// unless Begin says otherwise.
func NewRecorder(ops []string, stripes int) *Recorder {
	if len(ops) == 0 {
		panic("measure: NewRecorder needs at least one operation name")
	}
	seen := make(map[string]bool, len(ops))
	for _, n := range ops {
		if n == "" || strings.ContainsAny(n, ", \r\n\t.") || seen[n] {
			panic(fmt.Sprintf("measure: operation name %q is empty, repeated, or holds a comma, space, dot or line break", n))
		}
		seen[n] = true
	}
	if stripes <= 0 {
		stripes = DefaultStripes()
	}
	r := &Recorder{
		ops:     append([]string(nil), ops...),
		tags:    make([][NumKinds]string, len(ops)),
		stripes: make([]Stripe, stripes),
		spare:   newStripeSet(len(ops)),
		last:    time.Now(),
	}
	for op, n := range r.ops {
		for k := range NumKinds {
			r.tags[op][k] = n + "." + k.String()
		}
	}
	for i := range r.stripes {
		r.stripes[i].cur = [2]*stripeSet{newStripeSet(len(ops)), newStripeSet(len(ops))}
	}
	iv := newSet(len(ops))
	r.iv = Interval{Ops: r.ops, Hist: iv.hist, Counts: iv.counts, Measured: make([]Counts, len(ops))}
	r.tot = *NewTotals(r.ops)
	return r
}

// Ops returns the operation names (index = op). Do not modify.
func (r *Recorder) Ops() []string { return r.ops }

// Stripes returns the number of stripes.
func (r *Recorder) Stripes() int { return len(r.stripes) }

// Stripe returns the stripe writer i records into (i modulo the stripe count). Give each worker its
// own i (its slot) so workers spread over the stripes.
func (r *Recorder) Stripe(i int) *Stripe {
	return &r.stripes[uint(i)%uint(len(r.stripes))]
}

// Begin sets the start of the next interval and the measurement window [measureStart, measureEnd)
// used to label intervals with their Phase. Call it before the first event.
func (r *Recorder) Begin(start, measureStart, measureEnd time.Time) {
	r.tickMu.Lock()
	r.last, r.winStart, r.winEnd = start, measureStart, measureEnd
	r.tickMu.Unlock()
}

// Tick closes the current interval at now: it swaps each stripe's histograms for empty ones (the
// stripe's lock is held only for the swap), merges them bucket by bucket into the interval and adds
// the measured events to the run totals. It does not allocate.
//
// The returned Interval and its histograms belong to the Recorder and are valid until the next Tick;
// use Interval.Clone to keep one. Ticks are serialized; call them from one goroutine.
func (r *Recorder) Tick(now time.Time) *Interval {
	r.tickMu.Lock()
	defer r.tickMu.Unlock()
	iv := &r.iv
	for op := range iv.Hist {
		for _, h := range iv.Hist[op] {
			if h.TotalCount() != 0 {
				h.Reset() // tags and times are set again below
			}
		}
	}
	clear(iv.Counts)
	clear(iv.Measured)
	for i := range r.stripes {
		s := &r.stripes[i]
		for m := range s.cur {
			s.mu.Lock()
			old := s.cur[m]
			s.cur[m] = r.spare
			s.mu.Unlock()
			r.absorb(old, m == 1)
			old.reset()
			r.spare = old
		}
	}
	iv.Start, iv.End = r.last, now
	r.last = now
	iv.Phase = r.phase(iv.Start, iv.End)
	for op := range iv.Hist {
		for k, h := range iv.Hist[op] {
			h.SetTag(r.tags[op][k])
			h.SetStartTimeMs(iv.Start.UnixMilli())
			h.SetEndTimeMs(iv.End.UnixMilli())
		}
	}
	return iv
}

// absorb adds one stripe set into the interval and, when measured, into the totals.
func (r *Recorder) absorb(s *stripeSet, measured bool) {
	iv, tot := &r.iv, &r.tot
	for op := range s.hist {
		for k := range s.hist[op] {
			var th *hdr.Histogram
			if measured {
				th = tot.Hist[op][k]
			}
			// Same geometry everywhere, so nothing can be dropped; if it ever were, it is counted.
			d1, d2 := s.hist[op][k].addTo(iv.Hist[op][k], th)
			iv.Counts[op].Overflow += d1
			tot.Counts[op].Overflow += d2
		}
		iv.Counts[op].Add(s.counts[op])
		if measured {
			iv.Measured[op].Add(s.counts[op])
			tot.Counts[op].Add(s.counts[op])
			for _, m := range s.msgs[op] {
				addMessage(&tot.Messages[op], m.Class, m.Text, m.Count)
			}
			for _, m := range s.retried[op] {
				addMessage(&tot.Retried[op], m.Class, m.Text, m.Count)
			}
		}
	}
}

// Attempts sums every stripe's attempts since the recorder was made (Stripe.att); First is the
// first failure of the lowest stripe that has one.
func (r *Recorder) Attempts() Attempts {
	var a Attempts
	for i := range r.stripes {
		s := &r.stripes[i]
		s.mu.Lock()
		b := s.att
		s.mu.Unlock()
		if a.Failed == 0 && b.Failed > 0 {
			a.First, a.FirstOp = b.First, b.FirstOp
		}
		a.OK += b.OK
		a.Failed += b.Failed
	}
	return a
}

// Totals returns a copy of the run's cumulative measured histograms and counters. Call it after the
// final Tick: events recorded since the last Tick are not in it.
func (r *Recorder) Totals() *Totals {
	r.tickMu.Lock()
	defer r.tickMu.Unlock()
	return r.tot.Clone()
}
