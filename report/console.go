package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Summary prints the end-of-run summary of r: the conditions first, then throughput, the percentile
// spectrum per transaction type (response and service time side by side), verdicts, the audit, the
// consistency checks and every warning.
func Summary(w io.Writer, r *Result) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	title := "candor " + r.Workload
	if r.Partial {
		title += " — PARTIAL RESULT: " + r.PartialReason
	}
	p("\n%s\n%s\n", title, strings.Repeat("=", len([]rune(title))))
	p("%s\n", r.Disclaimer)
	p("mode %s · %s · %d warehouse%s · %d terminals · %d connections · isolation %s · seed %d\n",
		r.Mode, TxPath(r.Procedures), r.Warehouses, plural(r.Warehouses), r.Terminals, r.Connections, r.Isolation, r.Seed)
	p("database %s (%s) · %s\n", r.Database.Version, r.Database.Kind, r.Database.URL)
	printEngineNotes(w, r)
	whose := "driver CPU"
	if r.Database.Kind == "sqlite" {
		whose = "CPU of the driver and the embedded SQLite together"
	}
	p("measured %.1f s after %.1f s of warm-up · driver %s, %d CPUs, %.0f µs of %s%s per transaction · %s %s\n",
		r.MeasureSeconds, r.WarmupSeconds, r.Driver.Hostname, r.Driver.CPUs, r.Driver.CPUMicrosPerTx, whose, RoundTripsPhrase(r), r.Tool.Name, r.Tool.Version)

	p("\n")
	switch {
	case r.Efficiency != nil:
		p("tpmC %.1f   efficiency %.1f%% of the 12.86 x W spec ceiling\n", r.TpmC, *r.Efficiency)
	default:
		p("tpmC %.1f   (efficiency applies only in spec mode)\n", r.TpmC)
	}

	p("\n%-13s %9s %6s %6s %6s %9s │ %s │ %s\n", "", "", "", "", "", "", center("response time, ms (from intended start)", 53), center("service time, ms", 29))
	p("%-13s %9s %6s %6s %6s %9s │ %7s %7s %7s %7s %7s %7s %7s │ %7s %7s %7s %7s\n",
		"type", "count", "errors", "retry", "rollbk", "per min",
		"p50", "p90", "p95", "p99", "p99.9", "p99.99", "max", "p50", "p99", "p99.9", "max")
	for _, name := range txOrder(r) {
		t := r.Transactions[name]
		rs, sv := t.ResponseMs, t.ServiceMs
		p("%-13s %9d %6d %6d %6d %9.1f │ %7s %7s %7s %7s %7s %7s %7s │ %7s %7s %7s %7s\n",
			name, t.Count, t.Errors, t.Retries, t.Rollbacks, t.PerMinute,
			ms(rs.P50), ms(rs.P90), ms(rs.P95), ms(rs.P99), ms(rs.P999), ms(rs.P9999), ms(rs.Max),
			ms(sv.P50), ms(sv.P99), ms(sv.P999), ms(sv.Max))
	}
	if d := r.DeliveryDeferred; d != nil {
		c := d.CompletionMs
		p("%-13s %9d %6d %6s %6s %9s │ %7s %7s %7s %7s %7s %7s %7s │ deferred completion, from queueing\n",
			"delivery*", d.Count, d.Errors, "", "", "",
			ms(c.P50), ms(c.P90), ms(c.P95), ms(c.P99), ms(c.P999), ms(c.P9999), ms(c.Max))
		skipped := 0.0
		if d.Districts > 0 {
			skipped = 100 * float64(d.SkippedDistricts) / float64(d.Districts)
		}
		p("  * deferred Delivery: %d districts processed, %d skipped (%.2f%%: no undelivered order), %d failed, %d not finished within the grace period\n", d.Districts, d.SkippedDistricts, skipped, d.Errors, d.Incomplete)
	}
	var incomplete, overflow int64
	for _, t := range r.Transactions {
		incomplete += t.Incomplete
		overflow += t.Overflow
	}
	if incomplete > 0 {
		p("  %d transactions started in the window did not finish within the grace period (counted as incomplete)\n", incomplete)
	}
	if overflow > 0 {
		p("  %d latencies exceeded the histogram range and were counted at its highest value\n", overflow)
	}
	printRate(w, r) // rate.go

	if len(r.Verdicts) > 0 {
		p("\n90th-percentile response-time limits (clause 5.2.5.3):\n")
		for _, v := range r.Verdicts {
			if v.Unfinished {
				p("  %-7s %-52s %10s    (limit %s ms, %d samples)\n", v.Status, v.Rule, "unfinished", ms(v.LimitMs), v.Samples)
				continue
			}
			p("  %-7s %-52s %10s ms (limit %s ms, %d samples)\n", v.Status, v.Rule, ms(v.ValueMs), ms(v.LimitMs), v.Samples)
		}
	}
	if a := r.Audit; a != nil {
		enough := ""
		if !a.Enough {
			enough = " — fewer than 10,000 transactions, shares are indicative only"
		}
		p("\nrun-time audit of the generated inputs (clause 9.2), %d transactions%s:\n", a.Transactions, enough)
		for _, it := range a.Items {
			p("  %-24s %-30s %8.3f %-5s bounds %.3f..%.3f (clause %s)\n", it.Status, it.Name, it.Value, it.Unit, it.Low, it.High, it.Clause)
		}
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

// PrintChecks prints the consistency conditions of r, with the offending rows of each violation.
func PrintChecks(w io.Writer, r *Result) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	if len(r.Checks) > 0 {
		p("\nconsistency conditions (clause 3.3.2):\n")
		for _, c := range r.Checks {
			switch {
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

// txOrder lists the transaction names of r in the workload's order when it is known (TPC-C's five
// types), else alphabetically.
func txOrder(r *Result) []string {
	known := []string{"new_order", "payment", "order_status", "delivery", "stock_level"}
	var names []string
	for _, k := range known {
		if _, ok := r.Transactions[k]; ok {
			names = append(names, k)
		}
	}
	var rest []string
	for k := range r.Transactions {
		if !contains(known, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(names, rest...)
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
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
