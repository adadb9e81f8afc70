package html

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"os"
	"path"
	"time"

	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/version"
)

//go:embed engines.html
var enginesHTML string

var enginesTmpl = template.Must(template.New("engines").Parse(enginesHTML))

type enginesLink struct{ Label, Href string }

type enginesRow struct {
	Name  string   // the row's data-test
	Label []string // its leading header cells (the test; the round and the operation)
	Cells []string
	Links []enginesLink
}

type enginesNote struct{ Attr, Text string }

type enginesTable struct {
	ID, Title, Lede string
	Lead, Head      []string
	Rows            []enginesRow
	Linked          bool // a last column links each row's runs
	Notes           []enginesNote
}

type enginesPage struct {
	Title     string
	C         *report.EngineComparison
	Tables    []enginesTable
	Failed    []string
	CSS       template.CSS
	Generated string
	Version   string
}

// WriteEngines writes the page of a comparison of two engines (`candor NAME compare-engines`) to
// file: the engines, the table of latencies and multiples per test (or of the headline figure per
// round, then of each operation's latency per round) with each run's report linked, the means per
// group and the conditions.
func WriteEngines(file string, c *report.EngineComparison) error {
	p := enginesPage{Title: fmt.Sprintf("%s: %s (A) and %s (B)", c.Workload, c.Engines[0].Dialect, c.Engines[1].Dialect),
		C: c, CSS: template.CSS(styleCSS), Generated: time.Now().UTC().Format(time.DateTime + " UTC"), Version: version.String(),
		Failed: c.FailedRuns()}
	links := func(t report.EngineTest) []enginesLink {
		var l []enginesLink
		for i, r := range t.Runs {
			if r.Dir != "" {
				l = append(l, enginesLink{Label: c.Engines[i].Label, Href: path.Join(r.Dir, File)})
			}
		}
		return l
	}
	if len(c.Ops) == 0 {
		tb := enginesTable{ID: "tests", Title: "Latency per test", Linked: true,
			Lede: fmt.Sprintf("The %s's latency in ms (from its intended start) on each engine, run one after the other per test (A, then B); B/A is B's latency as a multiple of A's. Each run has its own report.", c.KeyOp),
			Lead: []string{"test"}, Head: []string{"A p50", "B p50", "B/A p50", "A p95", "B p95", "B/A p95", "A mean", "B mean", "B/A mean"}}
		for _, t := range c.Tests {
			a, b := t.Runs[0], t.Runs[1]
			tb.Rows = append(tb.Rows, enginesRow{Name: t.Name, Label: []string{t.Name}, Links: links(t),
				Cells: []string{ms(a.Ms.P50), ms(b.Ms.P50), ms(t.Multiple.P50), ms(a.Ms.P95), ms(b.Ms.P95), ms(t.Multiple.P95),
					ms(a.Ms.Mean), ms(b.Ms.Mean), ms(t.Multiple.Mean)}})
		}
		for _, m := range c.Means {
			tb.Notes = append(tb.Notes, enginesNote{Attr: m.Group, Text: fmt.Sprintf("%s mean multiple (p50): %.2f over %d tests", m.Group, m.Multiple, m.Tests)})
		}
		p.Tables = append(p.Tables, tb)
	} else {
		name, unit := c.HeadlineName()
		word := cmp.Or(c.OpWord, "operation")
		head := enginesTable{ID: "rounds", Title: name + " per round", Linked: true,
			Lede: fmt.Sprintf("Each engine's %s (%s), each run's own headline figure, run one after the other per round (A, then B); B/A is B's as a multiple of A's; failed: operations that failed after their retries; retried: attempts retried (deadlocks, serialization failures). Each run has its own report.", name, cmp.Or(unit, "as its result gives it")),
			Lead: []string{"round"}, Head: []string{"A " + name, "B " + name, "B/A " + name, "A failed", "B failed", "A retried", "B retried"}}
		ops := enginesTable{ID: "ops", Title: "Latency per " + word,
			Lede: "Each " + word + "'s response time in ms (from its intended start) on each engine, per round; B/A is B's as a multiple of A's.",
			Lead: []string{"round", word}, Head: []string{"A p95", "B p95", "B/A p95", "A mean", "B mean", "B/A mean", "A failed", "B failed", "A retried", "B retried"}}
		for _, t := range c.Rows() {
			head.Rows = append(head.Rows, enginesRow{Name: t.Name, Label: []string{t.Name}, Cells: t.HeadlineCells(), Links: links(t)})
			for i, op := range c.Ops {
				ops.Rows = append(ops.Rows, enginesRow{Name: t.Name + "/" + op, Label: []string{t.Name, op}, Cells: t.OpCells(i)})
			}
		}
		if o := c.Overall; o != nil {
			head.Notes = append(head.Notes, enginesNote{Text: "overall: each engine's " + o.Runs[0].Headline.Note + " in which both gave figures, failures and retries summed."})
			ops.Notes = append(ops.Notes, enginesNote{Text: "overall: each engine's mean latency over the rounds in which both gave figures and it completed the " + word + "."})
		}
		for _, n := range c.OpNotes {
			ops.Notes = append(ops.Notes, enginesNote{Text: n})
		}
		p.Tables = append(p.Tables, head, ops)
	}
	var buf bytes.Buffer
	if err := enginesTmpl.Execute(&buf, p); err != nil {
		return err
	}
	return os.WriteFile(file, buf.Bytes(), 0o644)
}

func ms(v float64) string {
	if v <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}
