package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
)

// fakeRun describes a synthetic saved run: 2 + measured + 2 one-second intervals (ticks 3 ms
// late), a window [2 s, 2+measured s), latencies lognormal around medianMs, about perSec
// transactions per second per type.
type fakeRun struct {
	seed       uint64
	warehouses int
	medianMs   float64
	perSec     int
	totals     bool // write the measured totals (every real run does)
	measured   int  // seconds (default 10)
	// kv: a run of another workload (operations read and write, no TPC-C part); formatOne: a
	// TPC-C result.json of format 1 (before format_version).
	kv, formatOne bool
}

var (
	fakeOps   = []string{"new_order", "payment"}
	fakeKVOps = []string{"read", "write"}
)

func writeFakeRun(t *testing.T, dir string, f fakeRun) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if f.measured == 0 {
		f.measured = 10
	}
	start := time.Unix(1_800_000_000, 0)
	ws, we := start.Add(2*time.Second), start.Add(time.Duration(2+f.measured)*time.Second)
	lf, err := os.Create(filepath.Join(dir, report.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	lw, err := measure.NewLogWriter(lf, start, "synthetic")
	if err != nil {
		t.Fatal(err)
	}
	ops := fakeOps
	if f.kv {
		ops = fakeKVOps
	}
	rec := measure.NewRecorder(ops, 1)
	rec.Begin(start, ws, we)
	r := gen.New(f.seed)
	s := rec.Stripe(0)
	for k := range f.measured + 4 {
		at := start.Add(time.Duration(k) * time.Second)
		for op := range ops {
			n := f.perSec + r.IntRange(-f.perSec/10, f.perSec/10)
			for range n {
				d := time.Duration(f.medianMs * math.Exp(0.7*normal(r)) * float64(time.Millisecond))
				s.Done(op, !at.Before(ws) && at.Before(we), measure.Event{Response: d, Service: d})
			}
		}
		if err := lw.Write(rec.Tick(at.Add(time.Second + 3*time.Millisecond))); err != nil {
			t.Fatal(err)
		}
	}
	if f.totals {
		if err := lw.WriteTotals(rec.Totals(), ws, we); err != nil {
			t.Fatal(err)
		}
	}
	res := &report.Result{
		FormatVersion: report.FormatVersion, Tool: report.Tool{Name: "candor", Version: "test"}, Workload: "tpcc", Mode: "throughput",
		Setup: report.TPCCSetup(f.warehouses, false), Terminals: 4, Connections: 4, Seed: f.seed, Isolation: "serializable",
		StartedAt: start, WarmupSeconds: 2, MeasureSeconds: float64(f.measured),
		Database:   report.Database{Kind: "sqlite", Version: "SQLite 3", URL: "sqlite:x.db", Settings: map[string]string{"fsync": "on"}},
		Operations: map[string]*report.TxResult{}, OpOrder: ops, KeyOp: ops[0],
		Headline: []report.Figure{{Name: "tpmC", Value: float64(f.perSec * 60)}},
		Plan:     map[string]any{"duration": "10s", "out": dir, "seed": f.seed},
		TPCC:     &report.TPCC{Warehouses: f.warehouses, TpmC: float64(f.perSec * 60), Transactions: map[string]*report.TxResult{}},
	}
	for _, op := range ops {
		res.Operations[op] = &report.TxResult{Count: int64(f.perSec * f.measured)}
	}
	switch {
	case f.kv:
		res.Workload, res.Setup, res.TPCC = "kv", fmt.Sprintf("kv95, batch 1, %d keys", 1000*f.warehouses), nil
		res.Headline = []report.Figure{{Name: "throughput", Value: float64(2 * f.perSec), Unit: "operations per second"}}
		res.Plan.(map[string]any)["options"] = map[string]any{"keys": 1000 * f.warehouses}
	case f.formatOne:
		res.FormatVersion, res.Setup, res.Operations, res.OpOrder, res.KeyOp, res.Headline = 0, "", nil, nil, "", nil
		res.Plan.(map[string]any)["warehouses"] = f.warehouses
	}
	if err := report.Write(dir, res); err != nil {
		t.Fatal(err)
	}
}

func TestLoadKeepsOnlyTheWindow(t *testing.T) {
	for _, totals := range []bool{true, false} {
		dir := t.TempDir()
		writeFakeRun(t, dir, fakeRun{seed: 1, warehouses: 1, medianMs: 2, perSec: 200, totals: totals})
		r, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		// Intervals end at k+1.003 s: [0,1), [1,2) are warm-up (the second ends 3 ms inside the
		// window but starts a second before it), [2,3) .. [11,12) are measured, [12,13), [13,14) drain.
		if len(r.Seconds) != 10 || r.Excluded != 4 {
			t.Fatalf("totals %v: %d measured intervals and %d excluded, want 10 and 4 (window %s, %v..%v)", totals, len(r.Seconds), r.Excluded, r.WindowSource, r.WindowStart, r.WindowEnd)
		}
		if totals != strings.Contains(r.WindowSource, "latency.hlog") {
			t.Fatalf("totals %v: window from %q", totals, r.WindowSource)
		}
		if got := r.Starts[0].Sub(time.Unix(1_800_000_002, 0)); got < 0 || got > 10*time.Millisecond {
			t.Fatalf("first measured interval starts %v after the window", got)
		}
		if !equalStrings(r.Ops, fakeOps) {
			t.Fatalf("ops %v, want %v", r.Ops, fakeOps)
		}
		for _, rate := range r.Rates("new_order") {
			if rate < 180*60*0.95 || rate > 220*60*1.05 {
				t.Fatalf("rate %v per minute, want about 12000", rate)
			}
		}
	}
}

func equalStrings(a, b []string) bool {
	return strings.Join(a, ",") == strings.Join(b, ",")
}

func TestCompareRuns(t *testing.T) {
	base := t.TempDir()
	dirA, dirSame, dirSlow := filepath.Join(base, "a"), filepath.Join(base, "same"), filepath.Join(base, "slow")
	writeFakeRun(t, dirA, fakeRun{seed: 1, warehouses: 1, medianMs: 2, perSec: 500, totals: true, measured: 30})
	writeFakeRun(t, dirSame, fakeRun{seed: 2, warehouses: 1, medianMs: 2, perSec: 500, totals: true, measured: 30})
	writeFakeRun(t, dirSlow, fakeRun{seed: 3, warehouses: 2, medianMs: 3, perSec: 350, totals: true, measured: 30})
	a, _ := Load(dirA)
	same, _ := Load(dirSame)
	slow, _ := Load(dirSlow)

	c := Compare(a, same, Options{})
	if len(c.Types) != 2 || c.Types[0].Type != "new_order" {
		t.Fatalf("types %+v", c.Types)
	}
	for _, tc := range c.Types {
		for _, row := range append([]Row{tc.Throughput}, tc.Percentiles...) {
			if row.Verdict != NotSignificant {
				t.Errorf("same distribution, %s %s: %s (change %v)", tc.Type, row.Metric, row.Verdict, *row.Change)
			}
		}
	}
	if names := diffNames(c.Conditions); names != "seed" {
		t.Errorf("conditions that differ: %q, want only seed (the plan's out and seed are skipped)", names)
	}

	c = Compare(a, slow, Options{})
	for _, tc := range c.Types {
		if r := tc.Throughput; r.Verdict != Significant || *r.Change > -0.2 {
			t.Errorf("%s throughput down a third: %s, change %v", tc.Type, r.Verdict, *r.Change)
		}
		for _, row := range tc.Percentiles {
			if row.Verdict != Significant || *row.Low <= 0 {
				t.Errorf("%s %s 50%% slower: %s [%v, %v]", tc.Type, row.Metric, row.Verdict, *row.Low, *row.High)
			}
		}
	}
	if names := diffNames(c.Conditions); names != "setup,seed" {
		t.Errorf("conditions that differ: %q, want setup,seed (TPC-C's warehouses are in the setup line)", names)
	}

	b, err := json.Marshal(c)
	if err != nil {
		t.Fatalf("--json output does not marshal: %v", err)
	}
	var back Comparison
	if err := json.Unmarshal(b, &back); err != nil || back.Types[0].Percentiles[2].Metric != "p99" {
		t.Fatalf("JSON round trip: %v %+v", err, back.Types)
	}
	var out bytes.Buffer
	Print(&out, c)
	for _, want := range []string{"conditions that differ", "setup", "1 warehouse, interactive", "2 warehouses", "new_order", "p99.9 ms", "significant"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("printed comparison lacks %q:\n%s", want, out.String())
		}
	}
	t.Logf("\n%s", out.String())

	// Fewer than the minimum of measured intervals: nothing is judged.
	c = Compare(a, slow, Options{MinIntervals: 31})
	if v := c.Types[0].Percentiles[0].Verdict; v != TooFew {
		t.Errorf("30 intervals with a minimum of 31: %q", v)
	}
}

