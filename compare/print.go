package compare

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Print writes c for people: the two runs, the method, the conditions that differ, then one block
// per operation type with throughput and percentiles side by side.
func Print(w io.Writer, c *Comparison) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("\ncandor compare\n==============\n")
	sides := []struct {
		name string
		runs []RunInfo
	}{{"A", c.RunsA}, {"B", c.RunsB}}
	if len(c.RunsA) == 0 && len(c.RunsB) == 0 {
		sides[0].runs, sides[1].runs = []RunInfo{c.A}, []RunInfo{c.B}
	}
	for _, side := range sides {
		for _, info := range side.runs {
			partial := ""
			if info.Partial {
				partial = " · PARTIAL"
			}
			p("%s  %s · mode %s · started %s · %d measured intervals of %.1f s (%d outside the window left out)%s\n",
				side.name, info.Dir, info.Mode, info.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC"),
				info.Intervals, info.IntervalSeconds, info.Excluded, partial)
		}
	}
	m := c.Method
	p("latency: %s time in ms · change is B against A · %.0f%% intervals\n", c.Kind, 100*m.Level)
	if m.Runs != "" {
		p("%s\nthroughput: %s\npercentiles: %s\n", m.Runs, m.Throughput, m.Percentiles)
	} else {
		p("throughput: the window's count over its length; standard error from the measured intervals' rates, corrected for autocorrelation (n_eff = n(1-r1)/(1+r1)), Welch interval of the difference\n")
		p("percentiles: the window's histogram; interval from the measured intervals' own values (Hodges-Lehmann shift of their logs, Mann-Whitney interval widened for autocorrelation), or, where an interval holds too few events beyond the percentile, a bootstrap over whole intervals (%d resamples, seed %d)\n",
			m.Resamples, m.Seed)
	}
	if m.MinChange > 0 {
		p("significant only when the interval excludes no change and the change is at least ±%g%% (--min-change); fewer than %d measured intervals in a run: too few intervals\n", 100*m.MinChange, m.MinIntervals)
	} else {
		p("significant only when the interval excludes no change; fewer than %d measured intervals in a run: too few intervals\n", m.MinIntervals)
	}
	if hasRepeats(c) {
		p("repeats (N×M s): each run's timings of the operation, one per repeat; geometric means, Welch interval of log(B/A) over the repeats taken as independent; fewer than 2 in a run: too few repeats\n")
	}

	var shown []Difference
	minor := 0
	for _, d := range c.Conditions {
		if d.Minor {
			minor++
			continue
		}
		shown = append(shown, d)
	}
	if len(shown) > 0 {
		p("\nconditions that differ (the comparison may be apples to oranges):\n")
		wn, wa := 0, 0
		for _, d := range shown {
			wn, wa = max(wn, len(d.Name)), max(wa, len(d.ShownA))
		}
		wa = min(wa, 48)
		for _, d := range shown {
			p("  %-*s  A %-*s  B %s\n", wn, d.Name, wa, d.ShownA, d.ShownB)
		}
	} else {
		p("\nconditions: the same in both runs (apart from the results directory)\n")
	}
	if minor > 0 {
		p("  (%d more differ only past the rounding shown: --json lists them)\n", minor)
	}

	p("\n%-18s %-9s %11s %11s %8s  %-19s  %s\n", "operation", "metric", "A", "B", "change", "interval of change", "verdict")
	var idle []string // operations neither run completed (outside the mix): named once, no rows
	for _, t := range c.Types {
		if t.Repeats == nil && t.Throughput.A == 0 && t.Throughput.B == 0 {
			idle = append(idle, t.Type)
			continue
		}
		rows := append([]Row{t.Throughput}, t.Percentiles...)
		if t.Repeats != nil {
			rows = append(rows, *t.Repeats)
		}
		for i, r := range rows {
			name := ""
			if i == 0 {
				name = t.Type
			}
			metric := r.Metric
			a, b := fmtMs(r.A), fmtMs(r.B)
			switch r.Metric {
			case "per_minute":
				metric = "per min"
				a, b = fmt.Sprintf("%.1f", r.A), fmt.Sprintf("%.1f", r.B)
			case "repeats":
				metric = fmt.Sprintf("%d×%d", r.SeriesA.N, r.SeriesB.N) + " s"
				a, b = fmt.Sprintf("%.4f", r.A), fmt.Sprintf("%.4f", r.B)
			default:
				metric += " ms"
			}
			ci := ""
			if r.Low != nil && r.High != nil {
				ci = "[" + pct(*r.Low) + ", " + pct(*r.High) + "]"
			}
			change := "-"
			if r.Change != nil {
				change = pct(*r.Change)
			}
			p("%-18s %-9s %11s %11s %8s  %-19s  %s\n", name, metric, a, b, change, ci, r.Verdict)
		}
	}
	if len(idle) > 0 {
		p("%s: none completed in either run\n", strings.Join(idle, ", "))
	}
	p("\n")
}

// pct prints a relative change in percent: one decimal, two for changes under 0.1% that are not
// zero (so a significant +0.02% does not read +0.0%), and ">+1000%" above a tenfold change.
func pct(v float64) string {
	p := 100 * v
	if math.Abs(p) < 1e-9 { // floating-point dust around no change
		p = 0
	}
	switch {
	case p > 1000:
		return ">+1000%"
	case p != 0 && p > -0.1 && p < 0.1:
		return fmt.Sprintf("%+.2f%%", p)
	default:
		return fmt.Sprintf("%+.1f%%", p)
	}
}

func fmtMs(ms float64) string {
	switch {
	case ms == 0:
		return "-"
	case ms < 1:
		return fmt.Sprintf("%.3f", ms)
	case ms < 10:
		return fmt.Sprintf("%.2f", ms)
	case ms < 100:
		return fmt.Sprintf("%.1f", ms)
	}
	return fmt.Sprintf("%.0f", ms)
}

func trimFloat(v float64) string {
	return strings.TrimRight(strings.TrimRight(strconv.FormatFloat(v, 'f', 6, 64), "0"), ".")
}

// hasRepeats says whether any operation has a repeats row.
func hasRepeats(c *Comparison) bool {
	for _, t := range c.Types {
		if t.Repeats != nil {
			return true
		}
	}
	return false
}
