package tpch

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/tpch/queries"
)

// The run sequence of clause 5.3.3: the power test is RF1, stream 0's 22 queries, RF2 (--repeat
// times, each with the next refresh set); the throughput test's query streams run Appendix A's
// rows 1..S, gated on the power test's end, and the refresh stream S pairs of RF1 and RF2 with the
// sets after the power test's.
func TestBuildPlan(t *testing.T) {
	params := validationParams(0.01)
	p := buildPlan(Options{Test: TestBoth, Streams: 2, Repeat: 2}, 5, params)
	if p.sets != 4 || p.firstSet != 5 {
		t.Fatalf("sets %d from %d, want 4 from 5", p.sets, p.firstSet)
	}
	pw := p.power.steps
	if len(pw) != 48 || pw[0].op != OpRF1 || pw[0].set != 5 || pw[23].op != OpRF2 || pw[23].set != 5 || pw[24].set != 6 || pw[47].op != OpRF2 {
		t.Fatalf("power steps: %d, first %+v, 24th %+v, 25th %+v; want 2 × (RF1, 22, RF2) with sets 5 and 6", len(pw), pw[0], pw[23], pw[24])
	}
	var order []int
	for _, st := range pw[1:23] {
		order = append(order, st.q)
	}
	if !slices.Equal(order, queries.StreamOrder(0)) || pw[1].q != 14 {
		t.Fatalf("power order %v, want stream 0's %v", order, queries.StreamOrder(0))
	}
	for i, s := range p.streams {
		var qs []int
		for _, st := range s.steps {
			qs = append(qs, st.q)
		}
		if !slices.Equal(qs, queries.StreamOrder(i+1)) || s.Gate() == nil {
			t.Fatalf("stream %d: %v, gate %v; want Appendix A's row %d, gated", i+1, qs, s.Gate(), i+1)
		}
	}
	rs := p.refresh.steps
	if len(rs) != 4 || rs[0].set != 7 || rs[1].op != OpRF2 || rs[3].set != 8 {
		t.Fatalf("refresh stream %+v, want RF1 7, RF2 7, RF1 8, RF2 8", rs)
	}
	// The power stream leaves the run after its last step and opens the gate.
	s := p.power
	for range pw {
		if op, _ := s.Next(); op == schedule.Done {
			t.Fatal("Done too early")
		}
	}
	select {
	case <-p.streams[0].Gate():
		t.Fatal("the gate opened before the power test's end")
	default:
	}
	if op, _ := s.Next(); op != schedule.Done {
		t.Fatalf("after the last step: %d, want Done", op)
	}
	<-p.streams[0].Gate()

	// Validation and --no-refresh: no refresh functions, no sets; throughput alone: no gate.
	p = buildPlan(Options{Test: TestPower, Validate: true, Repeat: 1}, 1, params)
	if p.sets != 0 || len(p.power.steps) != 22 {
		t.Fatalf("validation: %d sets, %d steps; want 0, 22", p.sets, len(p.power.steps))
	}
	p = buildPlan(Options{Test: TestThroughput, Streams: 3, NoRefresh: true, Repeat: 1}, 1, params)
	if p.power != nil || p.refresh != nil || len(p.streams) != 3 || p.streams[0].Gate() != nil {
		t.Fatalf("throughput alone: %+v", p)
	}
}

// Bad options: one sentence each, naming the flag.
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		cmd  workload.Command
		args []string
		v    workload.Validation
		want string
	}{
		{workload.CmdLoad, []string{"--sf", "abc"}, workload.Validation{}, "--sf \"abc\" is not a scale factor"},
		{workload.CmdLoad, []string{"--sf", "0"}, workload.Validation{}, "is not a scale factor"},
		{workload.CmdLoad, []string{"--sf", "0.00001"}, workload.Validation{}, "more than four decimals"},
		{workload.CmdRun, []string{"--test", "speed"}, workload.Validation{}, "--test \"speed\""},
		{workload.CmdRun, []string{"--streams", "0"}, workload.Validation{}, "--streams 0"},
		{workload.CmdRun, []string{"--repeat", "0"}, workload.Validation{}, "--repeat 0"},
		{workload.CmdRun, []string{"--validate"}, workload.Validation{}, "give --test power with it"},
		{workload.CmdRun, nil, workload.Validation{Terminals: 4}, "leave out --terminals"},
		{workload.CmdRun, nil, workload.Validation{Endpoints: 2}, "give --db once"},
	} {
		w := New().(*TPCH)
		fs := newFlagSet()
		w.Flags(fs, c.cmd)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		c.v.Cmd = c.cmd
		p := w.Validate(c.v)
		if len(p) != 1 || !strings.Contains(p[0], c.want) {
			t.Errorf("%v: %q; want one problem with %q", c.args, p, c.want)
		}
	}
	w := New().(*TPCH)
	fs := newFlagSet()
	w.Flags(fs, workload.CmdLoad)
	if p := w.Validate(workload.Validation{Cmd: workload.CmdLoad}); len(p) != 0 || w.o.SF != 1 {
		t.Errorf("load defaults: %v, SF %v; want none, SF 1", p, w.o.SF)
	}
}

func newFlagSet() *pflag.FlagSet { return pflag.NewFlagSet("tpch", pflag.ContinueOnError) }

func TestIncompletePower(t *testing.T) {
	mk := func(complete ...bool) *Details {
		d := &Details{}
		for _, c := range complete {
			d.Power = append(d.Power, PowerTest{Complete: c})
		}
		return d
	}
	for _, c := range []struct {
		d    *Details
		want string
	}{
		{mk(true, true), ""},
		{mk(true, false), "power test 2"},
		{mk(true, false, false, false), "power tests 2 to 4"},
		{mk(false, true, false), "power tests 1, 3"},
	} {
		if got := incompletePower(c.d); got != c.want {
			t.Errorf("%+v: %q, want %q", c.d.Power, got, c.want)
		}
	}
}

// The refresh sets run out (dbgen has at most 999 per scale factor): a run needing more is refused,
// naming the fix, before anything runs.
func TestRefreshSetsRunOut(t *testing.T) {
	db := openURL(t, "sqlite:"+t.TempDir()+"/tpch.db")
	ctx := testCtx(t)
	if _, err := loadData(ctx, db, workload.LoadOptions{Loaders: 1, ToolVersion: "test"}, testSF); err != nil {
		t.Fatal(err)
	}
	if err := useRefreshSets(ctx, db, 0, 998); err != nil {
		t.Fatal(err)
	}
	w := New().(*TPCH)
	fs := newFlagSet()
	w.Flags(fs, workload.CmdRun)
	if err := fs.Parse([]string{"--test", "power", "--repeat", "2"}); err != nil {
		t.Fatal(err)
	}
	_, err := w.Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "refresh sets 999 to 1000") || !strings.Contains(err.Error(), "--no-refresh") {
		t.Fatalf("a run past the last set: %v; want a user error naming sets 999 to 1000 and the fix", err)
	}
	fs = newFlagSet()
	w = New().(*TPCH)
	w.Flags(fs, workload.CmdRun)
	if err := fs.Parse([]string{"--test", "power"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Seed: 1}); err != nil {
		t.Fatalf("the last set, 999: %v", err)
	}
}
