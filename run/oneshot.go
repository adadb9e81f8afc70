package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/report"
	htmlreport "github.com/candor-bench/candor/report/html"
	"github.com/candor-bench/candor/workload"
)

// LoadsPlan is the one-shot `candor WORKLOAD`: a short peak probe in throughput mode (a closed loop, so
// its latencies are those of a saturated system), then open-loop runs at fractions of that peak,
// reported side by side, so that how the tails grow with load shows at once.
type LoadsPlan struct {
	// Base holds what every run shares (database, seed, isolation, interval, grace, the results
	// directory, arrivals, backlog bound) and the probe's terminals and connections; its Duration
	// and Warmup are each open-loop run's.
	Base         RunPlan
	PeakDuration time.Duration
	PeakWarmup   time.Duration
	// Percents of the peak to run at, in order (50 and 80 by default).
	Percents []float64
}

// DefaultPercents are the one-shot's loads, in percent of the peak.
var DefaultPercents = []float64{50, 80}

// Validate checks the plan before anything connects.
func (lp *LoadsPlan) Validate() error {
	var p problems
	if lp.PeakDuration <= 0 {
		p.add("--peak-duration must be positive (got %s)", lp.PeakDuration)
	}
	if lp.PeakWarmup < 0 {
		p.add("--peak-warmup must not be negative (got %s)", lp.PeakWarmup)
	}
	if len(lp.Percents) == 0 {
		p.add("--loads needs at least one percentage of the peak, for example --loads 50,80")
	}
	for _, v := range lp.Percents {
		if !(v > 0 && v <= 1000) {
			p.add("--loads %g is not a percentage of the peak between 0 and 1000", v)
		}
	}
	b := lp.Base
	b.Mode = workload.ModeThroughput
	if err := b.Validate(); err != nil {
		p.add("%s", err.Error())
	}
	return p.err()
}

// ParsePercents reads --loads: percentages of the peak separated by commas ("50,80").
func ParsePercents(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(f), "%"), 64)
		if err != nil {
			return nil, fmt.Errorf("--loads %q is not a list of percentages of the peak: write for example --loads 50,80", s)
		}
		out = append(out, v)
	}
	return out, nil
}

