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
	"github.com/candor-bench/candor/workload/sqlexec"
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

// TestDoltgresStatementsOnPostgres: Doltgres's statements (typed lists, the upsert without
// excluded) mean on PostgreSQL what PostgreSQL's do: a batch upsert of new and existing keys leaves
// each key its own new value, reads and deletes take the keys given.
func TestDoltgresStatementsOnPostgres(t *testing.T) {
	ctx := ctxFor(t)
	db := drivertest.Open(t, dbtest.FreshPostgresURL(t, "candor_test"))
	c := drivertest.Connect(t, db)
	drivertest.MustExec(t, c, createSQL(sqlexec.FamilyPostgres))
	s := newStatements(sqlexec.FamilyPostgres, sqlexec.EngineDoltgres, 2, 10)
	for _, args := range [][]any{{int64(1), []byte("a"), int64(2), []byte("b")}, {int64(2), []byte("B"), int64(3), []byte("C")}} {
		drivertest.MustExec(t, c, s.write(2), args...)
	}
	drivertest.MustExec(t, c, s.write(1), int64(1), []byte("A"))
	got := readAll(t, c)
	if len(got) != 3 || string(got[1]) != "A" || string(got[2]) != "B" || string(got[3]) != "C" {
		t.Fatalf("after the upserts: %v", got)
	}
	rows, err := c.Query(ctx, s.read, int64(1), int64(3))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	rows.Close()
	if n != 2 {
		t.Errorf("read of 2 keys: %d rows", n)
	}
	if d := drivertest.MustExec(t, c, s.del, int64(1), int64(2)); d != 2 {
		t.Errorf("delete of 2 keys: %d rows", d)
	}
}
