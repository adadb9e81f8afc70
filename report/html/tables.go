package html

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/sysmon"
)

// headlineAndFigures: the one number (tpmC) with its conditions, then the figures beside it.
func (pg *page) headlineAndFigures(r *report.Result) {
	pg.Headline = headline{Label: "tpmC", Value: fmtCount(int64(math.Round(r.TpmC))), Unit: "new-orders per minute",
		Sub: fmt.Sprintf("measured over %s after %s of warm-up, %s mode", fmtDur(r.MeasureSeconds), fmtDur(r.WarmupSeconds), r.Mode)}
	if r.Efficiency != nil {
		pg.Figures = append(pg.Figures, figure{Label: "efficiency", Value: fmt.Sprintf("%.1f", *r.Efficiency), Unit: "%",
			Sub: "of the 12.86 × W ceiling", Bad: *r.Efficiency > 100})
	}
	for _, op := range []string{"new_order", "payment"} {
		t := r.Transactions[op]
		if t == nil || t.Count == 0 {
			continue
		}
		pg.Figures = append(pg.Figures, figure{Label: op + " p99", Value: fmtCell(t.ResponseMs.P99), Unit: "ms",
			Sub: "response time, from intended start; p99.9 " + fmtCell(t.ResponseMs.P999) + " ms"})
	}
	var count, errs, retries, incomplete int64
	for _, t := range r.Transactions {
		count += t.Count
		errs += t.Errors
		retries += t.Retries
		incomplete += t.Incomplete
	}
	pg.Figures = append(pg.Figures, figure{Label: "failed", Value: fmtCount(errs + incomplete), Unit: "",
		Sub: fmt.Sprintf("of %s transactions (%s errors, %s unfinished, %s retries)", fmtCount(count+errs+incomplete),
			fmtCount(errs), fmtCount(incomplete), fmtCount(retries)), Bad: errs+incomplete > 0})
	var pass, fail, noData int
	for _, v := range r.Verdicts {
		switch v.Status {
		case "pass":
			pass++
		case "fail":
			fail++
		default:
			noData++
		}
	}
	if len(r.Verdicts) > 0 {
		sub := "met (clause 5.2.5.3)"
		if noData > 0 {
			sub += fmt.Sprintf("; %d without data", noData)
		}
		pg.Figures = append(pg.Figures, figure{Label: "p90 limits", Value: fmt.Sprintf("%d/%d", pass, pass+fail), Sub: sub,
			Bad: fail > 0 || noData > 0})
	}
}

// conditions lists what the headline depends on, in the order a reader needs them.
func conditions(r *report.Result) []string {
	whose := "driver CPU"
	if r.Database.Kind == "sqlite" {
		whose = "CPU of the driver and the embedded SQLite"
	}
	return []string{
		"mode " + r.Mode,
		fmt.Sprintf("%d warehouse%s", r.Warehouses, plural(r.Warehouses)),
		fmt.Sprintf("%d terminals over %d connections", r.Terminals, r.Connections),
		"isolation " + r.Isolation,
		r.Database.Version + " (" + r.Database.Kind + ")",
		r.Database.URL,
		fmt.Sprintf("driver host %s, %d CPUs, %.0f µs of %s%s per transaction", r.Driver.Hostname, r.Driver.CPUs, r.Driver.CPUMicrosPerTx, whose, report.RoundTripsPhrase(r)),
		"started " + r.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC"),
		fmt.Sprintf("seed %d", r.Seed),
		r.Tool.Name + " " + r.Tool.Version,
	}
}

type txRow struct {
	Name                                       string
	Color                                      string
	Count, Errors, Retries, Rollbacks, Incompl int64
	PerMinute                                  float64
	Resp, Serv, Lag                            measure.Percentiles
}

type deferredRow struct {
	Count, Errors, Incomplete, Districts, Skipped int64
	SkippedPct                                    float64
	Completion                                    measure.Percentiles
}

type verdictRow struct {
	Rule, Status, Value, Limit string
	Samples                    int64
}

type auditView struct {
	Transactions int64
	Enough       bool
	Items        []auditRow
}

type auditRow struct {
	Status, Name, Value, Bounds, Clause string
}

