package html_test

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/candor-bench/candor/driver/sqlite"
	"github.com/candor-bench/candor/report"
	htmlreport "github.com/candor-bench/candor/report/html"
	"github.com/candor-bench/candor/run"
	"github.com/candor-bench/candor/sysmon"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/tpcc"
)

// chromiumPath is Debian's chromium, which scripts/test installs when it is missing.
const chromiumPath = "/usr/bin/chromium"

// TestReportInChromium runs a short real SQLite run, which writes report.html into its --out
// directory, opens that page in a real headless Chromium and asserts on the page as the browser
// rendered it (after its script ran): every chart laid out with a width, lines with many points
// and a drawn length for every operation, no "no data" placeholder where there is data,
// the spectrum's values equal to result.json's percentiles, nothing fetched from the network.
func TestReportInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("no headless Chromium at %s (%v): scripts/test installs it as root (apt-get install chromium); install it to run this test", chromiumPath, err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	res := shortRun(t, dir, out)

	page := filepath.Join(out, htmlreport.File)
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatalf("the run did not write %s: %v", htmlreport.File, err)
	}
	// Self-contained: nothing is loaded from anywhere at view time.
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:|//)|<link\b|@import|url\(`).Find(src); m != nil {
		t.Errorf("report.html refers to something outside itself: %q", m)
	}
	// Rendering again from the saved files (candor report DIR --html FILE) gives the same charts.
	again := filepath.Join(dir, "again.html")
	if err := htmlreport.WriteFile(out, again); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(again)
	if a, b := countOf(src, `<path class="line"`), countOf(b, `<path class="line"`); a != b || a == 0 {
		t.Errorf("report.html has %d lines, rendered again from the saved files %d", a, b)
	}

	dom := dumpDOM(t, page)
	body := regexp.MustCompile(`<body[^>]*>`).FindString(dom)
	plots := tags(dom, "svg")
	var nPlots int
	for _, p := range plots {
		if p["class"] != "plot" {
			continue
		}
		nPlots++
		if w, _ := strconv.Atoi(p["data-rendered-width"]); w < 100 {
			t.Errorf("chart %s rendered %d px wide", p["data-chart"], w)
		}
	}
	if nPlots < 12 || !strings.Contains(body, fmt.Sprintf(`data-rendered-plots="%d"`, nPlots)) {
		t.Fatalf("%d charts in the page; the browser laid out: %s", nPlots, body)
	}

	// Lines by series, with the points the page says they have and the length Chromium drew.
	type drawn struct {
		points int
		length float64
		ys     []float64
	}
	lines := map[string]map[string]drawn{} // chart -> series -> line
	chart := ""
	for _, tg := range tagsOrdered(dom) {
		if tg.name == "svg" {
			chart = tg.attr["data-chart"]
			continue
		}
		if tg.attr["class"] != "line" {
			continue
		}
		n, _ := strconv.Atoi(tg.attr["data-points"])
		l, _ := strconv.ParseFloat(tg.attr["data-rendered-length"], 64)
		var ys []float64
		for _, f := range strings.Split(tg.attr["data-y"], ",") {
			v, _ := strconv.ParseFloat(f, 64)
			ys = append(ys, v)
		}
		if lines[chart] == nil {
			lines[chart] = map[string]drawn{}
		}
		lines[chart][tg.attr["data-series"]] = drawn{n, l, ys}
	}
	need := func(chart, series string, minPoints int) drawn {
		t.Helper()
		d, ok := lines[chart][series]
		switch {
		case !ok:
			t.Errorf("chart %s has no line %s (it has %v)", chart, series, keys(lines[chart]))
		case d.points < minPoints || len(d.ys) != d.points:
			t.Errorf("chart %s, line %s: %d points (%d values), want at least %d", chart, series, d.points, len(d.ys), minPoints)
		case d.length <= 0:
			t.Errorf("chart %s, line %s: Chromium drew it %.1f long", chart, series, d.length)
		}
		return d
	}
	// 7 s of run in 500 ms intervals. An operation that is a part of another (the deferred
	// Delivery) completes in bursts, as its workers drain their queue: some intervals have none.
	for _, op := range res.Ops() {
		minPoints := 8
		if res.Operations[op].PartOf != "" {
			minPoints = 2
		}
		need("throughput", op, 12)
		need("percentiles-"+op, op+".p50", minPoints)
		need("spectrum-"+op, op+".response", 20)
		need("spectrum-"+op, op+".service", 20)
	}
	for _, op := range []string{"new_order", "payment"} {
		need("percentiles-"+op, op+".p99", 8)
		need("percentiles-"+op, op+".p99.9", 8)
		need("percentiles-"+op, op+".p99 service", 8)
		// The spectrum is the measured totals: its end is the maximum of result.json, and its
		// value at x = 2 (1/(1-p) = 100) is the p99.
		sp := need("spectrum-"+op, op+".response", 100)
		want := res.Operations[op].ResponseMs
		if len(sp.ys) > 100 {
			if got := sp.ys[len(sp.ys)-1]; !near(got, want.Max) {
				t.Errorf("%s spectrum ends at %g ms, result.json's max is %g ms", op, got, want.Max)
			}
			if got := sp.ys[100]; !near(got, want.P99) {
				t.Errorf("%s spectrum at p99 is %g ms, result.json's p99 is %g ms", op, got, want.P99)
			}
		}
	}
	for _, c := range []string{"throughput", "percentiles-new_order", "percentiles-payment", "spectrum-new_order", "spectrum-payment"} {
		if strings.Contains(svgOf(dom, c), `data-empty="true"`) {
			t.Errorf("chart %s shows a no-data placeholder", c)
		}
	}
	if !strings.Contains(svgOf(dom, "throughput"), `class="band warmup"`) {
		t.Error("the throughput chart does not mark the warm-up")
	}

	// Resources: charts when the run sampled them, else the page says there were none.
	if _, err := os.Stat(filepath.Join(out, sysmon.File)); err == nil {
		var n int
		for c, ls := range lines {
			if strings.HasPrefix(c, "resource-") {
				for _, l := range ls {
					if l.points >= 3 && l.length > 0 {
						n++
					}
				}
			}
		}
		if n < 3 {
			t.Errorf("the run wrote %s but only %d resource lines were drawn", sysmon.File, n)
		}
		t.Logf("%d resource lines drawn", n)
	} else if !strings.Contains(dom, `data-resources="none"`) {
		t.Error("no resource samples and no note saying so")
	}

	// The headline (the lead figure: tpmC), the warnings and the tables.
	lead := regexp.MustCompile(`data-headline="([^"]*)"[^<]*<div class="label">[^<]*</div>\s*<div class="value">([^<]*)</div>`).FindStringSubmatch(dom)
	if lead == nil || lead[1] != res.Lead().Name || !figureNear(lead[2], res.Lead().Value) {
		t.Errorf("headline %v, want %s %.1f", lead, res.Lead().Name, res.Lead().Value)
	}
	for _, w := range res.Warnings {
		if !strings.Contains(dom, `data-warning="`+w.Code+`"`) {
			t.Errorf("warning %s is not on the page", w.Code)
		}
	}
	for _, op := range res.Ops() {
		if !strings.Contains(dom, `data-tx="`+op+`"`) {
			t.Errorf("the table has no row for %s", op)
		}
	}
	for _, s := range res.Sections {
		if !strings.Contains(dom, `data-section="`+s.Title+`"`) {
			t.Errorf("section %q is not on the page", s.Title)
		}
	}
	if !strings.Contains(dom, "Resolved plan") || !strings.Contains(dom, strconv.FormatUint(res.Seed, 10)) {
		t.Error("the disclosure does not show the plan and the seed")
	}
}

