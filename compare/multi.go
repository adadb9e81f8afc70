package compare

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
)

// Comparable says whether runs may be compared at all: every run of both sides of one workload. A
// kv run and a ycsb run have no operation in common; comparing them would print rows of "no data".
func Comparable(as, bs []*Run) error {
	all := append(append([]*Run(nil), as...), bs...)
	if len(all) == 0 {
		return nil
	}
	first := all[0]
	for _, r := range all[1:] {
		if r.Result.Workload != first.Result.Workload {
			return userr.Errorf("%s is a %s run and %s a %s run: compare puts runs of one workload side by side, so compare %s runs with %s runs",
				first.Dir, first.Result.Workload, r.Dir, r.Result.Workload, first.Result.Workload, first.Result.Workload)
		}
	}
	return nil
}

// CompareMany compares several runs of each side. With one run on each side it is Compare. With
// more, the runs of a side are taken as repeats of one setup and the noise is what differs
// between them, which a nightly job faces and one run's intervals do not show (the machine, the
// data's layout, the cache): each run's throughput over its window and each percentile of its
// window's histogram is one value; a side's figure is the mean of its runs' throughputs and the
// geometric mean of their percentiles, and the interval of the change is Welch's over the runs
// (on log values for percentiles). A side of one run borrows the other side's spread between
// runs (the same setup is assumed to vary alike).
func CompareMany(as, bs []*Run, o Options) *Comparison {
	if len(as) == 1 && len(bs) == 1 {
		return Compare(as[0], bs[0], o)
	}
	c := Compare(as[0], bs[0], o) // the conditions, the first runs' infos and the rows' shape
	c.Method.Throughput = "each run's count over its window; the mean of a side's runs; Welch interval on the difference, from the spread between runs"
	c.Method.Percentiles = "each run's window histogram; the geometric mean of a side's runs; Welch interval of log(B/A) from the spread between runs of each run's typical interval's value (the median over its measured intervals), or of its window's value when its intervals hold too few events"
	c.Method.Runs = fmt.Sprintf("%d against %d runs: noise between runs", len(as), len(bs))
	for _, r := range as {
		c.RunsA = append(c.RunsA, info(r))
	}
	for _, r := range bs {
		c.RunsB = append(c.RunsB, info(r))
	}
	level := o.Bootstrap.withDefaults().Level
	for i := range c.Types {
		t := &c.Types[i]
		var ra, rb []float64
		t.CountA, t.CountB = 0, 0
		for _, r := range as {
			ra = append(ra, r.PerMinute(t.Type))
			t.CountA += r.Total(t.Type, measure.Response).Total()
		}
		for _, r := range bs {
			rb = append(rb, r.PerMinute(t.Type))
			t.CountB += r.Total(t.Type, measure.Response).Total()
		}
		t.Throughput = betweenRuns("per_minute", "operations per minute (mean of the runs)", ra, rb, false, level)
		for k := range t.Percentiles {
			q := t.Percentiles[k].Bootstrap.Q
			var pa, pb []float64
			for _, r := range as {
				pa = append(pa, float64(ValueAt(r.Total(t.Type, o.Kind), q))/1000)
			}
			for _, r := range bs {
				pb = append(pb, float64(ValueAt(r.Total(t.Type, o.Kind), q))/1000)
			}
			row := betweenRuns(MetricName(q), "ms (geometric mean of the runs)", pa, pb, true, level)
			// The interval from each run's typical interval (see typicalValue), when every run has one.
			ta, okA := typicalValues(as, t.Type, o.Kind, q)
			tb, okB := typicalValues(bs, t.Type, o.Kind, q)
			if okA && okB && row.Verdict != NoData && row.Verdict != TooFewRepeats {
				typ := betweenRuns(MetricName(q), "", ta, tb, true, level)
				row.Low, row.High, row.Significant, row.Verdict = typ.Low, typ.High, typ.Significant, typ.Verdict
				row.Method = MethodTypical
				disagree(&row)
			}
			t.Percentiles[k] = row
		}
	}
	applyMinChange(c, o.MinChange)
	return c
}

