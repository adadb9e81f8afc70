package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/internal/gmsstandin"
	"github.com/candor-bench/candor/report"
)

// TestSysbenchCompareEngines: MariaDB (A) against the Dolt stand-in (B) on one of sysbench's tests
// and one of Dolt's: each database loaded with Dolt's tables, each test run on A then B, the
// table of latencies and multiples printed, engines.json and index.html written beside a result
// directory per run.
func TestSysbenchCompareEngines(t *testing.T) {
	parallel(t)
	a := dbtest.FreshMySQLURL(t, "candor_engines")
	b := gmsstandin.FreshDoltURL(t, "candor_engines")
	out := filepath.Join(t.TempDir(), "cmp")
	code, got := runCLI(t, "sysbench", "compare-engines", "--db", a, "--db", b, "--tests", "oltp_point_select,index_join",
		"--table-size", "200", "--duration", "1s", "--warmup", "0", "--no-check", "--out", out, "-q")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, got)
	}
	row := regexp.MustCompile(`(?m)^\s*(oltp_point_select|index_join)(\s+\d+\.\d\d){9}\s*$`)
	if n := len(row.FindAllString(got, -1)); n != 2 {
		t.Errorf("%d rows of figures in the table, want 2:\n%s", n, got)
	}
	says(t, got, "A p50  B p50  B/A p50", "(MariaDB ", "(Dolt ", "1 table of 200 rows", "reads mean multiple (p50)", "conditions: host ", "each run 1s measured")
	c, raw := readEngines(t, out)
	if len(c.Tests) != 2 || c.Engines[1].Dialect != "dolt" || c.Tests[1].Name != "index_join" || c.Tests[1].Group != "reads" {
		t.Fatalf("engines.json: %s", raw)
	}
	for _, tt := range c.Tests {
		if m := tt.Multiple.P50; m <= 0 || m != tt.Runs[1].Ms.P50/tt.Runs[0].Ms.P50 {
			t.Errorf("%s: multiple %v of %v over %v", tt.Name, m, tt.Runs[1].Ms.P50, tt.Runs[0].Ms.P50)
		}
		for _, r := range tt.Runs {
			if r.Count == 0 || r.Failed != "" {
				t.Errorf("%s: run %+v", tt.Name, r)
			}
			if _, err := os.Stat(filepath.Join(out, r.Dir, report.ResultFile)); err != nil {
				t.Errorf("%s: %v", tt.Name, err)
			}
		}
	}
	page, err := os.ReadFile(filepath.Join(out, report.EnginesHTML))
	if err != nil || !strings.Contains(string(page), `data-test="index_join"`) || !strings.Contains(string(page), "02-index_join-B/report.html") {
		t.Errorf("index.html (%v) lacks the test's row or its link", err)
	}
}

