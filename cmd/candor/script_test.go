package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dbtest"
)

// candor script through the CLI: the flow every workload gets (workloads_test.go) on the default
// script (tpcb-like), then what is the script workload's own: every statement a part of its script
// in result.json, a custom script with \gset, \if and \sleep beside a built-in, and errors at
// file:line:col.

var scriptFlow = workloadFlow{name: "script", loadArgs: []string{"--scale", "1"}, slo: "tpcb-like.p99<=5s",
	lead: "transactions", ops: []string{"tpcb-like", "tpcb-like:1", "tpcb-like:2", "tpcb-like:3", "tpcb-like:4",
		"tpcb-like:5", "tpcb-like:6", "tpcb-like:7"},
	searchOn: "sqlite", oneShotOn: "postgres"}

func TestScriptSQLiteCLI(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "pgb.db")
	scriptFlow.run(t, db, dir)
	scriptParts(t, db, dir)
}

func TestScriptPostgresCLI(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	db := dbtest.FreshPostgresURL(t, "candor_script_cli")
	scriptFlow.run(t, db, dir)
	scriptParts(t, db, dir)
}

func TestScriptMySQLCLI(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	db := dbtest.FreshMySQLURL(t, "candor_script_cli")
	scriptFlow.run(t, db, dir)
	scriptParts(t, db, dir)
}

// scriptParts checks the throughput run scriptFlow left in dir/thr, then runs a custom script.
func scriptParts(t *testing.T, db, dir string) {
	f := scriptFlow
	res := readResult(t, filepath.Join(dir, "thr"))
	ops := res["operations"].(map[string]any)
	tx := ops["tpcb-like"].(map[string]any)
	n := tx["count"].(float64)
	if n == 0 {
		t.Fatalf("no tpcb-like transaction in the window")
	}
	for _, op := range f.ops[1:] {
		o, _ := ops[op].(map[string]any)
		if o == nil {
			t.Errorf("result.json has no spectrum of %s", op)
			continue
		}
		if c := o["count"].(float64); c != n {
			t.Errorf("%s: %v in the window, want %v (one per transaction)", op, c, n)
		}
		if o["part_of"] != "tpcb-like" || o["part_note"] == nil {
			t.Errorf("%s: part_of %v, part_note %v", op, o["part_of"], o["part_note"])
		}
		if h, _ := o["response_ms"].(map[string]any); h == nil || h["p99"] == nil {
			t.Errorf("%s: no response percentiles", op)
		}
	}
	out := f.cli(t, 0, "report", filepath.Join(dir, "thr"))
	for _, want := range []string{"are parts of tpcb-like (each SQL statement from its call to its result)",
		"script: statements of the measured transactions", "UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}

	// A custom script beside a built-in: \gset into a prefix, \if on what it read, a trailing
	// \sleep (think time), -D; weights.
	mine := filepath.Join(dir, "mine.sql")
	script := `\set aid random_zipfian(1, 100000 * :scale, 0.99)
SELECT abalance AS bal, bid FROM pgbench_accounts WHERE aid = :aid \gset acc_
\if :acc_bid = :want
UPDATE pgbench_branches SET filler = 'x' WHERE bid = :acc_bid;
\else
SELECT 1 / 0 AS never;
\endif
\sleep 1 ms
`
	if err := os.WriteFile(mine, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cu := filepath.Join(dir, "custom")
	out = f.cli(t, 0, "script", "run", "--db", db, "-f", mine+"@3", "-b", "select-only@1", "-D", "want=1", "-c", "2",
		"--duration", "2s", "--warmup", "0s", "--interval", "1s", "--out", cu)
	if !strings.Contains(out, "mine@3, select-only@1; scale 1 (loaded); 4 statements timed apart, 2 terminals over 2 connections") {
		t.Errorf("the custom run's opening line is not there:\n%s", out)
	}
	cres := readResult(t, cu)
	cops := cres["operations"].(map[string]any)
	for _, op := range []string{"mine", "select-only", "mine:1", "mine:2", "select-only:1"} {
		o, _ := cops[op].(map[string]any)
		if o == nil || o["count"].(float64) == 0 || o["errors"] != nil && o["errors"].(float64) != 0 {
			t.Errorf("%s: %v", op, o)
		}
	}
	if o, _ := cops["mine:3"].(map[string]any); o == nil || o["count"].(float64) != 0 {
		t.Errorf("mine:3 (the \\else branch, never taken) ran: %v", o)
	}
	m, s := cops["mine"].(map[string]any)["count"].(float64), cops["select-only"].(map[string]any)["count"].(float64)
	if m < 1.5*s {
		t.Errorf("weights 3:1 gave %v mine and %v select-only", m, s)
	}

	// A statement that fails at run time: its script's first error, at file:line:col, printed
	// once and kept in the result's warnings; every run of the script fails, so the failure
	// verdict says so on the first screen, by class, and the exit status is 1.
	failing := filepath.Join(dir, "failing.sql")
	os.WriteFile(failing, []byte("\\set x random(1, 3)\nSELECT 1;\nSELECT * FROM no_such_table WHERE aid = :x;\n"), 0o644)
	out = f.cli(t, 1, "script", "run", "--db", db, "-f", failing, "--duration", "1s", "--warmup", "0s", "--no-check", "-q", "--out", filepath.Join(dir, "failing"))
	if !strings.Contains(out, "failing failed: "+failing+":3:1: ") || !strings.Contains(out, "[SCRIPT_ERROR] failing failed (its first error in the run): "+failing+":3:1: ") {
		t.Errorf("the failing statement's place and error are not printed:\n%s", out)
	}
	if !strings.Contains(out, "FAILED: failing failed 100.0% of") || !strings.Contains(out, "× statement error: "+failing+":3:1: ") {
		t.Errorf("the failure verdict and the failures by class are not printed:\n%s", out)
	}

	// Errors: at file:line:col, exit status 2, before anything connects.
	bad := filepath.Join(dir, "bad.sql")
	os.WriteFile(bad, []byte("SELECT 1;\n\\set x random(1, 10) +\n"), 0o644)
	shell := filepath.Join(dir, "shell.sql")
	os.WriteFile(shell, []byte("\\shell ls\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-f", bad}, "bad.sql:2:23: syntax error"},
		{[]string{"-f", shell}, "shell.sql:1:1:"},
		{[]string{"-b", "nothing"}, `no builtin script found for name "nothing"`},
		{[]string{"-c", "2", "--terminals", "3"}, "--clients 2 and --terminals 3 disagree"},
	} {
		out := f.cli(t, 2, append([]string{"script", "run", "--db", db, "--duration", "1s"}, tc.args...)...)
		if !strings.Contains(out, tc.want) {
			t.Errorf("%v: no sentence saying %q:\n%s", tc.args, tc.want, out)
		}
	}
}
