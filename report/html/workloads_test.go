package html_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	htmlreport "github.com/candor-bench/candor/report/html"
)

// writeRun saves res into dir as a run does: result.json, and latency.hlog with 2 s of warm-up,
// 10 s measured and 1 s of drain in 1 s intervals, each of ops completing about perSec[i] a second
// with latencies exponential around medianMs[i], and the measured totals.
func writeRun(t *testing.T, dir string, res *report.Result, ops []string, perSec []int, medianMs []float64) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	start := res.StartedAt
	ws, we := start.Add(2*time.Second), start.Add(12*time.Second)
	res.WarmupSeconds, res.MeasureSeconds = 2, 10
	if err := report.Write(dir, res); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	lw, err := measure.NewLogWriter(&buf, start, "test")
	if err != nil {
		t.Fatal(err)
	}
	rec := measure.NewRecorder(ops, 1)
	rec.Begin(start, ws, we)
	rng := rand.New(rand.NewPCG(1, 2))
	s := rec.Stripe(0)
	for k := range 13 {
		at := start.Add(time.Duration(k) * time.Second)
		for op := range ops {
			for range perSec[op] {
				d := time.Duration(rng.ExpFloat64() * medianMs[op] / math.Ln2 * float64(time.Millisecond))
				s.Done(op, !at.Before(ws) && at.Before(we), measure.Event{Response: d + 100*time.Microsecond, Service: d})
			}
		}
		if err := lw.Write(rec.Tick(at.Add(time.Second))); err != nil {
			t.Fatal(err)
		}
	}
	if err := lw.WriteTotals(rec.Totals(), ws, we); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, report.LogFile), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

var kvOps = []string{"read", "write"}

// kvRun saves a run of a workload without a TPC-C part (kv: operations read and write, a headline
// in operations per second, a section of its own) into dir.
func kvRun(t *testing.T, dir string, reads int, rate *report.RateResult) *report.Result {
	t.Helper()
	res := &report.Result{
		FormatVersion: report.FormatVersion, Tool: report.Tool{Name: "candor", Version: "test"}, Workload: "kv",
		Disclaimer: "a key-value workload", Mode: "throughput", Setup: "kv95, batch 1, 1,000 keys",
		Terminals: 8, Connections: 8, Seed: 7, Isolation: "serializable", StartedAt: time.Now().Add(-time.Minute).Truncate(time.Second).UTC(),
		Database: report.Database{Kind: "sqlite", Version: "SQLite 3.45", URL: "sqlite:kv.db"},
		Operations: map[string]*report.TxResult{
			"read":  {Count: int64(10 * reads), PerMinute: float64(60 * reads), ResponseMs: measure.Percentiles{P50: 0.5, P90: 1.2, P99: 2.9, P999: 5.1, Max: 9}},
			"write": {Count: 200, Errors: 3, PerMinute: 1200, ResponseMs: measure.Percentiles{P50: 2, P90: 3, P99: 6.3, Max: 12}},
		},
		OpOrder: kvOps, KeyOp: "read",
		Headline: []report.Figure{{Name: "throughput", Value: float64(reads + 20), Unit: "operations per second"},
			{Name: "read share", Value: 95, Unit: "%", Note: "of the operations"}},
		Sections: []report.Section{{Title: "key space", Columns: []string{"keys", "distribution", "status"},
			Rows: [][]string{{"1,000", "zipfian", "pass"}}, Notes: []string{"keys drawn from the run's seed"}}},
		Verdicts: []report.Verdict{report.NewVerdict("read p99 response time", 10, 2.9, int64(10*reads))},
		Warnings: []report.Warning{{Code: "SHORT_RUN", Message: "10 s is short"}},
		Checks:   []report.Check{{Condition: 1, Name: "every key present once", OK: true, Seconds: 0.01}},
		Plan:     map[string]any{"options": map[string]any{"keys": 1000}},
		Details:  map[string]any{"mix": map[string]any{"read": 95, "write": 5}},
		Rate:     rate,
	}
	writeRun(t, dir, res, kvOps, []int{reads, 20}, []float64{0.5, 2})
	return res
}