type checkRow struct {
	Condition  int
	Name       string
	Status     string
	Detail     string
	Violations []string
}

func (pg *page) tables(d *runData) {
	r := d.res
	for _, op := range d.ops {
		t := r.Transactions[op]
		if t == nil {
			continue
		}
		pg.Tx = append(pg.Tx, txRow{Name: op, Color: d.color(op), Count: t.Count, Errors: t.Errors, Retries: t.Retries,
			Rollbacks: t.Rollbacks, Incompl: t.Incomplete, PerMinute: t.PerMinute, Resp: t.ResponseMs, Serv: t.ServiceMs, Lag: t.LagMs})
	}
	if dd := r.DeliveryDeferred; dd != nil {
		row := &deferredRow{Count: dd.Count, Errors: dd.Errors, Incomplete: dd.Incomplete, Districts: dd.Districts,
			Skipped: dd.SkippedDistricts, Completion: dd.CompletionMs}
		if dd.Districts > 0 {
			row.SkippedPct = 100 * float64(dd.SkippedDistricts) / float64(dd.Districts)
		}
		pg.Deferred = row
	}
	for _, v := range r.Verdicts {
		row := verdictRow{Rule: v.Rule, Status: v.Status, Value: fmtCell(v.ValueMs) + " ms", Limit: fmtCell(v.LimitMs) + " ms", Samples: v.Samples}
		switch {
		case v.Unfinished:
			row.Value = "unfinished"
		case v.Samples == 0:
			row.Value = "–"
		}
		pg.Verdicts = append(pg.Verdicts, row)
	}
	if a := r.Audit; a != nil {
		av := &auditView{Transactions: a.Transactions, Enough: a.Enough}
		for _, it := range a.Items {
			av.Items = append(av.Items, auditRow{Status: it.Status, Name: it.Name,
				Value:  fmt.Sprintf("%.3f %s", it.Value, it.Unit),
				Bounds: fmt.Sprintf("%.3f … %.3f", it.Low, it.High), Clause: it.Clause})
		}
		pg.Audit = av
	}
	pg.Checks = checkRows(r.Checks)
}

// checkRows are the rows of a table of consistency conditions (report.html, index.html).
func checkRows(checks []report.Check) []checkRow {
	var rows []checkRow
	for _, c := range checks {
		row := checkRow{Condition: c.Condition, Name: c.Name, Violations: c.Violations}
		switch {
		case c.Skipped:
			row.Status, row.Detail = "skip", c.Reason
		case c.OK:
			row.Status, row.Detail = "pass", fmt.Sprintf("%.2f s", c.Seconds)
		default:
			row.Status, row.Detail = "fail", fmt.Sprintf("%.2f s", c.Seconds)
		}
		rows = append(rows, row)
	}
	return rows
}

// kvSection is one table of the disclosure.
type kvSection struct {
	Title string
	Rows  []kv
	More  int // rows left out
}

type kv struct{ Key, Value string }

// knownFields are result.json's fields shown elsewhere on the page; any other top-level field (added
// by a newer candor) is disclosed as it is.
var knownFields = []string{"tool", "workload", "disclaimer", "mode", "partial", "partial_reason", "warehouses",
	"terminals", "connections", "seed", "isolation", "started_at", "warmup_seconds", "measure_seconds", "tpmC",
	"efficiency", "database", "driver_host", "transactions", "delivery_deferred", "verdicts", "audit", "warnings",
	"checks", "constants", "plan", "resources"}

const maxRows = 300

func (d *runData) disclosure() []kvSection {
	sec := func(title string, keys ...string) kvSection {
		s := kvSection{Title: title}
		strip := ""
		if len(keys) == 1 {
			strip = keys[0] + "."
		}
		for _, k := range keys {
			if raw, ok := d.raw[k]; ok {
				flatten(&s, k, strip, raw)
			}
		}
		return s
	}
	out := []kvSection{
		sec("Run", "tool", "workload", "mode", "started_at", "warmup_seconds", "measure_seconds", "partial", "partial_reason",
			"warehouses", "terminals", "connections", "isolation"),
		sec("Database and its settings", "database"),
		sec("Driver host", "driver_host"),
		sec("Seeds and constants", "seed", "constants"),
		sec("Resolved plan", "plan"),
	}
	var other []string
	for k := range d.raw {
		if !slices.Contains(knownFields, k) {
			other = append(other, k)
		}
	}
	slices.Sort(other)
	if len(other) > 0 {
		out = append(out, sec("Other recorded fields", other...))
	}
	var kept []kvSection
	for _, s := range out {
		if len(s.Rows) > 0 {
			kept = append(kept, s)
		}
	}
	return kept
}

