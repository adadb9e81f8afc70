package schedule

import (
	"sort"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/measure"
)

// rateStats keeps an open-loop run's figures per step. Each step's histograms are allocated when its
// first arrival completes and summarized and recycled once the step is over and none of its
// arrivals is left, so memory follows the steps in progress (usually one or two), not the run's
// length. One mutex: it is taken once per arrival and once per completion, for well under a
// microsecond.
type rateStats struct {
	mu     sync.Mutex
	nops   int
	steps  []stepStats
	starts []time.Duration // each step's start, for looking up a completion's step
	mStart time.Duration
	mEnd   time.Duration
	// lastStep is the highest step the dispatcher has delivered an arrival of (len(steps) once it
	// has stopped): steps below it get no new arrivals.
	lastStep int
	pool     []*hdr.Histogram

	win                          RateSummary // the window's counters and histograms
	warmArrived, warmDropped     int64
	completedInWindow, maxBacklg int64
}

type stepStats struct {
	sum         StepSummary
	outstanding int64               // accepted arrivals not yet done or counted incomplete
	hist        [][2]*hdr.Histogram // per op: response, service
	lag         [3]*hdr.Histogram   // lag, lateness, connection wait
	closed      bool
}

func newRateStats(nops int, steps []Step, warmup time.Duration) *rateStats {
	s := &rateStats{nops: nops, steps: make([]stepStats, len(steps)), mStart: warmup}
	t := warmup
	for i, st := range steps {
		s.steps[i].sum = StepSummary{Rate: st.Rate, Start: t, End: t + st.Duration, Ops: make([]OpSummary, nops)}
		s.starts = append(s.starts, t)
		t += st.Duration
	}
	s.mEnd = t
	s.win.Lag, s.win.Lateness, s.win.ConnWait = measure.NewHistogram(), measure.NewHistogram(), measure.NewHistogram()
	return s
}

func (s *rateStats) hist() *hdr.Histogram {
	if n := len(s.pool); n > 0 {
		h := s.pool[n-1]
		s.pool = s.pool[:n-1]
		return h
	}
	return measure.NewHistogram()
}

// record adds d to h in microseconds, at the geometry's highest value when above it (the same
// event's overflow is counted by the recorder).
func record(h *hdr.Histogram, d time.Duration) {
	_ = h.RecordValue(min(measure.Micros(d), measure.HighestMicros))
}

// arrived counts an arrival of step k (-1: the warm-up); depth is the backlog after it.
func (s *rateStats) arrived(k int, dropped bool, depth int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxBacklg = max(s.maxBacklg, int64(depth))
	if k < 0 {
		s.warmArrived++
		if dropped {
			s.warmDropped++
		}
		return
	}
	s.lastStep = max(s.lastStep, k)
	st := &s.steps[k].sum
	st.Arrived++
	st.MaxBacklog = max(st.MaxBacklog, depth)
	if dropped {
		st.Dropped++
		return
	}
	s.steps[k].outstanding++
}

// dispatcherDone says no arrival will come any more.
func (s *rateStats) dispatcherDone() {
	s.mu.Lock()
	s.lastStep = len(s.steps)
	s.mu.Unlock()
}

// done records a finished arrival of step k (-1: warm-up) of type op, completed at doneAt.
func (s *rateStats) done(k, op int, ev *measure.Event, late, wait, doneAt time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ev.Err {
		if c := s.stepAt(doneAt); c >= 0 {
			s.steps[c].sum.CompletedInStep++
		}
		if doneAt >= s.mStart && doneAt < s.mEnd {
			s.completedInWindow++
		}
	}
	if k < 0 {
		return
	}
	st := &s.steps[k]
	st.outstanding--
	if st.hist == nil {
		st.hist = make([][2]*hdr.Histogram, s.nops)
		for i := range st.lag {
			st.lag[i] = s.hist()
		}
	}
	oc := &st.sum.Ops[op]
	if ev.Err {
		st.sum.Errors++
		oc.Errors++
	} else {
		st.sum.Completed++
		oc.Completed++
		h := &st.hist[op]
		if h[0] == nil {
			h[0], h[1] = s.hist(), s.hist()
		}
		record(h[0], ev.Response)
		record(h[1], ev.Service)
	}
	record(st.lag[0], ev.Lag)
	record(st.lag[1], late)
	record(st.lag[2], wait)
	record(s.win.Lag, ev.Lag)
	record(s.win.Lateness, late)
	record(s.win.ConnWait, wait)
}

// incomplete counts an accepted arrival of step k that never finished.
func (s *rateStats) incomplete(k int) {
	if k < 0 {
		return
	}
	s.mu.Lock()
	s.steps[k].outstanding--
	s.steps[k].sum.Incomplete++
	s.mu.Unlock()
}

// stepAt is the step whose time span holds t, or -1.
func (s *rateStats) stepAt(t time.Duration) int {
	if t < s.mStart || t >= s.mEnd {
		return -1
	}
	return sort.Search(len(s.starts), func(i int) bool { return s.starts[i] > t }) - 1
}

// release summarizes the steps that are over (no arrival can come, none outstanding) and recycles
// their histograms.
func (s *rateStats) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.steps {
		if k < s.lastStep && s.steps[k].outstanding == 0 {
			s.close(k)
		}
	}
}

// close summarizes step k. Caller holds mu.
func (s *rateStats) close(k int) {
	st := &s.steps[k]
	if st.closed {
		return
	}
	st.closed = true
	if st.hist == nil {
		return
	}
	for op, h := range st.hist {
		if h[0] != nil {
			st.sum.Ops[op].Response = measure.Summarize(h[0])
			st.sum.Ops[op].Service = measure.Summarize(h[1])
			s.recycle(h[0], h[1])
		}
	}
	st.sum.Lag, st.sum.Lateness, st.sum.ConnWait = measure.Summarize(st.lag[0]), measure.Summarize(st.lag[1]), measure.Summarize(st.lag[2])
	s.recycle(st.lag[:]...)
	st.hist, st.lag = nil, [3]*hdr.Histogram{}
}

func (s *rateStats) recycle(hs ...*hdr.Histogram) {
	for _, h := range hs {
		h.Reset()
		s.pool = append(s.pool, h)
	}
}

// summary closes every step and returns the run's figures. Call it once nothing is running.
func (s *rateStats) summary(p Process, maxBacklog int) *RateSummary {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := s.win
	rs.Process, rs.MaxBacklog = p, maxBacklog
	rs.MaxBacklogSeen = int(s.maxBacklg)
	rs.WarmupArrived, rs.WarmupDropped = s.warmArrived, s.warmDropped
	rs.CompletedInWindow = s.completedInWindow
	for k := range s.steps {
		s.close(k)
		st := &s.steps[k].sum
		rs.Arrived += st.Arrived
		rs.Dropped += st.Dropped
		rs.Completed += st.Completed
		rs.Errors += st.Errors
		rs.Incomplete += st.Incomplete
		rs.Steps = append(rs.Steps, *st)
	}
	return &rs
}
