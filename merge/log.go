package merge

import (
	"bufio"
	"errors"
	"fmt"
	"iter"
	"math"
	"os"
	"path/filepath"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/version"
	"github.com/candor-bench/candor/workload"
)

// histRef is a histogram read from a log.
type histRef struct{ h *hdr.Histogram }

// logMerge is the merged interval log being written and what the shards' logs said.
type logMerge struct {
	f  *os.File
	w  *measure.LogWriter
	bw *bufio.Writer
	// started is the merged run's start (the earliest shard's); from and to the common measurement
	// window (the latest start and the earliest end of the shards' windows); skew how far apart the
	// windows began, in seconds.
	started, from, to time.Time
	skew              float64
	// measured[i] are shard i's measured totals by op and kind, from its log.
	measured []map[string]*[measure.NumKinds]*histRef
	// intervals are the merged intervals inside the common window, with their completions by op.
	intervals []workload.MergedInterval
	// rateNotes are the shards' own open-loop figures that do not merge (rate.go).
	rateNotes []string
	// steps are an open-loop run's steps with their histograms summed from the intervals inside
	// each (stepWindows; rate.go reads them).
	steps []stepAcc
}

// stepAcc is one step of an open-loop run: its window on the wall clock and, by op and kind, the
// histograms of the merged intervals that began inside it.
type stepAcc struct {
	from, to time.Time
	hist     [][measure.NumKinds]*hdr.Histogram
}

// errStop ends a log scan early (the merge stopped pulling).
var errStop = errors.New("stop")

// logReader pulls one shard's log entries (ours only: tag OP.KIND), one at a time.
type logReader struct {
	path string
	f    *os.File
	next func() (measure.LogEntry, error, bool)
	stop func()
	head *measure.LogEntry
}