// flatten adds raw's scalar leaves to s as "a.b[2].c" = value; strip is removed from the keys' front
// (a section about one object names its fields without repeating the object).
func flatten(s *kvSection, key, strip string, raw json.RawMessage) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // seeds are 64-bit integers: a float64 would round them
	var v any
	if dec.Decode(&v) != nil {
		return
	}
	var walk func(k string, v any)
	walk = func(k string, v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for kk := range x {
				keys = append(keys, kk)
			}
			slices.Sort(keys)
			for _, kk := range keys {
				walk(k+"."+kk, x[kk])
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", k, i), e)
			}
		default:
			if len(s.Rows) >= maxRows {
				s.More++
				return
			}
			name := strings.TrimPrefix(k, strip)
			if name == "" {
				name = k
			}
			s.Rows = append(s.Rows, kv{name, scalar(x)})
		}
	}
	walk(key, v)
}

func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return "—"
	case string:
		if x == "" {
			return `""`
		}
		return x
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return x.String()
		}
		if f, err := x.Float64(); err == nil {
			return strconv.FormatFloat(f, 'g', 6, 64)
		}
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

// fmtCell formats milliseconds with three significant figures, as the console summary does.
func fmtCell(v float64) string {
	switch {
	case v == 0:
		return "–"
	case v < 1:
		return fmt.Sprintf("%.3f", v)
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmtCount(int64(math.Round(v)))
	}
}

// fmtRate writes a rate with one decimal and thin spaces between thousands.
func fmtRate(v float64) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	whole, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return s
	}
	return fmtCount(n) + "." + frac
}

// fmtCount writes an integer with thin spaces between thousands.
func fmtCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString("\u202f")
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func fmtDur(sec float64) string {
	switch {
	case sec >= 3600:
		return fmt.Sprintf("%.1f h", sec/3600)
	case sec >= 120:
		return fmt.Sprintf("%.1f min", sec/60)
	}
	return fmt.Sprintf("%.1f s", sec)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// statusClass maps a verdict, audit or check status to a CSS class.
func statusClass(s string) string {
	switch strings.ToLower(s) {
	case "pass":
		return "ok"
	case "fail":
		return "bad"
	}
	return "na"
}

// resourceSummary is result.json's "resources" (written with the samples by package sysmon): each
// series' mean and maximum over the measurement window. It is read from the raw JSON, so results
// written before it existed still render.
type resourceSummary struct {
	EverySeconds  float64 `json:"every_seconds"`
	Samples       int     `json:"samples"`
	WindowSamples int     `json:"window_samples"`
	Series        map[string]struct {
		Mean float64 `json:"mean"`
		Max  float64 `json:"max"`
		N    int     `json:"n"`
	} `json:"series"`
	Errors []string `json:"errors"`
}

type resourceRow struct {
	Name, Unit, Mean, Max string
}

func (pg *page) resourceSummary(d *runData) {
	raw, ok := d.raw["resources"]
	if !ok {
		return
	}
	var rs resourceSummary
	if json.Unmarshal(raw, &rs) != nil {
		return
	}
	pg.ResourceErrors = rs.Errors
	pg.ResourceWindowSamples = rs.WindowSamples
	names := make([]string, 0, len(rs.Series))
	for n := range rs.Series {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		st := rs.Series[n]
		pg.ResourceRows = append(pg.ResourceRows, resourceRow{Name: n, Unit: sysmon.Unit(n), Mean: fmtValue(st.Mean), Max: fmtValue(st.Max)})
	}
}

// fmtValue formats a resource value with about four significant figures.
func fmtValue(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e5:
		return fmtCount(int64(math.Round(v)))
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a == 0:
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
