// Package compare puts two saved runs side by side, per operation type, and says whether each
// difference is larger than the noise. Everything is computed from the interval data of each run's
// HdrHistogram log (only the intervals inside its measurement window):
//
//   - Throughput: the mean of the per-interval rates, with a standard error corrected for
//     autocorrelation (effective sample size from the lag-1 autocorrelation, see Series), and a
//     Welch confidence interval on the difference of the means.
//   - Percentiles: the window's histograms; the interval of the change from the measured
//     intervals' own values at the percentile (a Hodges-Lehmann shift with Mann-Whitney's
//     interval, widened for autocorrelation), or, where an interval holds too few events for its
//     own value, a bootstrap over whole intervals (see ComparePercentiles). Deterministic for a
//     given seed.
//
// A difference is "significant" only when its 95% interval excludes no change; otherwise it is
// noise. With fewer than MinIntervals measured intervals in either run nothing is judged.
package compare

import (
	"fmt"
	"math"
	"time"

	"github.com/candor-bench/candor/measure"
)

// Verdicts.
const (
	Significant    = "significant"
	NotSignificant = "not significant (noise)"
	TooFew         = "too few intervals"
	// TooFewRepeats is a repeats row with fewer than two repeats in a run.
	TooFewRepeats = "too few repeats"
	NoData        = "no data"
	// BelowMinChange is the verdict of an interval that excludes no change around a change smaller
	// than Options.MinChange (a format of the limit in percent).
	BelowMinChange = "not significant (within ±%g%%, --min-change)"
)

// DefaultMinIntervals is the fewest measured intervals per run that compare judges.
const DefaultMinIntervals = 5

// Quantiles are the percentiles compared.
var Quantiles = []float64{0.50, 0.90, 0.99, 0.999}

// Options configures Compare. The zero value means the defaults.
type Options struct {
	// Kind is the latency compared (default measure.Response).
	Kind      measure.Kind
	Bootstrap Bootstrap
	// MinIntervals (default DefaultMinIntervals).
	MinIntervals int
	// MinChange is the least relative change called significant (0.05: a change within ±5% never
	// is, however narrow its interval); 0 for none. The CLI's default is DefaultMinChange.
	MinChange float64
}

// DefaultMinChange is `candor compare`'s --min-change: between two runs made one after the other
// on a shared host, the host's drift moved throughput and percentiles by a few percent, which no
// run's own intervals show (docs/compare.md, measured).
const DefaultMinChange = 0.05

// Comparison is the whole output of `candor compare`, also its --json form.
type Comparison struct {
	A          RunInfo          `json:"a"`
	B          RunInfo          `json:"b"`
	Kind       string           `json:"kind"`
	Method     Method           `json:"method"`
	Conditions []Difference     `json:"conditions_differ"`
	Types      []TypeComparison `json:"types"`
	// RunsA and RunsB list every run of each side when a side has several (CompareMany).
	RunsA []RunInfo `json:"runs_a,omitempty"`
	RunsB []RunInfo `json:"runs_b,omitempty"`
	// Verdicts are the --fail-on rules judged (Judge), Failed whether any was breached.
	Verdicts []Verdict `json:"verdicts,omitempty"`
	Failed   bool      `json:"failed"`
}

// RunInfo describes one of the runs compared.
type RunInfo struct {
	Dir       string    `json:"dir"`
	Mode      string    `json:"mode"`
	StartedAt time.Time `json:"started_at"`
	// Intervals is the number of measured intervals used, IntervalSeconds their median length and
	// Excluded the intervals outside the window (warm-up, drain, straddling an edge).
	Intervals       int     `json:"intervals"`
	MeasureSeconds  float64 `json:"measure_seconds"`
	IntervalSeconds float64 `json:"interval_seconds"`
	Excluded        int     `json:"excluded_intervals"`
	WindowSource    string  `json:"window_source"`
	Partial         bool    `json:"partial"`
}

// Method says how the figures were computed.
type Method struct {
	Level        float64 `json:"level"`
	Throughput   string  `json:"throughput"`
	Percentiles  string  `json:"percentiles"`
	Resamples    int     `json:"resamples"`
	Seed         uint64  `json:"seed"`
	MinIntervals int     `json:"min_intervals"`
	// Runs says how several runs per side were compared ("" for one against one).
	Runs string `json:"runs,omitempty"`
	// MinChange is Options.MinChange.
	MinChange float64 `json:"min_change"`
}

// TypeComparison is one operation type: throughput, then each percentile.
type TypeComparison struct {
	Type       string `json:"type"`
	Throughput Row    `json:"throughput"`
	// CountA and CountB are the operations each run completed in its window (`candor report`'s
	// count).
	CountA      int64 `json:"count_a"`
	CountB      int64 `json:"count_b"`
	Percentiles []Row `json:"percentiles"`
	// Repeats compares the operation's timings per repeat (report.Result.Repeats), when either
	// run has them: the judgement for an operation run a few times each.
	Repeats *Row `json:"repeats,omitempty"`
}

