package tpch

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/tpch/queries"
)

// Details is TPC-H's part of result.json ("details").
type Details struct {
	Options Options `json:"options"`
	// FirstRefreshSet and RefreshSets are the update sets the run used (RF1 and RF2 of set k).
	FirstRefreshSet int `json:"first_refresh_set,omitempty"`
	RefreshSets     int `json:"refresh_sets"`
	// Power is each power test (one per --repeat), Throughput the throughput test.
	Power      []PowerTest     `json:"power,omitempty"`
	Throughput *ThroughputTest `json:"throughput,omitempty"`
	// PowerAtSize is the lowest complete power test's Power@Size; QphH its geometric mean with
	// Throughput@Size; 0 when not measured.
	PowerAtSize      float64 `json:"power_at_size"`
	ThroughputAtSize float64 `json:"throughput_at_size"`
	QphH             float64 `json:"qphh_at_size"`
	// Compliant says whether the figures are a measurement by the standard's rules (still not
	// audited); NotCompliant lists why not.
	Compliant    bool     `json:"compliant"`
	NotCompliant []string `json:"not_compliant,omitempty"`
	// Plans is the number of query plans saved in plans/.
	Plans int `json:"plans"`
}

// PowerTest is one power test: each query's and refresh function's timing interval in seconds
// (QI(i,0), RI(j,0); zero when it did not complete) as clause 5.3.7.5 reports them and the metric
// uses them (Interval: to 0.1 s, at least 0.1 s), the same as measured (to the nanosecond),
// Power@Size (0 when incomplete), and the queries clause 5.4.1.4 raised.
type PowerTest struct {
	QuerySeconds           [queries.Count]float64 `json:"query_seconds"`
	RefreshSeconds         []float64              `json:"refresh_seconds,omitempty"`
	MeasuredQuerySeconds   [queries.Count]float64 `json:"measured_query_seconds"`
	MeasuredRefreshSeconds []float64              `json:"measured_refresh_seconds,omitempty"`
	Complete               bool                   `json:"complete"`
	PowerAtSize            float64                `json:"power_at_size"`
	Floored                int                    `json:"floored"`
}

// ThroughputTest is the throughput test: Ts (clause 5.3.7.6) and each stream's figures.
type ThroughputTest struct {
	Streams  int             `json:"streams"`
	Seconds  float64         `json:"ts_seconds"`
	Complete bool            `json:"complete"`
	Stream   []StreamOutcome `json:"stream"`
	// PerQuery is q1..q22: each query stream's interval as clause 5.3.7.5 reports it (Interval),
	// PerQueryMeasured the same as measured.
	PerQuery         map[string][]float64 `json:"per_query_seconds"`
	PerQueryMeasured map[string][]float64 `json:"per_query_measured_seconds"`
}

// StreamOutcome is one stream of the throughput test.
type StreamOutcome struct {
	Stream   string  `json:"stream"`
	Steps    int     `json:"steps"`
	Done     int     `json:"done"`
	Failed   int     `json:"failed"`
	Seconds  float64 `json:"seconds"`
	StartsAt float64 `json:"starts_at_seconds"` // from the throughput test's start
}

