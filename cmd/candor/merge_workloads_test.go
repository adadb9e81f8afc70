package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/dbtest"
)

// TestMergeWorkloadsShards: every workload that runs sharded merges honestly. kv, ycsb, sysbench and script each load once on PostgreSQL, run as 2 shards (two
// processes, a common --start-at), and merge. The merged counts are the shards' sums, the merged
// percentiles those Python's hdrh computes from the union of the shards' logs, the workload's
// headline figures the merged counts over the common window (recomputed, not the shards' own
// added), its measured tallies (details.measured) the shards' sums, and the warnings it judges are
// judged once on the whole run, not copied per shard.
func TestMergeWorkloadsShards(t *testing.T) {
	parallel(t)
	for _, c := range []struct {
		name string
		load []string
		run  []string
		// headline is the headline figure recomputed from the merged counts, and the operations it counts.
		headline string
		ops      []string
	}{
		{"kv", []string{"kv", "load", "--insert-count", "1000"}, []string{"kv", "run", "--read-percent", "90", "--terminals", "2"},
			"throughput", []string{"read", "write"}},
		{"ycsb", []string{"ycsb", "load", "-p", "recordcount=1000"}, []string{"ycsb", "run", "--workload", "a", "--terminals", "2"},
			"throughput", []string{"read", "update"}},
		{"sysbench", []string{"sysbench", "load", "--tables", "2", "--table-size", "1000"}, []string{"sysbench", "run", "--test", "oltp_read_write", "--terminals", "2"},
			"transactions", []string{"transaction"}},
		{"script", []string{"script", "load", "--scale", "1"}, []string{"script", "run", "-b", "tpcb-like", "-c", "2"},
			"transactions", []string{"tpcb-like"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := dbtest.FreshPostgresURL(t, "mergewl")
			dir := t.TempDir()
			if code, out := runCLI(t, append(c.load, "--db", url)...); code != 0 {
				t.Fatalf("load: exit %d\n%s", code, out)
			}
			shards := runShards(t, dir, 2, append(c.run, "--db", url, "--seed", "42", "--mode", "throughput",
				"--warmup", "1s", "--duration", "6s", "--interval", "1s", "--max-failures", "100")...)
			merged := filepath.Join(dir, "merged")
			code, out := runCLI(t, append(append([]string{"merge"}, shards...), "--out", merged)...)
			if code != 0 {
				t.Fatalf("merge: exit %d\n%s", code, out)
			}
			m := readResult(t, merged)
			var rs []map[string]any
			for _, s := range shards {
				rs = append(rs, readResult(t, s))
			}
			checkMergedCounts(t, m, rs)
			checkMergedPercentiles(t, merged, shards, m)

			// The headline is recomputed from the merged counts over the merged window.
			var n float64
			for _, op := range c.ops {
				n += m["operations"].(map[string]any)[op].(map[string]any)["count"].(float64)
			}
			want := n / m["measure_seconds"].(float64)
			if got := headline(t, m, c.headline); math.Abs(got-want) > 1e-9*want || want == 0 {
				t.Errorf("headline %s = %v, want the merged count %v over %v s = %v", c.headline, got, n, m["measure_seconds"], want)
			}
			// The details' tallies are the shards' sums.
			if meas, ok := m["details"].(map[string]any)["measured"].(map[string]any); ok || c.name != "script" {
				if !ok {
					t.Fatalf("the merged details have no measured tally: %v", m["details"])
				}
				for k, v := range meas {
					var sum float64
					for _, r := range rs {
						sum += r["details"].(map[string]any)["measured"].(map[string]any)[k].(float64)
					}
					if v.(float64) != sum {
						t.Errorf("details.measured.%s = %v, the shards' sum %v", k, v, sum)
					}
				}
			}
			// The workload's own sections are there once, and no warning is a copy of a shard's.
			secs := 0
			for _, s := range m["sections"].([]any) {
				if strings.HasPrefix(s.(map[string]any)["title"].(string), c.name+": ") {
					secs++
				}
			}
			if secs == 0 {
				t.Errorf("the merged result has no %s section", c.name)
			}
			for _, w := range m["warnings"].([]any) {
				msg := w.(map[string]any)["message"].(string)
				if strings.HasPrefix(msg, "shard ") && !carriedCode(w.(map[string]any)["code"].(string)) {
					t.Errorf("warning copied from a shard rather than judged on the merged run: %v", w)
				}
			}
			if code, out := runCLI(t, "report", merged); code != 0 || !strings.Contains(out, c.headline) {
				t.Errorf("candor report on the merged run: exit %d", code)
			}
		})
	}
}