// Row is one figure of both runs. Change, Low and High are relative (0.05 = +5%) and absent when
// A is zero; Significant is true only for the verdict "significant".
type Row struct {
	Metric      string   `json:"metric"`
	Unit        string   `json:"unit"`
	A           float64  `json:"a"`
	B           float64  `json:"b"`
	Change      *float64 `json:"change"`
	Low         *float64 `json:"change_low"`
	High        *float64 `json:"change_high"`
	Verdict     string   `json:"verdict"`
	Significant bool     `json:"significant"`
	// SeriesA and SeriesB detail the throughput's per-interval series (per minute).
	SeriesA *Series `json:"a_series,omitempty"`
	SeriesB *Series `json:"b_series,omitempty"`
	// Bootstrap details a percentile's interval.
	Bootstrap *PercentileRatio `json:"bootstrap,omitempty"`
	// Method is how a percentile's interval was found (MethodShift, MethodBootstrap,
	// MethodTypical, or empty for the spread between runs' window percentiles).
	Method string `json:"method,omitempty"`
}

// MetricName names a quantile as the reports do: p50, p90, p99, p99.9.
func MetricName(q float64) string {
	switch q {
	case 0.5:
		return "p50"
	case 0.9:
		return "p90"
	case 0.95:
		return "p95"
	case 0.99:
		return "p99"
	case 0.999:
		return "p99.9"
	case 0.9999:
		return "p99.99"
	}
	return "q" + trimFloat(q)
}

// Compare puts runs a and b side by side.
func Compare(a, b *Run, o Options) *Comparison {
	if o.MinIntervals <= 0 {
		o.MinIntervals = DefaultMinIntervals
	}
	bs := o.Bootstrap.withDefaults()
	c := &Comparison{
		A: info(a), B: info(b), Kind: o.Kind.String(),
		Method: Method{
			Level:        bs.Level,
			Throughput:   "the window's count over its length (as the report); standard error from the measured intervals' rates weighted by their length, with the effective sample size n(1-r1)/(1+r1) from the lag-1 autocorrelation r1; Welch interval on the difference",
			Percentiles:  "the window's histogram (as the report); interval from the measured intervals' own values at the percentile (when the typical interval holds an event beyond it): Hodges-Lehmann shift of their logs, Mann-Whitney interval widened by n/n_eff from the lag-1 autocorrelation; otherwise a bootstrap over whole measured intervals, resampled histograms merged bucket by bucket, standard error of log(percentile) corrected with n_eff, Welch interval of log(B/A)",
			Resamples:    bs.Resamples,
			Seed:         bs.Seed,
			MinIntervals: o.MinIntervals,
			MinChange:    o.MinChange,
		},
		Conditions: Conditions(a.raw, b.raw),
	}
	if c.Conditions == nil {
		c.Conditions = []Difference{}
	}
	tooFew := len(a.Seconds) < o.MinIntervals || len(b.Seconds) < o.MinIntervals
	for _, op := range unionOps(a.Ops, b.Ops) {
		sa := RateSeries(a.PerMinute(op), a.Counts(op), a.Seconds)
		sb := RateSeries(b.PerMinute(op), b.Counts(op), b.Seconds)
		tc := TypeComparison{Type: op, Throughput: throughputRow(sa, sb, bs.Level, tooFew),
			CountA: a.Total(op, measure.Response).Total(), CountB: b.Total(op, measure.Response).Total()}
		for _, pr := range ComparePercentiles(Sides{a.Total(op, o.Kind), a.Hists(op, o.Kind)}, Sides{b.Total(op, o.Kind), b.Hists(op, o.Kind)}, Quantiles, bs) {
			tc.Percentiles = append(tc.Percentiles, percentileRow(pr, tooFew))
		}
		ra, rb := a.Result.Repeats[op], b.Result.Repeats[op]
		if len(ra) > 0 || len(rb) > 0 {
			row := RepeatsRow(ra, rb, bs.Level)
			tc.Repeats = &row
		}
		c.Types = append(c.Types, tc)
	}
	applyMinChange(c, o.MinChange)
	return c
}

// applyMinChange makes every significant row whose change is within ±min not significant, with a
// verdict saying so.
func applyMinChange(c *Comparison, min float64) {
	if min <= 0 {
		return
	}
	guard := func(row *Row) {
		if row.Significant && row.Change != nil && math.Abs(*row.Change) < min {
			row.Significant = false
			row.Verdict = fmt.Sprintf(BelowMinChange, 100*min)
		}
	}
	for i := range c.Types {
		t := &c.Types[i]
		guard(&t.Throughput)
		for k := range t.Percentiles {
			guard(&t.Percentiles[k])
		}
		if t.Repeats != nil {
			guard(t.Repeats)
		}
	}
}

func info(r *Run) RunInfo {
	return RunInfo{
		Dir: r.Dir, Mode: r.Result.Mode, StartedAt: r.Result.StartedAt, Intervals: len(r.Seconds),
		MeasureSeconds: r.MeasureSeconds, IntervalSeconds: r.IntervalSeconds(), Excluded: r.Excluded, WindowSource: r.WindowSource,
		Partial: r.Result.Partial,
	}
}

