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
	Out       string
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
	probe := func(rate float64) (bool, error) {
		n := len(res.Probes) + 1
		pp := sp.Base
		pp.Mode = workload.ModeRate
		pp.Rate = strconv.FormatFloat(rate, 'f', -1, 64)
		dir := fmt.Sprintf("probe-%02d-%s", n, pp.Rate)
		pp.Out = filepath.Join(sp.Out, dir)
		pp.Check, pp.Quiet = false, true // the search checks once, after the last probe
		if out.Terminal {
			fmt.Fprintf(out.Stderr, "probe %d at %s/s: running for %s...", n, pp.Rate, pp.Warmup+pp.Duration)
		}
		mx.probe(n, rate)
		r, err := runWith(ctx, pp, Out{Stdout: io.Discard, Stderr: io.Discard}, mx)
		if out.Terminal {
			fmt.Fprint(out.Stderr, "\r\033[K")
		}
		if err != nil && !(errors.Is(err, ErrFailures) && r != nil) { // a probe above --max-failures fails (judgeProbe)
			return false, err
		}
		pr := judgeProbe(n, rate, dir, r, slos)
		res.Probes = append(res.Probes, pr)
		if n == 1 {
			res.Database, res.Connections, res.Arrivals, res.KeyOp = r.Database, r.Connections, r.Rate.Arrivals, r.KeyOp
		}
		fmt.Fprintf(out.Stderr, "%s\n", report.ProbeBrief(&pr))
		return pr.Pass, nil
	}
	cfg := search.Defaults
	cfg.Start, cfg.Precision, cfg.MaxProbes = sp.StartRate, sp.Precision, sp.MaxProbes
	found, ferr := search.Find(cfg, probe)
	res.MaxRate, res.FailRate, res.Converged = found.MaxRate, found.FailRate, found.Converged
	if err := report.WriteSearch(sp.Out, res); err != nil {
		return res, userr.Errorf("cannot write %s into %s: %v: choose another --out", report.SearchFile, sp.Out, err)
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
	case res.MaxRate == 0:
		return res, ErrNoRate
	}
	return res, nil
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