// carriedCode: the shard's own conditions a merge keeps, naming the shard (merge.carried).
func carriedCode(code string) bool {
	switch code {
	case "DRIVER_SATURATED", "DURABILITY_OFF", "FITS_IN_MEMORY", "CPU_STOLEN", "DRIVER_LATE", "SWAP_ACTIVE", "IRQ_CPU_SATURATED", "DEVICE_SATURATED", "SCHEDULE_BEHIND", "DATABASE_OUTAGE",
		"ISOLATION_UPGRADED", "ISOLATION_UNVERIFIED", "DIALECT_MISMATCH", "NULL_ENGINE":
		return true
	}
	return false
}

// headline is the value of the result's headline figure name.
func headline(t *testing.T, m map[string]any, name string) float64 {
	t.Helper()
	for _, f := range m["headline"].([]any) {
		if f.(map[string]any)["name"] == name {
			return f.(map[string]any)["value"].(float64)
		}
	}
	t.Fatalf("no headline figure %q in %v", name, m["headline"])
	return 0
}

// runShards runs args as n shards (`--shard i/n`, a common --start-at, each a process of its own)
// with --out DIR/shard-i, and returns the shards' directories once every one has ended well.
func runShards(t *testing.T, dir string, n int, args ...string) []string {
	t.Helper()
	defer holdSlots(int64(n))() // the shards are calls of this package: one slot each
	// 12 s ahead: on a loaded host (load average 20) starting the processes and opening their
	// connections took more than 8.
	startAt := time.Now().Add(12 * time.Second).UTC().Format(time.RFC3339Nano)
	var shards []string
	var logs []string
	var procs = make([]interface{ Wait() error }, 0, n)
	for i := range n {
		out := filepath.Join(dir, fmt.Sprintf("shard-%d", i))
		shards = append(shards, out)
		logs = append(logs, out+".log")
		procs = append(procs, startChildCLI(t, out+".log", nil, append(args, "--shard", fmt.Sprintf("%d/%d", i, n), "--start-at", startAt, "--out", out)...))
	}
	for i, p := range procs {
		err := p.Wait()
		b, _ := os.ReadFile(logs[i])
		if err != nil {
			t.Fatalf("shard %d failed: %v\n%s", i, err, b)
		}
	}
	return shards
}

// checkMergedCounts: every counter of every operation of the merged result m is the sum of the
// shards' rs, and so is its rate per minute.
func checkMergedCounts(t *testing.T, m map[string]any, rs []map[string]any) {
	t.Helper()
	for op, v := range m["operations"].(map[string]any) {
		got := v.(map[string]any)
		for _, k := range []string{"count", "errors", "retries", "rollbacks", "incomplete", "dropped"} {
			var sum float64
			for _, r := range rs {
				if x, ok := r["operations"].(map[string]any)[op].(map[string]any)[k].(float64); ok {
					sum += x
				}
			}
			if x, _ := got[k].(float64); x != sum {
				t.Errorf("%s.%s: merged %v, shards' sum %v", op, k, got[k], sum)
			}
		}
		var rate float64
		for _, r := range rs {
			rate += r["operations"].(map[string]any)[op].(map[string]any)["per_minute"].(float64)
		}
		if math.Abs(got["per_minute"].(float64)-rate) > 1e-6*rate {
			t.Errorf("%s per minute: merged %v, shards' sum %v", op, got["per_minute"], rate)
		}
	}
}

