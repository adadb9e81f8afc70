package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSilentlyAcceptedInput (issue 12, item 10): input that used to be accepted or answered with
// exit status 1 gets one sentence and exit status 2, and nothing runs.
func TestSilentlyAcceptedInput(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "x.db")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"tpcc", "run", "--db", db, "--terminals", "0"}, "--terminals must be at least 1 (got 0)"},
		{[]string{"tpcc", "run", "--db", db, "--connections", "0"}, "--connections must be at least 1 (got 0)"},
		{[]string{"tpcc", "--db", db, "--mode", "throughput", "--terminals", "0"}, "--terminals must be at least 1"},
		{[]string{"tpcc", "runn", "--db", db}, `"runn" is not a command of candor tpcc: did you mean run?`},
		{[]string{"tpcc", "lod"}, "did you mean load?"},
		{[]string{"tpcc", "run", "--db", db, "stray"}, `candor tpcc run takes no arguments (got "stray")`},
		{[]string{"tpcc", "check", "--db", db, "x", "y"}, `takes no arguments (got "x y")`},
		{[]string{"compar"}, `"compar" is not a command of candor: did you mean compare?`},
		{[]string{"nothing"}, `"nothing" is not a command of candor`},
	}
	for _, c := range cases {
		code, out := runCLI(t, c.args...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != 2 || !strings.Contains(out, c.want) || len(lines) != 1 || !strings.HasPrefix(lines[0], "candor: ") {
			t.Errorf("candor %s: exit %d, output %q; want exit 2 and one line with %q", strings.Join(c.args, " "), code, out, c.want)
		}
	}
	if code, out := runCLI(t); code != 0 || !strings.Contains(out, "Usage:") {
		t.Errorf("candor alone: exit %d, want its help and 0", code)
	}
}