// shortRun loads one warehouse into a fresh SQLite file and runs 5 s of throughput after 2 s of
// warm-up, in 500 ms intervals, writing its results into out.
func shortRun(t *testing.T, dir, out string) *report.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := "sqlite:" + filepath.Join(dir, "tpcc.db")
	o := run.Out{Stdout: io.Discard, Stderr: io.Discard}
	start := time.Now()
	if err := run.Load(ctx, run.LoadPlan{Workload: tpccW(1), DB: db, Loaders: 2, Seed: 1, Quiet: true}, o); err != nil {
		t.Fatalf("load: %v", err)
	}
	t.Logf("loaded 1 warehouse in %.1f s", time.Since(start).Seconds())
	start = time.Now()
	defer func() { t.Logf("ran in %.1f s", time.Since(start).Seconds()) }()
	var logBuf bytes.Buffer
	o.Stderr = &logBuf
	res, err := run.Run(ctx, run.RunPlan{Workload: tpccW(0), DB: db, Mode: workload.ModeThroughput, Terminals: 4, Duration: 5 * time.Second,
		Warmup: 2 * time.Second, Grace: 10 * time.Second, Interval: 500 * time.Millisecond, Out: out, Seed: 3, Quiet: true}, o)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, logBuf.String())
	}
	return res
}

// tpccW is TPC-C with its warehouses to load (0 on a run: the database's).
func tpccW(warehouses int) workload.Workload {
	return &tpcc.Workload{Options: tpcc.Options{Warehouses: warehouses}}
}

