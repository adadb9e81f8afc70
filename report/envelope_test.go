package report

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/measure"
)

// kvResult is a result of a workload other than TPC-C, as kv writes it: no TPC-C part at all,
// its own operations, headline, setup and section.
func kvResult() *Result {
	return &Result{
		FormatVersion: FormatVersion, Tool: Tool{Name: "candor", Version: "test"}, Workload: "kv",
		Disclaimer: "a key-value workload", Mode: "throughput", Setup: "kv95, batch 1, 1,000 keys",
		Terminals: 8, Connections: 8, Seed: 7, Isolation: "serializable",
		StartedAt: time.Unix(1_800_000_000, 0).UTC(), WarmupSeconds: 2, MeasureSeconds: 10,
		Database: Database{Kind: "sqlite", Version: "SQLite 3.45", URL: "sqlite:kv.db"},
		Operations: map[string]*TxResult{
			"read":  {Count: 47_500, PerMinute: 285_000, ResponseMs: measure.Percentiles{P50: 0.21, P90: 0.4, P99: 1.7, P999: 4.2, Max: 9}, ServiceMs: measure.Percentiles{P50: 0.2, P99: 1.5}},
			"write": {Count: 2_500, Errors: 3, PerMinute: 15_000, ResponseMs: measure.Percentiles{P50: 0.9, P99: 6.3, Max: 12}},
		},
		OpOrder: []string{"read", "write"},
		KeyOp:   "read",
		Headline: []Figure{{Name: "throughput", Value: 5000.3, Unit: "operations per second"},
			{Name: "read share", Value: 95, Unit: "%", Note: "of the operations"}},
		Sections: []Section{{Title: "key space", Columns: []string{"keys", "distribution", "hottest key share"},
			Rows: [][]string{{"1,000", "zipfian", "12.5%"}}, Notes: []string{"keys drawn from the run's seed"}}},
		Verdicts: []Verdict{NewVerdict("read p99 response time", 10, 1.7, 47_500)},
		Warnings: []Warning{{Code: "SHORT_RUN", Message: "10 s is short"}},
		Checks:   []Check{{Condition: 1, Name: "every key present once", OK: true, Seconds: 0.01}},
		Plan:     map[string]any{"options": map[string]any{"keys": 1000}},
	}
}

// TestSummaryOfAnotherWorkload: the summary of a result without a TPC-C part prints its setup, every
// headline figure, every operation, its verdicts, section, checks and warnings, and nothing of TPC-C.
func TestSummaryOfAnotherWorkload(t *testing.T) {
	r := kvResult()
	r.Rate = &RateResult{Arrivals: "poisson", TargetRate: 5000, Steps: []RateStep{
		{Step: 1, TargetRate: 2500, Sustained: true, Transactions: map[string]*StepTx{"read": {ResponseMs: measure.Percentiles{P50: 0.31}}}},
		{Step: 2, TargetRate: 7500, Transactions: map[string]*StepTx{"read": {ResponseMs: measure.Percentiles{P50: 0.77}}}},
	}}
	var b bytes.Buffer
	Summary(&b, r)
	out := b.String()
	for _, want := range []string{
		"candor kv\n", "mode throughput · kv95, batch 1, 1,000 keys · 8 terminals",
		"throughput 5000.3 operations per second   read share 95.0% of the operations",
		"read ", "write ", "285000.0   4750.0", "verdicts:\n", "read p99 response time",
		"key space:\n", "  keys   distribution  hottest key share\n", "  1,000  zipfian       12.5%\n", "  keys drawn from the run's seed",
		"consistency checks:\n", "every key present once", "[SHORT_RUN]",
		"steps (each on its own; read response time", "0.310", "0.770",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	for _, not := range []string{"tpmC", "warehouse", "new_order", "clause"} {
		if strings.Contains(out, not) {
			t.Errorf("summary of a kv result says %q:\n%s", not, out)
		}
	}
}

// TestWriteReadAnotherWorkload: a result without a TPC-C part goes through result.json without one
// (no TPC-C key in the file) and comes back the same.
func TestWriteReadAnotherWorkload(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, kvResult()); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ResultFile))
	for _, k := range FormatOneKeys() {
		if bytes.Contains(b, []byte(`"`+k+`"`)) {
			t.Errorf("a kv result.json has TPC-C's key %q", k)
		}
	}
	r, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.TPCC != nil || r.Lead().Name != "throughput" || r.Key() != "read" || !slices.Equal(r.Ops(), []string{"read", "write"}) || len(r.Sections) != 1 {
		t.Errorf("read back: TPC-C part %v, lead %q, key %q, ops %v, %d sections", r.TPCC, r.Lead().Name, r.Key(), r.Ops(), len(r.Sections))
	}
	if got := AllTypesRate(r); got != 5000 {
		t.Errorf("all operations per second %g, want 5000", got)
	}
}

