package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
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
	for _, want := range []string{"A p50  B p50  B/A p50", "(MariaDB ", "(Dolt ", "1 table of 200 rows", "reads mean multiple (p50)", "conditions: host ", "each run 1s measured"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	raw, err := os.ReadFile(filepath.Join(out, report.EnginesFile))
	if err != nil {
		t.Fatal(err)
	}
	var c report.EngineComparison
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
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
