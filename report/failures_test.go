package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/measure"
)

// failedRun is a result whose new_order failed 436 of 1,000 times on a driver-side check, and
// payment 2 of 1,000 on a deadlock.
func failedRun(t *testing.T) *Result {
	t.Helper()
	rec := measure.NewRecorder([]string{"new_order", "payment"}, 1)
	t0 := time.Unix(1_800_000_000, 0)
	rec.Begin(t0, t0, t0.Add(time.Minute))
	s := rec.Stripe(0)
	for i := range 1000 {
		s.Done(0, true, measure.Event{Err: i < 436, Fail: driver.FailCheck, Msg: "tpcc: new-order updated 4 stock rows, expected 10"})
		s.Done(1, true, measure.Event{Err: i < 2, Fail: driver.FailSerialization, Msg: "Deadlock found when trying to get lock"})
	}
	rec.Tick(t0.Add(time.Minute))
	tot := rec.Totals()
	r := &Result{Workload: "tpcc", Operations: map[string]*TxResult{}, OpOrder: tot.Ops}
	for op, name := range tot.Ops {
		c := tot.Counts[op]
		r.Operations[name] = &TxResult{Count: c.Completed, Errors: c.Errors, Failures: FailuresOf(tot, op)}
	}
	r.FailureVerdict = JudgeFailures(r, DefaultMaxFailuresPct)
	return r
}

func TestFailuresAndVerdict(t *testing.T) {
	r := failedRun(t)
	no := r.Operations["new_order"].Failures
	if no == nil || no.ByClass["check"] != 436 || len(no.ByClass) != 1 || no.Unlisted != 0 || len(no.Messages) != 1 || no.Messages[0].Count != 436 {
		t.Fatalf("new_order failures: %+v", no)
	}
	if no.Pct < 43.59 || no.Pct > 43.61 {
		t.Errorf("new_order failed %.2f%%, want 43.6%%", no.Pct)
	}
	v := r.FailureVerdict
	if v.Pass || len(v.Over) != 1 || v.Over[0].Operation != "new_order" || v.Over[0].Attempts != 1000 {
		t.Fatalf("verdict %+v: want new_order alone above 5%% (payment's 0.2%% is under)", v)
	}
	if JudgeFailures(r, 50).Pass != true {
		t.Error("under a 50% limit nothing fails")
	}
	if JudgeFailures(r, 0).Pass {
		t.Error("with a limit of 0% any failure fails")
	}
	var b bytes.Buffer
	Summary(&b, r)
	out := b.String()
	first := strings.Join(strings.SplitN(out, "\n", 16)[:15], "\n") // the first screen
	for _, want := range []string{"FAILED: new_order failed 43.6% of 1,000 times (limit 5%)", "driver-side check 436",
		"436 × driver-side check: tpcc: new-order updated 4 stock rows, expected 10", "serialization/deadlock 2"} {
		if !strings.Contains(first, want) {
			t.Errorf("the summary's first screen lacks %q:\n%s", want, first)
		}
	}
	sec := FailureSection(r)
	if len(sec.Rows) != 4 || len(sec.Notes) != 1 {
		t.Errorf("failure section: %+v", sec)
	}
}

func TestNotQualifiedFigure(t *testing.T) {
	f := Figure{Name: "tpmC", Value: 12.5, Unit: "new-orders per minute", NotQualified: "90th-percentile limit failed: new_order p90", Bad: true}
	got := FigureText(f)
	if !strings.HasPrefix(got, "tpmC NOT QUALIFIED (90th-percentile limit failed: new_order p90): 12.5 new-orders per minute") {
		t.Errorf("FigureText = %q", got)
	}
}
