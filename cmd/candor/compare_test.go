package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareTwoRuns: two short SQLite runs, compared in text and JSON; bad directories exit 2.
func TestCompareTwoRuns(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	db := tpccSQLiteCopy(t, filepath.Join(dir, "x.db"))
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, out := range []string{a, b} {
		if code, _ := runCLI(t, "tpcc", "--mode", "throughput", "--db", db, "--duration", "5s", "--warmup", "1s", "--interval", "500ms",
			"--terminals", "2", "--no-check", "-q", "--out", out); code != 0 {
			t.Fatalf("run into %s: exit %d", out, code)
		}
	}
	code, text := runCLI(t, "compare", a, b)
	if code != 0 {
		t.Fatalf("compare: exit %d", code)
	}
	for _, want := range []string{"conditions that differ", "seed", "new_order", "per min", "p99.9 ms", "measured intervals of 0.5 s"} {
		if !strings.Contains(text, want) {
			t.Errorf("compare output lacks %q", want)
		}
	}
	code, js := runCLI(t, "compare", "--json", a, b)
	if code != 0 {
		t.Fatalf("compare --json: exit %d", code)
	}
	var c struct {
		A     struct{ Intervals int }
		Types []struct {
			Type       string
			Throughput struct{ Verdict string }
		}
	}
	if err := json.Unmarshal([]byte(js), &c); err != nil {
		t.Fatalf("compare --json is not JSON: %v", err)
	}
	if c.A.Intervals < 5 || len(c.Types) < 5 || c.Types[0].Type != "new_order" || c.Types[0].Throughput.Verdict == "" {
		t.Fatalf("compare --json: %+v", c)
	}

	// A garbage interval log is refused, not compared as -100%.
	garbage := filepath.Join(dir, "garbage")
	copyRun(t, b, garbage)
	if err := os.WriteFile(filepath.Join(garbage, "latency.hlog"), []byte("this is not an interval log\n\x00\x01garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := runCLI(t, "compare", a, garbage); code != 2 || !strings.Contains(out, "holds no interval histogram") {
		t.Errorf("compare with a garbage latency.hlog: exit %d, want 2 and the reason", code)
	}

	for _, args := range [][]string{
		{"compare", a},
		{"compare", a, filepath.Join(dir, "nothing")},
		{"compare", a, dir},
		{"compare", "--kind", "fast", a, b},
	} {
		if code, out := runCLI(t, args...); code != 2 || !strings.HasPrefix(strings.TrimSpace(out), "candor: ") {
			t.Errorf("candor %v: exit %d, want 2 and one sentence", args, code)
		}
	}
}

// copyRun copies the files of a results directory (no subdirectories).
func copyRun(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
