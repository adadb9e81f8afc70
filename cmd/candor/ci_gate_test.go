package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCIGateExample runs examples/ci-gate.sh as written (shorter runs through its variables)
// against SQLite, with `candor` on the PATH: the load, the baseline, the candidate and the gate. The
// same setup on both sides never breaches the throughput rule; a candidate at half the offered
// load breaches it, exit 1 with its FAIL line.
func TestCIGateExample(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(childCLI(t), filepath.Join(bin, "candor")); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "examples", "ci-gate.sh"))
	if err != nil {
		t.Fatal(err)
	}
	gate := func(extra ...string) (int, string) {
		// Its runs are open-loop runs whose rates must be sustained: the machine to themselves, as
		// runChild gives capacity-bound runs (calls).
		defer exclusively()()
		c := exec.Command("bash", script)
		c.Dir = dir
		c.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"),
			"DB=sqlite:"+filepath.Join(dir, "gate.db"), "RATE=100", "DURATION=5s", "WARMUP=1s", "INTERVAL=500ms")
		c.Env = append(c.Env, extra...)
		out, err := c.CombinedOutput()
		t.Logf("examples/ci-gate.sh %v:\n%s", extra, out)
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, string(out)
	}
	code, out := gate()
	if code != 0 && code != 1 || strings.Contains(out, "FAIL throughput") || !strings.Contains(out, "gate (--fail-on") {
		t.Errorf("the same setup twice: exit %d, want the gate's verdicts and no throughput breach", code)
	}
	for _, run := range []string{"baseline", "candidate"} {
		if _, err := os.Stat(filepath.Join(dir, "ci-gate-results", run, "latency.hlog")); err != nil {
			t.Errorf("the %s run's log: %v", run, err)
		}
	}
	code, out = gate("CANDIDATE_FLAGS=--rate 50")
	if code != 1 || !strings.Contains(out, "FAIL throughput<-5%: read throughput") {
		t.Errorf("a candidate at half the load: exit %d, want 1 and the throughput rule breached", code)
	}
}