// betweenRuns compares one figure of several runs per side (see CompareMany); logs for percentiles.
func betweenRuns(metric, unit string, a, b []float64, logs bool, level float64) Row {
	tr := func(xs []float64) ([]float64, bool) {
		out := make([]float64, len(xs))
		for i, x := range xs {
			if logs {
				if x <= 0 {
					return nil, false
				}
				x = math.Log(x)
			}
			out[i] = x
		}
		return out, true
	}
	row := Row{Metric: metric, Unit: unit}
	la, okA := tr(a)
	lb, okB := tr(b)
	if !okA || !okB {
		row.Verdict = NoData
		return row
	}
	sa, sb := independent(la), independent(lb)
	back := func(m float64) float64 {
		if logs {
			return math.Exp(m)
		}
		return m
	}
	row.A, row.B, row.SeriesA, row.SeriesB = back(sa.Mean), back(sb.Mean), &sa, &sb
	if row.A == 0 && row.B == 0 {
		row.Verdict = NoData
		return row
	}
	switch { // a side of one run borrows the other's spread
	case sa.N < 2 && sb.N >= 2:
		sa.SD, sa.SE, sa.NEff = sb.SD, sb.SD, sb.NEff
	case sb.N < 2 && sa.N >= 2:
		sb.SD, sb.SE, sb.NEff = sa.SD, sa.SD, sa.NEff
	}
	if sa.N < 2 && sb.N < 2 {
		row.Verdict = TooFewRepeats
		setChange(&row, row.A, row.B)
		return row
	}
	d := Welch(sa, sb, level)
	if logs {
		row.Change, row.Low, row.High = ptr(math.Exp(d.Estimate)-1), ptr(math.Exp(d.Low)-1), ptr(math.Exp(d.High)-1)
	} else if row.A > 0 {
		row.Change, row.Low, row.High = ptr(d.Estimate/row.A), ptr(d.Low/row.A), ptr(d.High/row.A)
	}
	row.Significant = d.Excludes(0)
	row.Verdict = verdict(row.Significant)
	return row
}

// MethodTypical is a percentile row of several runs per side judged on each run's typical interval.
const MethodTypical = "runs' typical intervals"

// typicalValue is a run's value at q in its typical measured interval: the median over the measured
// intervals of each one's value at q (milliseconds). A run's window percentile rests on its worst
// intervals (a busy host's few seconds move a p99 by tens of percent from one run to the next);
// the typical interval's does not, so the spread between runs shrinks to what the setup does. ok
// is false when the typical interval holds fewer than ShiftMinTail events beyond q (then the
// intervals' values are their largest) or the run has fewer than two measured intervals.
func typicalValue(r *Run, op string, k measure.Kind, q float64) (float64, bool) {
	hs := r.Hists(op, k)
	if len(hs) < 2 || float64(medianCount(hs))*(1-q) < ShiftMinTail {
		return 0, false
	}
	var v []float64
	for _, h := range hs {
		if x := ValueAt(h, q); x > 0 {
			v = append(v, float64(x))
		}
	}
	if len(v) == 0 {
		return 0, false
	}
	slices.Sort(v)
	return quantileSorted(v, 0.5) / 1000, true
}

// typicalValues is typicalValue of every run; ok only when each has one.
func typicalValues(rs []*Run, op string, k measure.Kind, q float64) ([]float64, bool) {
	var out []float64
	for _, r := range rs {
		v, ok := typicalValue(r, op, k, q)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// independent summarizes values taken as independent (runs, not intervals of one run).
func independent(xs []float64) Series {
	s := Summarize(xs)
	s.R1, s.NEff = 0, float64(s.N)
	if s.N > 0 {
		s.SE = s.SD / math.Sqrt(s.NEff)
	}
	return s
}

// Dirs names runs for messages.
func Dirs(rs []*Run) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Dir)
	}
	return strings.Join(out, ", ")
}

// LoadSide loads the runs of one side. With many (runs around --), a directory that is no run but
// whose subdirectories are runs stands for those runs.
func LoadSide(dirs []string, many bool) ([]*Run, error) {
	var out []*Run
	for _, d := range dirs {
		if many {
			if _, err := os.Stat(filepath.Join(d, report.ResultFile)); err != nil {
				if subs := subRuns(d); len(subs) > 0 {
					for _, s := range subs {
						r, err := Load(filepath.Join(d, s))
						if err != nil {
							return nil, err
						}
						out = append(out, r)
					}
					continue
				}
			}
		}
		r, err := Load(d)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