// TestTPCCCompareEngines: SQLite (A) against PostgreSQL (B), two rounds of TPC-C's mix in throughput
// mode (compare-engines' default for TPC-C) on the loads the databases hold (copies of the
// loaded template; TestSysbenchCompareEngines has compare-engines load them). Every figure of
// the printed tables (tpmC, each transaction's p95 and mean, failures and retries, B/A) is the
// runs' own as their result.json files give them, read here as plain JSON; the overall rows are
// the rounds' means; engines.json and index.html lie beside a result directory per run.
func TestTPCCCompareEngines(t *testing.T) {
	parallel(t)
	// Two databases already loaded (copies of the TPC-C template, on SQLite and PostgreSQL):
	// compare-engines takes them as they are, as a user's loaded databases.
	a := tpccSQLiteCopy(t, filepath.Join(t.TempDir(), "a.db"))
	b := tpccPostgresCopy(t, "candor_engines_tpcc")
	out := filepath.Join(t.TempDir(), "cmp")
	code, got := runCLI(t, "tpcc", "compare-engines", "--db", a, "--db", b, "--warehouses", "1", "--terminals", "2",
		"--rounds", "2", "--duration", "2s", "--warmup", "0", "--no-check", "--out", out, "-q")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, got)
	}
	ops := []string{"new_order", "payment", "order_status", "delivery", "stock_level", "delivery_deferred"}
	// each run's result.json, as JSON: runs[round][side]
	var runs [2][2]map[string]any
	for i := range runs {
		for side := range runs[i] {
			raw, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("%02d-round-%s", i+1, "AB"[side:side+1]), report.ResultFile))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, &runs[i][side]); err != nil {
				t.Fatal(err)
			}
			if m := runs[i][side]["mode"]; m != "throughput" {
				t.Errorf("round %d on %s ran in mode %v, want throughput", i+1, "AB"[side:side+1], m)
			}
		}
	}
	num := func(m map[string]any, path ...string) float64 {
		var v any = m
		for _, k := range path {
			v = v.(map[string]any)[k]
		}
		return v.(float64)
	}
	tpmC := func(r map[string]any) float64 {
		h := r["headline"].([]any)[0].(map[string]any)
		if h["name"] != "tpmC" || h["value"].(float64) != r["tpmC"].(float64) {
			t.Fatalf("headline %v, tpmC %v", h, r["tpmC"])
		}
		return h["value"].(float64)
	}
	// want is what a cell must read: v at the cell's own decimals ("-" for no latency).
	check := func(where, cell string, v float64) {
		t.Helper()
		want := "-"
		if v > 0 {
			dec := 0
			if i := strings.IndexByte(cell, '.'); i >= 0 {
				dec = len(cell) - i - 1
			}
			want = strconv.FormatFloat(v, 'f', dec, 64)
		}
		if cell != want {
			t.Errorf("%s: the table says %s, the runs' result.json %v", where, cell, v)
		}
	}
	heads, opRows := engineTables(t, got)
	if len(heads) != 3 || len(opRows) != 3*len(ops) {
		t.Fatalf("%d rows of tpmC and %d of transactions, want 3 and %d:\n%s", len(heads), len(opRows), 3*len(ops), got)
	}
	for i, row := range heads {
		name := fmt.Sprint(i + 1)
		if i == 2 {
			name = "overall"
		}
		if row[0] != name {
			t.Fatalf("row %d is %q, want %s:\n%s", i, row[0], name, got)
		}
		var v, failed, retried [2]float64
		for side := range 2 {
			for r := range runs {
				if r != i && i != 2 {
					continue
				}
				v[side] += tpmC(runs[r][side])
				for _, op := range ops {
					failed[side] += num(runs[r][side], "operations", op, "errors")
					retried[side] += num(runs[r][side], "operations", op, "retries")
				}
			}
			if i == 2 {
				v[side] /= 2
			}
		}
		for k, want := range []float64{v[0], v[1], v[1] / v[0], failed[0], failed[1], retried[0], retried[1]} {
			if k >= 3 && want == 0 {
				if row[k+1] != "0" {
					t.Errorf("round %s, column %d: %s, want 0", name, k+2, row[k+1])
				}
				continue
			}
			check(fmt.Sprintf("round %s, column %d", name, k+2), row[k+1], want)
		}
	}
	for _, row := range opRows {
		r := -1 // the overall row's figures are the rounds' means
		if row[0] != "overall" {
			r, _ = strconv.Atoi(row[0])
			r--
		}
		op := row[1]
		var p95, mean, failed, retried [2]float64
		for side := range 2 {
			n := 0.0
			for i := range runs {
				if r >= 0 && i != r {
					continue
				}
				failed[side] += num(runs[i][side], "operations", op, "errors")
				retried[side] += num(runs[i][side], "operations", op, "retries")
				if num(runs[i][side], "operations", op, "count") > 0 {
					p95[side] += num(runs[i][side], "operations", op, "response_ms", "p95")
					mean[side] += num(runs[i][side], "operations", op, "response_ms", "mean")
					n++
				}
			}
			if n > 0 {
				p95[side], mean[side] = p95[side]/n, mean[side]/n
			}
		}
		x := func(a, b float64) float64 {
			if a <= 0 || b <= 0 {
				return 0
			}
			return b / a
		}
		for k, want := range []float64{p95[0], p95[1], x(p95[0], p95[1]), mean[0], mean[1], x(mean[0], mean[1])} {
			check(fmt.Sprintf("%s %s, column %d", row[0], op, k+3), row[k+2], want)
		}
		for k, want := range []float64{failed[0], failed[1], retried[0], retried[1]} {
			if row[k+8] != strconv.FormatFloat(want, 'f', 0, 64) {
				t.Errorf("%s %s, column %d: %s, want %v", row[0], op, k+9, row[k+8], want)
			}
		}
	}
	says(t, got, "using the tpcc data already loaded in "+a, "(SQLite ", "(PostgreSQL ", "tpmC: each run's own headline figure (new-orders per minute)",
		"delivery_deferred is its work on the database", "each run 2s measured", "throughput mode", "2 rounds of the same mix")
	c, raw := readEngines(t, out)
	if len(c.Tests) != 2 || c.Overall == nil || len(c.Ops) != len(ops) || c.Engines[0].Dialect != "sqlite" ||
		c.Tests[1].Runs[1].Dir != "02-round-B" || c.Tests[0].Runs[0].Headline.Value != tpmC(runs[0][0]) {
		t.Fatalf("engines.json: %s", raw)
	}
	page, err := os.ReadFile(filepath.Join(out, report.EnginesHTML))
	if err != nil || !strings.Contains(string(page), `data-test="overall/delivery_deferred"`) || !strings.Contains(string(page), "02-round-B/report.html") {
		t.Errorf("index.html (%v) lacks the overall rows or a run's link", err)
	}

	// Spec mode's --terminals checked against the warehouses loaded (no --warehouses): the first
	// run refuses it, and compare-engines stops there, with the run's sentence, instead of failing
	// round after round.
	code, got = runCLI(t, "tpcc", "compare-engines", "--db", a, "--db", b, "--mode", "spec", "--terminals", "2",
		"--rounds", "3", "--duration", "2s", "--out", filepath.Join(t.TempDir(), "spec"), "-q")
	if code != 2 || !strings.Contains(got, "round 1 on A: --terminals 2 does not fit spec mode") || strings.Contains(got, "round 1 on B") {
		t.Errorf("spec mode with --terminals 2 on 1 loaded warehouse: exit %d, want 2, the refusal once and no other run:\n%s", code, got)
	}
}

