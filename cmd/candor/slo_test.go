package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dbtest"
)

// `candor NAME run --slo`: each budget judged on the measurement window, a verdict line per budget
// in the summary and result.json, exit status 1 when one is not met, 2 for a bad budget before
// anything connects.

// budgets is result.json's budgets of the run in dir, by budget text.
func budgets(t *testing.T, dir string) map[string]map[string]any {
	t.Helper()
	res := readResult(t, dir)
	list, _ := res["budgets"].([]any)
	out := map[string]map[string]any{}
	for _, b := range list {
		m := b.(map[string]any)
		out[m["slo"].(string)] = m
	}
	return out
}

// sloRun runs args with --slo budgets into a fresh directory and checks the exit status, the
// verdict of each budget in result.json and the summary's lines.
func sloRun(t *testing.T, want int, args []string, met map[string]bool) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "r")
	var texts []string
	for s := range met {
		texts = append(texts, s)
	}
	// One budget per --slo, the rest as a comma list in one more.
	args = append(args, "--out", dir, "-q", "--slo", texts[0])
	if len(texts) > 1 {
		args = append(args, "--slo", strings.Join(texts[1:], ","))
	}
	code, out := runCLI(t, args...)
	if code != want {
		t.Fatalf("exit %d, want %d", code, want)
	}
	got := budgets(t, dir)
	if len(got) != len(met) {
		t.Fatalf("result.json holds %d budgets, want %d: %v", len(got), len(met), got)
	}
	for s, m := range met {
		b := got[s]
		if b == nil {
			t.Fatalf("result.json has no verdict on %q: %v", s, got)
		}
		if b["met"] != m {
			t.Errorf("%s: met %v, want %v (%v)", s, b["met"], m, b)
		}
		if c, _ := b["count"].(float64); c <= 0 {
			t.Errorf("%s: judged on %v operations", s, b["count"])
		}
		status := "met"
		if !m {
			status = "BREACHED"
		}
		if !strings.Contains(out, status) || !strings.Contains(out, s) {
			t.Errorf("the summary has no line %q for %s", status, s)
		}
	}
	if want == 1 && !strings.Contains(out, "did not meet its latency budgets") {
		t.Errorf("a run that breached a budget does not say so on exit")
	}
}

// On the null engine a fixed service time makes the verdicts certain: every response takes at
// least 2 ms, and far less than a second.
func TestRunSLONull(t *testing.T) {
	parallel(t)
	for _, c := range []struct {
		name string
		args []string
		op   string
	}{
		{"kv", []string{"kv", "run", "--insert-count", "1000"}, "read"},
		{"tpcc", []string{"tpcc", "run", "--warehouses", "1", "--mode", "throughput"}, "new_order"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append(c.args, "--db", "null:?service=fixed:2ms", "--duration", "2s", "--warmup", "0s", "--interval", "1s")
			sloRun(t, 0, args, map[string]bool{c.op + ".p99<=1s": true, c.op + ".service.p50<=1s": true})
			sloRun(t, 1, args, map[string]bool{c.op + ".p99<=1s": true, c.op + ".p50<1ms": false, c.op + ".service.max<=1500us": false})
		})
	}
}

// A bad budget is refused with exit status 2 before anything connects (nothing listens on port 1:
// a connection would fail with exit status 1).
func TestRunSLOBad(t *testing.T) {
	for _, c := range []struct{ slo, want string }{
		{"nope.p99<=1ms", "names no operation of the workload"},
		{"read.p99=2ms", "has no <= or <"},
		{"read.p42<=2ms", `has no percentile "p42"`},
		{"read.p99<=fast", "has no positive duration"},
		{",", "--slo is empty"},
	} {
		code, out := runCLI(t, "kv", "run", "--db", "postgres://candor@127.0.0.1:1/nothere", "--slo", c.slo)
		if code != 2 || !strings.Contains(out, c.want) || !strings.Contains(out, "for example --slo") {
			t.Errorf("--slo %q: exit %d, want 2 and %q with the syntax", c.slo, code, c.want)
		}
	}
}

// On real databases, for kv and TPC-C: a budget that holds (exit 0) and one no database can meet
// (exit 1).
func TestRunSLOSQLite(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	sloWorkloads(t, "sqlite:"+filepath.Join(dir, "kv.db"), tpccSQLiteCopy(t, filepath.Join(dir, "tpcc.db")))
}

func TestRunSLOPostgres(t *testing.T) {
	parallel(t)
	sloWorkloads(t, dbtest.FreshPostgresURL(t, "candor_slo_kv"), tpccPostgresCopy(t, "candor_slo_tpcc"))
}

