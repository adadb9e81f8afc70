package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/report"
)

// compareJSON is the part of `candor compare --json` the referee reads.
type compareJSON struct {
	A struct {
		Intervals       int     `json:"intervals"`
		IntervalSeconds float64 `json:"interval_seconds"`
		MeasureSeconds  float64 `json:"measure_seconds"`
	} `json:"a"`
	Types []struct {
		Type       string `json:"type"`
		CountA     int64  `json:"count_a"`
		CountB     int64  `json:"count_b"`
		Throughput struct {
			A, B        float64
			Change      *float64
			Significant bool
		} `json:"throughput"`
		Percentiles []struct {
			Metric      string
			A, B        float64
			Significant bool
		} `json:"percentiles"`
	} `json:"types"`
}

// TestCompareSelfEqualsReport is the referee of `candor compare`: a run compared with itself shows,
// for every operation, exactly the count, throughput per minute and percentiles `candor report`
// gives for it (the same window, the same histograms), its measured intervals are the window's
// whole intervals (not the few-millisecond slivers at its edges), nothing is significant, and the
// counts and percentiles agree with Python's HdrHistogram reading the run's latency.hlog.
// Closed-loop, open-loop and one-shot runs, short and longer, of several workloads; SQLite for one.
func TestCompareSelfEqualsReport(t *testing.T) {
	parallel(t)
	ratesShared(t) // its open-loop runs assert nothing a busy machine changes
	dir := t.TempDir()
	sqlite := tpccSQLiteCopy(t, filepath.Join(dir, "tpcc.db"))
	cases := []struct {
		name string
		args []string
		// subs are the runs inside the --out (a one-shot's), "" for the --out itself.
		subs     []string
		interval time.Duration
	}{
		{"kv closed loop short", []string{"kv", "run", "--db", "null:?service=exp:1ms", "--terminals", "4", "--duration", "2s", "--warmup", "1s", "--interval", "500ms"}, nil, 500 * time.Millisecond},
		{"kv closed loop longer", []string{"kv", "run", "--db", "null:?service=exp:1ms", "--terminals", "4", "--duration", "10s", "--warmup", "1s", "--interval", "1s"}, nil, time.Second},
		{"ycsb open loop", []string{"ycsb", "run", "--db", "null:?service=exp:1ms", "--mode", "rate", "--rate", "400", "--duration", "4s", "--warmup", "1s", "--interval", "1s"}, nil, time.Second},
		{"sysbench closed loop", []string{"sysbench", "run", "--db", "null:?service=exp:1ms", "--duration", "3s", "--warmup", "1s", "--interval", "500ms"}, nil, 500 * time.Millisecond},
		{"kv one-shot", []string{"kv", "--db", "null:?service=exp:1ms", "--terminals", "4", "--peak-duration", "2s", "--peak-warmup", "1s", "--duration", "2s", "--warmup", "1s", "--loads", "50", "--interval", "500ms"},
			[]string{"peak", "rate-50"}, 500 * time.Millisecond},
		{"tpcc on SQLite", []string{"tpcc", "--mode", "throughput", "--db", sqlite, "--terminals", "2", "--duration", "4s", "--warmup", "1s", "--interval", "500ms", "--no-check"}, nil, 500 * time.Millisecond},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
			args := append(append([]string(nil), c.args...), "--seed", "7", "-q", "--out", out)
			if code, _ := runCLI(t, args...); code != 0 {
				t.Fatalf("case %d: the run exits %d", i, code)
			}
			subs := c.subs
			if subs == nil {
				subs = []string{""}
			}
			for _, sub := range subs {
				refereeSelf(t, filepath.Join(out, sub), c.interval)
			}
		})
	}
}