// dumpDOM opens page in headless Chromium and returns the DOM after its script ran.
func dumpDOM(t *testing.T, page string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromiumPath, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--window-size=1280,2000", "--virtual-time-budget=5000",
		"--dump-dom", "file://"+page)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	t.Logf("chromium rendered %s in %.1f s (%d bytes of DOM)", filepath.Base(page), time.Since(start).Seconds(), stdout.Len())
	dom := stdout.String()
	if !strings.Contains(dom, "data-rendered-lines=") {
		t.Fatalf("the page's script did not run in Chromium (no data-rendered-lines on <body>):\n%.2000s\nstderr:\n%s", dom, stderr.String())
	}
	return dom
}

type tag struct {
	name string
	attr map[string]string
}

var (
	tagRe  = regexp.MustCompile(`<(svg|path)\b([^>]*)>`)
	attrRe = regexp.MustCompile(`([a-zA-Z_:][-a-zA-Z0-9_:.]*)="([^"]*)"`)
)

// tagsOrdered returns the page's <svg> and <path> start tags in document order with their attributes.
func tagsOrdered(dom string) []tag {
	var out []tag
	for _, m := range tagRe.FindAllStringSubmatch(dom, -1) {
		a := map[string]string{}
		for _, kv := range attrRe.FindAllStringSubmatch(m[2], -1) {
			a[kv[1]] = kv[2]
		}
		out = append(out, tag{m[1], a})
	}
	return out
}

func tags(dom, name string) []map[string]string {
	var out []map[string]string
	for _, t := range tagsOrdered(dom) {
		if t.name == name {
			out = append(out, t.attr)
		}
	}
	return out
}

// svgOf returns the markup of the chart whose data-chart is id.
func svgOf(dom, id string) string {
	i := strings.Index(dom, `data-chart="`+id+`"`)
	if i < 0 {
		return ""
	}
	j := strings.Index(dom[i:], "</svg>")
	if j < 0 {
		return dom[i:]
	}
	return dom[i : i+j]
}

func countOf(b []byte, s string) int { return bytes.Count(b, []byte(s)) }

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// figureNear: a headline figure as the page writes it (thin spaces between thousands, rounded to a
// whole number from 100 up, else one decimal) is v.
func figureNear(s string, v float64) bool {
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, "\u202f", ""), 64)
	return err == nil && math.Abs(f-v) <= 0.5
}

// near: equal to the 5 significant digits the page writes.
func near(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= 1e-4*max(a, b, 1e-9)
}