// checkMergedPercentiles: the merged run's percentiles of every operation (parts included) are
// those Python's hdrh computes over the union of the shards' logs' measured totals, and the merged
// log's measured totals are that union.
func checkMergedPercentiles(t *testing.T, merged string, shards []string, m map[string]any) {
	t.Helper()
	var logs []string
	for _, s := range shards {
		logs = append(logs, filepath.Join(s, "latency.hlog"))
	}
	ref := hdrhPercentiles(t, logs...)
	again := hdrhPercentiles(t, filepath.Join(merged, "latency.hlog"))
	checked := 0
	for op, v := range m["operations"].(map[string]any) {
		got := v.(map[string]any)
		if got["count"].(float64) == 0 {
			continue
		}
		tag := "measured." + op + ".response"
		want, ok := ref[tag]
		if !ok {
			t.Errorf("hdrh found no measured %s responses in the shards' logs", op)
			continue
		}
		checked++
		if int64(got["count"].(float64)) != want["count"] {
			t.Errorf("%s: merged count %v, hdrh's union %d", op, got["count"], want["count"])
		}
		resp := got["response_ms"].(map[string]any)
		for _, k := range []string{"p50", "p90", "p99", "p99_9", "max"} {
			if us := int64(math.Round(resp[k].(float64) * 1000)); us != want[k] {
				t.Errorf("%s response %s: merged %d µs, hdrh over the shards' logs %d µs", op, k, us, want[k])
			}
		}
		if again[tag]["count"] != want["count"] || again[tag]["p99"] != want["p99"] || again[tag]["max"] != want["max"] {
			t.Errorf("%s: the merged log's measured totals %v are not the shards' union %v", op, again[tag], want)
		}
	}
	if checked == 0 {
		t.Fatal("no operation measured")
	}
}

// TestMergeNullEngineShards: shards run on the null engine merge into a result that still says
// NULL_ENGINE (the figures are the driver's own ceiling), whatever the workload's Merger keeps.
func TestMergeNullEngineShards(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	shards := runShards(t, dir, 2, "kv", "run", "--db", "null:?service=fixed:1ms", "--seed", "42", "--mode", "throughput",
		"--terminals", "2", "--warmup", "0s", "--duration", "2s", "--interval", "1s")
	merged := filepath.Join(dir, "merged")
	if code, out := runCLI(t, append(append([]string{"merge"}, shards...), "--out", merged)...); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, out)
	}
	found := false
	for _, w := range readResult(t, merged)["warnings"].([]any) {
		found = found || w.(map[string]any)["code"] == "NULL_ENGINE"
	}
	if !found {
		t.Errorf("the merged null-engine run does not say NULL_ENGINE")
	}
}

// A sharded ycsb run with inserts is refused before it runs: each shard's insert counter would
// start at the same record and the shards' inserts would collide.
func TestYCSBShardedInsertsRefused(t *testing.T) {
	code, out := runCLI(t, "ycsb", "run", "--db", "null:", "--workload", "d", "--shard", "0/2", "--seed", "1",
		"--duration", "1s", "--warmup", "0s", "--out", filepath.Join(t.TempDir(), "d"))
	if code != 2 || !strings.Contains(out, "a sharded ycsb run cannot insert yet") {
		t.Fatalf("exit %d, want 2 with the reason:\n%s", code, out)
	}
	if code, out := runCLI(t, "ycsb", "run", "--db", "null:", "--workload", "c", "--shard", "0/2", "--seed", "1",
		"--duration", "1s", "--warmup", "0s", "-q", "--out", filepath.Join(t.TempDir(), "c")); code != 0 {
		t.Fatalf("a sharded read-only run: exit %d:\n%s", code, out)
	}
}