// formatOneJSON is a result.json of format 1 (before format_version): TPC-C's keys only.
const formatOneJSON = `{
  "tool": {"name": "candor", "version": "0.9.0"},
  "workload": "tpcc",
  "disclaimer": "derived from TPC-C, not audited: not comparable to published TPC-C results",
  "mode": "spec",
  "partial": false,
  "warehouses": 2,
  "terminals": 20,
  "connections": 4,
  "seed": 42,
  "isolation": "serializable",
  "stock_level_isolation": "read committed",
  "procedures": true,
  "started_at": "2025-01-02T03:04:05Z",
  "warmup_seconds": 60,
  "measure_seconds": 600,
  "tpmC": 23.4,
  "efficiency": 90.98,
  "database": {"kind": "postgres", "version": "PostgreSQL 16.2", "url": "postgres://localhost/tpcc"},
  "driver_host": {"hostname": "h", "cpus": 8, "goos": "linux", "goarch": "amd64", "cpu_us_per_tx": 120, "cpu_seconds": 3},
  "transactions": {
    "new_order":    {"count": 234, "errors": 0, "retries": 1, "rollbacks": 2, "per_minute": 23.4, "response_ms": {"p50": 12.5, "p90": 20.1, "p99": 41}, "service_ms": {"p50": 11}},
    "payment":      {"count": 226, "per_minute": 22.6, "response_ms": {"p50": 8.1}},
    "order_status": {"count": 21, "per_minute": 2.1, "response_ms": {"p50": 3.3}},
    "delivery":     {"count": 20, "per_minute": 2.0, "response_ms": {"p50": 1.1}},
    "stock_level":  {"count": 21, "per_minute": 2.1, "response_ms": {"p50": 30.2}}
  },
  "delivery_deferred": {"count": 20, "errors": 1, "incomplete": 0, "skipped_districts": 3, "districts": 200,
    "completion_ms": {"p50": 55.5, "p90": 80.5, "max": 120}, "file": "deliveries.csv", "lines": 31},
  "verdicts": [{"rule": "new_order p90 response time", "limit_ms": 5000, "value_ms": 20.1, "samples": 234, "status": "pass", "pass": true},
    {"rule": "deferred delivery p90 completion (clause 2.7.2.1)", "limit_ms": 80000, "value_ms": 80.5, "samples": 21, "status": "pass", "pass": true}],
  "audit": {"transactions": 522, "enough": false, "items": [
    {"name": "new_order remote order-lines", "clause": "2.4.1.5", "value": 1.02, "low": 0.95, "high": 1.05, "unit": "%", "status": "not enough transactions", "pass": false}]},
  "warnings": [],
  "constants": {"load": {"c_last": 157}, "run": {"c_last": 200}},
  "plan": {"warehouses": 2, "mode": "spec"}
}
`

