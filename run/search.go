package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/search"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/version"
	"github.com/candor-bench/candor/workload"
)

// SearchPlan is `candor WORKLOAD search`: the highest open-loop rate whose steady-state tails meet every
// budget. Each probe is an open-loop run of Base at one rate (Base.Warmup of warm-up, Base.Duration
// measured), recorded like any run in its own directory under Out.
type SearchPlan struct {
	Base      RunPlan
	SLOs      []string
	StartRate float64
	Precision float64
	MaxProbes int
	// Confirm is how many longer probes (ConfirmProbe measured each) must pass at the search's
	// answer before it is given; a failure steps the rate down by twice Precision (at least 5%)
	// and confirms again, at most ConfirmRounds rates. 0 gives the search's answer unconfirmed.
	Confirm       int
	ConfirmProbe  time.Duration
	ConfirmRounds int
	Out           string
}

// ErrNoRate is returned when no rate tried met every budget (exit status 1).
var ErrNoRate = errors.New("no rate tried met every budget")

// Validate checks the search plan before anything connects.
func (sp *SearchPlan) Validate() ([]search.SLO, error) {
	var p problems
	var types []string
	if sp.Base.Workload != nil {
		types = sp.Base.Workload.Ops()
	}
	slos, err := search.ParseSLOs(sp.SLOs, types)
	if err != nil {
		p.add("%s", err.Error())
	}
	if !(sp.StartRate > 0) {
		p.add("--start-rate must be above zero (got %g)", sp.StartRate)
	}
	if !(sp.Precision > 0 && sp.Precision < 1) {
		p.add("--precision must be between 0 and 1 (got %g): 0.05 narrows the answer to within 5%%", sp.Precision)
	}
	if sp.MaxProbes < 2 {
		p.add("--max-probes must be at least 2 (got %d)", sp.MaxProbes)
	}
	if sp.Confirm < 0 {
		p.add("--confirm must be 0 (no confirmation) or more (got %d): 2 re-runs the answer twice in longer probes", sp.Confirm)
	}
	if sp.Confirm > 0 && sp.ConfirmProbe < time.Second {
		p.add("--confirm-probe must be at least 1s (got %s): the confirming probes should be longer than the search's", sp.ConfirmProbe)
	}
	if sp.Confirm > 0 && sp.ConfirmRounds < 1 {
		p.add("--confirm-rounds must be at least 1 (got %d)", sp.ConfirmRounds)
	}
	b := sp.Base
	b.Mode, b.Rate = workload.ModeRate, "1" // the probes' rates come from the search
	if err := b.Validate(); err != nil {
		p.add("%s", err.Error())
	}
	return slos, p.err()
}