func diffNames(ds []Difference) string {
	var n []string
	for _, d := range ds {
		n = append(n, d.Name)
	}
	return strings.Join(n, ",")
}

func TestLoadRefusesWhatIsNotARun(t *testing.T) {
	base := t.TempDir()
	noLog := filepath.Join(base, "nolog")
	writeFakeRun(t, noLog, fakeRun{seed: 1, warehouses: 1, medianMs: 1, perSec: 10, totals: true})
	os.Remove(filepath.Join(noLog, report.LogFile))
	badLog := filepath.Join(base, "badlog")
	writeFakeRun(t, badLog, fakeRun{seed: 1, warehouses: 1, medianMs: 1, perSec: 10, totals: true})
	os.WriteFile(filepath.Join(badLog, report.LogFile), []byte("#[StartTime: 1 (seconds since epoch)]\n0.0,1.0,1.0,@@@notbase64\n"), 0o644)
	several := filepath.Join(base, "oneshot")
	writeFakeRun(t, filepath.Join(several, "peak"), fakeRun{seed: 1, warehouses: 1, medianMs: 1, perSec: 10, totals: true})
	writeFakeRun(t, filepath.Join(several, "rate-50"), fakeRun{seed: 1, warehouses: 1, medianMs: 1, perSec: 10, totals: true})
	file := filepath.Join(base, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, c := range []struct{ dir, want string }{
		{filepath.Join(base, "missing"), "is not a directory"},
		{file, "is not a directory"},
		{t.TempDir(), "has no result.json"},
		{noLog, "has no latency.hlog"},
		{several, "holds several runs (peak, rate-50), not one"},
		{badLog, "not a readable HdrHistogram interval log"},
	} {
		_, err := Load(c.dir)
		if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%s): %v, want a user error saying %q", c.dir, err, c.want)
		}
	}
}