// TestReadFormatOne: a result.json of format 1 reads as format 2 (operations with the deferred
// Delivery as a part of delivery, the workload's order and key operation, tpmC and efficiency as
// headline, the setup line, the deferred Delivery's and the audit's sections) and renders the same
// content as it did.
func TestReadFormatOne(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ResultFile), []byte(formatOneJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.FormatVersion != FormatVersion || r.TPCC == nil || r.Warehouses != 2 {
		t.Fatalf("format %d, TPC-C part %v", r.FormatVersion, r.TPCC)
	}
	wantOps := []string{"new_order", "payment", "order_status", "delivery", "stock_level", "delivery_deferred"}
	if !slices.Equal(r.Ops(), wantOps) || r.Key() != "new_order" {
		t.Errorf("ops %v, key %q; want %v, new_order", r.Ops(), r.Key(), wantOps)
	}
	if d := r.Operations["delivery_deferred"]; d == nil || d.PartOf != "delivery" || d.Count != 20 || d.Errors != 1 || d.ResponseMs.P90 != 80.5 || d.PerMinute != 2 {
		t.Errorf("delivery_deferred %+v", d)
	}
	if len(r.Headline) != 2 || r.Lead().Name != "tpmC" || r.Lead().Value != 23.4 || r.Headline[1].Name != "efficiency" || r.Headline[1].Value != 90.98 {
		t.Errorf("headline %+v", r.Headline)
	}
	if r.Setup != "2 warehouses, stored procedures; stock_level at read committed (clause 2.8.2.1 allows a weaker level)" {
		t.Errorf("setup %q", r.Setup)
	}
	if len(r.Sections) != 2 || r.Sections[0].Title != "deferred Delivery (clause 2.7.2)" || !strings.HasPrefix(r.Sections[1].Title, "run-time audit") {
		t.Errorf("sections %+v", r.Sections)
	}
	if r.Verdicts[0].Rule != "new_order p90 response time (clause 5.2.5.3)" || r.Verdicts[1].Rule != "deferred delivery p90 completion (clause 2.7.2.1)" {
		t.Errorf("verdicts %q, %q", r.Verdicts[0].Rule, r.Verdicts[1].Rule)
	}
	// All operations per second count the deferred Delivery once, in delivery: 522 in 600 s.
	if got := AllTypesRate(r); got != 522.0/600 {
		t.Errorf("all operations per second %g, want %g", got, 522.0/600)
	}

	var b bytes.Buffer
	Summary(&b, r)
	out := b.String()
	for _, want := range []string{
		"mode spec · 2 warehouses, stored procedures; stock_level at read committed",
		"tpmC 23.4 new-orders per minute   efficiency 91.0% of the 12.86 x W spec ceiling",
		"new_order ", "delivery_deferred ", "delivery_deferred is a part of delivery",
		"55.5", "80.5", // the deferred completion percentiles
		"deferred Delivery (clause 2.7.2):", "districts processed", "3 (1.50%)", "deliveries.csv, 31 lines",
		"run-time audit of the generated inputs (clause 9.2):", "new_order remote order-lines", "1.020 %", "0.950..1.050", "2.4.1.5",
		"522 transactions audited: fewer than 10,000",
		"verdicts:\n", "new_order p90 response time (clause 5.2.5.3)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary of a format-1 result lacks %q:\n%s", want, out)
		}
	}

	// Written again, it is a file of format 2 that keeps format 1's keys and is not upgraded twice.
	dir2 := t.TempDir()
	if err := Write(dir2, r); err != nil {
		t.Fatal(err)
	}
	r2, err := Read(dir2)
	if err != nil {
		t.Fatal(err)
	}
	if len(r2.Sections) != 2 || r2.Verdicts[0].Rule != r.Verdicts[0].Rule || r2.TpmC != 23.4 || r2.Transactions["new_order"] == nil {
		t.Errorf("written again and read: %d sections, rule %q, tpmC %g", len(r2.Sections), r2.Verdicts[0].Rule, r2.TpmC)
	}
}

