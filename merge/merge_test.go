package merge

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/sysinfo"
)

// fakeShard writes a shard's directory as a run would: an interval log (intervals of one second,
// then the measured totals over [from, from+secs)) and a result.json whose counts agree with it.
// Its latencies are drawn from rng; it returns the shard's measured response histogram of op "read".
func fakeShard(t testing.TB, dir string, i, n int, from time.Time, secs int, rng *rand.Rand) *hdr.Histogram {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ops := []string{"read", "write"}
	f, err := os.Create(filepath.Join(dir, report.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	started := from.Add(-2 * time.Second)
	lw, err := measure.NewLogWriter(f, started, "test")
	if err != nil {
		t.Fatal(err)
	}
	tot := measure.NewTotals(ops)
	for s := 0; s < secs; s++ {
		iv := &measure.Interval{Start: from.Add(time.Duration(s) * time.Second), Ops: ops,
			Hist: make([][measure.NumKinds]*hdr.Histogram, len(ops))}
		iv.End = iv.Start.Add(time.Second)
		for op := range ops {
			for k := range iv.Hist[op] {
				iv.Hist[op][k] = measure.NewHistogram()
				iv.Hist[op][k].SetTag(ops[op] + "." + measure.Kind(k).String())
				iv.Hist[op][k].SetStartTimeMs(iv.Start.UnixMilli())
				iv.Hist[op][k].SetEndTimeMs(iv.End.UnixMilli())
			}
			for range 50 + rng.IntN(50) {
				v := int64(100 + rng.ExpFloat64()*float64(1000*(op+1)*(i+1)))
				iv.Hist[op][measure.Response].RecordValue(v)
				iv.Hist[op][measure.Service].RecordValue(v / 2)
			}
			for k := range iv.Hist[op] {
				measure.Merge(tot.Hist[op][k], iv.Hist[op][k])
			}
		}
		if err := lw.Write(iv); err != nil {
			t.Fatal(err)
		}
	}
	if err := lw.WriteTotals(tot, from, from.Add(time.Duration(secs)*time.Second)); err != nil {
		t.Fatal(err)
	}
	r := &report.Result{FormatVersion: report.FormatVersion, Workload: "synthetic", Mode: "rate", Seed: uint64(100 + i),
		StartedAt: started, WarmupSeconds: 2, MeasureSeconds: float64(secs), OpOrder: ops, KeyOp: "read",
		Operations: map[string]*report.TxResult{}, Warnings: []report.Warning{},
		Headline: []report.Figure{{Name: "throughput", Value: float64(10 * (i + 1)), Unit: "operations per second"}, {Name: "hit ratio", Value: 50, Unit: "%"}},
		Shard:    &report.Shard{Index: i, Count: n, RootSeed: 7}, System: &sysinfo.System{Kernel: "6.8.0", IRQBalance: "running"},
		Plan: map[string]any{"workload": "synthetic", "mode": "rate", "interval": "1s", "seed": 100 + i, "shard": map[string]any{"index": i, "count": n, "root_seed": 7}}}
	for op, name := range ops {
		c := tot.Hist[op][measure.Response].TotalCount()
		r.Operations[name] = &report.TxResult{Count: c, Errors: int64(op), Failures: &report.Failures{ByClass: map[string]int64{"timeout": int64(op)}},
			PerMinute: float64(c) / float64(secs) * 60, ResponseMs: tot.Percentiles(op, measure.Response),
			Retries: 2, RetryCauses: []report.FailureMessage{{Class: "serialization", Message: "deadlock", Count: 2}}}
	}
	if err := report.Write(dir, r); err != nil {
		t.Fatal(err)
	}
	return tot.Hist[0][measure.Response]
}

// TestMergeSyntheticShards: three shards of a workload without a Merger, written as runs write
// them; the merged histograms are the bucket-by-bucket sums, the counts add up, the log's
// intervals of the same start are one, and the result reads back as a run's.
func TestMergeSyntheticShards(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	from := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	want := measure.NewHistogram()
	var dirs []string
	for i := range 3 {
		d := filepath.Join(dir, "shard-"+string(rune('0'+i)))
		// Windows 0, 20 and 40 ms apart: one wall-clock interval each second.
		h := fakeShard(t, d, i, 3, from.Add(time.Duration(i)*20*time.Millisecond), 6, rng)
		measure.Merge(want, h)
		dirs = append(dirs, d)
	}
	out := filepath.Join(dir, "merged")
	res, err := Merge(dirs, Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	read := res.Operations["read"]
	if read.Count != want.TotalCount() {
		t.Errorf("read count %d, want the shards' %d", read.Count, want.TotalCount())
	}
	if got, w := read.ResponseMs, measure.Summarize(want); got != w {
		t.Errorf("read response %+v, want the summed histogram's %+v", got, w)
	}
	if w := res.Operations["write"]; w.Errors != 3 || w.Failures == nil || w.Failures.ByClass["timeout"] != 3 {
		t.Errorf("write errors %d (by class %v), want 1 from each of 3 shards", w.Errors, w.Failures)
	}
	if rc := res.Operations["read"].RetryCauses; len(rc) != 1 || rc[0] != (report.FailureMessage{Class: "serialization", Message: "deadlock", Count: 6}) {
		t.Errorf("read's retry causes %+v, want the shards' one cause with their 6 retries", rc)
	}
	if got := res.MeasureSeconds; got < 5.95 || got > 5.961 {
		t.Errorf("common window %.3f s, want 6 s less the 40 ms the shards' starts spread over", got)
	}
	if len(res.Headline) != 1 || res.Headline[0].Name != "throughput" || res.Headline[0].Value != 60 {
		t.Errorf("headline %+v, want the shards' throughputs summed (10+20+30) and the percentage left out", res.Headline)
	}
	if res.System == nil || res.System.Kernel != "6.8.0" {
		t.Errorf("the system of shards on one host: %+v", res.System)
	}
	if len(res.Shards) != 3 || res.Shards[2].Index != 2 {
		t.Errorf("shards %+v", res.Shards)
	}
	// The merged log: 6 intervals (the shards' seconds, aligned), then the measured totals.
	f, err := os.Open(filepath.Join(out, report.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, err := measure.ReadLog(f)
	if err != nil {
		t.Fatal(err)
	}
	starts := map[int64]bool{}
	var total int64
	for _, e := range entries {
		if e.Op == "read" && e.Kind == measure.Response {
			if e.Measured {
				if e.Hist.TotalCount() != want.TotalCount() {
					t.Errorf("the merged log's measured read count %d, want %d", e.Hist.TotalCount(), want.TotalCount())
				}
				continue
			}
			starts[e.Start.UnixMilli()] = true
			total += e.Hist.TotalCount()
		}
	}
	if len(starts) != 6 || total != want.TotalCount() {
		t.Errorf("the merged log has %d read intervals holding %d, want 6 holding %d", len(starts), total, want.TotalCount())
	}
	if _, err := report.Read(out); err != nil {
		t.Errorf("the merged result does not read back: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Errorf("no report.html: %v", err)
	}
	// Once written, --out is refused without --replace, and the merged run is no shard.
	if _, err := Merge(dirs, Options{Out: out}); err == nil || !strings.Contains(err.Error(), "--replace") {
		t.Errorf("merging into a saved run without --replace: %v", err)
	}
	if _, err := Merge(append(dirs[:2:2], out), Options{Out: filepath.Join(dir, "m2")}); err == nil || !strings.Contains(err.Error(), "merged run already") {
		t.Errorf("a merged run as a shard: %v", err)
	}
}

// TestMergeRefusesDisjointWindows: shards whose windows do not overlap were not one run.
func TestMergeRefusesDisjointWindows(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	from := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	fakeShard(t, a, 0, 2, from, 3, rng)
	fakeShard(t, b, 1, 2, from.Add(time.Minute), 3, rng)
	_, err := Merge([]string{a, b}, Options{Out: filepath.Join(dir, "m")})
	if err == nil || !strings.Contains(err.Error(), "do not overlap") || !strings.Contains(err.Error(), "--start-at") {
		t.Fatalf("disjoint windows: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "m")); !os.IsNotExist(err) {
		t.Errorf("a refused merge left its --out behind (%v)", err)
	}
}
