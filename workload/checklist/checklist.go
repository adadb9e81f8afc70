// Package checklist builds a workload's consistency checks (workload.Checker): conditions numbered
// in the order they run, each timed, with their violations, or skipped with a reason.
package checklist

import (
	"fmt"
	"strings"
	"time"

	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/workload/loadstate"
)

// List is the conditions checked so far; it is a []report.Check.
type List []report.Check

// Add checks one condition: fn fills its violations (Violate), reason or skip. The condition is
// OK when fn returned no error, did not skip it and found no violation. fn's error (the check could
// not be made) is returned, the condition kept: not run (Skipped and NotRun, the error its reason)
// when fn found no violation before it, for a condition never evaluated is not a failure; failed
// with the violations it found otherwise.
func (l *List) Add(name string, fn func(ch *report.Check) error) error {
	ch := report.Check{Condition: len(*l) + 1, Name: name}
	t0 := time.Now()
	err := fn(&ch)
	ch.Seconds = time.Since(t0).Seconds()
	ch.OK = err == nil && !ch.Skipped && len(ch.Violations) == 0
	if err != nil && len(ch.Violations) == 0 {
		ch.Skipped, ch.NotRun, ch.Reason = true, true, "not run: "+strings.Join(strings.Fields(err.Error()), " ")
	}
	*l = append(*l, ch)
	return err
}

// Skip adds a condition not checked, and why.
func (l *List) Skip(name, why string) {
	l.Add(name, func(ch *report.Check) error {
		ch.Skipped, ch.Reason = true, why
		return nil
	})
}

// LoadCompleted adds the first condition of every workload's check: its load (st) completed.
func (l *List) LoadCompleted(st loadstate.State) {
	l.Add("the load completed", func(ch *report.Check) error {
		if st.Status != loadstate.Completed {
			Violate(ch, "the load started %s UTC never completed: reload with candor %s load --drop", st.StartedAt.Format(time.DateTime), st.Workload)
		}
		return nil
	})
}

// Violate adds a violation to ch.
func Violate(ch *report.Check, format string, a ...any) {
	ch.Violations = append(ch.Violations, fmt.Sprintf(format, a...))
}