func openLog(dir string) (*logReader, error) {
	path := filepath.Join(dir, report.LogFile)
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, userr.Errorf("%s has no %s: a shard's interval log is what its histograms are merged from; re-run that shard with --out", dir, report.LogFile)
		}
		return nil, userr.Errorf("cannot read %s: %v", path, err)
	}
	seq := func(yield func(measure.LogEntry, error) bool) {
		err := measure.ScanLog(bufio.NewReader(f), func(e measure.LogEntry) error {
			if !yield(e, nil) {
				return errStop
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			yield(measure.LogEntry{}, err)
		}
	}
	l := &logReader{path: path, f: f}
	l.next, l.stop = iter.Pull2(seq)
	return l, l.advance()
}

// advance moves head to the next entry of an operation (nil at the end).
func (l *logReader) advance() error {
	for {
		e, err, ok := l.next()
		if !ok {
			l.head = nil
			return nil
		}
		if err != nil {
			return userr.Errorf("%s is not a complete interval log (%v): re-run that shard", l.path, err)
		}
		if e.Op == "" || e.Kind < 0 || e.Kind >= measure.NumKinds {
			continue
		}
		l.head = &e
		return nil
	}
}

func (l *logReader) close() {
	l.stop()
	l.f.Close()
}

// mergeLogs reads the shards' logs side by side and writes the merged log to path: intervals
// aligned by wall-clock time (the shards' intervals that start within half a tick of one another,
// counted in ticks from the earliest, are one merged interval whose histograms are their sum, from
// the earliest start to the latest end), then, by writeTotals, the merged measured totals over the
// common window. It holds one interval of each shard at a time.
func mergeLogs(shards []*Shard, ops []string, started time.Time, tick time.Duration, path string) (*logMerge, error) {
	lm := &logMerge{started: started, measured: make([]map[string]*[measure.NumKinds]*histRef, len(shards)), steps: stepWindows(shards, len(ops))}
	var rs []*logReader
	defer func() {
		for _, r := range rs {
			r.close()
		}
	}()
	for _, s := range shards {
		r, err := openLog(s.Dir)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, userr.Errorf("cannot write %s: %v: choose another --out", path, err)
	}
	lm.f, lm.bw = f, bufio.NewWriter(f)
	comment := fmt.Sprintf("candor %s %s %s, merged from %d shards", version.String(), shards[0].Result.Workload, shards[0].Result.Mode, len(shards))
	if lm.w, err = measure.NewLogWriter(lm.bw, started, comment); err != nil {
		return nil, lm.fail(err)
	}
	opIndex := map[string]int{}
	for i, op := range ops {
		opIndex[op] = i
	}
	slot := func(t time.Time) int64 { return int64(math.Round(float64(t.Sub(started)) / float64(tick))) }
	type acc struct {
		tag string
		h   *hdr.Histogram
	}
	for {
		cur, any := int64(math.MaxInt64), false
		for i, r := range rs {
			for r.head != nil && r.head.Measured {
				lm.addMeasured(i, r.head)
				if err := r.advance(); err != nil {
					return nil, lm.fail(err)
				}
			}
			if r.head != nil {
				cur, any = min(cur, slot(r.head.Start)), true
			}
		}
		if !any {
			break
		}
		var group []acc
		byTag := map[string]int{}
		var gs, ge time.Time
		for _, r := range rs {
			for r.head != nil && !r.head.Measured && slot(r.head.Start) == cur {
				e := r.head
				if gs.IsZero() || e.Start.Before(gs) {
					gs = e.Start
				}
				if e.End.After(ge) {
					ge = e.End
				}
				i, ok := byTag[e.Tag]
				if !ok {
					i = len(group)
					byTag[e.Tag] = i
					group = append(group, acc{tag: e.Tag, h: measure.NewHistogram()})
				}
				if err := measure.Merge(group[i].h, e.Hist); err != nil {
					return nil, lm.fail(userr.Errorf("%s: %v", r.path, err))
				}
				if err := r.advance(); err != nil {
					return nil, lm.fail(err)
				}
			}
		}
		iv := workload.MergedInterval{Start: gs, End: ge, Completed: make([]int64, len(ops))}
		for _, a := range group {
			a.h.SetTag(a.tag)
			a.h.SetStartTimeMs(gs.UnixMilli())
			a.h.SetEndTimeMs(ge.UnixMilli())
			if err := lm.w.WriteHist(a.h); err != nil {
				return nil, lm.fail(err)
			}
			op, kind, _ := cutTag(a.tag)
			if i, ok := opIndex[op]; ok && kind == measure.Response.String() {
				iv.Completed[i] += a.h.TotalCount()
			}
			if i, ok := opIndex[op]; ok {
				if k, ok := measure.ParseKind(kind); ok {
					if st := lm.stepOf(gs, tick); st != nil {
						if err := measure.Merge(st.hist[i][k], a.h); err != nil {
							return nil, lm.fail(err)
						}
					}
				}
			}
		}
		lm.intervals = append(lm.intervals, iv)
	}
	// The common window: from the latest shard's start of measurement to the earliest end.
	var firstFrom time.Time
	for i, m := range lm.measured {
		if m == nil {
			return nil, lm.fail(userr.Errorf("%s has no measured totals (a run that ended cleanly writes them last): re-run shard %d", filepath.Join(shards[i].Dir, report.LogFile), shards[i].ID.Index))
		}
		from, to := measuredWindow(m)
		if i == 0 || from.After(lm.from) {
			lm.from = from
		}
		if i == 0 || to.Before(lm.to) {
			lm.to = to
		}
		if i == 0 || from.Before(firstFrom) {
			firstFrom = from
		}
	}
	lm.skew = lm.from.Sub(firstFrom).Seconds()
	if !lm.to.After(lm.from) {
		return nil, lm.fail(userr.Errorf("the shards' measurement windows do not overlap (the latest begins %s, the earliest ends %s): start every shard with the same --start-at",
			lm.from.UTC().Format(time.RFC3339), lm.to.UTC().Format(time.RFC3339)))
	}
	// Keep only the intervals inside the common window, for the workload's steady-state test.
	in := lm.intervals[:0]
	for _, iv := range lm.intervals {
		if !iv.Start.Before(lm.from.Add(-tick/2)) && !iv.End.After(lm.to.Add(tick/2)) {
			in = append(in, iv)
		}
	}
	lm.intervals = in
	return lm, nil
}

func cutTag(tag string) (op, kind string, ok bool) {
	for i := 0; i < len(tag); i++ {
		if tag[i] == '.' {
			return tag[:i], tag[i+1:], true
		}
	}
	return tag, "", false
}

// addMeasured keeps shard i's measured total of e's op and kind.
func (lm *logMerge) addMeasured(i int, e *measure.LogEntry) {
	m := lm.measured[i]
	if m == nil {
		m = map[string]*[measure.NumKinds]*histRef{}
		lm.measured[i] = m
	}
	hs := m[e.Op]
	if hs == nil {
		hs = new([measure.NumKinds]*histRef)
		m[e.Op] = hs
	}
	hs[e.Kind] = &histRef{h: e.Hist}
	hs[e.Kind].h.SetStartTimeMs(e.Start.UnixMilli())
	hs[e.Kind].h.SetEndTimeMs(e.End.UnixMilli())
}

// measuredWindow is a shard's measurement window, as its measured totals span it.
func measuredWindow(m map[string]*[measure.NumKinds]*histRef) (from, to time.Time) {
	for _, hs := range m {
		for _, h := range hs {
			if h != nil {
				return time.UnixMilli(h.h.StartTimeMs()), time.UnixMilli(h.h.EndTimeMs())
			}
		}
	}
	return
}

// writeTotals appends the merged measured totals over the common window and closes the log.
func (lm *logMerge) writeTotals(t *measure.Totals) error {
	if err := lm.w.WriteTotals(t, lm.from, lm.to); err != nil {
		return lm.fail(err)
	}
	if err := lm.bw.Flush(); err != nil {
		return lm.fail(err)
	}
	if err := lm.f.Close(); err != nil {
		return userr.Errorf("cannot write %s: %v", lm.f.Name(), err)
	}
	return nil
}

// fail closes the log after err and returns err.
func (lm *logMerge) fail(err error) error {
	lm.f.Close()
	return err
}

// stepWindows are an open-loop run's steps on the wall clock, from the shards' results: each step
// of the first shard's, from the latest shard's start of measurement (the common window's).
func stepWindows(shards []*Shard, ops int) []stepAcc {
	rr := shards[0].Result.Rate
	if rr == nil || len(rr.Steps) == 0 {
		return nil
	}
	var from time.Time
	for _, s := range shards {
		ms := s.Result.StartedAt.Add(time.Duration(s.Result.WarmupSeconds * float64(time.Second)))
		if c := s.Clock; c != nil && !c.MeasureStart.IsZero() {
			ms = c.MeasureStart
		}
		if ms.After(from) {
			from = ms
		}
	}
	out := make([]stepAcc, len(rr.Steps))
	for k, st := range rr.Steps {
		a := &out[k]
		a.from = from.Add(time.Duration(st.StartSeconds * float64(time.Second)))
		a.to = a.from.Add(time.Duration(st.Seconds * float64(time.Second)))
		a.hist = make([][measure.NumKinds]*hdr.Histogram, ops)
		for op := range a.hist {
			for k := range a.hist[op] {
				a.hist[op][k] = measure.NewHistogram()
			}
		}
	}
	return out
}

// stepOf is the step whose window holds the interval beginning at start (within half a tick), or nil.
func (lm *logMerge) stepOf(start time.Time, tick time.Duration) *stepAcc {
	for k := range lm.steps {
		st := &lm.steps[k]
		if !start.Before(st.from.Add(-tick/2)) && start.Before(st.to.Add(-tick/2)) {
			return st
		}
	}
	return nil
}