// refereeSelf checks `candor compare run run` against `candor report run`'s result.json and against
// Python's HdrHistogram.
func refereeSelf(t *testing.T, run string, interval time.Duration) {
	t.Helper()
	res, err := report.Read(run)
	if err != nil {
		t.Fatal(err)
	}
	code, js := runCLI(t, "compare", "--json", run, run)
	if code != 0 {
		t.Fatalf("compare %s with itself: exit %d", run, code)
	}
	var c compareJSON
	if err := json.Unmarshal([]byte(js), &c); err != nil {
		t.Fatalf("compare --json: %v", err)
	}
	// The window's whole intervals, not its slivers.
	want := int(math.Round(res.MeasureSeconds / interval.Seconds()))
	if c.A.Intervals < want-1 || c.A.Intervals > want {
		t.Errorf("%s: %d measured intervals of %.3f s for a window of %.3f s in intervals of %v: want %d (or %d if the last straddles the end)",
			run, c.A.Intervals, c.A.IntervalSeconds, res.MeasureSeconds, interval, want, want-1)
	}
	if c.A.MeasureSeconds != res.MeasureSeconds {
		t.Errorf("%s: compare's window is %v s, the report's %v s", run, c.A.MeasureSeconds, res.MeasureSeconds)
	}
	py := hdrhPercentiles(t, filepath.Join(run, report.LogFile))
	seen := 0
	for _, tc := range c.Types {
		op := res.Operations[tc.Type]
		if op == nil {
			t.Errorf("%s: compare shows %s, which the report has not", run, tc.Type)
			continue
		}
		seen++
		if tc.CountA != op.Count || tc.CountB != op.Count {
			t.Errorf("%s %s: compare counts %d and %d, the report %d", run, tc.Type, tc.CountA, tc.CountB, op.Count)
		}
		if !close9(tc.Throughput.A, op.PerMinute) || !close9(tc.Throughput.B, op.PerMinute) {
			t.Errorf("%s %s: compare's throughput %v and %v per minute, the report's %v", run, tc.Type, tc.Throughput.A, tc.Throughput.B, op.PerMinute)
		}
		if tc.Throughput.Significant || (tc.Throughput.Change != nil && *tc.Throughput.Change != 0) {
			t.Errorf("%s %s: a run against itself has a throughput change %v (significant %v)", run, tc.Type, *tc.Throughput.Change, tc.Throughput.Significant)
		}
		rep := map[string]float64{"p50": op.ResponseMs.P50, "p90": op.ResponseMs.P90, "p99": op.ResponseMs.P99, "p99.9": op.ResponseMs.P999}
		pyKey := map[string]string{"p50": "p50", "p90": "p90", "p99": "p99", "p99.9": "p99_9"}
		ref := py["measured."+tc.Type+".response"]
		if op.Count > 0 && ref["count"] != op.Count {
			t.Errorf("%s %s: Python's hdrh counts %d in the window, compare %d", run, tc.Type, ref["count"], tc.CountA)
		}
		if len(tc.Percentiles) != len(rep) {
			t.Errorf("%s %s: %d percentiles, want %d", run, tc.Type, len(tc.Percentiles), len(rep))
		}
		for _, p := range tc.Percentiles {
			if p.A != rep[p.Metric] || p.B != rep[p.Metric] {
				t.Errorf("%s %s %s: compare %v ms and %v ms, the report %v ms", run, tc.Type, p.Metric, p.A, p.B, rep[p.Metric])
			}
			if op.Count > 0 && int64(math.Round(p.A*1000)) != ref[pyKey[p.Metric]] {
				t.Errorf("%s %s %s: compare %v ms, Python's hdrh %d µs", run, tc.Type, p.Metric, p.A, ref[pyKey[p.Metric]])
			}
			if p.Significant {
				t.Errorf("%s %s %s: significant against itself", run, tc.Type, p.Metric)
			}
		}
	}
	if seen != len(res.Operations) {
		t.Errorf("%s: compare shows %d operations, the report %d", run, seen, len(res.Operations))
	}
}

// close9 says whether a and b agree to nine significant digits (the same division, maybe in
// another order).
func close9(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}