func unionOps(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, op := range b {
		found := false
		for _, x := range out {
			found = found || x == op
		}
		if !found {
			out = append(out, op)
		}
	}
	return out
}

// throughputRow compares two runs' rates (per minute) over their windows.
func throughputRow(sa, sb Series, level float64, tooFew bool) Row {
	row := Row{Metric: "per_minute", Unit: "operations per minute", A: sa.Mean, B: sb.Mean, SeriesA: &sa, SeriesB: &sb}
	switch {
	case tooFew:
		row.Verdict = TooFew
		setChange(&row, sa.Mean, sb.Mean)
		return row
	case sa.Mean == 0 && sb.Mean == 0:
		row.Verdict = NoData
		return row
	}
	d := Welch(sa, sb, level)
	if sa.Mean > 0 {
		row.Change, row.Low, row.High = ptr(d.Estimate/sa.Mean), ptr(d.Low/sa.Mean), ptr(d.High/sa.Mean)
	}
	row.Significant = d.Excludes(0)
	row.Verdict = verdict(row.Significant)
	return row
}

func percentileRow(pr PercentileRatio, tooFew bool) Row {
	row := Row{Metric: MetricName(pr.Q), Unit: "ms", A: float64(pr.A) / 1000, B: float64(pr.B) / 1000, Bootstrap: &pr, Method: pr.Method}
	switch {
	case pr.A == 0 || pr.B == 0:
		row.Verdict = NoData
		setChange(&row, row.A, row.B)
		return row
	case tooFew:
		row.Verdict = TooFew
		setChange(&row, row.A, row.B)
		return row
	case !pr.Valid:
		row.Verdict = NoData
		setChange(&row, row.A, row.B)
		return row
	}
	row.Change = ptr(pr.Ratio.Estimate - 1)
	row.Low, row.High = ptr(pr.Ratio.Low-1), ptr(pr.Ratio.High-1)
	row.Significant = pr.Ratio.Excludes(1)
	row.Verdict = verdict(row.Significant)
	disagree(&row)
	return row
}

// Disagree is the verdict of a percentile whose interval, from the intervals' own values, lies on
// the other side of no change than the windows' change: the typical interval moved one way, the
// window's tail (its worst intervals) the other.
const Disagree = "not significant (the window's change and the intervals' disagree)"

// disagree makes a significant row whose change lies on the other side of 0 than its interval not
// significant: the change shown is the windows' and the interval the intervals' own values', so
// they can disagree, and a gate must not act on a fall the intervals call a rise.
func disagree(row *Row) {
	if !row.Significant || row.Change == nil || row.Low == nil || row.High == nil {
		return
	}
	if (*row.Low > 0 && *row.Change <= 0) || (*row.High < 0 && *row.Change >= 0) {
		row.Significant = false
		row.Verdict = Disagree
	}
}

// RepeatsRow compares two runs' timings of one operation, one per repeat (seconds): the geometric
// means, and the change's interval by Welch's t on the logs of the timings (each repeat taken as
// independent, no autocorrelation correction: repeats are whole runs of a sequence, not
// intervals of one). Fewer than two repeats in a run: TooFewRepeats.
func RepeatsRow(a, b []float64, level float64) Row {
	la, lb := logs(a), logs(b)
	sa, sb := Summarize(la), Summarize(lb)
	sa.R1, sb.R1, sa.NEff, sb.NEff = 0, 0, float64(sa.N), float64(sb.N)
	if sa.N > 0 {
		sa.SE = sa.SD / math.Sqrt(sa.NEff)
	}
	if sb.N > 0 {
		sb.SE = sb.SD / math.Sqrt(sb.NEff)
	}
	row := Row{Metric: "repeats", Unit: "s (geometric mean of the repeats)", SeriesA: &sa, SeriesB: &sb}
	if sa.N > 0 {
		row.A = math.Exp(sa.Mean)
	}
	if sb.N > 0 {
		row.B = math.Exp(sb.Mean)
	}
	switch {
	case sa.N == 0 || sb.N == 0:
		row.Verdict = NoData
		return row
	case sa.N < 2 || sb.N < 2:
		row.Verdict = TooFewRepeats
		setChange(&row, row.A, row.B)
		return row
	}
	d := Welch(sa, sb, level)
	row.Change, row.Low, row.High = ptr(math.Exp(d.Estimate)-1), ptr(math.Exp(d.Low)-1), ptr(math.Exp(d.High)-1)
	row.Significant = d.Excludes(0)
	row.Verdict = verdict(row.Significant)
	return row
}

// logs is the natural logarithm of each positive x (others are left out).
func logs(xs []float64) []float64 {
	var out []float64
	for _, x := range xs {
		if x > 0 {
			out = append(out, math.Log(x))
		}
	}
	return out
}

func setChange(row *Row, a, b float64) {
	if a > 0 {
		row.Change = ptr(b/a - 1)
	}
}

func verdict(sig bool) string {
	if sig {
		return Significant
	}
	return NotSignificant
}

func ptr(v float64) *float64 { return &v }
