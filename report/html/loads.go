package html

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"time"

	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/version"
)

// LoadsFile is the page the one-shot `candor NAME` writes at the top of its results directory: the
// runs of its comparison of loads side by side (what the console prints), each linked to its own
// report.html.
const LoadsFile = "index.html"

//go:embed loads.html
var loadsHTML string

// loadsTmpl shares page.html's functions and its "chart" template.
var loadsTmpl = template.Must(template.Must(pageTmpl.Clone()).New("loads").Parse(loadsHTML))

// loadsPage is what loads.html shows.
type loadsPage struct {
	Title      string
	Disclaimer string
	Partial    []string // labels of the runs that were interrupted
	Headline   headline
	Figures    []figure
	Conditions []string
	Warnings   []loadsWarning
	// Sweep is how the peak's concurrency was found, in one sentence ("" for a one-shot saved
	// before the sweep).
	Sweep string
	Runs  []loadsRun
	Types []loadsType
	// LeadName is the lead headline figure's name (tpmC, throughput), a column of the runs' table.
	LeadName  string
	Charts    []chartView
	Checks    []checkRow
	ChecksOf  string // the label of the run whose check is shown
	Generated string
	Source    string
	CSS       template.CSS
	JS        template.JS
}

type loadsWarning struct {
	Code, Message, Runs string
}

// loadsRun is one run of the comparison: a row of the runs table and a column group of the
// per-operation table.
type loadsRun struct {
	Label, ID, Href string
	Closed          bool
	Setup           string
	Lead, AllRate   string
	Rate, Backlog   string
	Lag             string
	Verdict         string
	VerdictClass    string
}

type loadsType struct {
	Name, Color string
	Cells       []loadsCell
}

// loadsCell is one operation at one load: throughput per second and the response-time percentiles, ms.
type loadsCell struct {
	Run                 string // the run's ID
	Missing             bool
	Rate                string
	P50, P90, P99, P999 float64
}

// loadsQ are the response-time percentiles drawn against throughput, one chart each.
var loadsQ = []struct {
	label string
	of    func(*report.TxResult) float64
}{
	{"p50", func(t *report.TxResult) float64 { return t.ResponseMs.P50 }},
	{"p90", func(t *report.TxResult) float64 { return t.ResponseMs.P90 }},
	{"p99", func(t *report.TxResult) float64 { return t.ResponseMs.P99 }},
}

