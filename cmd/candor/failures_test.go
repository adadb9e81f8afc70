package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/driver"
)

// TestFailuresExplainedSQLite: every New-Order fails on purpose on a real engine (a trigger refuses
// order lines); the summary's first screen says which operation failed, in which class and with
// which message, tpmC is not qualified, result.json holds the same, and the exit status is 1.
func TestFailuresExplainedSQLite(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	db := tpccSQLiteCopy(t, filepath.Join(dir, "tpcc.db"))
	ctx := context.Background()
	d, err := driver.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, `CREATE TRIGGER candor_test_refuse BEFORE INSERT ON order_line
		BEGIN SELECT RAISE(ABORT, 'order lines refused by a test trigger'); END`); err != nil {
		t.Fatal(err)
	}
	c.Close()
	d.Close()

	out := filepath.Join(dir, "run")
	code, text := runCLI(t, "tpcc", "run", "--db", db, "--mode", "throughput", "--terminals", "2",
		"--duration", "3s", "--warmup", "1s", "--interval", "1s", "--out", out, "--seed", "5", "--quiet")
	if code != 1 {
		t.Fatalf("exit %d, want 1: New-Order failed every time", code)
	}
	// The first screen: the lines before the operations' table.
	first := text
	if i := strings.Index(text, "response time, ms"); i > 0 {
		first = text[:i]
	}
	for _, want := range []string{"FAILED: new_order failed 100.0% of", "(limit 5%)",
		"new_order: ", "constraint violation", "order lines refused by a test trigger",
		"tpmC NOT QUALIFIED (failures above --max-failures: new_order failed 100.0%"} {
		if !strings.Contains(first, want) {
			t.Errorf("the first screen lacks %q", want)
		}
	}
	if !strings.Contains(text, "candor: the run failed its failure verdict: new_order failed 100.0%") {
		t.Error("no closing line naming the failure verdict")
	}
	res := readResult(t, out)
	no := res["operations"].(map[string]any)["new_order"].(map[string]any)
	f, ok := no["failures"].(map[string]any)
	if !ok {
		t.Fatalf("operations.new_order has no failures: %v", no)
	}
	if f["by_class"].(map[string]any)["constraint"].(float64) != no["errors"].(float64) || no["errors"].(float64) == 0 {
		t.Errorf("new_order failures by class %v, errors %v: want every error a constraint", f["by_class"], no["errors"])
	}
	msgs := f["messages"].([]any)
	if m := msgs[0].(map[string]any); m["class"] != "constraint" || !strings.Contains(m["message"].(string), "order lines refused by a test trigger") {
		t.Errorf("first message %v", m)
	}
	if v := res["failure_verdict"].(map[string]any); v["pass"] != false || v["limit_pct"].(float64) != 5 {
		t.Errorf("failure_verdict %v", v)
	}
	if res["qualified"] != false || len(res["not_qualified_reasons"].([]any)) == 0 {
		t.Errorf("qualified %v, reasons %v", res["qualified"], res["not_qualified_reasons"])
	}
	if !hasWarning(res, "FAILURES_ABOVE_LIMIT") || !hasWarning(res, "TPMC_NOT_QUALIFIED") {
		t.Errorf("warnings %v", res["warnings"])
	}
	if _, ok := res["operations"].(map[string]any)["payment"].(map[string]any)["failures"]; ok {
		t.Error("payment did not fail, yet has failures")
	}
	// With a limit of 100% the same failures are shown, but the run passes its verdict.
	code, text = runCLI(t, "tpcc", "run", "--db", db, "--mode", "throughput", "--terminals", "2", "--max-failures", "100",
		"--duration", "2s", "--warmup", "0s", "--interval", "1s", "--out", filepath.Join(dir, "run2"), "--seed", "5", "--quiet")
	if code != 0 || strings.Contains(text, "FAILED:") || !strings.Contains(text, "order lines refused by a test trigger") {
		t.Errorf("--max-failures 100: exit %d, want 0 with the failures still shown", code)
	}
	if code, text := runCLI(t, "tpcc", "run", "--db", db, "--max-failures", "101", "--duration", "1s"); code != 2 || !strings.Contains(text, "--max-failures") {
		t.Errorf("--max-failures 101: exit %d, want 2 naming the flag", code)
	}
}