func TestConditions(t *testing.T) {
	parse := func(s string) map[string]any {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	a := parse(`{"workload":"tpcc","mode":"rate","seed":3326190308545464065,"tpmC":100,
		"database":{"version":"15.1","settings":{"fsync":"on"}},
		"driver_host":{"hostname":"h","cpu_seconds":3,"watch":{"host_cpu_busy_pct":40}},
		"warnings":[{"code":"SHORT_RUN"},{"code":"CLOSED_LOOP"}],
		"plan":{"rate":"500","out":"a","interval":"5s"},"new_condition":"x","transactions":{"new_order":{"count":1}}}`)
	b := parse(`{"workload":"tpcc","mode":"rate","seed":3326190308545464066,"tpmC":200,
		"database":{"version":"15.1","settings":{"fsync":"off"}},
		"driver_host":{"hostname":"h","cpu_seconds":9,"watch":{"host_cpu_busy_pct":95}},
		"warnings":[{"code":"CLOSED_LOOP"},{"code":"DURABILITY_OFF"},{"code":"SHORT_RUN"}],
		"plan":{"rate":"800","out":"b","interval":"5s"},"transactions":{"new_order":{"count":2}}}`)
	got := Conditions(a, b)
	want := []Difference{
		{Name: "seed", A: "3326190308545464065", B: "3326190308545464066"}, // exact: numbers are kept as text
		{Name: "warnings", A: "CLOSED_LOOP,SHORT_RUN", B: "CLOSED_LOOP,DURABILITY_OFF,SHORT_RUN"},
		{Name: "database.settings.fsync", A: "on", B: "off"},
		{Name: "driver_host.cpu_busy_pct (whole host, during the run)", A: "40%", B: "95%"},
		{Name: "plan.rate", A: "500", B: "800"},
		{Name: "new_condition", A: "x", B: "(absent)"},
	}
	if len(got) != len(want) {
		t.Fatalf("Conditions = %+v\nwant %+v", got, want)
	}
	for i := range want {
		if g := got[i]; g.Name != want[i].Name || g.A != want[i].A || g.B != want[i].B || g.Minor || g.ShownA != g.A {
			t.Errorf("difference %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if d := Conditions(a, a); len(d) != 0 {
		t.Errorf("a run against itself: %+v", d)
	}
}

// TestCompareAnotherWorkload: two runs of a workload without a TPC-C part compare by their own
// operations, and their conditions by the envelope: the setup line and the plan's options.
func TestCompareAnotherWorkload(t *testing.T) {
	base := t.TempDir()
	dirA, dirB := filepath.Join(base, "a"), filepath.Join(base, "b")
	writeFakeRun(t, dirA, fakeRun{kv: true, seed: 1, warehouses: 1, medianMs: 1, perSec: 400, totals: true, measured: 20})
	writeFakeRun(t, dirB, fakeRun{kv: true, seed: 1, warehouses: 4, medianMs: 2, perSec: 400, totals: true, measured: 20})
	a, err := Load(dirA)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(dirB)
	if err != nil {
		t.Fatal(err)
	}
	if a.Result.TPCC != nil {
		t.Fatalf("a kv run read with a TPC-C part")
	}
	c := Compare(a, b, Options{})
	if len(c.Types) != 2 || c.Types[0].Type != "read" || c.Types[1].Type != "write" {
		t.Fatalf("types %+v", c.Types)
	}
	if p := c.Types[0].Percentiles[0]; p.Verdict != Significant || *p.Change < 0.5 {
		t.Errorf("read p50 twice as slow: %s, change %v", p.Verdict, *p.Change)
	}
	if names := diffNames(c.Conditions); names != "setup,plan.options.keys" {
		t.Errorf("conditions that differ: %q, want setup,plan.options.keys", names)
	}
	var out bytes.Buffer
	Print(&out, c)
	for _, want := range []string{"kv95, batch 1, 1000 keys", "kv95, batch 1, 4000 keys", "read", "write", "per min", "p99.9 ms"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("printed comparison lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "new_order") || strings.Contains(out.String(), "warehouse") {
		t.Errorf("a kv comparison speaks of TPC-C:\n%s", out.String())
	}
}

// TestCompareFormatOne: a run saved in result format 1 compares with one of format 2: its setup
// line comes from report.Read, TPC-C's own keys are not conditions, the plan still is (its warehouses
// moved to plan.options, where format 2 keeps them).
func TestCompareFormatOne(t *testing.T) {
	base := t.TempDir()
	dirOld, dirNew := filepath.Join(base, "old"), filepath.Join(base, "new")
	writeFakeRun(t, dirOld, fakeRun{formatOne: true, seed: 1, warehouses: 2, medianMs: 2, perSec: 300, totals: true})
	writeFakeRun(t, dirNew, fakeRun{seed: 1, warehouses: 1, medianMs: 2, perSec: 300, totals: true})
	b, _ := os.ReadFile(filepath.Join(dirOld, report.ResultFile))
	if bytes.Contains(b, []byte(`"setup"`)) || !bytes.Contains(b, []byte(`"warehouses": 2`)) {
		t.Fatalf("not a result of format 1:\n%s", b)
	}
	old, err := Load(dirOld)
	if err != nil {
		t.Fatal(err)
	}
	cur, err := Load(dirNew)
	if err != nil {
		t.Fatal(err)
	}
	c := Compare(old, cur, Options{})
	want := []Difference{newDifference("setup", "2 warehouses, interactive", "1 warehouse, interactive"), newDifference("plan.options.warehouses", "2", "(absent)")}
	if len(c.Conditions) != len(want) || c.Conditions[0] != want[0] || c.Conditions[1] != want[1] {
		t.Errorf("conditions %+v, want %+v", c.Conditions, want)
	}
	if len(c.Types) != 2 || c.Types[0].Type != "new_order" {
		t.Errorf("types %+v", c.Types)
	}
}

// TestConditionsRounded: float noise in a measured condition (a timer lag's mean in microseconds)
// is minor, shown rounded and left to --json; real differences stay, rounded for a reader.
func TestConditionsRounded(t *testing.T) {
	parse := func(s string) map[string]any {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	a := parse(`{"terminals":4,"driver_host":{"timer_lag_ms":{"mean":0.0024948834565093796,"p99":0.0310001}},"warmup_seconds":5.000000001,"x":{"ratio":0.333333333}}`)
	b := parse(`{"terminals":8,"driver_host":{"timer_lag_ms":{"mean":0.0031,"p99":1.4}},"warmup_seconds":5,"x":{"ratio":0.5}}`)
	want := map[string]struct {
		minor      bool
		shownA, sb string
	}{
		"terminals":                     {false, "4", "8"},
		"driver_host.timer_lag_ms.mean": {true, "0.0", "0.0"},
		"driver_host.timer_lag_ms.p99":  {false, "0.0", "1.4"},
		"warmup_seconds":                {true, "5.0", "5.0"},
		"x.ratio":                       {false, "0.333", "0.5"},
	}
	got := Conditions(a, b)
	if len(got) != len(want) {
		t.Fatalf("Conditions = %+v, want %d differences", got, len(want))
	}
	for _, d := range got {
		w, ok := want[d.Name]
		if !ok || d.Minor != w.minor || d.ShownA != w.shownA || d.ShownB != w.sb {
			t.Errorf("%s: %+v, want minor %v shown %q and %q", d.Name, d, w.minor, w.shownA, w.sb)
		}
	}
	var buf bytes.Buffer
	Print(&buf, &Comparison{Conditions: got})
	if s := buf.String(); strings.Contains(s, "0.0024948834565093796") || !strings.Contains(s, "terminals") || !strings.Contains(s, "2 more differ only past the rounding") {
		t.Errorf("printed conditions:\n%s", s)
	}
}