// RenderLoads writes the page of the one-shot's runs (report.PrintLoads on the console) to w. dir
// is the one-shot's results directory, where the page goes: each run's report.html is linked
// relative to it.
func RenderLoads(w io.Writer, dir string, runs []report.LoadRun) error {
	if len(runs) == 0 {
		return fmt.Errorf("%s: no run to show", LoadsFile)
	}
	var buf bytes.Buffer
	if err := loadsTmpl.ExecuteTemplate(&buf, "loads", loadsPageOf(dir, runs)); err != nil {
		return fmt.Errorf("rendering %s: %w", LoadsFile, err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteLoads renders the page of the one-shot's runs into dir/index.html, atomically.
func WriteLoads(dir string, runs []report.LoadRun) error {
	var buf bytes.Buffer
	if err := RenderLoads(&buf, dir, runs); err != nil {
		return err
	}
	p := filepath.Join(dir, LoadsFile)
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return userr.Errorf("cannot write %s: %v: choose another --out", p, err)
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return userr.Errorf("cannot write %s: %v: choose another --out", p, err)
	}
	return nil
}

func loadsPageOf(dir string, runs []report.LoadRun) *loadsPage {
	first := runs[0].R
	lead := first.Lead()
	pg := &loadsPage{
		Title:      "candor " + first.Workload + " · tail latency as the load grows · " + first.Database.Version,
		Disclaimer: first.Disclaimer,
		Generated:  time.Now().UTC().Format("2006-01-02 15:04:05 UTC") + " by candor " + version.String(),
		Source:     dir,
		CSS:        template.CSS(styleCSS),
		JS:         template.JS(checkJS),
		LeadName:   lead.Name,
	}
	if pg.LeadName == "" {
		pg.LeadName = "operations / s"
	}
	pg.Conditions = []string{first.Database.Version + " (" + first.Database.Kind + ")", first.Database.URL}
	if first.Setup != "" {
		pg.Conditions = append(pg.Conditions, first.Setup)
	}
	pg.Conditions = append(pg.Conditions,
		"isolation "+first.Isolation,
		fmt.Sprintf("seed %d", first.Seed),
		"started "+first.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC"),
		first.Tool.Name+" "+first.Tool.Version,
	)
	for i, lr := range runs {
		r := lr.R
		id := filepath.Base(lr.Dir)
		href := id + "/" + File
		if rel, err := filepath.Rel(dir, lr.Dir); err == nil {
			href = path.Join(filepath.ToSlash(rel), File)
		}
		lv := loadsRun{Label: lr.Label, ID: id, Href: href, Closed: r.Rate == nil,
			Lead: "–", AllRate: "–", Rate: "–", Backlog: "–", Lag: "–",
			Verdict: report.LoadVerdict(r)}
		if r.MeasureSeconds > 0 {
			lv.AllRate = fmtRate(report.AllTypesRate(r))
			lv.Lead = lv.AllRate
			if f := r.Lead(); f.Name != "" {
				lv.Lead = fmtFigure(f.Value)
			}
		}
		switch rr := r.Rate; {
		case rr == nil:
			lv.Setup = fmt.Sprintf("%s mode: %s over %s, %s measured after %s of warm-up",
				r.Mode, report.Count(int64(r.Terminals), "terminal", "terminals"), report.Count(int64(r.Connections), "connection", "connections"), fmtDur(r.MeasureSeconds), fmtDur(r.WarmupSeconds))
			lv.Rate = "closed loop: saturated"
		default:
			lv.Setup = fmt.Sprintf("open loop: %s arrivals at %s/s over %s, %s measured after %s of warm-up",
				rr.Arrivals, fmtRate(rr.TargetRate), report.Count(int64(r.Connections), "connection", "connections"), fmtDur(r.MeasureSeconds), fmtDur(r.WarmupSeconds))
			lv.Rate = fmt.Sprintf("target %s/s, achieved %s/s", fmtRate(rr.TargetRate), fmtRate(rr.AchievedRate))
			lv.Backlog = fmt.Sprintf("%s dropped, deepest backlog %s", fmtCount(rr.Dropped), fmtCount(int64(rr.MaxBacklogSeen)))
			lv.Lag = fmt.Sprintf("driver %s, connection wait %s", fmtCell(rr.TimerLatenessMs.P99), fmtCell(rr.ConnectionWaitMs.P99))
		}
		switch {
		case r.Partial:
			lv.VerdictClass = "bad"
			pg.Partial = append(pg.Partial, lr.Label)
		case r.Rate == nil:
			lv.VerdictClass = "na"
		case r.Rate.Sustained:
			lv.VerdictClass = "ok"
		default:
			lv.VerdictClass = "bad"
		}
		pg.Runs = append(pg.Runs, lv)
		fig := figure{Label: lr.Label + " · " + pg.LeadName, Value: lv.Lead, Sub: lv.Rate, Bad: lv.VerdictClass == "bad"}
		if i == 0 {
			unit := lead.Unit
			if lead.Name == "" {
				unit = "per second, all operations"
			}
			pg.Headline = headline{Label: lr.Label + " · " + pg.LeadName, Value: lv.Lead, Unit: unit, Sub: lv.Setup}
			continue
		}
		pg.Figures = append(pg.Figures, fig)
	}
	ops := report.LoadOps(runs)
	for oi, name := range ops {
		row := loadsType{Name: name, Color: opColor(oi)}
		for i, lr := range runs {
			t := lr.R.Operations[name]
			if t == nil {
				row.Cells = append(row.Cells, loadsCell{Run: pg.Runs[i].ID, Missing: true})
				continue
			}
			rs := t.ResponseMs
			row.Cells = append(row.Cells, loadsCell{Run: pg.Runs[i].ID, Rate: fmtRate(t.PerMinute / 60),
				P50: rs.P50, P90: rs.P90, P99: rs.P99, P999: rs.P999})
		}
		pg.Types = append(pg.Types, row)
	}
	if sw := runs[0].Sweep; sw != nil {
		pg.Sweep = "The peak's concurrency: " + sw.Line() + "."
	}
	for _, w := range report.LoadWarnings(runs) {
		pg.Warnings = append(pg.Warnings, loadsWarning{Code: w.Code, Message: w.Message, Runs: w.Runs()})
	}
	// The console shows the check of the last run, the one that checks (after all the load).
	for i := len(runs) - 1; i >= 0; i-- {
		if len(runs[i].R.Checks) > 0 {
			pg.Checks, pg.ChecksOf = checkRows(runs[i].R.Checks), runs[i].Label
			break
		}
	}
	pg.Charts = loadsCharts(runs)
	return pg
}

// loadsCharts: for each of loadsQ, one chart of that response-time percentile per operation against
// the throughput each run achieved (all operations, per second): the latency-throughput curve, one
// point per run, in order of throughput.
func loadsCharts(runs []report.LoadRun) []chartView {
	order := make([]int, 0, len(runs))
	xmax := 0.0
	for i, lr := range runs {
		if lr.R.MeasureSeconds > 0 {
			order = append(order, i)
			xmax = math.Max(xmax, report.AllTypesRate(lr.R))
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(report.AllTypesRate(runs[a].R), report.AllTypesRate(runs[b].R))
	})
	var out []chartView
	for _, q := range loadsQ {
		p := &plot{id: "loads-" + q.label, title: q.label + " response time against throughput", w: 480, h: 260,
			xmin: 0, xmax: xmax * 1.05, ylog: true, yfmt: fmtMs, yTitle: "ms", unit: "ms",
			xTitle: "operations / s (all of them), one point per run", xkind: "rate", empty: "no run measured anything"}
		p.note = "from each operation's intended start"
		for _, v := range linearTicks(0, p.xmax, 6) {
			p.xticks = append(p.xticks, tick{v, fmtNum(v)})
		}
		for oi, name := range report.LoadOps(runs) {
			l := line{series: name + "." + q.label, label: name, color: opColor(oi), dots: true}
			for _, i := range order {
				r := runs[i].R
				t := r.Operations[name]
				if t == nil || t.Count == 0 {
					continue
				}
				l.pts = append(l.pts, pt{report.AllTypesRate(r), q.of(t)})
			}
			p.lines = append(p.lines, l)
		}
		out = append(out, view(p))
	}
	return out
}
