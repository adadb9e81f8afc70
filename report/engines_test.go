package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestEngineRoundsOverall: the overall row of a comparison of rounds is each engine's mean over
// the rounds in which both engines gave figures (a round with a failed run left out on both
// sides), an operation's latency the mean over the rounds that completed it, failures and
// retries summed over those rounds, and its multiples B's means over A's.
func TestEngineRoundsOverall(t *testing.T) {
	ops := []string{"new_order", "stock_level"}
	run := func(tpmC float64, lat [2]float64, counts [2]int64) EngineRun {
		r := EngineRun{Headline: &Figure{Name: "tpmC", Value: tpmC, Unit: "new-orders per minute"}, Count: counts[0]}
		for i, op := range ops {
			r.Ops = append(r.Ops, EngineOp{Name: op, Count: counts[i], Errors: int64(i + 1), Retries: int64(10 * (i + 1)),
				Ms: Latency{P50: lat[i] / 2, P95: lat[i], Mean: lat[i] / 3}})
		}
		return r
	}
	c := &EngineComparison{Workload: "tpcc", KeyOp: "new_order", Ops: ops, OpWord: "transaction", Engines: [2]Engine{{Label: "A"}, {Label: "B"}}, Tests: []EngineTest{
		{Name: "1", Runs: [2]EngineRun{run(600, [2]float64{10, 4}, [2]int64{50, 3}), run(300, [2]float64{30, 8}, [2]int64{25, 2})}},
		{Name: "2", Runs: [2]EngineRun{run(900, [2]float64{20, 6}, [2]int64{70, 4}), {Failed: "connection refused"}}},
		{Name: "3", Runs: [2]EngineRun{run(1000, [2]float64{14, 0}, [2]int64{80, 0}), run(500, [2]float64{50, 12}, [2]int64{40, 5})}},
	}}
	c.Finish()
	o := c.Overall
	if o == nil {
		t.Fatal("no overall row")
	}
	r1, r3 := c.Tests[0].Runs, c.Tests[2].Runs
	for side := range 2 {
		if got, want := o.Runs[side].Headline.Value, (r1[side].Headline.Value+r3[side].Headline.Value)/2; got != want {
			t.Errorf("side %d: overall tpmC %v, want %v (rounds 1 and 3)", side, got, want)
		}
		for i := range ops {
			a, b := r1[side].Ops[i], r3[side].Ops[i]
			want := (a.Ms.P95 + b.Ms.P95) / 2
			if b.Count == 0 {
				want = a.Ms.P95 // round 3's A completed no stock_level
			}
			got := o.Runs[side].Ops[i]
			if got.Ms.P95 != want || got.Errors != a.Errors+b.Errors || got.Retries != a.Retries+b.Retries || got.Count != a.Count+b.Count {
				t.Errorf("side %d, %s: overall %+v, want p95 %v and rounds 1 and 3 summed", side, ops[i], got, want)
			}
		}
	}
	if m := o.HeadlineMultiple; m != o.Runs[1].Headline.Value/o.Runs[0].Headline.Value {
		t.Errorf("overall multiple %v", m)
	}
	if m := o.OpMultiples[1].P95; m != o.Runs[1].Ops[1].Ms.P95/o.Runs[0].Ops[1].Ms.P95 {
		t.Errorf("overall stock_level p95 multiple %v", m)
	}
	if c.Tests[1].HeadlineMultiple != 0 || c.Tests[1].OpMultiples[0].P95 != 0 {
		t.Errorf("round 2, whose B failed, has multiples: %+v", c.Tests[1])
	}
	var buf bytes.Buffer
	c.WriteText(&buf)
	got := buf.String()
	for _, want := range []string{"overall: each engine's mean of 2 rounds", "round 2 on B: connection refused", "round  A tpmC  B tpmC  B/A tpmC"} {
		if !strings.Contains(got, want) {
			t.Errorf("the table lacks %q:\n%s", want, got)
		}
	}
	var rows []string
	for _, l := range strings.Split(got, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "2" {
			rows = append(rows, strings.Join(f, " "))
		}
	}
	if want := []string{"2 900.0 - - 3 - 30 -", "2 new_order 20.00 - - 6.67 - - 1 - 10 -", "2 stock_level 6.00 - - 2.00 - - 2 - 20 -"}; strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("round 2's rows do not show B's figures missing: %q\n%s", rows, got)
	}
	// one round: no overall row
	c.Tests = c.Tests[:1]
	if c.Finish(); c.Overall != nil {
		t.Errorf("an overall row for one round: %+v", c.Overall)
	}
}