// TestPageOfAnotherWorkload: report.html of a run without a TPC-C part shows its lead figure by its
// name, its other figures, every operation in the tables and charts (coloured by position), its
// verdicts, section, checks, setup and details, and nothing of TPC-C.
func TestPageOfAnotherWorkload(t *testing.T) {
	dir := t.TempDir()
	kvRun(t, dir, 500, nil)
	if err := htmlreport.Write(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, htmlreport.File))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		`data-headline="throughput"`, `<div class="value">520</div>`, "operations per second",
		"read share", "of the operations", "read p99", "write p99",
		`data-tx="read"`, `data-tx="write"`, `data-chart="percentiles-read"`, `data-chart="spectrum-write"`, `data-series="read.response"`,
		`data-chart="throughput"`, `data-series="write"`, "p99 limit 10 ms",
		"<h3>Verdicts</h3>", "read p99 response time", `data-section="key space"`, "zipfian", `data-status="pass"`, "keys drawn from the run&#39;s seed",
		"<h3>Consistency checks</h3>", "every key present once", `data-warning="SHORT_RUN"`,
		"kv95, batch 1, 1,000 keys", "Workload details", "mix.read",
		`style="background:#2563eb"></span>read`, `style="background:#059669"></span>write`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html of a kv run lacks %q", want)
		}
	}
	for _, not := range []string{"tpmC", "warehouse", "new_order", "clause", "Other recorded fields", `data-empty="true"`} {
		if strings.Contains(page, not) {
			t.Errorf("report.html of a kv run has %q", not)
		}
	}
}

// formatOneJSON is a result.json of format 1 (before format_version): TPC-C's keys only.
const formatOneJSON = `{
  "tool": {"name": "candor", "version": "0.9.0"}, "workload": "tpcc",
  "disclaimer": "derived from TPC-C, not audited: not comparable to published TPC-C results",
  "mode": "spec", "partial": false, "warehouses": 2, "terminals": 20, "connections": 4, "seed": 42,
  "isolation": "serializable", "procedures": true,
  "started_at": "2025-01-02T03:04:05Z", "warmup_seconds": 2, "measure_seconds": 10,
  "tpmC": 23.4, "efficiency": 90.98,
  "database": {"kind": "postgres", "version": "PostgreSQL 16.2", "url": "postgres://localhost/tpcc"},
  "driver_host": {"hostname": "h", "cpus": 8, "goos": "linux", "goarch": "amd64"},
  "transactions": {
    "new_order":    {"count": 234, "per_minute": 23.4, "response_ms": {"p50": 12.5, "p90": 20.1, "p99": 41}},
    "payment":      {"count": 226, "per_minute": 22.6, "response_ms": {"p50": 8.1, "p99": 17}},
    "order_status": {"count": 21, "per_minute": 2.1, "response_ms": {"p50": 3.3}},
    "delivery":     {"count": 20, "per_minute": 2.0, "response_ms": {"p50": 1.1}},
    "stock_level":  {"count": 21, "per_minute": 2.1, "response_ms": {"p50": 30.2}}
  },
  "delivery_deferred": {"count": 20, "errors": 1, "incomplete": 0, "skipped_districts": 3, "districts": 200,
    "completion_ms": {"p50": 55.5, "p90": 80.5, "max": 120}},
  "verdicts": [{"rule": "new_order p90 response time", "limit_ms": 5000, "value_ms": 20.1, "samples": 234, "status": "pass", "pass": true}],
  "audit": {"transactions": 522, "enough": false, "items": [
    {"name": "new_order remote order-lines", "clause": "2.4.1.5", "value": 1.02, "low": 0.95, "high": 1.05, "unit": "%", "status": "not enough transactions", "pass": false}]},
  "warnings": [], "constants": {"load": {"c_last": 157}, "run": {"c_last": 200}},
  "plan": {"warehouses": 2, "mode": "spec"}
}
`

// TestPageOfFormatOne: report.html of a result of format 1 shows what it did: tpmC and efficiency,
// the deferred Delivery (its row and its section), the audit, the verdicts with their clause, the
// warehouses and procedures in the setup, and TPC-C's own fields in the disclosure.
func TestPageOfFormatOne(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, report.ResultFile), []byte(formatOneJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := htmlreport.Render(&sb, dir); err != nil {
		t.Fatal(err)
	}
	page := sb.String()
	for _, want := range []string{
		`data-headline="tpmC"`, `<div class="value">23.4</div>`, "new-orders per minute", "efficiency", "91.0<small>%</small>", "of the 12.86 x W spec ceiling",
		"new_order p99", "payment p99", "2 warehouses, stored procedures",
		`data-tx="new_order"`, `data-tx="stock_level"`, `data-tx="delivery_deferred" data-part-of="delivery"`,
		"delivery_deferred is a part of delivery",
		`data-section="deferred Delivery (clause 2.7.2)"`, "3 (1.50%)",
		`data-section="run-time audit of the generated inputs (clause 9.2)"`, `data-status="not enough transactions"`, "0.950..1.050",
		"new_order p90 response time (clause 5.2.5.3)",
		"The workload&#39;s own fields", "load.c_last", "procedures",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html of a format-1 result lacks %q", want)
		}
	}
	if strings.Contains(page, "Other recorded fields") {
		t.Error("format 1's keys are disclosed as unknown fields")
	}
}

