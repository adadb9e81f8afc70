package report

import (
	"fmt"
	"io"
	"strings"
)

// Summary prints the end-of-run summary of r: the conditions first, then the headline figures, the
// percentile spectrum per operation (response and service time side by side), the verdicts, the
// workload's own sections, the consistency checks and every warning. It reads only the envelope,
// so it prints any workload's result.
func Summary(w io.Writer, r *Result) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	title := "candor " + r.Workload
	if r.Partial {
		title += " — PARTIAL RESULT: " + r.PartialReason
	}
	p("\n%s\n%s\n", title, strings.Repeat("=", len([]rune(title))))
	p("%s\n", r.Disclaimer)
	setup := ""
	if r.Setup != "" {
		setup = r.Setup + " · "
	}
	p("mode %s · %s%s · %s · isolation %s · seed %d\n",
		r.Mode, setup, countS(int64(r.Terminals), "terminal"), countS(int64(r.Connections), "connection"), r.Isolation, r.Seed)
	p("database %s (%s) · %s\n", r.Database.Version, r.Database.Kind, r.Database.URL)
	printShard(w, r)
	printEngineNotes(w, r)
	whose := "driver CPU"
	if r.Database.Kind == "sqlite" {
		whose = "CPU of the driver and the embedded SQLite together"
	}
	p("measured %.1f s after %.1f s of warm-up · driver %s, %d CPUs, %.0f µs of %s%s per operation · %s %s\n",
		r.MeasureSeconds, r.WarmupSeconds, r.Driver.Hostname, r.Driver.CPUs, r.Driver.CPUMicrosPerTx, whose, RoundTripsPhrase(r), r.Tool.Name, r.Tool.Version)

	PrintFailures(w, r) // failures.go: on the first screen, before any figure
	PrintBudgets(w, r)  // slo.go: --slo's verdicts
	if len(r.Headline) > 0 {
		var figs []string
		for _, f := range r.Headline {
			figs = append(figs, FigureText(f))
		}
		p("\n%s\n", strings.Join(figs, "   "))
	}
	printOps(w, r)
	printRate(w, r) // rate.go

	if len(r.Verdicts) > 0 {
		p("\nverdicts:\n")
		for _, v := range r.Verdicts {
			if v.Unfinished {
				p("  %-7s %-52s %10s    (limit %s ms, %s)\n", v.Status, v.Rule, "unfinished", ms(v.LimitMs), countS(int64(v.Samples), "sample"))
				continue
			}
			p("  %-7s %-52s %10s ms (limit %s ms, %s)\n", v.Status, v.Rule, ms(v.ValueMs), ms(v.LimitMs), countS(int64(v.Samples), "sample"))
		}
	}
	for _, s := range r.Sections {
		PrintSection(w, s)
	}
	PrintChecks(w, r)
	printDisclosure(w, r)
	if len(r.Warnings) > 0 {
		p("\nwarnings (conditions that make these numbers misleading):\n")
		for _, wr := range r.Warnings {
			p("  [%s] %s\n", wr.Code, wr.Message)
		}
	}
	p("\n")
}

// FigureText is a headline figure in words: "tpmC 1234.5 new-orders per minute", "efficiency 45.1%
// of the 12.86 x W spec ceiling", "throughput 5012.3 operations per second"; a figure that breaks
// a rule ends in "(!)".
func FigureText(f Figure) string {
	s := f.Name + " " + figureValue(f.Value)
	switch f.Unit {
	case "":
	case "%":
		s += "%"
	default:
		s += " " + f.Unit
	}
	if f.Note != "" {
		s += " " + f.Note
	}
	if f.Bad {
		s += " (!)"
	}
	if f.NotQualified != "" {
		s = f.Name + " NOT QUALIFIED (" + f.NotQualified + "): " + strings.TrimPrefix(s, f.Name+" ")
	}
	return s
}