// says fails t unless the output got says each of wants.
func says(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// readEngines is the comparison saved in out (engines.json), and the file's text.
func readEngines(t *testing.T, out string) (report.EngineComparison, []byte) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(out, report.EnginesFile))
	if err != nil {
		t.Fatal(err)
	}
	var c report.EngineComparison
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return c, raw
}

// engineTables are the rows of compare-engines' two tables of rounds, as fields: the headline
// figure's (round, 7 figures) and the operations' (round, operation, 10 figures).
func engineTables(t *testing.T, out string) (heads, ops [][]string) {
	t.Helper()
	var in *[][]string
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) > 2 && f[0] == "round" && strings.HasPrefix(f[2], "tpmC"):
			in = &heads
		case len(f) > 2 && f[0] == "round" && f[1] == "transaction":
			in = &ops
		case in != nil && len(f) > 0 && (f[0] == "overall" || f[0][0] >= '0' && f[0][0] <= '9'):
			*in = append(*in, f)
		default:
			in = nil
		}
	}
	return heads, ops
}

// TestCompareEnginesInput: compare-engines refuses, before anything connects, what it cannot run
// (in-process: no database is reached).
func TestCompareEnginesInput(t *testing.T) {
	a, b := "sqlite:"+filepath.Join(t.TempDir(), "a.db"), "sqlite:"+filepath.Join(t.TempDir(), "b.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tpcc", "compare-engines", "--db", a}, "compare-engines takes two --db, A and B (got 1)"},
		{[]string{"tpcc", "compare-engines", "--db", a, "--db", b, "--rounds", "0"}, "--rounds must be at least 1 (got 0)"},
		{[]string{"tpcc", "compare-engines", "--db", a, "--db", b, "--tests", "oltp_point_select"}, "tpcc's compare-engines has no tests to pick"},
		{[]string{"tpcc", "compare-engines", "--db", a, "--db", b, "--no-such-flag"}, "unknown flag: --no-such-flag"},
		{[]string{"tpcc", "compare-engines", "--db", a, "--db", b, "--warehouses", "1", "--mode", "spec", "--terminals", "2"}, "--terminals 2 does not fit spec mode"},
		{[]string{"sysbench", "compare-engines", "--db", a, "--db", b, "--rounds", "2"}, "unknown flag: --rounds"},
	} {
		code, got := runCLI(t, append(c.args, "--out", filepath.Join(t.TempDir(), "cmp"))...)
		if code != 2 || !strings.Contains(got, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", c.args, code, c.want, got)
		}
		if _, err := os.Stat(strings.TrimPrefix(a, "sqlite:")); err == nil {
			t.Fatalf("%v made the database %s", c.args, a)
		}
	}
}