// TestTPCCSections: the sections TPC-C fills from its deferred Delivery and its audit.
func TestTPCCSections(t *testing.T) {
	s := DeferredSection(&Deferred{Count: 1500, Errors: 2, Incomplete: 1, Districts: 15000, SkippedDistricts: 15})
	if len(s.Rows) != 1 || !slices.Equal(s.Rows[0], []string{"1,500", "15,000", "15 (0.10%)", "2", "1"}) || len(s.Columns) != 5 {
		t.Errorf("deferred section without a file: %+v", s)
	}
	s = DeferredSection(&Deferred{Districts: 10, File: "deliveries.csv", Lines: 1})
	if got := s.Rows[0][len(s.Rows[0])-1]; got != "deliveries.csv, 1 line" || len(s.Columns) != 6 || len(s.Notes) != 2 {
		t.Errorf("deferred section with a file: %+v", s)
	}
	a := AuditSection(&Audit{Transactions: 12_000, Enough: true, Items: []AuditItem{{Name: "x", Clause: "2.1", Value: 0.5, Low: 0.4, High: 0.6, Status: "pass"}}})
	if !slices.Equal(a.Columns, []string{"share", "value", "bounds", "clause", "status"}) || !slices.Equal(a.Rows[0], []string{"x", "0.500", "0.400..0.600", "2.1", "pass"}) ||
		a.Notes[0] != "12,000 transactions audited." {
		t.Errorf("audit section: %+v", a)
	}
	if keys := FormatOneKeys(); !slices.Contains(keys, "warehouses") || !slices.Contains(keys, "transactions") || !slices.Contains(keys, "constants") {
		t.Errorf("FormatOneKeys = %v", keys)
	}
	for _, k := range FormatOneFigures {
		if !slices.Contains(FormatOneKeys(), k) {
			t.Errorf("FormatOneFigures has %q, not a key of format 1", k)
		}
	}
}

// TestLoadsOfAnotherWorkload: the one-shot's side-by-side of kv runs shows their operations, their
// lead figure by its name and their setup.
func TestLoadsOfAnotherWorkload(t *testing.T) {
	peak, half := kvResult(), kvResult()
	half.Rate = &RateResult{Arrivals: "poisson", TargetRate: 2500, AchievedRate: 2499, Sustained: true}
	half.Headline[0].Value = 2499
	half.Operations["read"] = &TxResult{Count: 23_700, PerMinute: 142_200, ResponseMs: measure.Percentiles{P50: 0.15, P99: 0.8}}
	var b bytes.Buffer
	PrintLoads(&b, []LoadRun{{Label: PeakLabel, R: peak}, {Label: RateLabel(50), R: half}})
	out := b.String()
	for _, want := range []string{"candor kv: tail latency", "kv95, batch 1, 1,000 keys", "read ", "write ", "4750.0", "2370.0",
		"throughput", "5000.3", "2499.0", "sustained", "consistency checks:"} {
		if !strings.Contains(out, want) {
			t.Errorf("side-by-side lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "tpmC") || strings.Contains(out, "warehouse") {
		t.Errorf("side-by-side of kv runs speaks of TPC-C:\n%s", out)
	}
}

// TestSearchKeyOp: the search table shows the key operation's tails; a search.json written before
// key_op existed is TPC-C's and shows new_order's.
func TestSearchKeyOp(t *testing.T) {
	probe := SearchProbe{Probe: 1, Rate: 100, Pass: true, Sustained: true,
		Tails: map[string]ProbeTails{"read": {ResponseMs: measure.Percentiles{P50: 0.42}}, "new_order": {ResponseMs: measure.Percentiles{P50: 7.7}}}}
	kv := &SearchResult{Workload: "kv", KeyOp: "read", Probes: []SearchProbe{probe}}
	if h, l := ProbeHeader(kv), ProbeLine(kv, &kv.Probes[0]); !strings.Contains(h, "read p50") || !strings.Contains(l, "0.420") || strings.Contains(l, "7.70") {
		t.Errorf("kv search:\n%s\n%s", h, l)
	}
	dir := t.TempDir()
	old := &SearchResult{Workload: "tpcc", Probes: []SearchProbe{probe}}
	if err := WriteSearch(dir, old); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSearch(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.KeyOp != "new_order" {
		t.Errorf("an old search.json read with key operation %q", back.KeyOp)
	}
	if h, l := ProbeHeader(back), ProbeLine(back, &back.Probes[0]); !strings.Contains(h, "no p50") || !strings.Contains(l, "7.70") {
		t.Errorf("old search:\n%s\n%s", h, l)
	}
	var b bytes.Buffer
	PrintSearch(&b, kv)
	if out := b.String(); !strings.Contains(out, "candor kv search") || !strings.Contains(out, "read's response time") {
		t.Errorf("kv search printed:\n%s", out)
	}
}