// TestLoadsPageInChromium runs a short real one-shot comparison on SQLite (a peak probe, then open
// loops at 50% and 80% of it), which writes index.html at the top of its results directory, opens
// that page in headless Chromium and asserts on it as the browser rendered it: self-contained, a
// link to every run's report.html that exists, each run's lead figure (tpmC) and its verdict, a row
// per operation with the p50, p90, p99 and p99.9 of every run, the latency-throughput charts drawn
// with one point per run at result.json's values, the warnings and the consistency check of the
// last run.
func TestLoadsPageInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("no headless Chromium at %s (%v): scripts/test installs it as root (apt-get install chromium); install it to run this test", chromiumPath, err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "oneshot")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := "sqlite:" + filepath.Join(dir, "tpcc.db")
	o := run.Out{Stdout: io.Discard, Stderr: io.Discard}
	if err := run.Load(ctx, run.LoadPlan{Workload: tpccW(1), DB: db, Loaders: 2, Seed: 1, Quiet: true}, o); err != nil {
		t.Fatalf("load: %v", err)
	}
	var logBuf bytes.Buffer
	o.Stderr = &logBuf
	runs, err := run.Loads(ctx, run.LoadsPlan{
		Base: run.RunPlan{Workload: tpccW(0), DB: db, Terminals: 2, Duration: 1500 * time.Millisecond, Warmup: 500 * time.Millisecond,
			Grace: 10 * time.Second, Interval: 500 * time.Millisecond, Out: out, Seed: 3, Quiet: true, Arrivals: "poisson",
			MaxBacklog: run.DefaultMaxBacklog, Check: true},
		PeakDuration: 2 * time.Second, PeakWarmup: 500 * time.Millisecond, Percents: []float64{50, 80},
	}, o)
	if err != nil || len(runs) != 3 {
		t.Fatalf("one-shot: %d runs, %v\n%s", len(runs), err, logBuf.String())
	}
	page := filepath.Join(out, htmlreport.LoadsFile)
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatalf("the one-shot did not write %s: %v\n%s", htmlreport.LoadsFile, err, logBuf.String())
	}
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:|//)|<link\b|@import|url\(`).Find(src); m != nil {
		t.Errorf("%s refers to something outside itself: %q", htmlreport.LoadsFile, m)
	}
	if !strings.Contains(logBuf.String(), htmlreport.LoadsFile) {
		t.Errorf("the one-shot does not say where %s is:\n%s", htmlreport.LoadsFile, logBuf.String())
	}

	dom := dumpDOM(t, page)
	body := regexp.MustCompile(`<body[^>]*>`).FindString(dom)
	var nPlots int
	for _, p := range tags(dom, "svg") {
		if p["class"] != "plot" {
			continue
		}
		nPlots++
		if w, _ := strconv.Atoi(p["data-rendered-width"]); w < 100 {
			t.Errorf("chart %s rendered %d px wide", p["data-chart"], w)
		}
	}
	if nPlots != 3 || !strings.Contains(body, `data-rendered-plots="3"`) {
		t.Fatalf("%d charts in the page, want p50, p90 and p99 against throughput; the browser laid out: %s", nPlots, body)
	}

	// Each run: its row, a link to its report.html (which exists), its lead figure and its verdict.
	ops := report.LoadOps(runs)
	if !strings.Contains(dom, "<th>"+runs[0].R.Lead().Name+"</th>") {
		t.Errorf("the runs' table has no column %q", runs[0].R.Lead().Name)
	}
	for _, lr := range runs {
		id := filepath.Base(lr.Dir)
		m := regexp.MustCompile(`<a href="([^"]*)" data-report="` + regexp.QuoteMeta(id) + `"`).FindStringSubmatch(dom)
		if m == nil {
			t.Errorf("no link to the report of %s", id)
		} else if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(m[1]))); err != nil || m[1] != id+"/"+htmlreport.File {
			t.Errorf("the link to %s's report is %q: %v", id, m[1], err)
		}
		lead := regexp.MustCompile(`data-lead="` + regexp.QuoteMeta(id) + `">([^<]*)<`).FindStringSubmatch(dom)
		if lead == nil || !figureNear(lead[1], lr.R.Lead().Value) {
			t.Errorf("%s: %s %v on the page, want %.1f", id, lr.R.Lead().Name, lead, lr.R.Lead().Value)
		}
		if !strings.Contains(dom, `data-verdict="`+report.LoadVerdict(lr.R)+`"`) {
			t.Errorf("%s: no verdict %q", id, report.LoadVerdict(lr.R))
		}
		for _, q := range []string{"rate", "p50", "p90", "p99", "p99.9"} {
			if n := strings.Count(dom, `data-run="`+id+`" data-q="`+q+`"`); n != len(ops) {
				t.Errorf("%s: %d %s cells, want one per operation (%d)", id, n, q, len(ops))
			}
		}
	}
	for _, op := range ops {
		if !strings.Contains(dom, `data-tx="`+op+`"`) {
			t.Errorf("the per-operation table has no row for %s", op)
		}
	}

	// The charts: per operation, one point per run in order of throughput, at result.json's values.
	sorted := append([]report.LoadRun(nil), runs...)
	slices.SortStableFunc(sorted, func(a, b report.LoadRun) int {
		return cmp.Compare(report.AllTypesRate(a.R), report.AllTypesRate(b.R))
	})
	chart := ""
	seen := 0
	for _, tg := range tagsOrdered(dom) {
		if tg.name == "svg" {
			chart = tg.attr["data-chart"]
			continue
		}
		if tg.attr["class"] != "line" || chart != "loads-p99" {
			continue
		}
		op := strings.TrimSuffix(tg.attr["data-series"], ".p99")
		var ys []float64
		for _, f := range strings.Split(tg.attr["data-y"], ",") {
			v, _ := strconv.ParseFloat(f, 64)
			ys = append(ys, v)
		}
		l, _ := strconv.ParseFloat(tg.attr["data-rendered-length"], 64)
		if len(ys) != 3 || l <= 0 {
			t.Errorf("p99 line of %s: %d points, drawn %.1f long; want 3 points drawn", op, len(ys), l)
			continue
		}
		for i, lr := range sorted {
			if want := lr.R.Operations[op].ResponseMs.P99; !near(ys[i], want) {
				t.Errorf("p99 line of %s, point %d (%s): %g ms, result.json says %g ms", op, i, lr.Label, ys[i], want)
			}
		}
		seen++
	}
	if seen != len(ops) {
		t.Errorf("%d p99 lines, want one per operation (%d)", seen, len(ops))
	}

	// The warnings of every run, and the check of the last one.
	for _, lr := range runs {
		for _, w := range lr.R.Warnings {
			if !strings.Contains(dom, `data-warning="`+w.Code+`"`) {
				t.Errorf("warning %s of %s is not on the page", w.Code, lr.Label)
			}
		}
	}
	last := runs[len(runs)-1].R
	if len(last.Checks) == 0 || strings.Count(dom, `data-check="`) != len(last.Checks) || strings.Contains(dom, `data-check="fail"`) {
		t.Errorf("the page shows %d checks (failed: %v), the last run made %d", strings.Count(dom, `data-check="`), strings.Contains(dom, `data-check="fail"`), len(last.Checks))
	}
}
