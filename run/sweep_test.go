package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/report"
)

// fakeProbe answers a sweep's steps from a throughput curve of the terminals (default: the
// terminals a step at 0 runs), recording the terminals asked for.
func fakeProbe(def int, curve func(terminals int) float64, asked *[]int) sweepProbe {
	return func(terminals int) (report.SweepStep, error) {
		*asked = append(*asked, terminals)
		if terminals == 0 {
			terminals = def
		}
		return report.SweepStep{Terminals: terminals, Rate: curve(terminals)}, nil
	}
}

// TestSweepSteps: the sweep doubles the terminals while the throughput rises by more than
// SweepGainPct, and the peak is the last step that rose; a database that serves a few at a time
// stops it there, one writer at its first doubling, a step the workload refuses where it is, and
// the budget after its steps.
func TestSweepSteps(t *testing.T) {
	for _, c := range []struct {
		name      string
		def       int
		curve     func(int) float64
		maxSteps  int
		wantAsked []int
		wantPeak  int
		wantWhy   string
	}{
		{"three servers", 1, func(n int) float64 { return 100 * float64(min(n, 3)) }, 8, []int{0, 2, 4, 8}, 4, "8 terminals gained +0.0%"},
		{"one writer", 1, func(n int) float64 { return 500 + float64(n) }, 8, []int{0, 2}, 1, "2 terminals gained +0.2%"},
		{"a rise within the noise", 4, func(n int) float64 { return map[int]float64{4: 1000, 8: 1040}[n] }, 8, []int{0, 8}, 4, "8 terminals gained +4.0%"},
		{"linear, the budget", 4, func(n int) float64 { return 10 * float64(n) }, 3, []int{0, 8, 16}, 16, "the time budget of 3 steps ran out"},
		{"past the most", MaxSweepTerminals / 2, func(n int) float64 { return float64(n) }, 8, []int{0, MaxSweepTerminals}, MaxSweepTerminals, "4096 terminals is the sweep's most"},
	} {
		var asked []int
		steps, best, why, err := sweepSteps(c.maxSteps, fakeProbe(c.def, c.curve, &asked))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := steps[best].Terminals; got != c.wantPeak || why != c.wantWhy || !equalInts(asked, c.wantAsked) {
			t.Errorf("%s: asked %v, peak at %d, stopped %q; want %v, %d, %q", c.name, asked, got, why, c.wantAsked, c.wantPeak, c.wantWhy)
		}
	}

	// A step the workload refuses ends the sweep at the steps so far; any other error is the one-shot's.
	var asked []int
	refuse := func(n int) (report.SweepStep, error) {
		asked = append(asked, n)
		if n > 0 {
			return report.SweepStep{}, &errSweepEnd{"8 terminals: --clients 4 fixes them"}
		}
		return report.SweepStep{Terminals: 4, Rate: 10}, nil
	}
	if steps, best, why, err := sweepSteps(8, refuse); err != nil || len(steps) != 1 || best != 0 || !strings.Contains(why, "--clients 4") {
		t.Errorf("refused: %v %d %q %v", steps, best, why, err)
	}
	boom := errors.New("interrupted")
	fail := func(n int) (report.SweepStep, error) {
		if n > 0 {
			return report.SweepStep{}, boom
		}
		return report.SweepStep{Terminals: 1, Rate: 10}, nil
	}
	if _, _, _, err := sweepSteps(8, fail); !errors.Is(err, boom) {
		t.Errorf("a failing step: %v, want its error", err)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSweepNull: on the null engine, where every connection serves on its own (a fixed service
// time, 100 ms: a few hundred transactions a second, so that a busy host's share of CPU for the
// driver does not cap them), the one-shot's sweep doubles TPC-C's default 4 terminals until its time budget ends, runs
// the peak at the last, stores the steps in sweep.json and each step's run in sweep-N; with
// --terminals there is no sweep.
func TestSweepNull(t *testing.T) {
	dir := t.TempDir()
	base := RunPlan{Workload: tpccW(1, false), DB: "null:?service=fixed:100ms", Mode: "throughput", Duration: time.Second,
		Grace: 5 * time.Second, Interval: time.Second, Seed: 3, Arrivals: "constant", MaxBacklog: 1000, Out: filepath.Join(dir, "one")}
	lp := LoadsPlan{Base: base, PeakDuration: 4 * time.Second, PeakWarmup: time.Second, Percents: []float64{50}}
	_, _, maxSteps := lp.sweepBudget()
	var stderr strings.Builder
	runs, err := Loads(context.Background(), lp, Out{Stdout: io.Discard, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	sw, err := report.ReadSweep(base.Out)
	if err != nil || sw == nil {
		t.Fatalf("sweep.json: %v %v", sw, err)
	}
	if len(sw.Steps) != maxSteps || sw.Steps[0].Terminals != 4 || sw.Terminals != 4<<(maxSteps-1) {
		t.Errorf("sweep %+v: want %d steps from 4 terminals doubling, the peak at the last", sw, maxSteps)
	}
	for i, st := range sw.Steps {
		if i > 0 && st.Rate < 1.5*sw.Steps[i-1].Rate {
			t.Errorf("step %d: %.1f/s after %.1f/s: twice the connections of a fixed service time should nearly double it", i+1, st.Rate, sw.Steps[i-1].Rate)
		}
		if _, err := os.Stat(filepath.Join(base.Out, st.Dir, report.ResultFile)); err != nil {
			t.Errorf("step %d's run: %v", i+1, err)
		}
	}
	if runs[0].R.Terminals != sw.Terminals || runs[0].Sweep == nil || runs[0].Sweep.Terminals != sw.Terminals {
		t.Errorf("the peak ran %d terminals, the sweep found %d", runs[0].R.Terminals, sw.Terminals)
	}
	if !strings.Contains(stderr.String(), fmt.Sprintf("the peak's concurrency: %d terminals", sw.Terminals)) {
		t.Errorf("the one-shot does not say the peak's concurrency:\n%s", stderr.String())
	}
	back, ok, err := report.ReadLoads(base.Out)
	if !ok || err != nil || back[0].Sweep == nil || back[0].Sweep.Terminals != sw.Terminals {
		t.Errorf("ReadLoads: %v %v, sweep %+v", ok, err, back[0].Sweep)
	}

	// --terminals: the peak at the user's terminals, no sweep.
	lp.Base.Out, lp.Base.Terminals, lp.Base.TerminalsGiven = filepath.Join(dir, "given"), 6, true
	lp.PeakDuration = time.Second
	runs, err = Loads(context.Background(), lp, Out{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	sw, err = report.ReadSweep(lp.Base.Out)
	if err != nil || sw == nil || !sw.Given || sw.Terminals != 6 || len(sw.Steps) != 0 || runs[0].R.Terminals != 6 {
		t.Errorf("--terminals 6: sweep %+v (%v), peak at %d terminals", sw, err, runs[0].R.Terminals)
	}
	if m, _ := filepath.Glob(filepath.Join(lp.Base.Out, report.SweepDirPrefix+"*")); len(m) != 0 {
		t.Errorf("--terminals 6 swept: %v", m)
	}
}
