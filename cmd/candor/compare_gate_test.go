package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dbtest"
)

// TestCompareGateSQLite and TestCompareGatePostgres: `candor compare --fail-on` on real runs. Runs
// at a fixed open-loop rate make a change no noise hides: the run at 60 per second against the
// one at 120 has half the throughput (significant, beyond -5%: exit 1, one line per breached
// rule), a run against itself breaches nothing (exit 0), a bad rule or one naming no operation
// exits 2, and --json carries the verdicts. Several runs per side (A1 A2 -- B1 B2, and
// directories of runs) judge by the spread between runs.
func TestCompareGateSQLite(t *testing.T) {
	parallel(t)
	ratesShared(t) // its open-loop runs assert nothing a busy machine changes
	dir := t.TempDir()
	gateOn(t, "sqlite:"+filepath.Join(dir, "kv.db"), dir)
}

func TestCompareGatePostgres(t *testing.T) {
	parallel(t)
	ratesShared(t) // its open-loop runs assert nothing a busy machine changes
	gateOn(t, dbtest.FreshPostgresURL(t, "cmpgate"), t.TempDir())
}

func gateOn(t *testing.T, db, dir string) {
	if code, _ := runCLI(t, "kv", "load", "--db", db, "--insert-count", "1000"); code != 0 {
		t.Fatalf("kv load: exit %d", code)
	}
	runAt := func(name, rate, seed string) string {
		out := filepath.Join(dir, name)
		if code, _ := runCLI(t, "kv", "run", "--db", db, "--mode", "rate", "--rate", rate, "--seed", seed,
			"--duration", "6s", "--warmup", "1s", "--interval", "500ms", "--no-check", "-q", "--out", out); code != 0 {
			t.Fatalf("kv run at %s per second: exit %d", rate, code)
		}
		return out
	}
	fast1, fast2 := runAt("fast1", "120", "1"), runAt("fast2", "120", "2")
	slow1, slow2 := runAt("slow1", "60", "3"), runAt("slow2", "60", "4")

	// A run against itself: nothing breached.
	code, out := runCLI(t, "compare", fast1, fast1, "--fail-on", "throughput<-5%", "--fail-on", "read.p99>+10%")
	if code != 0 || !strings.Contains(out, "gate (--fail-on") || strings.Contains(out, "BREACHED") {
		t.Errorf("a run against itself with --fail-on: exit %d, want 0 and the rules held", code)
	}
	// Half the throughput: the throughput rule is breached, for read and write, one line each; the
	// p99 rule is not about throughput and a rise in throughput is no breach of a fall rule.
	code, out = runCLI(t, "compare", fast1, slow1, "--fail-on", "read.throughput<-5%", "--fail-on", "throughput<-5%", "--fail-on", "throughput>+1000%")
	if code != 1 {
		t.Fatalf("half the throughput with --fail-on throughput<-5%%: exit %d, want 1", code)
	}
	if !strings.Contains(out, "FAIL read.throughput<-5%: read throughput") || !strings.Contains(out, "FAIL throughput<-5%: read throughput") || strings.Contains(out, "FAIL throughput>+1000%") {
		t.Errorf("want a FAIL line for each breached rule (read, and every operation's), none for the other rule")
	}
	// The other way round: a rise, which a fall rule does not breach.
	if code, _ := runCLI(t, "compare", slow1, fast1, "--fail-on", "throughput<-5%"); code != 0 {
		t.Errorf("twice the throughput with --fail-on throughput<-5%%: exit %d, want 0", code)
	}
	// --json carries the verdicts.
	code, js := runCLI(t, "compare", "--json", fast1, slow1, "--fail-on", "read.throughput<-5%")
	var c struct {
		Failed   bool
		Verdicts []struct {
			Type                  string
			Significant, Breached bool
			Change                *float64
		}
	}
	if err := json.Unmarshal([]byte(js[:strings.LastIndex(js, "}")+1]), &c); err != nil {
		t.Fatalf("compare --json --fail-on: %v", err)
	}
	if code != 1 || !c.Failed || len(c.Verdicts) != 1 || !c.Verdicts[0].Breached || !c.Verdicts[0].Significant || c.Verdicts[0].Type != "read" ||
		c.Verdicts[0].Change == nil || *c.Verdicts[0].Change > -0.3 {
		t.Errorf("compare --json --fail-on: exit %d, %+v", code, c)
	}
	// Bad rules: exit 2, one sentence naming what is wrong.
	for _, rule := range []string{"throughput", "read.p98>+10%", "throughput<+5%", "read.p99>=10%", "read.p99>+10", "nosuchop.p99>+10%"} {
		if code, out := runCLI(t, "compare", fast1, slow1, "--fail-on", rule); code != 2 || !strings.Contains(out, "--fail-on") {
			t.Errorf("--fail-on %q: exit %d, want 2 and the rule named", rule, code)
		}
	}

	// Several runs per side: between-run spread.
	code, out = runCLI(t, "compare", "--fail-on", "read.throughput<-5%", fast1, fast2, "--", slow1, slow2)
	if code != 1 || !strings.Contains(out, "2 against 2 runs") || !strings.Contains(out, "FAIL read.throughput<-5%") {
		t.Errorf("2 fast against 2 slow runs: exit %d, want 1, the runs counted and the breach", code)
	}
	code, out = runCLI(t, "compare", "--fail-on", "throughput<-5%", fast1, fast2, "--", fast1, fast2)
	if code != 0 || strings.Contains(out, "FAIL") {
		t.Errorf("the same 2 runs on both sides: exit %d, want 0", code)
	}
	// Directories of runs stand for their runs.
	base, cand := filepath.Join(dir, "base"), filepath.Join(dir, "cand")
	for from, to := range map[string]string{fast1: filepath.Join(base, "1"), fast2: filepath.Join(base, "2"), slow1: filepath.Join(cand, "1"), slow2: filepath.Join(cand, "2")} {
		copyRun(t, from, to)
	}
	code, js = runCLI(t, "compare", "--json", base, "--", cand)
	var m struct {
		RunsA []struct{ Dir string } `json:"runs_a"`
		RunsB []struct{ Dir string } `json:"runs_b"`
	}
	if err := json.Unmarshal([]byte(js), &m); code != 0 || err != nil || len(m.RunsA) != 2 || len(m.RunsB) != 2 {
		t.Errorf("directories of runs: exit %d, %v, %+v", code, err, m)
	}
	if code, out := runCLI(t, "compare", fast1, "--"); code != 2 || !strings.Contains(out, "both sides") {
		t.Errorf("no runs after --: exit %d, want 2", code)
	}
}

// TestCompareRefusesOtherWorkload: a kv run and a ycsb run are not compared (exit 2, one sentence).
func TestCompareRefusesOtherWorkload(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	kv, ycsb := filepath.Join(dir, "kv"), filepath.Join(dir, "ycsb")
	for name, out := range map[string]string{"kv": kv, "ycsb": ycsb} {
		if code, _ := runCLI(t, name, "run", "--db", "null:?service=fixed:1ms", "--duration", "1s", "--warmup", "0s", "--interval", "500ms", "-q", "--out", out); code != 0 {
			t.Fatalf("%s run: exit %d", name, code)
		}
	}
	code, out := runCLI(t, "compare", kv, ycsb)
	if code != 2 || !strings.Contains(out, "is a kv run and") || !strings.Contains(out, "a ycsb run") || strings.Contains(out, "no data") {
		t.Errorf("kv against ycsb: exit %d, want 2 and the workloads named", code)
	}
	if _, err := os.Stat(kv); err != nil {
		t.Fatal(err)
	}
}
