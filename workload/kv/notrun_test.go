package kv

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/internal/drivertest"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/workload"
)

// TestCheckNotRunIsNoFailure: a condition whose statement fails before it is evaluated (kv's
// value column renamed under the check) is "not run" with the error, on the console and in
// result.json, never FAIL; the conditions before it keep their verdicts.
func TestCheckNotRunIsNoFailure(t *testing.T) {
	db := drivertest.Open(t, dbtest.FreshPostgresURL(t, "candor_test"))
	mustLoad(t, db, 3, "--insert-count", "20")
	c := drivertest.Connect(t, db)
	drivertest.MustExec(t, c, "ALTER TABLE kv RENAME COLUMN v TO w")
	checks, err := newTestKV(t, workload.CmdCheck).Check(ctxFor(t), db, true)
	if err == nil || !strings.Contains(err.Error(), "measuring the values of kv") {
		t.Fatalf("Check: %v, want the failed statement's error", err)
	}
	if len(checks) != 5 {
		t.Fatalf("%d checks, want 5: %+v", len(checks), checks)
	}
	for _, ch := range checks[:4] {
		if !ch.OK {
			t.Errorf("condition %d %s: %+v, want pass", ch.Condition, ch.Name, ch)
		}
	}
	last := checks[4]
	if !last.NotRun || !last.Skipped || last.OK || !strings.HasPrefix(last.Reason, "not run: measuring the values of kv: ") || len(last.Violations) > 0 {
		t.Errorf("the condition that could not run: %+v", last)
	}
	var out bytes.Buffer
	report.PrintChecks(&out, &report.Result{Checks: checks})
	if s := out.String(); strings.Contains(s, "FAIL") || !strings.Contains(s, "not run  5 every value's length within the block sizes") {
		t.Errorf("console:\n%s", s)
	}
	js, err := json.Marshal(last)
	if err != nil || !strings.Contains(string(js), `"not_run":true`) {
		t.Errorf("result.json's check: %s (%v)", js, err)
	}
}
