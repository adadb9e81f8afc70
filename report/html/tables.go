package html

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/sysinfo"
	"github.com/candor-bench/candor/sysmon"
)

// headlineAndFigures: the lead figure with its conditions, then the other headline figures, the
// tails of the first operations, the failures and the verdicts beside it.
func (pg *page) headlineAndFigures(r *report.Result) {
	sub := fmt.Sprintf("measured over %s after %s of warm-up, %s mode", fmtDur(r.MeasureSeconds), fmtDur(r.WarmupSeconds), r.Mode)
	if lead := r.Lead(); lead.Name != "" {
		if lead.Note != "" {
			sub = lead.Note + "; " + sub
		}
		if lead.NotQualified != "" {
			sub = "NOT QUALIFIED: " + lead.NotQualified + "; " + sub
		}
		pg.Headline = headline{Label: lead.Name, Value: fmtFigure(lead.Value), Unit: lead.Unit, Sub: sub, Bad: lead.Bad || lead.NotQualified != ""}
	} else {
		pg.Headline = headline{Label: "operations", Value: fmtRate(report.AllTypesRate(r)), Unit: "per second, all operations", Sub: sub}
	}
	for _, f := range r.Headline[min(1, len(r.Headline)):] {
		fig := figure{Label: f.Name, Value: fmtFigure(f.Value), Unit: f.Unit, Sub: f.Note, Bad: f.Bad}
		if len([]rune(f.Unit)) > 3 { // a unit in words reads under the value
			fig.Unit, fig.Sub = "", strings.TrimSpace(f.Unit+" "+f.Note)
		}
		pg.Figures = append(pg.Figures, fig)
	}
	for _, op := range tailOps(r) {
		t := r.Operations[op]
		pg.Figures = append(pg.Figures, figure{Label: op + " p99", Value: fmtCell(t.ResponseMs.P99), Unit: "ms",
			Sub: "response time, from intended start; p99.9 " + fmtCell(t.ResponseMs.P999) + " ms"})
	}
	var count, errs, retries, incomplete int64
	for _, t := range r.Operations {
		if t == nil || t.PartOf != "" {
			continue
		}
		count += t.Count
		errs += t.Errors
		retries += t.Retries
		incomplete += t.Incomplete
	}
	pg.Figures = append(pg.Figures, figure{Label: "failed", Value: fmtCount(errs + incomplete), Unit: "",
		Sub: fmt.Sprintf("of %s operations (%s errors, %s unfinished, %s retries)", fmtCount(count+errs+incomplete),
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
		sub := "rules met"
		if noData > 0 {
			sub += fmt.Sprintf("; %d without data", noData)
		}
		pg.Figures = append(pg.Figures, figure{Label: "verdicts", Value: fmt.Sprintf("%d/%d", pass, pass+fail), Sub: sub,
			Bad: fail > 0 || noData > 0})
	}
}

// tailOps are the operations whose p99 the hero shows: the key operation, then the next one of the
// workload's order that completed something (parts of other operations left out).
func tailOps(r *report.Result) []string {
	var out []string
	key := r.Key()
	if t := r.Operations[key]; t != nil && t.Count > 0 {
		out = append(out, key)
	}
	for _, op := range r.Ops() {
		if t := r.Operations[op]; len(out) < 2 && op != key && t != nil && t.Count > 0 && t.PartOf == "" {
			out = append(out, op)
		}
	}
	return out
}

// fmtFigure formats a headline figure: a whole number with thin spaces from 100 up, one decimal
// from 1, three significant figures below.
func fmtFigure(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmtCount(int64(math.Round(v)))
	case a >= 1 || a == 0:
		return fmt.Sprintf("%.1f", v)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// conditions lists what the headline depends on, in the order a reader needs them.
func conditions(r *report.Result) []string {
	whose := "driver CPU"
	if r.Database.Kind == "sqlite" {
		whose = "CPU of the driver and the embedded SQLite"
	}
	out := []string{"mode " + r.Mode}
	if r.Setup != "" {
		out = append(out, r.Setup)
	}
	out = append(out,
		report.Count(int64(r.Terminals), "terminal", "terminals")+" over "+report.Count(int64(r.Connections), "connection", "connections"),
		"isolation "+r.Isolation,
		r.Database.Version+" ("+r.Database.Kind+")",
		r.Database.URL)
	if r.Database.Client != "" {
		out = append(out, "client: "+r.Database.Client)
	}
	return append(out,
		fmt.Sprintf("driver host %s, %d CPUs, %.0f µs of %s%s per operation", r.Driver.Hostname, r.Driver.CPUs, r.Driver.CPUMicrosPerTx, whose, report.RoundTripsPhrase(r)),
		"started "+r.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC"),
		fmt.Sprintf("seed %d", r.Seed),
		r.Tool.Name+" "+r.Tool.Version,
	)
}

type txRow struct {
	Name                                       string
	Color                                      string
	PartOf                                     string
	Count, Errors, Retries, Rollbacks, Incompl int64
	PerMinute                                  float64
	Resp, Serv, Lag                            measure.Percentiles
}

type verdictRow struct {
	Rule, Status, Value, Limit string
	Samples                    int64
}

// sectionView is one of the workload's own sections (report.Section) as the page shows it.
type sectionView struct {
	Title   string
	Columns []sectionColumn
	Rows    [][]sectionCell
	Notes   []string
}

// sectionColumn is a column's heading; Num: every cell of the column reads as a number.
type sectionColumn struct {
	Name string
	Num  bool
}

// sectionCell is one cell of a section: text, a number (aligned right), or a status as a badge.
type sectionCell struct {
	Text          string
	Num           bool
	Status, Class string
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
		t := r.Operations[op]
		if t == nil || t.Idle() { // not run at all: outside the mix, no row of zeros
			continue
		}
		pg.Tx = append(pg.Tx, txRow{Name: op, Color: d.color(op), PartOf: t.PartOf, Count: t.Count, Errors: t.Errors, Retries: t.Retries,
			Rollbacks: t.Rollbacks, Incompl: t.Incomplete, PerMinute: t.PerMinute, Resp: t.ResponseMs, Serv: t.ServiceMs, Lag: t.LagMs})
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
	for _, b := range r.Budgets { // --slo's budgets, each judged on the window
		row := verdictRow{Rule: "--slo " + b.SLO, Status: "fail", Value: fmtCell(b.ValueMs) + " ms", Limit: fmtCell(b.LimitMs) + " ms", Samples: b.Count}
		if b.Met {
			row.Status = "pass"
		}
		if b.NoData {
			row.Value = "–"
		}
		pg.Verdicts = append(pg.Verdicts, row)
	}
	if fs := report.FailureSection(r); len(fs.Rows) > 0 {
		pg.Sections = append(pg.Sections, sectionOf(fs))
	}
	if rs := report.RetrySection(r); len(rs.Rows) > 0 {
		pg.Sections = append(pg.Sections, sectionOf(rs))
	}
	for _, s := range r.Sections {
		pg.Sections = append(pg.Sections, sectionOf(s))
	}
	pg.Checks = checkRows(r.Checks)
}

// numeric matches a cell that reads as a number ("1,234", "0.10%", "12.5 ms", "0.400..0.440").
var numeric = regexp.MustCompile(`^[-+]?[0-9]`)

// sectionOf turns a section into its view: a column of numbers aligns right, a column named
// "status" shows badges.
func sectionOf(s report.Section) sectionView {
	v := sectionView{Title: s.Title, Notes: s.Notes}
	n := len(s.Columns)
	for _, row := range s.Rows {
		n = max(n, len(row))
	}
	num := make([]bool, n)
	for i := range num {
		num[i] = len(s.Rows) > 0
		for _, row := range s.Rows {
			if i < len(row) && row[i] != "" && !numeric.MatchString(row[i]) {
				num[i] = false
			}
		}
	}
	for i, c := range s.Columns {
		v.Columns = append(v.Columns, sectionColumn{Name: c, Num: num[i]})
	}
	for _, row := range s.Rows {
		cells := make([]sectionCell, len(row))
		for i, c := range row {
			cells[i] = sectionCell{Text: c, Num: num[i]}
			if i < len(s.Columns) && strings.EqualFold(s.Columns[i], "status") {
				cells[i].Status, cells[i].Class = c, statusClass(c)
			}
		}
		v.Rows = append(v.Rows, cells)
	}
	return v
}

// checkRows are the rows of a table of consistency checks (report.html, index.html).
func checkRows(checks []report.Check) []checkRow {
	var rows []checkRow
	for _, c := range checks {
		row := checkRow{Condition: c.Condition, Name: c.Name, Violations: c.Violations}
		switch {
		case c.NotRun:
			row.Status, row.Detail = "not run", c.Reason
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

// envelopeShown are the keys of result.json's envelope the page shows outside the disclosure's
// own sections (the hero, the charts, the tables).
var envelopeShown = []string{"format_version", "disclaimer", "operations", "op_order", "key_op", "headline", "sections",
	"verdicts", "warnings", "checks", "resources", "rate", "details"}

const maxRows = 300

// disclosure: the run's conditions as result.json stored them; the workload's details and its own
// top-level fields (TPC-C's of result format 1, less the figures the envelope carries again); and
// any field this version does not know (added by a newer candor), as it is.
func (d *runData) disclosure() []kvSection {
	// sec is a section of keys; a section of one object (object) names its fields without
	// repeating the object's key.
	sec := func(title string, object bool, keys ...string) kvSection {
		s := kvSection{Title: title}
		strip := ""
		if object && len(keys) == 1 {
			strip = keys[0] + "."
		}
		for _, k := range keys {
			if raw, ok := d.raw[k]; ok {
				flatten(&s, k, strip, raw)
			}
		}
		return s
	}
	runKeys := []string{"tool", "workload", "mode", "setup", "started_at", "warmup_seconds", "measure_seconds", "partial", "partial_reason",
		"terminals", "connections", "isolation", "isolation_effective", "endpoints"}
	known := slices.Concat(envelopeShown, runKeys, []string{"database", "driver_host", "system", "seed", "plan"})
	var own []string
	for _, k := range report.FormatOneKeys() {
		known = append(known, k)
		if _, ok := d.raw[k]; ok && !slices.Contains(report.FormatOneFigures, k) {
			own = append(own, k)
		}
	}
	out := []kvSection{
		sec("Run", false, runKeys...),
		sec("Database and its settings", true, "database"),
		sec("Driver host", true, "driver_host"),
		systemSection(d.res.System),
		sec("System under test, every value read", true, "system"),
		sec("Seed", true, "seed"),
		sec("Resolved plan", true, "plan"),
		sec("Workload details", true, "details"),
		sec("The workload's own fields", false, own...),
	}
	var other []string
	for k := range d.raw {
		if !slices.Contains(known, k) {
			other = append(other, k)
		}
	}
	slices.Sort(other)
	if len(other) > 0 {
		out = append(out, sec("Other recorded fields", false, other...))
	}
	var kept []kvSection
	for _, s := range out {
		if len(s.Rows) > 0 {
			kept = append(kept, s)
		}
	}
	return kept
}

// systemSection is the system under test as the console says it: storage, memory, cpu, irqs.
func systemSection(s *sysinfo.System) kvSection {
	sec := kvSection{Title: "System under test"}
	if s != nil {
		sec.Rows = append(sec.Rows, kv{"host", s.Host})
	}
	for _, r := range report.SystemRows(s) {
		sec.Rows = append(sec.Rows, kv{r.Label, r.Value})
	}
	return sec
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
func fmtCount(n int64) string { return report.Grouped(n, "\u202f") }

func fmtDur(sec float64) string {
	switch {
	case sec >= 3600:
		return fmt.Sprintf("%.1f h", sec/3600)
	case sec >= 120:
		return fmt.Sprintf("%.1f min", sec/60)
	}
	return fmt.Sprintf("%.1f s", sec)
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

// useRow is a row of the USE table (report.USETable), formatted as the summary prints it.
type useRow struct {
	Resource, Utilisation, Saturation, Errors string
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
	if res := d.res.Resources; res != nil {
		use := res.USE
		if use == nil { // a result from before the table: built from the series it has
			use = report.USETable(res, d.res.Driver.CPUs)
		}
		for _, r := range use {
			u, s, e := r.Cells()
			pg.USE = append(pg.USE, useRow{Resource: r.Resource, Utilisation: u, Saturation: s, Errors: e})
		}
	}
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
