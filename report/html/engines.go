package html

import (
	"bytes"
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
	Name  string
	Cells []string
	Links []enginesLink
}

type enginesPage struct {
	Title     string
	C         *report.EngineComparison
	Rows      []enginesRow
	Failed    []string
	CSS       template.CSS
	Generated string
	Version   string
}

func ms(v float64) string {
	if v <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

// WriteEngines writes the page of a comparison of two engines (`candor NAME compare-engines`) to
// file: the engines, the table of latencies and multiples per test with each run's report linked,
// the means per group and the conditions.
func WriteEngines(file string, c *report.EngineComparison) error {
	p := enginesPage{Title: fmt.Sprintf("%s: %s (A) and %s (B)", c.Workload, c.Engines[0].Dialect, c.Engines[1].Dialect),
		C: c, CSS: template.CSS(styleCSS), Generated: time.Now().UTC().Format(time.DateTime + " UTC"), Version: version.String()}
	for _, t := range c.Tests {
		a, b := t.Runs[0], t.Runs[1]
		row := enginesRow{Name: t.Name, Cells: []string{ms(a.Ms.P50), ms(b.Ms.P50), ms(t.Multiple.P50), ms(a.Ms.P95), ms(b.Ms.P95), ms(t.Multiple.P95),
			ms(a.Ms.Mean), ms(b.Ms.Mean), ms(t.Multiple.Mean)}}
		for i, r := range t.Runs {
			if r.Dir != "" {
				row.Links = append(row.Links, enginesLink{Label: c.Engines[i].Label, Href: path.Join(r.Dir, File)})
			}
			if r.Failed != "" {
				p.Failed = append(p.Failed, fmt.Sprintf("%s on %s: %s", t.Name, c.Engines[i].Label, r.Failed))
			}
		}
		p.Rows = append(p.Rows, row)
	}
	var buf bytes.Buffer
	if err := enginesTmpl.Execute(&buf, p); err != nil {
		return err
	}
	return os.WriteFile(file, buf.Bytes(), 0o644)
}
