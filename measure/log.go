package measure

import (
	"fmt"
	"io"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// LogWriter writes intervals in the standard HdrHistogram interval log format (version 1.3, V2
// compressed histograms), readable by HistogramLogProcessor and the other public tools.
//
// Each histogram line is tagged "<op>.<kind>" (for example "new_order.response"). Values are
// microseconds; the Interval_Max column is the library's value/1e6, so it reads in seconds
// (HistogramLogProcessor: pass -outputValueUnitRatio 1000 to print milliseconds). Timestamps are
// seconds relative to the BaseTime header, which is the run start truncated to a whole second
// (the header only holds whole seconds).
type LogWriter struct {
	lw *hdr.HistogramLogWriter
}

// NewLogWriter writes the log header: the comment (one "#" line per line of it), the format
// version, StartTime (start), BaseTime and the legend.
func NewLogWriter(w io.Writer, start time.Time, comment string) (*LogWriter, error) {
	lw := hdr.NewHistogramLogWriter(w)
	base := start.Unix() * 1000
	lw.SetBaseTime(base)
	if comment != "" {
		for line := range strings.Lines(comment) {
			if err := lw.OutputComment(strings.TrimRight(line, "\r\n")); err != nil {
				return nil, err
			}
		}
	}
	for _, step := range []func() error{
		lw.OutputLogFormatVersion,
		func() error { return lw.OutputStartTime(start.UnixMilli()) },
		func() error { return lw.OutputBaseTime(base) },
		lw.OutputLegend,
	} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return &LogWriter{lw: lw}, nil
}

// Write appends the interval's histograms: every op's Response histogram (even when empty: an
// interval in which nothing completed is itself a finding) and every other non-empty histogram.
func (l *LogWriter) Write(iv *Interval) error {
	for op := range iv.Hist {
		for k, h := range iv.Hist[op] {
			if h.TotalCount() == 0 && Kind(k) != Response {
				continue
			}
			if err := l.lw.OutputIntervalHistogram(h); err != nil {
				return fmt.Errorf("measure: writing interval log: %w", err)
			}
		}
	}
	return nil
}

// MeasuredTagPrefix starts the tags WriteTotals uses ("measured.new_order.response").
const MeasuredTagPrefix = "measured."

// WriteTotals appends the run's measured totals as one histogram per op and kind spanning
// [start, end), tagged MeasuredTagPrefix+"<op>.<kind>", so a report can be re-rendered exactly from
// the log alone (interval histograms at the window's edges also hold warm-up events). Empty
// histograms are skipped. It does not modify t.
func (l *LogWriter) WriteTotals(t *Totals, start, end time.Time) error {
	for op := range t.Hist {
		for k, h := range t.Hist[op] {
			if h.TotalCount() == 0 {
				continue
			}
			c := h.Clone()
			c.SetTag(MeasuredTagPrefix + t.Ops[op] + "." + Kind(k).String())
			c.SetStartTimeMs(start.UnixMilli())
			c.SetEndTimeMs(end.UnixMilli())
			if err := l.lw.OutputIntervalHistogram(c); err != nil {
				return fmt.Errorf("measure: writing interval log: %w", err)
			}
		}
	}
	return nil
}

// LogEntry is one histogram read back from an interval log.
type LogEntry struct {
	Tag string
	// Op and Kind come from a tag "<op>.<kind>" (or MeasuredTagPrefix+"<op>.<kind>", then Measured is
	// true); for any other tag Op is "" and Kind is -1.
	Op       string
	Kind     Kind
	Measured bool
	// Start and End are absolute; the log's 6-decimal seconds make them exact to about 1 ms.
	Start, End time.Time
	Hist       *hdr.Histogram
}

// ReadLog reads every histogram of an interval log (ours or any standard one) in file order.
func ReadLog(r io.Reader) ([]LogEntry, error) {
	var out []LogEntry
	err := ScanLog(r, func(e LogEntry) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

// ScanLog calls fn with each histogram of an interval log in file order, holding one at a time
// (a decoded histogram of the one geometry takes about 184 KiB, so a long run's log does not fit
// in memory at once). It stops at the first error, fn's included.
func ScanLog(r io.Reader, fn func(LogEntry) error) error {
	rd := hdr.NewHistogramLogReader(r)
	for n := 0; ; n++ {
		h, err := rd.NextIntervalHistogram()
		if err != nil {
			return fmt.Errorf("measure: reading interval log (after %d histograms): %w", n, err)
		}
		if h == nil {
			return nil
		}
		e := LogEntry{
			Tag:   h.Tag(),
			Kind:  -1,
			Start: time.UnixMilli(h.StartTimeMs()),
			End:   time.UnixMilli(h.EndTimeMs()),
			Hist:  h,
		}
		tag, measured := strings.CutPrefix(e.Tag, MeasuredTagPrefix)
		if op, kind, ok := strings.Cut(tag, "."); ok && op != "" {
			if k, ok := ParseKind(kind); ok {
				e.Op, e.Kind, e.Measured = op, k, measured
			}
		}
		if err := fn(e); err != nil {
			return err
		}
	}
}

// WriteHist appends one histogram as it is (its tag, start and end time already set): for a log
// made from other logs (candor merge), whose intervals are sums of theirs.
func (l *LogWriter) WriteHist(h *hdr.Histogram) error {
	if err := l.lw.OutputIntervalHistogram(h); err != nil {
		return fmt.Errorf("measure: writing interval log: %w", err)
	}
	return nil
}