// sloWorkloads: kv loaded here into kv, TPC-C already loaded in tpcc.
func sloWorkloads(t *testing.T, kv, tpcc string) {
	short := []string{"--mode", "throughput", "--terminals", "2", "--duration", "2s", "--warmup", "0s", "--interval", "1s", "--no-check"}
	if code, _ := runCLI(t, "kv", "load", "--db", kv, "--insert-count", "2000"); code != 0 {
		t.Fatalf("kv load: exit %d", code)
	}
	args := append([]string{"kv", "run", "--db", kv}, short...)
	sloRun(t, 0, args, map[string]bool{"read.p99<=1m": true})
	sloRun(t, 1, args, map[string]bool{"read.p99<=1m": true, "read.p99<=1us": false})
	args = append([]string{"tpcc", "run", "--db", tpcc}, short...)
	sloRun(t, 0, args, map[string]bool{"new_order.p99<=1m": true, "payment.service.p90<=1m": true})
	sloRun(t, 1, args, map[string]bool{"new_order.p99<=1us": false, "payment.p99<=1m": true})
}

// A workload whose every attempt fails (a script on a table that does not exist) stops within
// seconds of a 5-minute run, exit status 1, its partial results saved with the first error; one
// that fails half the time runs to its end.
func TestAllFailedSQLite(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "s.db") // an empty file is an empty SQLite database
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	allFailed(t, "sqlite:"+file, dir)
}

func TestAllFailedPostgres(t *testing.T) {
	parallel(t)
	allFailed(t, dbtest.FreshPostgresURL(t, "candor_allfailed"), t.TempDir())
}

func allFailed(t *testing.T, db, dir string) {
	bad, good := filepath.Join(dir, "bad.sql"), filepath.Join(dir, "good.sql")
	if err := os.WriteFile(bad, []byte("SELECT count(*) FROM nothere;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "bad")
	code, text := runCLI(t, "script", "run", "--db", db, "-f", bad, "--terminals", "2", "--duration", "5m", "--warmup", "0s",
		"--interval", "1s", "--out", out, "-q")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	for _, want := range []string{"every attempt failed and none succeeded", "nothere", "PARTIAL RESULT"} {
		if !strings.Contains(text, want) {
			t.Errorf("the output does not say %q", want)
		}
	}
	res := readResult(t, out)
	reason, _ := res["partial_reason"].(string)
	if res["partial"] != true || !strings.Contains(reason, "nothere") || !strings.Contains(reason, "candor script load") {
		t.Errorf("result.json: partial %v, reason %q: want partial with the first error and what to do", res["partial"], reason)
	}
	if s, _ := res["measure_seconds"].(float64); s > 30 {
		t.Errorf("measured %.1f s of a 300 s run: not stopped within seconds", s)
	}

	half := filepath.Join(dir, "half")
	code, _ = runCLI(t, "script", "run", "--db", db, "-f", bad, "-f", good, "--terminals", "2", "--duration", "4s", "--warmup", "0s",
		"--interval", "1s", "--max-failures", "100", "--out", half, "-q")
	if code != 0 {
		t.Fatalf("half failing: exit %d, want 0", code)
	}
	res = readResult(t, half)
	if s, _ := res["measure_seconds"].(float64); res["partial"] != false || s < 3.5 {
		t.Errorf("half failing: partial %v after %.1f s, want the whole 4 s", res["partial"], s)
	}
}

// The shards' budgets are judged again on the merged window.
func TestMergeSLO(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	shards := runShards(t, dir, 2, "kv", "run", "--db", "null:?service=fixed:1ms", "--seed", "7", "--mode", "throughput",
		"--terminals", "2", "--warmup", "0s", "--duration", "2s", "--interval", "1s", "--slo", "read.p99<=1s,read.service.p50<=1s")
	merged := filepath.Join(dir, "merged")
	code, out := runCLI(t, append(append([]string{"merge"}, shards...), "--out", merged)...)
	if code != 0 {
		t.Fatalf("merge: exit %d", code)
	}
	got := budgets(t, merged)
	var sum float64
	for _, s := range shards {
		sum += budgets(t, s)["read.p99<=1s"]["count"].(float64)
	}
	for _, s := range []string{"read.p99<=1s", "read.service.p50<=1s"} {
		b := got[s]
		if b == nil || b["met"] != true || b["count"] != sum {
			t.Errorf("merged %s: %v, want met on the shards' %v reads", s, b, sum)
		}
	}
	if !strings.Contains(out, "latency budgets") {
		t.Errorf("the merged summary does not show the budgets")
	}
}
