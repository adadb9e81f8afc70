package checklist

import (
	"errors"
	"testing"
	"time"

	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/workload/loadstate"
)

func TestList(t *testing.T) {
	var l List
	l.LoadCompleted(loadstate.State{Status: loadstate.HalfLoaded, Workload: "kv", StartedAt: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)})
	l.Add("fine", func(ch *report.Check) error { return nil })
	failed := errors.New("no answer")
	if err := l.Add("failed", func(ch *report.Check) error { return failed }); err != failed {
		t.Errorf("Add returned %v, want fn's error", err)
	}
	l.Skip("skipped", "no table")
	var checks []report.Check = l
	if len(checks) != 4 {
		t.Fatalf("%d checks, want 4", len(checks))
	}
	for i, want := range []struct {
		name string
		ok   bool
	}{{"the load completed", false}, {"fine", true}, {"failed", false}, {"skipped", false}} {
		if c := checks[i]; c.Condition != i+1 || c.Name != want.name || c.OK != want.ok {
			t.Errorf("check %d: %+v, want %s OK %v", i+1, c, want.name, want.ok)
		}
	}
	if v := checks[0].Violations; len(v) != 1 || v[0] != "the load started 2024-01-02 03:04:05 UTC never completed: reload with candor kv load --drop" {
		t.Errorf("half-loaded: %q", v)
	}
	if c := checks[3]; !c.Skipped || c.NotRun || c.Reason != "no table" {
		t.Errorf("skipped: %+v", c)
	}
	// A condition whose check failed before a verdict is not run, not failed; one that found
	// violations before its error keeps them and fails.
	if c := checks[2]; !c.Skipped || !c.NotRun || c.Reason != "not run: no answer" {
		t.Errorf("failed to run: %+v", c)
	}
	l.Add("violated, then failed", func(ch *report.Check) error {
		Violate(ch, "row 1 is wrong")
		return failed
	})
	if c := l[len(l)-1]; c.Skipped || c.NotRun || c.OK || len(c.Violations) != 1 {
		t.Errorf("violated, then failed: %+v", c)
	}
}
