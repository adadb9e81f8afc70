package measure

import (
	"fmt"
	"slices"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Phase places an interval against the measurement window: where most of it lies. The ticks
// that end intervals fire a little late, so an interval of the warm-up ends a few milliseconds
// into the window; by its end alone it would be called "measure" (the progress line's "5s measure"
// after a 5 s warm-up). A phase is a label: Interval.Measured says which events count.
type Phase int

const (
	// PhaseWarmup: most of the interval lies before the window's start.
	PhaseWarmup Phase = iota
	// PhaseMeasure: most of the interval lies in the window (or no window was set).
	PhaseMeasure
	// PhaseDrain: most of the interval lies after the window's end (waiting for in-flight work).
	PhaseDrain
)

func (p Phase) String() string {
	switch p {
	case PhaseWarmup:
		return "warmup"
	case PhaseMeasure:
		return "measure"
	case PhaseDrain:
		return "drain"
	}
	return "unknown"
}

func (r *Recorder) phase(start, end time.Time) Phase {
	mid := start.Add(end.Sub(start) / 2)
	switch {
	case r.winStart.IsZero() && r.winEnd.IsZero():
		return PhaseMeasure
	case mid.Before(r.winStart):
		return PhaseWarmup
	case !mid.Before(r.winEnd):
		return PhaseDrain
	}
	return PhaseMeasure
}

// Interval is what was recorded between two Ticks: every event, warm-up included (for the progress
// line and the interval log); Measured says how many of them belong to the measurement window.
// Its histograms carry their log tag ("<op>.<kind>") and start and end times.
type Interval struct {
	Start, End time.Time
	Phase      Phase
	Ops        []string
	// Hist[op][kind] holds every event of the interval (measured or not), in microseconds.
	Hist [][NumKinds]*hdr.Histogram
	// Counts[op] counts every event of the interval; Measured[op] only the measured ones.
	Counts   []Counts
	Measured []Counts
}

// Clone returns a deep copy of iv that stays valid after the next Tick.
func (iv *Interval) Clone() *Interval {
	c := *iv
	c.Hist = cloneHists(iv.Hist)
	c.Counts = slices.Clone(iv.Counts)
	c.Measured = slices.Clone(iv.Measured)
	return &c
}

// Completed returns the number of operations (all types) completed in the interval.
func (iv *Interval) Completed() int64 {
	var n int64
	for _, c := range iv.Counts {
		n += c.Completed
	}
	return n
}

func cloneHists(hs [][NumKinds]*hdr.Histogram) [][NumKinds]*hdr.Histogram {
	c := make([][NumKinds]*hdr.Histogram, len(hs))
	for op := range hs {
		for k, h := range hs[op] {
			c[op][k] = h.Clone()
		}
	}
	return c
}

// Totals are a run's measured events: histograms per op and kind (microseconds) and counters per op.
type Totals struct {
	Ops    []string
	Hist   [][NumKinds]*hdr.Histogram
	Counts []Counts
	// Messages are the first distinct failure messages per op (at most MaxFailureMessages), with
	// their class and count.
	Messages [][]FailureMessage
	// Retried are the first distinct messages of retried attempts per op (at most
	// MaxFailureMessages), each with its class and the retries it caused.
	Retried [][]FailureMessage
}

// NewTotals returns empty totals for ops, to merge others into.
func NewTotals(ops []string) *Totals {
	s := newSet(len(ops))
	return &Totals{Ops: slices.Clone(ops), Hist: s.hist, Counts: s.counts, Messages: s.msgs, Retried: s.retried}
}

// Clone returns a deep copy of t.
func (t *Totals) Clone() *Totals {
	clone := func(mss [][]FailureMessage) [][]FailureMessage {
		c := make([][]FailureMessage, len(mss))
		for op, ms := range mss {
			c[op] = slices.Clone(ms)
		}
		return c
	}
	return &Totals{Ops: slices.Clone(t.Ops), Hist: cloneHists(t.Hist), Counts: slices.Clone(t.Counts),
		Messages: clone(t.Messages), Retried: clone(t.Retried)}
}

// Percentiles returns the percentile spectrum (milliseconds) of op's histogram of kind k.
func (t *Totals) Percentiles(op int, k Kind) Percentiles {
	return Summarize(t.Hist[op][k])
}

// MergeTotals adds src into dst bucket by bucket (results of several processes or shards). The
// operation names must be the same, in the same order, and every histogram must have the one
// geometry; otherwise dst is left unchanged and an error says why.
func MergeTotals(dst, src *Totals) error {
	if !slices.Equal(dst.Ops, src.Ops) {
		return fmt.Errorf("measure: cannot merge totals of operations %v into %v", src.Ops, dst.Ops)
	}
	for op := range src.Hist {
		for k := range src.Hist[op] {
			if !SameGeometry(src.Hist[op][k]) || !SameGeometry(dst.Hist[op][k]) {
				return fmt.Errorf("measure: cannot merge totals: %s.%s has a different histogram geometry",
					src.Ops[op], Kind(k))
			}
		}
	}
	for op := range src.Hist {
		for k := range src.Hist[op] {
			if err := Merge(dst.Hist[op][k], src.Hist[op][k]); err != nil {
				return err // cannot happen after the geometry check
			}
		}
		dst.Counts[op].Add(src.Counts[op])
		if op < len(src.Messages) && op < len(dst.Messages) {
			for _, m := range src.Messages[op] {
				addMessage(&dst.Messages[op], m.Class, m.Text, m.Count)
			}
		}
		if op < len(src.Retried) && op < len(dst.Retried) {
			for _, m := range src.Retried[op] {
				addMessage(&dst.Retried[op], m.Class, m.Text, m.Count)
			}
		}
	}
	return nil
}