// Loads runs the peak probe and the open-loop runs, each saved in its own directory under
// Base.Out (peak, rate-50, rate-80), and prints them side by side, as Base.Out/index.html does too. Progress lines go to Stderr as
// each run goes; the runs' own summaries are not printed (candor report DIR prints one).
func Loads(ctx context.Context, lp LoadsPlan, out Out) ([]report.LoadRun, error) {
	if err := lp.Validate(); err != nil {
		return nil, err
	}
	if err := checkOut(lp.Base.Out, lp.Base.Replace, true); err != nil { // outdir.go
		return nil, err
	}
	quiet := Out{Stdout: io.Discard, Stderr: out.Stderr, Terminal: out.Terminal, Hurry: out.Hurry}
	n := 1 + len(lp.Percents)
	var runs []report.LoadRun
	finish := func(err error) ([]report.LoadRun, error) {
		if len(runs) > 0 {
			report.PrintLoads(out.Stdout, runs)
			for _, r := range runs { // what failed, and why, whatever the verdict (failures.go)
				if r.R != nil && r.R.FailureVerdict != nil && !r.R.FailureVerdict.Pass {
					fmt.Fprintf(out.Stdout, "\n%s:", r.Label)
					report.PrintFailures(out.Stdout, r.R)
				}
			}
			var dirs []string
			if sw := runs[0].Sweep; sw != nil {
				for _, st := range sw.Steps {
					dirs = append(dirs, st.Dir)
				}
			}
			for _, r := range runs {
				dirs = append(dirs, filepath.Base(r.Dir))
			}
			// One page for the whole comparison, linking each run's report.html.
			page := filepath.Join(lp.Base.Out, htmlreport.LoadsFile)
			if werr := htmlreport.WriteLoads(lp.Base.Out, runs); werr != nil {
				fmt.Fprintf(out.Stderr, "could not write %s (each run's results are saved): %v\n", page, werr)
			}
			fmt.Fprintf(out.Stderr, "results saved in %s/{%s}, side by side in %s; candor report DIR prints one run's whole summary\n", lp.Base.Out, strings.Join(dirs, ","), page)
		}
		return runs, err
	}

	peak := lp.Base
	peak.Mode, peak.Rate = workload.ModeThroughput, ""
	peak.Duration, peak.Warmup = lp.PeakDuration, lp.PeakWarmup
	peak.Out = filepath.Join(lp.Base.Out, report.PeakDir)
	peak.Check = false
	var sw *report.Sweep
	if peak.TerminalsGiven {
		sw = &report.Sweep{Terminals: peak.Terminals, Given: true}
	} else {
		var err error
		if sw, err = lp.sweep(ctx, peak, quiet, out); err != nil {
			return finish(err)
		}
		peak.Terminals, peak.TerminalsGiven = sw.Terminals, true
	}
	fmt.Fprintf(out.Stderr, "\n== 1/%d: the peak, in throughput mode at %d terminal%s (a closed loop: each terminal submits as soon as its previous operation returns)\n",
		n, peak.Terminals, map[bool]string{true: "", false: "s"}[peak.Terminals == 1])
	pr, err := Run(ctx, peak, quiet)
	if pr != nil {
		runs = append(runs, report.LoadRun{Label: report.PeakLabel, Dir: peak.Out, R: pr, Sweep: sw})
	}
	if pr != nil { // beside the runs, once the results directory exists
		if werr := report.WriteSweep(lp.Base.Out, sw); werr != nil {
			fmt.Fprintf(out.Stderr, "could not write %s: %v\n", filepath.Join(lp.Base.Out, report.SweepFile), werr)
		}
	}
	// A run above --max-failures goes on to the next (its verdict is in its summary); the one-shot
	// then ends with exit status 1 (failures.go).
	var failures error
	if errors.Is(err, ErrFailures) && pr != nil {
		failures, err = err, nil
	}
	if err != nil {
		return finish(err)
	}
	peakRate := report.AllTypesRate(pr)
	if !(peakRate > 0) {
		return finish(fmt.Errorf("the peak probe completed no transaction in %.0f s: see its warnings in %s", pr.MeasureSeconds, peak.Out))
	}
	unit := lp.Base.info().Unit
	if unit == "" {
		unit = "operations"
	}
	fmt.Fprintf(out.Stderr, "peak: %.1f %s/s (all types together) at %d terminal%s\n", peakRate, unit, pr.Terminals, map[bool]string{true: "", false: "s"}[pr.Terminals == 1])

	for i, pct := range lp.Percents {
		rp := lp.Base
		rp.Mode = workload.ModeRate
		rp.Rate = strconv.FormatFloat(math.Max(0.1, math.Round(peakRate*pct/10)/10), 'f', -1, 64)
		rp.Step, rp.StepEvery = 0, 0
		rp.Terminals, rp.TerminalsGiven = 0, false // the workload's pool of terminal states for arrivals
		rp.Connections = pr.Connections            // the probe's pool, so the loads compare
		rp.Out = filepath.Join(lp.Base.Out, report.RateDirPrefix+strconv.FormatFloat(pct, 'f', -1, 64))
		last := i == len(lp.Percents)-1
		rp.Check, rp.CheckFull = lp.Base.Check && last, lp.Base.CheckFull && last
		fmt.Fprintf(out.Stderr, "\n== %d/%d: open loop at %g%% of the peak: %s arrivals of %s/s, whatever the database does\n", i+2, n, pct, rp.Arrivals, rp.Rate)
		r, err := Run(ctx, rp, quiet)
		if r != nil {
			runs = append(runs, report.LoadRun{Label: report.RateLabel(pct), Dir: rp.Out, R: r})
		}
		if errors.Is(err, ErrFailures) && r != nil {
			failures, err = err, nil
		}
		if err != nil { // interrupted, or the consistency check failed: shown with the comparison
			return finish(err)
		}
	}
	return finish(failures)
}
