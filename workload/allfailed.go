package workload

import (
	"context"
	"fmt"
	"time"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/workload/textfmt"
)

// A run whose every attempt fails measures nothing: a script on a table that does not exist, a
// workload whose statements this database does not accept. The core stops such a run within
// seconds instead of failing for its whole duration: when no attempt has succeeded since the run
// began, at least AllFailedMin have failed (other than by a lost connection) and AllFailedAfter
// has passed, and no outage is going on (a run rides an outage out; --outage-window bounds that).
// A single success anywhere disarms the rule for the rest of the run, so a workload that fails
// often but not always runs to its end and is judged by --max-failures.
const (
	AllFailedMin   = 20
	AllFailedAfter = 2 * time.Second
)

// allFailedPoll is how often the rule looks at the recorder's attempts.
const allFailedPoll = 100 * time.Millisecond

// AllFailedError is the cause of a run stopped because every attempt failed.
type AllFailedError struct {
	Failed  int64
	After   time.Duration
	Op      string
	Class   string // the first failure's class, in words
	Message string // the first failure's message
	Name    string // the workload's name
}

func (e *AllFailedError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = "(no message)"
	}
	return fmt.Sprintf("every attempt failed and none succeeded (%s failed in the first %.1f s); the first error, of %s (%s): %s; the workload cannot run on this database as it is: check that its data is loaded (candor %s load) and that its statements suit this database, then run again",
		textfmt.Thousands(e.Failed), e.After.Seconds(), e.Op, e.Class, msg, e.Name)
}

// watchAllFailed applies the rule above to rec from start until a success, ctx's end or stop; it
// aborts the run with an *AllFailedError when the rule fires.
func watchAllFailed(ctx context.Context, stop <-chan struct{}, rec *measure.Recorder, ops []string, name string, start time.Time, outages *Outages, abort context.CancelCauseFunc) {
	tk := time.NewTicker(allFailedPoll)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-stop:
			return
		case <-tk.C:
		}
		a := rec.Attempts()
		if a.OK > 0 {
			return
		}
		el := time.Since(start)
		if a.Failed < AllFailedMin || el < AllFailedAfter || outages.Ongoing() {
			continue
		}
		op := ""
		if a.FirstOp >= 0 && a.FirstOp < len(ops) {
			op = ops[a.FirstOp]
		}
		abort(&AllFailedError{Failed: a.Failed, After: el, Op: op, Class: a.First.Class.Title(), Message: a.First.Text, Name: name})
		return
	}
}
