// Package html renders a saved run (its --out directory) as report.html: one self-contained page
// (inline CSS, inline SVG charts drawn here in Go, no network at view time) with the headline
// figure and its conditions, throughput and response-time percentiles over time, the percentile
// spectrum (response and service time), resource metrics on the same time axis, and the tables:
// per-operation figures, verdicts, the workload's own sections, checks, warnings and the full
// disclosure. It reads result.json's envelope only (report.Result.Ops, Headline, Sections, ...), so
// it renders any workload's run.
//
// It reads only files: result.json (required), latency.hlog (the interval log) and
// resources.jsonl (resource samples, optional); what is missing is said on the page.
package html

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/version"
)

// File is the name of the report a run writes into its --out directory.
const File = "report.html"

//go:embed page.html
var pageHTML string

//go:embed style.css
var styleCSS string

//go:embed check.js
var checkJS string

var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"ms":       fmtCell,
	"num":      fmtCount,
	"rate":     fmtRate,
	"persec":   func(perMinute float64) string { return fmtRate(perMinute / 60) },
	"pct":      func(v float64) string { return fmt.Sprintf("%.1f%%", v) },
	"fixed":    func(d int, v float64) string { return fmt.Sprintf("%.*f", d, v) },
	"statusOf": statusClass,
}).Parse(pageHTML))

// Render writes the report of the run saved in dir to w.
func Render(w io.Writer, dir string) error {
	d, err := load(dir)
	if err != nil {
		return err
	}
	pg := d.page()
	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, pg); err != nil {
		return fmt.Errorf("rendering %s: %w", File, err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// WriteFile renders the report of the run saved in dir into the file path, atomically (a reader
// never sees half a page).
func WriteFile(dir, path string) error {
	var buf bytes.Buffer
	if err := Render(&buf, dir); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return userr.Errorf("cannot write %s: %v: choose another file", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return userr.Errorf("cannot write %s: %v: choose another file", path, err)
	}
	return nil
}

// Write renders the report of the run saved in dir into dir/report.html.
func Write(dir string) error {
	return WriteFile(dir, filepath.Join(dir, File))
}

// page is what the template shows.
type page struct {
	Title         string
	Partial       bool
	PartialReason string
	Disclaimer    string
	Headline      headline
	Figures       []figure
	Conditions    []string
	Warnings      []warningView

	Throughput   chartView
	Percentiles  []chartView
	Spectrum     []chartView
	Resources    []resourceGroup
	ResourceNote string
	// From result.json's resource summary: the sources not sampled, and each series' mean and max
	// over the measurement window.
	ResourceErrors        []string
	ResourceRows          []resourceRow
	USE                   []useRow
	ResourceWindowSamples int
	LogNote               string
	HasWarmup             bool
	HasDrain              bool

	Tx       []txRow
	Verdicts []verdictRow
	Sections []sectionView
	Checks   []checkRow

	Disclosure []kvSection

	Generated string
	Source    string
	CSS       template.CSS
	JS        template.JS
}

type headline struct {
	Label, Value, Unit, Sub string
	Bad                     bool
}

// figure is one of the secondary numbers beside the headline.
type figure struct {
	Label, Value, Unit, Sub string
	Bad                     bool
}

type warningView struct {
	Code, Message string
}

func (d *runData) page() *page {
	r := d.res
	pg := &page{
		Title:         "candor " + r.Workload + " · " + r.Database.Version + " · " + r.Mode,
		Partial:       r.Partial,
		PartialReason: r.PartialReason,
		Disclaimer:    r.Disclaimer,
		LogNote:       d.logNote,
		ResourceNote:  d.resNote,
		HasWarmup:     d.measureFrom > 0,
		HasDrain:      d.end > d.measureTo,
		Generated:     time.Now().UTC().Format("2006-01-02 15:04:05 UTC") + " by candor " + version.String(),
		Source:        d.dir,
		CSS:           template.CSS(styleCSS),
		JS:            template.JS(checkJS),
	}
	pg.headlineAndFigures(r)
	pg.Conditions = conditions(r)
	for _, w := range r.Warnings {
		pg.Warnings = append(pg.Warnings, warningView{w.Code, w.Message})
	}
	pg.Throughput = d.throughput()
	pg.Throughput.Bare = true
	pg.Percentiles = d.percentilesOverTime()
	pg.Spectrum = d.spectrum()
	pg.Resources = d.resourceCharts()
	if d.samples != nil && d.samples.note != "" {
		pg.ResourceNote = "some samples could not be read: " + d.samples.note
	}
	pg.resourceSummary(d)
	pg.tables(d)
	pg.Disclosure = d.disclosure()
	return pg
}