// figureValue writes a headline value with one decimal, or three significant figures below 1.
func figureValue(v float64) string {
	if v != 0 && v > -1 && v < 1 {
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// printOps prints the table of the operations: counts, rates, and the response and service time
// mean and percentiles of each, in the workload's order. Operations that did not run at all (outside
// the run's mix) get no row of zeros: one line names them.
func printOps(w io.Writer, r *Result) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	ops := r.Ops()
	if len(ops) == 0 {
		return
	}
	nw := 13
	for _, op := range ops {
		nw = max(nw, len(op))
	}
	p("\n%-*s %9s %6s %6s %6s %9s %8s │ %s │ %s\n", nw, "", "", "", "", "", "", "", center("response time, ms (from intended start)", 63), center("service time, ms", 39))
	p("%-*s %9s %6s %6s %6s %9s %8s │ %7s %7s %7s %7s %7s %7s %7s %7s │ %7s %7s %7s %7s %7s\n",
		nw, "operation", "count", "errors", "retry", "rollbk", "per min", "per s",
		"mean", "p50", "p90", "p95", "p99", "p99.9", "p99.99", "max", "mean", "p50", "p99", "p99.9", "max")
	var incomplete, overflow int64
	var parts, none []string
	for _, name := range ops {
		t := r.Operations[name]
		if t == nil {
			continue
		}
		if t.Idle() {
			none = append(none, name)
			continue
		}
		rs, sv := t.ResponseMs, t.ServiceMs
		p("%-*s %9d %6d %6d %6d %9.1f %8.1f │ %7s %7s %7s %7s %7s %7s %7s %7s │ %7s %7s %7s %7s %7s\n",
			nw, name, t.Count, t.Errors, t.Retries, t.Rollbacks, t.PerMinute, t.PerMinute/60,
			ms(rs.Mean), ms(rs.P50), ms(rs.P90), ms(rs.P95), ms(rs.P99), ms(rs.P999), ms(rs.P9999), ms(rs.Max),
			ms(sv.Mean), ms(sv.P50), ms(sv.P99), ms(sv.P999), ms(sv.Max))
		incomplete += t.Incomplete
		overflow += t.Overflow
		if t.PartOf != "" {
			parts = append(parts, name)
		}
	}
	if len(none) > 0 {
		p("  %s: none recorded in this run\n", strings.Join(none, ", "))
	}
	for _, s := range partLines(r, parts) {
		p("  %s\n", s)
	}
	if incomplete > 0 {
		p("  %s started in the window did not finish within the grace period (counted as incomplete)\n", countS(incomplete, "operation"))
	}
	if overflow > 0 {
		p("  %s the histogram range and were counted at its highest value\n", Count(overflow, "latency exceeded", "latencies exceeded"))
	}
}

// partLines say which operations are parts of others, one line per whole operation and note:
// "a, b are parts of tx (note), not counted again among all operations".
func partLines(r *Result, parts []string) []string {
	type key struct{ of, note string }
	var order []key
	names := map[key][]string{}
	for _, name := range parts {
		t := r.Operations[name]
		k := key{t.PartOf, PartNote(t)}
		if _, ok := names[k]; !ok {
			order = append(order, k)
		}
		names[k] = append(names[k], name)
	}
	var out []string
	for _, k := range order {
		n := names[k]
		verb := " is a part of "
		if len(n) > 1 {
			verb = " are parts of "
		}
		out = append(out, strings.Join(n, ", ")+verb+k.of+" ("+k.note+"), not counted again among all operations")
	}
	return out
}

// PartNote is how a part of another operation is timed: its PartNote, or for TPC-C's deferred
// Delivery (which has none) from when the whole handed it on.
func PartNote(t *TxResult) string {
	if t.PartNote != "" {
		return t.PartNote
	}
	return "from when " + t.PartOf + " handed it on"
}

// PrintSection prints one of the workload's own sections: its title, its table with aligned
// columns, then its notes.
func PrintSection(w io.Writer, s Section) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("\n%s:\n", s.Title)
	n := len(s.Columns)
	for _, row := range s.Rows {
		n = max(n, len(row))
	}
	width := make([]int, n)
	measure := func(cells []string) {
		for i, c := range cells {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	measure(s.Columns)
	for _, row := range s.Rows {
		measure(row)
	}
	line := func(cells []string) {
		var b strings.Builder
		b.WriteString(" ")
		for i := range n {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			b.WriteString(" ")
			b.WriteString(c)
			if i < n-1 {
				b.WriteString(strings.Repeat(" ", width[i]-len([]rune(c))+1))
			}
		}
		p("%s\n", strings.TrimRight(b.String(), " "))
	}
	if len(s.Columns) > 0 {
		line(s.Columns)
	}
	for _, row := range s.Rows {
		line(row)
	}
	for _, note := range s.Notes {
		p("  %s\n", note)
	}
}

// PrintChecks prints the consistency conditions of r, with the offending rows of each violation.
func PrintChecks(w io.Writer, r *Result) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	if len(r.Checks) > 0 {
		p("\nconsistency checks:\n")
		for _, c := range r.Checks {
			switch {
			case c.Condition == 0 && c.Skipped: // a note on the check itself, not a condition
				p("  note    %s: %s\n", c.Name, c.Reason)
			case c.NotRun:
				p("  not run %2d %-57s %s\n", c.Condition, c.Name, strings.TrimPrefix(c.Reason, "not run: "))
			case c.Skipped:
				p("  skip %2d %-60s %s\n", c.Condition, c.Name, c.Reason)
			default:
				p("  %-4s %2d %-60s %.2f s\n", passFail(c.OK), c.Condition, c.Name, c.Seconds)
				for _, v := range c.Violations {
					p("         %s\n", v)
				}
			}
		}
	}
}

// ms formats milliseconds with three significant figures, matching the histograms' precision.
func ms(v float64) string {
	switch {
	case v == 0:
		return "-"
	case v < 1:
		return fmt.Sprintf("%.3f", v)
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

func passFail(ok bool) string {
	if ok {
		return "pass"
	}
	return "FAIL"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func center(s string, width int) string {
	n := len([]rune(s))
	if n >= width {
		return s
	}
	left := (width - n) / 2
	return strings.Repeat(" ", left) + s + strings.Repeat(" ", width-n-left)
}

// RoundTripsPhrase is ", N round trips to the database" when the engine counted them (for the
// driver's line of the summary and of report.html), else "".
func RoundTripsPhrase(r *Result) string {
	if r.Driver.RoundTripsPerTx <= 0 {
		return ""
	}
	return fmt.Sprintf(", %.2f round trips to the database", r.Driver.RoundTripsPerTx)
}

// printShard says which shard of a sharded run this is and where its window lay on the wall clock
// (result.go: Shard, Clock), for merging the shards; nothing for an unsharded run.
func printShard(w io.Writer, r *Result) {
	if r.Shard != nil {
		fmt.Fprintf(w, "shard %d/%d of a sharded run (root seed %d; this shard's seed derived from it) · merge every shard's results for the whole; the consistency check runs once, after every shard\n",
			r.Shard.Index, r.Shard.Count, r.Shard.RootSeed)
	}
	if c := r.Clock; c != nil {
		start := ""
		if c.StartAt != nil {
			start = fmt.Sprintf(" · --start-at %s, window %.3f s late against start + warm-up", c.StartAt.Format("2006-01-02T15:04:05.000Z07:00"), c.OffsetSeconds)
		}
		fmt.Fprintf(w, "window from %s on this host's clock%s · clock %s\n", c.MeasureStart.Format("2006-01-02T15:04:05.000Z07:00"), start, c.ClockSource)
	}
}