// Finish adds TPC-H's headline (QphH@Size, Power@Size, Throughput@Size, each marked not compliant
// when it is not), the per-query and per-stream tables, the metric's arithmetic and the warnings.
func (s *session) Finish(f *workload.Finished) {
	r := f.Result
	d := s.details()
	r.Details = d
	sfTxt := strconv.FormatFloat(s.o.SF, 'g', -1, 64)
	why := ""
	if !d.Compliant {
		why = fmt.Sprintf("not a compliant TPC-H measurement, for %d reasons (the metric table and the TPCH_ warnings say which)", len(d.NotCompliant))
	}
	fig := func(name string, v float64, unit, note string) report.Figure {
		return report.Figure{Name: name + "@" + sfTxt, Value: round1(v), Unit: unit, Note: note, NotQualified: why}
	}
	if d.QphH > 0 {
		r.Headline = append(r.Headline, fig("QphH", d.QphH, "queries per hour (composite)", "sqrt(Power × Throughput), clause 5.4.3"))
	}
	if d.PowerAtSize > 0 {
		note := "clause 5.4.1"
		if len(d.Power) > 1 {
			note = fmt.Sprintf("the lowest of %d power tests, clause 5.4.1", len(d.Power))
		}
		r.Headline = append(r.Headline, fig("Power", d.PowerAtSize, "queries per hour", note))
	}
	if d.ThroughputAtSize > 0 {
		r.Headline = append(r.Headline, fig("Throughput", d.ThroughputAtSize, "queries per hour",
			fmt.Sprintf("%s in %.1f s, clause 5.4.2", plural(d.Throughput.Streams, "stream"), d.Throughput.Seconds)))
	}
	if len(r.Headline) == 0 {
		r.Headline = append(r.Headline, report.Figure{Name: "QphH@" + sfTxt, Unit: "queries per hour", Bad: true,
			NotQualified: "no test completed: " + s.incompleteReason(f)})
	}
	if p := s.plan.power; p != nil {
		// Each query's interval in each power test, for compare's per-query judgement.
		names := OpNames()
		r.Repeats = map[string][]float64{}
		for _, tm := range p.times {
			if tm.err == "" {
				r.Repeats[names[tm.op]] = append(r.Repeats[names[tm.op]], tm.seconds())
			}
		}
	}
	r.Sections = append(r.Sections, s.powerSection(d)...)
	if d.Throughput != nil {
		r.Sections = append(r.Sections, s.throughputSections(d)...)
	}
	r.Sections = append(r.Sections, s.metricSection(d))
	r.Warnings = append(r.Warnings, s.warnings(d, f)...)
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// details computes the tests' figures from the streams' timing intervals.
func (s *session) details() *Details {
	o := s.o
	d := &Details{Options: o, RefreshSets: s.plan.sets, Plans: s.explained}
	if s.plan.sets > 0 {
		d.FirstRefreshSet = s.plan.firstSet
	}
	refresh := !o.NoRefresh
	if p := s.plan.power; p != nil {
		for rep := range o.Repeat {
			pt := PowerTest{}
			if refresh {
				pt.RefreshSeconds = make([]float64, 2)
				pt.MeasuredRefreshSeconds = make([]float64, 2)
			}
			done := 0
			for i := range p.times {
				tm := &p.times[i]
				if tm.repeat != rep || tm.err != "" {
					continue
				}
				switch v := tm.seconds(); {
				case tm.q > 0:
					pt.QuerySeconds[tm.q-1], pt.MeasuredQuerySeconds[tm.q-1] = Interval(v), v
				case tm.op == OpRF1:
					pt.RefreshSeconds[0], pt.MeasuredRefreshSeconds[0] = Interval(v), v
				case tm.op == OpRF2:
					pt.RefreshSeconds[1], pt.MeasuredRefreshSeconds[1] = Interval(v), v
				}
				done++
			}
			want := queries.Count
			if refresh {
				want += 2
			}
			pt.Complete = done == want
			if pt.Complete {
				pt.PowerAtSize = Power(o.SF, pt.QuerySeconds[:], pt.RefreshSeconds)
				_, pt.Floored = Floor(pt.QuerySeconds[:])
				if d.PowerAtSize == 0 || pt.PowerAtSize < d.PowerAtSize {
					d.PowerAtSize = pt.PowerAtSize
				}
			}
			d.Power = append(d.Power, pt)
		}
	}
	if len(s.plan.streams) > 0 {
		tt := &ThroughputTest{Streams: len(s.plan.streams), Complete: true, PerQuery: map[string][]float64{}, PerQueryMeasured: map[string][]float64{}}
		all := append(slices.Clone(s.plan.streams), s.plan.refresh)
		if s.plan.refresh == nil {
			all = all[:len(all)-1]
		}
		var first, last time.Time
		for _, st := range all {
			for i := range st.times {
				tm := &st.times[i]
				if first.IsZero() || tm.start.Before(first) {
					first = tm.start
				}
				if tm.end.After(last) {
					last = tm.end
				}
			}
		}
		for _, st := range all {
			so := StreamOutcome{Stream: st.label(), Steps: len(st.steps)}
			for i := range st.times {
				tm := &st.times[i]
				if tm.err != "" {
					so.Failed++
				} else {
					so.Done++
				}
			}
			if n := len(st.times); n > 0 {
				so.Seconds = st.times[n-1].end.Sub(st.times[0].start).Seconds()
				so.StartsAt = st.times[0].start.Sub(first).Seconds()
			}
			if so.Done != so.Steps {
				tt.Complete = false
			}
			tt.Stream = append(tt.Stream, so)
		}
		for q := 1; q <= queries.Count; q++ {
			per, measured := make([]float64, len(s.plan.streams)), make([]float64, len(s.plan.streams))
			for i, st := range s.plan.streams {
				for j := range st.times {
					if st.times[j].q == q && st.times[j].err == "" {
						measured[i] = st.times[j].seconds()
						per[i] = Interval(measured[i])
					}
				}
			}
			tt.PerQuery["q"+strconv.Itoa(q)] = per
			tt.PerQueryMeasured["q"+strconv.Itoa(q)] = measured
		}
		if !first.IsZero() {
			tt.Seconds = last.Sub(first).Seconds()
		}
		if tt.Complete {
			d.ThroughputAtSize = Throughput(o.SF, tt.Streams, tt.Seconds)
		}
		d.Throughput = tt
	}
	d.QphH = QphH(d.PowerAtSize, d.ThroughputAtSize)
	d.NotCompliant = s.notCompliant(d)
	d.Compliant = len(d.NotCompliant) == 0
	return d
}

// notCompliant lists why the run is not a compliant measurement (clause 5.3 and 5.4's rules that a
// run can break; an audit is never claimed).
func (s *session) notCompliant(d *Details) []string {
	o := s.o
	var why []string
	if !StandardSF(o.SF) {
		why = append(why, fmt.Sprintf("SF %g is not a scale factor of clause 4.1.3.1 (1, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000)", o.SF))
	}
	if o.Validate {
		why = append(why, "validation mode (the standard's validation parameters, not drawn ones)")
	}
	if o.NoRefresh || o.Validate {
		why = append(why, "no refresh functions (the geometric mean of Power@Size lacks RF1 and RF2)")
	}
	if s.plan.power == nil || len(s.plan.streams) == 0 {
		why = append(why, "the performance test is a power test followed by a throughput test (clause 5.3.3); this run had --test "+o.Test)
	}
	if len(s.plan.streams) > 0 && o.Streams < MinStreams(o.SF) {
		why = append(why, fmt.Sprintf("%s, fewer than clause 5.3.4's minimum of %d for SF %g", plural(o.Streams, "query stream"), MinStreams(o.SF), o.SF))
	}
	if s.family == "sqlite" {
		why = append(why, "SQLite has no exact decimals (clause 1.3.1 wants DECIMAL arithmetic exact to the cent)")
	}
	if s.o.Repeat > 1 {
		why = append(why, fmt.Sprintf("%d power tests in a row (--repeat)", o.Repeat))
	}
	if n := incompletePower(d); n != "" {
		why = append(why, n+" did not complete")
	}
	if d.Throughput != nil && !d.Throughput.Complete {
		why = append(why, "the throughput test did not complete")
	}
	return why
}

// incompletePower names the power tests that did not complete ("power test 1", "power tests 3 to
// 50", "power tests 2, 5"), or "" when all did.
func incompletePower(d *Details) string {
	var n []int
	for i, p := range d.Power {
		if !p.Complete {
			n = append(n, i+1)
		}
	}
	switch {
	case len(n) == 0:
		return ""
	case len(n) == 1:
		return fmt.Sprintf("power test %d", n[0])
	case n[len(n)-1]-n[0] == len(n)-1:
		return fmt.Sprintf("power tests %d to %d", n[0], n[len(n)-1])
	}
	parts := make([]string, len(n))
	for i, v := range n {
		parts[i] = strconv.Itoa(v)
	}
	return "power tests " + strings.Join(parts, ", ")
}

// incompleteReason says why no test completed.
func (s *session) incompleteReason(f *workload.Finished) string {
	switch {
	case f.Result.Partial:
		return "the run was stopped (" + orText(f.Result.PartialReason, "interrupted") + ")"
	case !f.Summary.Exhausted:
		return "--duration ended before the streams did: give a longer --duration"
	}
	return "a query or refresh function failed (see the failures)"
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// powerSection is the per-query table of the power test(s): each query's timing interval, and
// with --repeat the median and spread over the repeats.
func (s *session) powerSection(d *Details) []report.Section {
	p := s.plan.power
	if p == nil {
		return nil
	}
	rep := s.o.Repeat
	cols := []string{"query", "parameters", "seconds", "measured s"}
	if rep > 1 {
		cols = []string{"query", "parameters", "median s", "min s", "max s", "spread"}
	}
	cols = append(cols, "rows")
	if s.o.Validate {
		cols = append(cols, "answer")
	}
	type agg struct {
		secs   []float64
		params string
		rows   int64
		errs   []string
		answer string
	}
	byOp := make([]agg, numOps)
	for i := range p.times {
		tm := &p.times[i]
		a := &byOp[tm.op]
		if tm.err != "" {
			a.errs = append(a.errs, tm.err)
		} else {
			a.secs = append(a.secs, tm.seconds())
		}
		if tm.repeat == 0 {
			a.params, a.rows = strings.Join(tm.params, ", "), tm.rows
			switch {
			case tm.mismatch != "":
				a.answer = "WRONG: " + tm.mismatch
			case tm.err != "":
				a.answer = "failed"
			default:
				a.answer = "matches"
			}
		}
	}
	order := append([]int{}, OpRF1)
	for q := 1; q <= queries.Count; q++ {
		order = append(order, opOf(q))
	}
	order = append(order, OpRF2)
	names := OpNames()
	var rows [][]string
	for _, op := range order {
		a := &byOp[op]
		if len(a.secs) == 0 && len(a.errs) == 0 {
			continue
		}
		row := []string{strings.ToUpper(names[op]), a.params}
		if rep > 1 {
			if len(a.secs) == 0 {
				row = append(row, "failed", "", "", "")
			} else {
				sorted := slices.Clone(a.secs)
				slices.Sort(sorted)
				med := median(sorted)
				spread := ""
				if med > 0 {
					spread = fmt.Sprintf("±%.0f%%", 50*(sorted[len(sorted)-1]-sorted[0])/med)
				}
				row = append(row, secs(med), secs(sorted[0]), secs(sorted[len(sorted)-1]), spread)
			}
		} else if len(a.secs) == 0 {
			row = append(row, "failed", "")
		} else {
			row = append(row, interval(a.secs[0]), secs(a.secs[0]))
		}
		row = append(row, strconv.FormatInt(a.rows, 10))
		if s.o.Validate {
			row = append(row, a.answer)
		}
		rows = append(rows, row)
	}
	notes := []string{"Each timing interval runs from the query's submission to its last row (clause 5.3.7.2); the rows are in the power test's order of execution (stream 0: RF1, Q14, Q2, ..., Q12, RF2). Each query is also an operation of the latency table (response = service: one stream per connection, no waits)."}
	if rep > 1 {
		notes = append(notes, fmt.Sprintf("%d power tests in a row: the median, least and greatest measured interval of each query, and the spread (half the range, in percent of the median); result.json holds each test's intervals to 0.1 s (clause 5.3.7.5), which Power@Size uses.", rep))
	} else {
		notes = append(notes, "seconds: the interval as clause 5.3.7.5 reports it, rounded to the nearest 0.1 s (below 0.05 s: 0.1 s), which Power@Size uses; measured s: the same interval as measured.")
	}
	if s.explained > 0 {
		notes = append(notes, fmt.Sprintf("Each query's plan (the engine's EXPLAIN, with the parameters above) is saved in plans/qN.txt (%d plans).", s.explained))
	}
	if s.explainErr != "" {
		notes = append(notes, "Plans not saved: "+s.explainErr)
	}
	if s.o.Validate {
		notes = append(notes, fmt.Sprintf("Validation mode: every answer compared with the reference answer of SF %g (DuckDB over tpchgen-cli's data, scripts/tpch-answers) under clause 2.1.3.5's precision rules.", s.o.SF))
	}
	title := "TPC-H: power test, per query"
	// order of execution, not of the query number
	rows = powerOrder(rows, p)
	return []report.Section{{Title: title, Columns: cols, Rows: rows, Notes: notes}}
}

// powerOrder sorts the power section's rows into the order the power stream ran them.
func powerOrder(rows [][]string, p *stream) [][]string {
	pos := map[string]int{}
	for i, st := range p.steps {
		name := strings.ToUpper(OpNames()[st.op])
		if _, ok := pos[name]; !ok {
			pos[name] = i
		}
	}
	slices.SortStableFunc(rows, func(a, b []string) int { return pos[a[0]] - pos[b[0]] })
	return rows
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// secs is seconds to the tenth of a millisecond (result.json holds them in full).
func secs(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }

// interval is a measured interval as clause 5.3.7.5 reports it (Interval): "23.8".
func interval(v float64) string { return strconv.FormatFloat(Interval(v), 'f', 1, 64) }

// throughputSections are the per-stream table and the per-query, per-stream table.
func (s *session) throughputSections(d *Details) []report.Section {
	tt := d.Throughput
	var rows [][]string
	for _, so := range tt.Stream {
		rows = append(rows, []string{so.Stream, fmt.Sprintf("%d/%d", so.Done, so.Steps), strconv.Itoa(so.Failed), secs(so.StartsAt), secs(so.Seconds)})
	}
	streams := report.Section{Title: "TPC-H: throughput test, per stream", Columns: []string{"stream", "done", "failed", "starts at s", "seconds"}, Rows: rows,
		Notes: []string{fmt.Sprintf("Ts = %.3f s, from the first stream's first submission to the last answer or commit of any stream (clause 5.3.7.6); the streams start together once the power test has ended.", tt.Seconds)}}
	cols := []string{"query"}
	for _, st := range s.plan.streams {
		cols = append(cols, st.label()+" s")
	}
	var qrows [][]string
	for q := 1; q <= queries.Count; q++ {
		row := []string{"Q" + strconv.Itoa(q)}
		for _, v := range tt.PerQuery["q"+strconv.Itoa(q)] {
			if v == 0 {
				row = append(row, "-")
			} else {
				row = append(row, strconv.FormatFloat(v, 'f', 1, 64))
			}
		}
		qrows = append(qrows, row)
	}
	per := report.Section{Title: "TPC-H: throughput test, per query and stream", Columns: cols, Rows: qrows,
		Notes: []string{"Each query stream runs the 22 queries in its own order (Appendix A) with its own parameters; each interval as clause 5.3.7.5 reports it (to 0.1 s, at least 0.1 s; result.json also holds them as measured); \"-\" is a query that did not complete."}}
	return []report.Section{streams, per}
}

// metricSection shows clause 5.4's arithmetic with this run's numbers.
func (s *session) metricSection(d *Details) report.Section {
	sf := s.o.SF
	var rows [][]string
	for i, p := range d.Power {
		name := "Power@Size"
		if len(d.Power) > 1 {
			name += fmt.Sprintf(" (power test %d)", i+1)
		}
		if !p.Complete {
			rows = append(rows, []string{name, "incomplete", "a query or refresh function did not complete"})
			continue
		}
		n := queries.Count + len(p.RefreshSeconds)
		how := fmt.Sprintf("3600 × %g / (∏ of %d intervals)^(1/%d)", sf, n, n)
		if p.Floored > 0 {
			how += fmt.Sprintf("; %s raised to 1/1000 of the longest (clause 5.4.1.4)", plural(p.Floored, "query interval"))
		}
		rows = append(rows, []string{name, fmt.Sprintf("%.1f", p.PowerAtSize), how})
	}
	if tt := d.Throughput; tt != nil {
		if tt.Complete {
			rows = append(rows, []string{"Throughput@Size", fmt.Sprintf("%.1f", d.ThroughputAtSize), fmt.Sprintf("%d × 22 × 3600 / %.3f s × %g", tt.Streams, tt.Seconds, sf)})
		} else {
			rows = append(rows, []string{"Throughput@Size", "incomplete", "a stream did not complete"})
		}
	}
	if d.QphH > 0 {
		rows = append(rows, []string{"QphH@Size", fmt.Sprintf("%.1f", d.QphH), "sqrt(Power@Size × Throughput@Size)"})
	}
	notes := []string{"Clause 5.4: Power@Size = 3600·SF / (∏ QI(i,0) · ∏ RI(j,0))^(1/24); Throughput@Size = S·22·3600/Ts·SF; QphH@Size = sqrt(Power@Size · Throughput@Size). Intervals in seconds, QI and RI as clause 5.3.7.5 reports them (to the nearest 0.1 s, at least 0.1 s; the floor of clause 5.4.1.4 rounded alike), Ts as measured."}
	if d.Compliant {
		notes = append(notes, "The run follows the standard's rules that candor can check; it is not audited (clause 8), so it is no TPC-H result.")
	} else {
		notes = append(notes, "Not a compliant measurement: "+strings.Join(d.NotCompliant, "; ")+".")
	}
	return report.Section{Title: "TPC-H: metric (clause 5.4)", Columns: []string{"figure", "value", "how"}, Rows: rows, Notes: notes}
}

// warnings say, in words, each reason the figures are not what TPC-H's metric would be.
func (s *session) warnings(d *Details, f *workload.Finished) []report.Warning {
	o := s.o
	var w []report.Warning
	add := func(code, format string, a ...any) {
		w = append(w, report.Warning{Code: code, Message: fmt.Sprintf(format, a...)})
	}
	if !StandardSF(o.SF) {
		add("TPCH_SF_NOT_STANDARD", "SF %g is not a scale factor TPC-H reports (clause 4.1.3.1: 1, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000): the figures are not comparable to any TPC-H result; load one of those with candor tpch load --sf", o.SF)
	}
	if o.Validate {
		add("TPCH_VALIDATION_MODE", "validation mode: the queries ran with the standard's validation parameters (clause 2.4.x.4), which every run repeats, and without refresh functions: a check of the answers, not a measurement")
	} else if o.NoRefresh {
		add("TPCH_NO_REFRESH", "--no-refresh: RF1 and RF2 did not run, so Power@Size's geometric mean is over the 22 queries only and the throughput test has no refresh stream: not the standard's metric")
	}
	if len(s.plan.streams) > 0 && o.Streams < MinStreams(o.SF) {
		add("TPCH_FEW_STREAMS", "%s, fewer than clause 5.3.4's minimum of %d for SF %g: Throughput@Size is not the standard's; give --streams %d", plural(o.Streams, "query stream"), MinStreams(o.SF), o.SF, MinStreams(o.SF))
	}
	if s.plan.power == nil || len(s.plan.streams) == 0 {
		add("TPCH_PARTIAL_TEST", "--test %s: TPC-H's performance test is a power test followed by a throughput test (clause 5.3.3), and QphH@Size needs both; give --test both", o.Test)
	}
	if s.family == "sqlite" {
		add("TPCH_SQLITE_DECIMALS", "SQLite stores TPC-H's DECIMAL columns as binary floating point, not exact decimals (clause 1.3.1): sums of money may differ from exact arithmetic in the last cent; use PostgreSQL or MySQL/MariaDB for a measurement")
	}
	var wrong []string
	for _, st := range s.plan.terminals() {
		for i := range st.times {
			if st.times[i].mismatch != "" {
				wrong = append(wrong, "Q"+strconv.Itoa(st.times[i].q))
			}
		}
	}
	if len(wrong) > 0 {
		add("TPCH_WRONG_ANSWERS", "%d answers differ from the reference answers (%s): the database (or its SQL) computes something other than TPC-H's queries; see the power test's table", len(wrong), strings.Join(wrong, ", "))
	}
	if n := incompletePower(d); n != "" {
		add("TPCH_INCOMPLETE", "%s did not complete (%s): no Power@Size from it", n, s.incompleteReason(f))
	}
	for i, p := range d.Power {
		if p.Floored > 0 {
			add("TPCH_QUERY_FLOOR", "power test %d: %s below 1/1000 of the longest, counted as 1/1000 of it (clause 5.4.1.4)", i+1, plural(p.Floored, "query interval"))
		}
	}
	if d.Throughput != nil && !d.Throughput.Complete {
		add("TPCH_INCOMPLETE", "the throughput test did not complete (%s): no Throughput@Size", s.incompleteReason(f))
	}
	return w
}

// plural is "1 stream", "2 streams".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