// TestLoadsPageOfAnotherWorkload: the one-shot's page of kv runs shows each run's lead figure under
// its name, and its operations.
func TestLoadsPageOfAnotherWorkload(t *testing.T) {
	dir := t.TempDir()
	kvRun(t, filepath.Join(dir, report.PeakDir), 500, nil)
	kvRun(t, filepath.Join(dir, report.RateDirPrefix+"50"), 250, &report.RateResult{Arrivals: "poisson", TargetRate: 260, AchievedRate: 259, Sustained: true})
	sw := &report.Sweep{Terminals: 8, GainPct: 5, Stopped: "16 terminals gained +1.0%",
		Steps: []report.SweepStep{{Terminals: 4, Rate: 300}, {Terminals: 8, Rate: 500}, {Terminals: 16, Rate: 505}}}
	if err := report.WriteSweep(dir, sw); err != nil {
		t.Fatal(err)
	}
	runs, ok, err := report.ReadLoads(dir)
	if err != nil || !ok || len(runs) != 2 {
		t.Fatalf("ReadLoads: %d runs, %v, %v", len(runs), ok, err)
	}
	var b bytes.Buffer
	if err := htmlreport.RenderLoads(&b, dir, runs); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<th>throughput</th>", `data-lead="peak">520<`, `data-lead="rate-50">270<`, "peak · throughput", "operations per second",
		`data-tx="read"`, `data-tx="write"`, `data-series="read.p99"`, "kv95, batch 1, 1,000 keys", "sustained",
		"The peak&#39;s concurrency: 8 terminals, the most that still raised the throughput by more than 5%: 4 → 300.0/s, 8 → 500.0/s, 16 → 505.0/s",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("index.html of kv runs lacks %q", want)
		}
	}
	if strings.Contains(page, "tpmC") || strings.Contains(page, "warehouse") {
		t.Error("index.html of kv runs speaks of TPC-C")
	}
}

// TestPageOfAnotherWorkloadInChromium opens the report.html of a run without a TPC-C part in
// headless Chromium: every chart laid out, a drawn line per operation in the throughput, percentile
// and spectrum charts, and the headline as the result has it.
func TestPageOfAnotherWorkloadInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("no headless Chromium at %s (%v): scripts/test installs it as root (apt-get install chromium); install it to run this test", chromiumPath, err)
	}
	dir := t.TempDir()
	res := kvRun(t, dir, 500, nil)
	if err := htmlreport.Write(dir); err != nil {
		t.Fatal(err)
	}
	dom := dumpDOM(t, filepath.Join(dir, htmlreport.File))
	drawn := map[string]bool{}
	chart := ""
	for _, tg := range tagsOrdered(dom) {
		if tg.name == "svg" {
			chart = tg.attr["data-chart"]
			if w, _ := strconv.Atoi(tg.attr["data-rendered-width"]); tg.attr["class"] == "plot" && w < 100 {
				t.Errorf("chart %s rendered %d px wide", chart, w)
			}
			continue
		}
		if l, _ := strconv.ParseFloat(tg.attr["data-rendered-length"], 64); tg.attr["class"] == "line" && l > 0 {
			drawn[chart+" "+tg.attr["data-series"]] = true
		}
	}
	for _, op := range res.Ops() {
		for _, want := range []string{"throughput " + op, "percentiles-" + op + " " + op + ".p50", "spectrum-" + op + " " + op + ".response"} {
			if !drawn[want] {
				t.Errorf("Chromium drew no line %q", want)
			}
		}
	}
	m := regexp.MustCompile(`data-headline="([^"]*)"[^<]*<div class="label">[^<]*</div>\s*<div class="value">([^<]*)</div>`).FindStringSubmatch(dom)
	if m == nil || m[1] != res.Lead().Name || m[2] != "520" {
		t.Errorf("headline %v, want %s 520", m, res.Lead().Name)
	}
}

// TestPageMeanNoIdleRows: report.html's table of operations shows the mean response and service
// time beside the percentiles, and no row of zeros for an operation that did not run at all.
func TestPageMeanNoIdleRows(t *testing.T) {
	dir := t.TempDir()
	res := kvRun(t, dir, 500, nil)
	res.Operations["scan"] = &report.TxResult{}
	res.OpOrder = append(res.OpOrder, "scan")
	res.Operations["read"].ResponseMs.Mean = 0.777
	res.Operations["read"].ServiceMs.Mean = 0.666
	if err := report.Write(dir, res); err != nil {
		t.Fatal(err)
	}
	if err := htmlreport.Write(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, htmlreport.File))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"<th>mean</th><th>p50</th>", "0.777", "0.666", `data-tx="read"`} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(page, `data-tx="scan"`) {
		t.Errorf("report.html has a row of zeros for scan, which did not run")
	}
}