// Search runs the probes, then (unless Base.Check is off) the consistency check, writes search.json
// into Out and prints the table, the answer and the check. It returns ErrCheckFailed when a
// condition is violated, ErrNoRate when no rate met the budgets, ErrPartial when interrupted (what
// was probed is saved). With Base.MetricsAddr, one listener serves the whole search.
func Search(ctx context.Context, sp SearchPlan, out Out) (*report.SearchResult, error) {
	slos, err := sp.Validate()
	if err != nil {
		return nil, err
	}
	if err := checkOut(sp.Out, sp.Base.Replace, true); err != nil { // outdir.go
		return nil, err
	}
	mx, err := startSearchMetrics(&sp, out) // metrics.go: fed by each probe in turn
	if err != nil {
		return nil, err
	}
	defer mx.stop()
	res := &report.SearchResult{
		Tool:       report.Tool{Name: "candor", Version: version.String()},
		Workload:   sp.Base.info().Name,
		Disclaimer: sp.Base.info().Disclaimer,
		KeyOp:      sp.Base.info().KeyOp,
		SLO:        sp.SLOs, Precision: sp.Precision,
		ProbeSeconds: sp.Base.Duration.Seconds(), WarmupSeconds: sp.Base.Warmup.Seconds(),
		StartedAt: time.Now().UTC(), Probes: []report.SearchProbe{},
	}
	fmt.Fprintf(out.Stderr, "searching the highest rate meeting %v: probes of %s after %s of warm-up, stepping up from %g/s, results in %s\n",
		sp.SLOs, sp.Base.Duration, sp.Base.Warmup, sp.StartRate, sp.Out)
	// probe runs one open-loop probe at rate for measure; a confirming probe (repeat from 1) draws
	// its inputs from a seed of its own, so the repeats differ as runs on other days would.
	probe := func(rate float64, measure time.Duration, repeat int) (bool, error) {
		n := len(res.Probes) + 1
		pp := sp.Base
		pp.Mode = workload.ModeRate
		pp.Rate = strconv.FormatFloat(rate, 'f', -1, 64)
		pp.Duration = measure
		dir := fmt.Sprintf("probe-%02d-%s", n, pp.Rate)
		if repeat > 0 {
			pp.Seed = gen.Derive(sp.Base.Seed, "confirm", n)
			dir = fmt.Sprintf("probe-%02d-%s-confirm", n, pp.Rate)
		}
		pp.Out = filepath.Join(sp.Out, dir)
		pp.Check, pp.Quiet = false, true // the search checks once, after the last probe
		if out.Terminal {
			fmt.Fprintf(out.Stderr, "probe %d at %s/s: running for %s...", n, pp.Rate, pp.Warmup+pp.Duration)
		}
		mx.probe(n, rate)
		r, err := runWith(ctx, pp, Out{Stdout: io.Discard, Stderr: io.Discard, Hurry: out.Hurry}, mx)
		if out.Terminal {
			fmt.Fprint(out.Stderr, "\r\033[K")
		}
		if err != nil && !(errors.Is(err, ErrFailures) && r != nil) { // a probe above --max-failures fails (judgeProbe)
			return false, err
		}
		pr := judgeProbe(n, rate, dir, r, slos)
		if repeat > 0 {
			pr.Confirm, pr.Seconds = true, measure.Seconds()
		}
		res.Probes = append(res.Probes, pr)
		if n == 1 {
			res.Database, res.Connections, res.Arrivals, res.KeyOp = r.Database, r.Connections, r.Rate.Arrivals, r.KeyOp
		}
		fmt.Fprintf(out.Stderr, "%s\n", report.ProbeBrief(&pr))
		return pr.Pass, nil
	}
	cfg := search.Defaults
	cfg.Start, cfg.Precision, cfg.MaxProbes = sp.StartRate, sp.Precision, sp.MaxProbes
	found, ferr := search.Find(cfg, func(rate float64) (bool, error) { return probe(rate, sp.Base.Duration, 0) })
	res.SearchRate, res.MaxRate, res.FailRate, res.Converged = found.MaxRate, found.MaxRate, found.FailRate, found.Converged
	switch {
	case ferr != nil || found.MaxRate == 0 || ctx.Err() != nil:
	case sp.Confirm == 0:
		res.Warnings = append(res.Warnings, report.Warning{Code: "SEARCH_UNCONFIRMED", Message: fmt.Sprintf(
			"the answer rests on one %s probe at %g/s, not confirmed by longer ones (--confirm 0): a short probe can pass at a rate the database does not hold", sp.Base.Duration, found.MaxRate)})
	default:
		ferr = confirmAnswer(&sp, res, cfg.Precision, found, probe, out)
	}
	if err := report.WriteSearch(sp.Out, res); err != nil {
		return res, userr.Errorf("cannot write %s into %s: %v: choose another --out", report.SearchFile, sp.Out, err)
	}
	if sp.Base.Replace {
		// This search's search.json is saved: an earlier search's probes it replaced go now (outdir.go).
		removeStaleProbes(sp.Out, res, out.Stderr)
	}
	if sp.Base.Check && ferr == nil && len(res.Probes) > 0 && ctx.Err() == nil {
		// search.json is already saved with the probes: a check interrupted for good keeps them.
		checkSearch(ctx, &sp, res, out)
		if err := report.WriteSearch(sp.Out, res); err != nil {
			return res, userr.Errorf("cannot write %s into %s: %v: choose another --out", report.SearchFile, sp.Out, err)
		}
	}
	report.PrintSearch(out.Stdout, res)
	fmt.Fprintf(out.Stderr, "search saved in %s (%s, one directory per probe)\n", sp.Out, report.SearchFile)
	switch {
	case ferr != nil:
		return res, ferr
	case failed(res.Checks):
		return res, ErrCheckFailed
	case res.MaxRate == 0 && res.Confirmation != nil:
		return res, fmt.Errorf("%w: the search's answer, %g/s, was not confirmed by longer probes, nor any rate below it tried", ErrNoRate, res.SearchRate)
	case res.MaxRate == 0:
		return res, ErrNoRate
	}
	return res, nil
}

