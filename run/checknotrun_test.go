package run

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/workload/checklist"
)

// brokenCheckWorkload's check evaluates one condition, then fails on a real statement error (a
// table that does not exist) before its second.
type brokenCheckWorkload struct{ deadlockWorkload }

func (brokenCheckWorkload) Check(ctx context.Context, db driver.DB, full bool) ([]report.Check, error) {
	c, err := db.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var l checklist.List
	l.Add("the server answers", func(ch *report.Check) error {
		var one int64
		return c.QueryRow(ctx, "SELECT 1").Scan(&one)
	})
	err = l.Add("the table holds rows", func(ch *report.Check) error {
		var n int64
		return c.QueryRow(ctx, "SELECT count(*) FROM candor_no_such_table").Scan(&n)
	})
	return l, err
}

// TestCheckStopsNotRun: `candor NAME check` whose check stops on a statement's error prints what it
// evaluated and the condition it stopped at as not run, never FAIL, and returns the error.
func TestCheckStopsNotRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	err := Check(ctx, brokenCheckWorkload{}, dbtest.FreshPostgresURL(t, "candor_test"), false, Out{Stdout: &stdout, Stderr: &stderr})
	if err == nil || !strings.Contains(err.Error(), "candor_no_such_table") {
		t.Fatalf("Check: %v, want the statement's error", err)
	}
	s := stdout.String()
	if strings.Contains(s, "FAIL") || !strings.Contains(s, "pass  1 the server answers") ||
		!strings.Contains(s, "not run  2 the table holds rows") || !strings.Contains(s, `relation "candor_no_such_table" does not exist`) {
		t.Errorf("output:\n%s", s)
	}
}
