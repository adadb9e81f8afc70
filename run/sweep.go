package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
)

// The one-shot's concurrency sweep: the peak is a peak only at a concurrency the database can use.
// Short throughput-mode runs start at the workload's default terminals and double them while the
// throughput still rises by more than SweepGainPct, within the peak probe's own time budget
// (--peak-warmup + --peak-duration, in steps of a fifth of the warm-up and a quarter of the
// measurement); the peak probe then runs at the last concurrency that gained. --terminals fixes the
// concurrency instead.

// SweepGainPct is the least rise of the throughput, in percent, for which the sweep doubles the
// terminals again: less is noise or the database's own limit (SQLite's single writer).
const SweepGainPct = 5

// MaxSweepTerminals bounds the sweep's terminals.
const MaxSweepTerminals = 4096

// sweepProbe runs one step of the sweep at terminals (0: the workload's default) and says what it
// ran and achieved. An error of errSweepEnd ends the sweep at the steps so far, with its reason.
type sweepProbe func(terminals int) (report.SweepStep, error)

// errSweepEnd ends a sweep without failing the one-shot: a step the workload refuses (its own options
// fix the terminals) or that completed nothing.
type errSweepEnd struct{ why string }

func (e *errSweepEnd) Error() string { return e.why }

// sweepSteps runs probe at the default terminals, then doubles them while the throughput rises by
// more than SweepGainPct and fewer than maxSteps steps have run. It returns the steps, the index of
// the peak's (the last that gained) and why the sweep stopped.
func sweepSteps(maxSteps int, probe sweepProbe) (steps []report.SweepStep, best int, stopped string, err error) {
	first, err := probe(0)
	if err != nil {
		return nil, 0, "", err
	}
	steps = append(steps, first)
	for {
		cur := steps[best]
		next := 2 * cur.Terminals
		switch {
		case len(steps) >= maxSteps:
			return steps, best, fmt.Sprintf("the time budget of %d steps ran out", maxSteps), nil
		case next > MaxSweepTerminals:
			return steps, best, fmt.Sprintf("%d terminals is the sweep's most", cur.Terminals), nil
		}
		s, err := probe(next)
		var end *errSweepEnd
		if errors.As(err, &end) {
			return steps, best, end.why, nil
		}
		if err != nil {
			return steps, best, "", err
		}
		steps = append(steps, s)
		gain := 100 * (s.Rate/cur.Rate - 1)
		if !(gain > SweepGainPct) {
			return steps, best, fmt.Sprintf("%d terminals gained %+.1f%%", s.Terminals, gain), nil
		}
		best = len(steps) - 1
	}
}

// sweepBudget is the sweep's steps (each a fifth of the probe's warm-up and a quarter of its
// measurement) and how many fit in the probe's own time.
func (lp *LoadsPlan) sweepBudget() (warmup, measure time.Duration, steps int) {
	warmup, measure = lp.PeakWarmup/5, max(lp.PeakDuration/4, time.Second)
	steps = max(2, int((lp.PeakWarmup+lp.PeakDuration)/(warmup+measure)))
	return warmup, measure, steps
}

// sweep finds the peak's concurrency (see SweepGainPct): each step a short run of peak (its plan
// with the terminals the step asks for) saved in DIR/sweep-N, N its step.
func (lp *LoadsPlan) sweep(ctx context.Context, peak RunPlan, quiet, out Out) (*report.Sweep, error) {
	warmup, measure, maxSteps := lp.sweepBudget()
	fmt.Fprintf(out.Stderr, "\n== the peak's concurrency: throughput-mode runs of %s after %s of warm-up, doubling the terminals while the throughput rises by more than %d%% (at most %d runs)\n",
		measure, warmup, SweepGainPct, maxSteps)
	step := 0
	probe := func(terminals int) (report.SweepStep, error) {
		sp := peak
		sp.Duration, sp.Warmup = measure, warmup
		sp.Terminals, sp.TerminalsGiven = terminals, terminals > 0
		if !sp.ConnectionsGiven {
			sp.Connections = 0 // the workload's pool for these terminals
		}
		step++
		sp.Out = filepath.Join(lp.Base.Out, report.SweepDirPrefix+strconv.Itoa(step))
		if terminals > 0 {
			if err := sp.Validate(); err != nil { // the workload's options fix the terminals
				return report.SweepStep{}, &errSweepEnd{fmt.Sprintf("%d terminals: %v", terminals, err)}
			}
		}
		// A step prints only its line below: its header, progress and notes are in its directory.
		r, err := Run(ctx, sp, Out{Stdout: io.Discard, Stderr: io.Discard, Hurry: quiet.Hurry})
		if errors.Is(err, ErrFailures) && r != nil {
			err = nil // its failures are in its summary; the peak probe reports its own
		}
		if err != nil {
			if terminals > 0 && userr.Is(err) && ctx.Err() == nil {
				return report.SweepStep{}, &errSweepEnd{fmt.Sprintf("%d terminals: %v", terminals, err)}
			}
			return report.SweepStep{}, err
		}
		if r.Partial {
			return report.SweepStep{}, fmt.Errorf("the sweep's run at %d terminals was interrupted: see %s", r.Terminals, sp.Out)
		}
		st := report.SweepStep{Terminals: r.Terminals, Connections: r.Connections, Rate: report.AllTypesRate(r),
			Seconds: r.MeasureSeconds, Dir: filepath.Base(sp.Out)}
		fmt.Fprintf(out.Stderr, "sweep: %d terminal%s → %.1f/s (%s)\n", st.Terminals, map[bool]string{true: "", false: "s"}[st.Terminals == 1], st.Rate, sp.Out)
		if terminals > 0 && !(st.Rate > 0) {
			return st, &errSweepEnd{fmt.Sprintf("%d terminals completed nothing", st.Terminals)}
		}
		return st, nil
	}
	steps, best, stopped, err := sweepSteps(maxSteps, probe)
	if err != nil {
		return nil, err
	}
	if !(steps[0].Rate > 0) {
		return nil, fmt.Errorf("the peak's sweep completed no operation at %d terminal%s in %.0f s: see its warnings in %s",
			steps[0].Terminals, map[bool]string{true: "", false: "s"}[steps[0].Terminals == 1], steps[0].Seconds, filepath.Join(lp.Base.Out, steps[0].Dir))
	}
	sw := &report.Sweep{Terminals: steps[best].Terminals, Steps: steps, Stopped: stopped, GainPct: SweepGainPct}
	fmt.Fprintf(out.Stderr, "the peak's concurrency: %s\n", sw.Line())
	return sw, nil
}