// confirmAnswer re-runs the search's answer in sp.Confirm probes of sp.ConfirmProbe each, stepping
// down while one fails, and sets the answer to the rate they confirm (0: none), with how many passing
// probes it rests on and each budget's spread over them.
func confirmAnswer(sp *SearchPlan, res *report.SearchResult, precision float64, found search.Result,
	probe func(float64, time.Duration, int) (bool, error), out Out) error {
	fmt.Fprintf(out.Stderr, "confirming %g/s: %d probe(s) of %s each must pass (--confirm, --confirm-probe)\n", found.MaxRate, sp.Confirm, sp.ConfirmProbe)
	ccfg := search.ConfirmConfig{Repeats: sp.Confirm, StepDown: max(2*precision, 0.05), MaxRounds: sp.ConfirmRounds, MinRate: search.Defaults.MinRate}
	c, err := search.Confirm(ccfg, found.MaxRate, func(rate float64, repeat int) (bool, error) {
		return probe(rate, sp.ConfirmProbe, repeat)
	})
	conf := &report.SearchConfirmation{Repeats: sp.Confirm, ProbeSeconds: sp.ConfirmProbe.Seconds(), StepDown: ccfg.StepDown,
		Confirmed: c.Confirmed(), Rounds: len(c.Rounds), Spread: []report.BudgetSpread{}}
	res.Confirmation = conf
	res.MaxRate = c.Rate
	if f := c.FailRate(); f > 0 && (res.FailRate == 0 || f < res.FailRate) {
		res.FailRate = f
	}
	res.Converged = res.MaxRate > 0 && res.FailRate > 0 && (res.FailRate-res.MaxRate)/res.MaxRate <= precision
	if !c.Confirmed() {
		return err
	}
	// What the answer rests on: every passing probe at the confirmed rate, the search's included.
	spreads := make([]search.Spread, len(sp.SLOs))
	var achieved search.Spread
	for _, pr := range res.Probes {
		if pr.Rate != c.Rate || !pr.Pass {
			continue
		}
		conf.RestsOn++
		achieved.Add(pr.AchievedRate)
		for i, b := range pr.Budgets {
			if i < len(spreads) {
				spreads[i].Add(b.ValueMs)
			}
		}
	}
	conf.AchievedMin, conf.AchievedMax = achieved.Min, achieved.Max
	for i, s := range spreads {
		conf.Spread = append(conf.Spread, report.BudgetSpread{SLO: sp.SLOs[i], MinMs: s.Min, MaxMs: s.Max})
	}
	return err
}

// checkSearch runs the consistency check once the last probe has ended, as a run does after its
// measurement (checkAfterWork): every probe changed the same data, and a rate found on a database
// the workload corrupted is no answer. It is not run after an interrupted or failed search.
func checkSearch(ctx context.Context, sp *SearchPlan, res *report.SearchResult, out Out) {
	kind := "quick conditions; --check-full checks them all"
	if sp.Base.CheckFull {
		kind = "every condition"
	}
	fmt.Fprintf(out.Stderr, "checking consistency after the last probe (%s, --no-check skips it)\n", kind)
	res.CheckFull = sp.Base.CheckFull
	db, err := driver.Open(context.WithoutCancel(ctx), sp.Base.DB)
	if err != nil {
		res.Warnings = append(res.Warnings, report.Warning{Code: "CHECK_FAILED_TO_RUN", Message: "the consistency check could not run: " + err.Error()})
		return
	}
	defer db.Close()
	var ws []report.Warning
	res.Checks, ws = checkAfterWork(ctx, sp.Base.Workload, db, sp.Base.CheckFull)
	res.Warnings = append(res.Warnings, ws...)
}

// judgeProbe turns a probe's result into its line of search.json: a probe passes when its rate was
// sustained and every budget is met by the measured (steady-state, after warm-up) tails.
func judgeProbe(n int, rate float64, dir string, r *report.Result, slos []search.SLO) report.SearchProbe {
	pr := report.SearchProbe{Probe: n, Rate: rate, Dir: dir, Tails: map[string]report.ProbeTails{}, Budgets: []report.BudgetResult{}, Warnings: []string{}}
	if rr := r.Rate; rr != nil {
		pr.OfferedRate, pr.AchievedRate, pr.Dropped, pr.Incomplete, pr.Sustained = rr.OfferedRate, rr.AchievedRate, rr.Dropped, rr.Incomplete, rr.Sustained
	}
	for name, t := range r.Operations {
		pr.Tails[name] = report.ProbeTails{Count: t.Count, ResponseMs: t.ResponseMs, ServiceMs: t.ServiceMs}
	}
	pr.Pass = pr.Sustained && !r.Partial && (r.FailureVerdict == nil || r.FailureVerdict.Pass)
	for _, s := range slos {
		b := report.BudgetResult{SLO: s.Text}
		t := r.Operations[s.Type]
		switch {
		case t == nil || t.Count == 0:
			b.NoData = true
		case s.Kind == "service":
			b.ValueMs = s.ValueMs(t.ServiceMs)
			b.Met = s.Met(b.ValueMs)
		default:
			b.ValueMs = s.ValueMs(t.ResponseMs)
			b.Met = s.Met(b.ValueMs)
		}
		pr.Pass = pr.Pass && b.Met
		pr.Budgets = append(pr.Budgets, b)
	}
	for _, w := range r.Warnings {
		pr.Warnings = append(pr.Warnings, w.Code)
	}
	return pr
}
