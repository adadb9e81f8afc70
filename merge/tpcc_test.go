package merge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	_ "github.com/candor-bench/candor/workload/all" // the registry: tpcc's MergeFinish
	"github.com/candor-bench/candor/workload/tpcc"
)

// writeShard saves a shard's run as candor writes one: its totals as one interval and as the
// measured totals over [from, from+secs), and r (whose operations are made to agree with them).
func writeShard(t *testing.T, dir string, r *report.Result, tot *measure.Totals, from time.Time, secs float64) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, report.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	end := from.Add(time.Duration(secs * float64(time.Second)))
	lw, err := measure.NewLogWriter(f, r.StartedAt, "test")
	if err != nil {
		t.Fatal(err)
	}
	iv := &measure.Interval{Start: from, End: end, Ops: tot.Ops, Hist: tot.Hist}
	for op := range tot.Hist {
		for k, h := range tot.Hist[op] {
			h.SetTag(tot.Ops[op] + "." + measure.Kind(k).String())
			h.SetStartTimeMs(from.UnixMilli())
			h.SetEndTimeMs(end.UnixMilli())
		}
	}
	if err := lw.Write(iv); err != nil {
		t.Fatal(err)
	}
	if err := lw.WriteTotals(tot, from, end); err != nil {
		t.Fatal(err)
	}
	r.Operations = map[string]*report.TxResult{}
	for op, name := range tot.Ops {
		c := tot.Hist[op][measure.Response].TotalCount()
		r.Operations[name] = &report.TxResult{Count: c, PerMinute: float64(c) / secs * 60, ResponseMs: tot.Percentiles(op, measure.Response)}
	}
	if err := report.Write(dir, r); err != nil {
		t.Fatal(err)
	}
}

// TestMergeTPCCVerdicts: the 90th-percentile verdicts of a merged TPC-C run come from the shards'
// histograms added, never from their percentiles. Shard 1's New-Orders are 15% above the 5 s limit
// (its own p90 fails), shard 0's all fast; together 7.5% are slow, so the merged p90 passes, where
// a maximum of the shards' p90s would fail. tpmC and efficiency come from the shards' New-Orders
// in the window over the common window and all W warehouses.
func TestMergeTPCCVerdicts(t *testing.T) {
	dir := t.TempDir()
	from := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	const secs = 60.0
	var dirs []string
	for i := range 2 {
		tot := measure.NewTotals(tpcc.OpNames)
		for op := range tpcc.OpNames {
			for n := range 1000 {
				v := int64(1000) // 1 ms
				if i == 1 && op == tpcc.NewOrder && n < 150 {
					v = 10_000_000 // 10 s
				}
				tot.Hist[op][measure.Response].RecordValue(v)
				tot.Hist[op][measure.Service].RecordValue(v)
			}
		}
		r := &report.Result{FormatVersion: report.FormatVersion, Workload: "tpcc", Mode: "spec", Seed: uint64(i + 1),
			StartedAt: from.Add(-10 * time.Second), WarmupSeconds: 10, MeasureSeconds: secs,
			OpOrder: tpcc.OpNames, KeyOp: "new_order", Warnings: []report.Warning{}, Isolation: "serializable",
			Shard: &report.Shard{Index: i, Count: 2, RootSeed: 9},
			Plan: map[string]any{"workload": "tpcc", "mode": "spec", "interval": "5s",
				"shard": map[string]any{"index": i, "count": 2, "root_seed": 9}, "options": map[string]any{"warehouses": 20}},
			Details: tpcc.Details{NewOrdersInWindow: 1000},
			TPCC: &report.TPCC{Warehouses: 20, Constants: map[string]any{"load": map[string]int{"c_last": 1}},
				DeliveryDeferred: &report.Deferred{Count: 1000, Districts: 10000, SkippedDistricts: 10}},
		}
		d := filepath.Join(dir, "shard-"+string(rune('0'+i)))
		writeShard(t, d, r, tot, from, secs)
		dirs = append(dirs, d)
	}
	res, err := Merge(dirs, Options{Out: filepath.Join(dir, "merged")})
	if err != nil {
		t.Fatal(err)
	}
	if res.TPCC == nil {
		t.Fatal("the merged run has no TPC-C part: MergeFinish did not run")
	}
	if res.TpmC != 2000 {
		t.Errorf("tpmC %v, want 2,000 New-Orders in the window over 1 minute", res.TpmC)
	}
	if res.Efficiency == nil || *res.Efficiency < 777 || *res.Efficiency > 778 {
		t.Errorf("efficiency %v, want 100 x 2000 / (12.86 x 20) = 777.6%%", res.Efficiency)
	}
	var no *report.Verdict
	for i := range res.Verdicts {
		if strings.HasPrefix(res.Verdicts[i].Rule, "new_order") {
			no = &res.Verdicts[i]
		}
	}
	if no == nil || !no.Pass || no.Samples != 2000 || no.ValueMs > 1.001 {
		t.Fatalf("new_order p90 verdict %+v, want a pass at 1 ms over 2,000 samples (7.5%% slow)", no)
	}
	if p := res.Operations["new_order"].ResponseMs.P99; p < 9999 {
		t.Errorf("merged new_order p99 %.1f ms, want the slow tail (10 s)", p)
	}
	if d := res.DeliveryDeferred; d == nil || d.Districts != 20000 || d.SkippedDistricts != 20 {
		t.Errorf("deferred Delivery %+v, want the shards' districts summed", d)
	}
	if !strings.Contains(res.Setup, "20 warehouses") || !strings.Contains(res.Setup, "2 shards merged") {
		t.Errorf("setup %q", res.Setup)
	}
}
