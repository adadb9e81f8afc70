package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver/null"
	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/search"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/version"
	"github.com/candor-bench/candor/workload"
)

// `candor selftest`: how much load this driver process generates before it, not the database, is
// the bottleneck. Every probe is an ordinary run (runWith) against the null engine (driver/null),
// which completes each operation after a stated service time without a database, so all that is
// measured is the driver: its terminals drawing their inputs, its schedulers, its recording. Two
// answers, each found by search.Find (step up, then bisect):
//
//   - the highest open-loop arrival rate the process sustains (every arrival dispatched, none
//     dropped, the schedule kept) with the open loop's timer lateness p99 within MaxLag: the
//     driver's own lateness, a connection being free (schedule/open.go);
//   - the most spec-mode TPC-C terminals (10 per warehouse, with keying and think times) it runs
//     with the closed loop's lag p99 within MaxLag: dispatch minus the terminal's due time
//     (schedule/core.go). The null engine answers at once, so a connection is nearly always free
//     and that lag is the driver's; the largest p99 of any operation is taken, which bounds the
//     p99 of all of them together from above.

// SelftestPlan is one selftest.
type SelftestPlan struct {
	// NewWorkload makes a fresh workload of the name with its flags at their defaults except the
	// ones set (flag name -> value), as the command line would.
	NewWorkload func(name string, set map[string]string) (workload.Workload, error)
	// Workload is the open-loop probes' workload; Spec says whether to find the spec-mode terminals
	// (TPC-C) and Rate the open-loop rate.
	Workload   string
	Rate, Spec bool
	// Service is the null engine's service time ("none", "fixed:1ms", "exp:2ms", ...).
	Service string
	Seed    uint64
	// MaxLag is the budget of the timer lag's p99.
	MaxLag time.Duration
	// The open loop's probes: warm-up and measurement of each, the first rate, the most probes.
	Warmup, Probe time.Duration
	StartRate     float64
	RateProbes    int
	// The spec-mode probes: warm-up (the terminals start in steady state, workload/tpcc/steady.go,
	// so it covers only the process's own start) and measurement, the first warehouse count, the
	// most warehouses (memory: about 110 bytes per terminal), the most probes.
	SpecWarmup, SpecProbe time.Duration
	StartWarehouses       int
	MaxWarehouses         int
	SpecProbes            int
	// Confirm is how many repeats (each with inputs and service times from a seed of its own) must
	// pass at a search's answer before it is given; a failure steps down by a quarter and confirms
	// again, at most confirmRounds values. 0 gives the searches' answers unconfirmed.
	Confirm int
	// Out, when set, receives the result as JSON.
	Out string
}

// SelftestProbe is one probe.
type SelftestProbe struct {
	// Value is the rate (per second) or the terminals probed; Warehouses for spec probes.
	Value      float64 `json:"value"`
	Warehouses int     `json:"warehouses,omitempty"`
	Pass       bool    `json:"pass"`
	// LagP99Ms is the judged lag's p99: the open loop's timer lateness, or the largest p99 of the
	// closed loop's lag over the operations.
	LagP99Ms float64 `json:"lag_p99_ms"`
	// AchievedPerSec is the operations completed per second of the window.
	AchievedPerSec float64 `json:"achieved_per_sec"`
	// Why says what failed ("" for a pass).
	Why     string  `json:"why,omitempty"`
	Seconds float64 `json:"seconds"`
	// Confirm marks a confirming repeat of the search's answer.
	Confirm bool `json:"confirm,omitempty"`
}

// SelftestAnswer is one of the two searches.
type SelftestAnswer struct {
	// Max is the highest value that passed (0: none did); FailAt the lowest that failed (0: none
	// did, so Max is only a lower bound).
	Max       float64 `json:"max"`
	FailAt    float64 `json:"fail_at"`
	Converged bool    `json:"converged"`
	// SearchMax is the search's answer before its confirmation; Confirmed says Max passed every
	// confirming repeat (false with --confirm 0: unconfirmed).
	SearchMax float64         `json:"search_max"`
	Confirmed bool            `json:"confirmed"`
	Probes    []SelftestProbe `json:"probes"`
}

// confirmRounds bounds the values a confirmation tries, each a quarter below the last.
const confirmRounds = 3

// confirm repeats the search's answer found (sp.Confirm times, each with a seed of its own) and
// steps down while a repeat fails; it sets ans's answer to the value confirmed (0: none).
func (sp *SelftestPlan) confirm(ans *SelftestAnswer, found search.Result, minValue float64, probe func(v float64, repeat int) (bool, error), out Out) error {
	ans.SearchMax = found.MaxRate
	if sp.Confirm <= 0 || found.MaxRate == 0 {
		return nil
	}
	fmt.Fprintf(out.Stderr, "  confirming: %d repeat(s) must pass\n", sp.Confirm)
	c, err := search.Confirm(search.ConfirmConfig{Repeats: sp.Confirm, StepDown: 0.25, MaxRounds: confirmRounds, MinRate: minValue}, found.MaxRate, probe)
	ans.Max, ans.Confirmed = c.Rate, c.Confirmed()
	if f := c.FailRate(); f > 0 && (ans.FailAt == 0 || f < ans.FailAt) {
		ans.FailAt = f
	}
	return err
}

// SelftestResult is what `candor selftest` prints and writes.
type SelftestResult struct {
	Tool        report.Tool `json:"tool"`
	StartedAt   time.Time   `json:"started_at"`
	Seconds     float64     `json:"seconds"`
	CPUs        int         `json:"cpus"`
	GOMAXPROCS  int         `json:"gomaxprocs"`
	LoadAverage string      `json:"load_average,omitempty"` // /proc/loadavg's first three at the start
	Service     string      `json:"service"`
	MaxLagMs    float64     `json:"max_lag_ms"`
	Workload    string      `json:"workload"`
	Arrivals    string      `json:"arrivals"`
	// Rate is the highest open-loop rate, per second; SpecTerminals the most spec-mode terminals.
	Rate          *SelftestAnswer `json:"rate,omitempty"`
	SpecTerminals *SelftestAnswer `json:"spec_terminals,omitempty"`
	Partial       bool            `json:"partial"`
}

// Validate checks the plan before anything runs.
func (sp *SelftestPlan) Validate() error {
	var p problems
	if _, err := null.ParseService(sp.Service); err != nil {
		p.add("--service: %v", err)
	}
	if sp.MaxLag <= 0 {
		p.add("--max-lag must be above zero (got %s): for example --max-lag 1ms", sp.MaxLag)
	}
	if !sp.Rate && !sp.Spec {
		p.add("nothing to find: drop --no-rate or --no-spec")
	}
	if sp.Rate {
		if sp.Probe <= 0 || sp.Warmup < 0 {
			p.add("--probe must be positive and --warmup not negative (got %s and %s)", sp.Probe, sp.Warmup)
		}
		if !(sp.StartRate > 0) {
			p.add("--start-rate must be above zero (got %g)", sp.StartRate)
		}
		if sp.RateProbes < 1 {
			p.add("--rate-probes must be at least 1 (got %d)", sp.RateProbes)
		}
		if w, err := sp.NewWorkload(sp.Workload, nil); err != nil {
			p.add("%v", err)
		} else if !w.Info().HasMode(workload.ModeRate) {
			p.add("--workload %s has no open loop (mode rate)", sp.Workload)
		}
	}
	if sp.Confirm < 0 {
		p.add("--confirm must be 0 (no confirmation) or more (got %d)", sp.Confirm)
	}
	if sp.Spec {
		if sp.SpecProbe <= 0 || sp.SpecWarmup < 0 {
			p.add("--spec-probe must be positive and --spec-warmup not negative (got %s and %s)", sp.SpecProbe, sp.SpecWarmup)
		}
		if sp.StartWarehouses < 1 || sp.MaxWarehouses < sp.StartWarehouses {
			p.add("--start-warehouses must be at least 1 and at most --max-warehouses (got %d and %d)", sp.StartWarehouses, sp.MaxWarehouses)
		}
		if sp.SpecProbes < 1 {
			p.add("--spec-probes must be at least 1 (got %d)", sp.SpecProbes)
		}
	}
	return p.err()
}

// nullURL is the null engine's URL for the plan's service time (as the engine writes it, after
// Validate parsed it) and seed.
func (sp *SelftestPlan) nullURL() string {
	svc, _ := null.ParseService(sp.Service)
	return "null:?service=" + svc.String() + "&seed=" + strconv.FormatUint(sp.Seed, 10)
}

// base is a probe's plan: no files, no check, quiet. A confirming repeat (from 1) draws its
// inputs from a seed of its own, so the repeats differ as runs on other days would.
func (sp *SelftestPlan) base(w workload.Workload, mode workload.Mode, repeat int) RunPlan {
	mf := report.DefaultMaxFailuresPct
	seed := sp.Seed
	if repeat > 0 {
		seed = gen.Derive(sp.Seed, "selftest-confirm", string(mode), repeat)
	}
	return RunPlan{Workload: w, DB: sp.nullURL(), Mode: mode, Seed: seed, SeedGiven: true,
		Grace: 5 * time.Second, Interval: time.Second, Quiet: true, MaxFailures: &mf}
}

// Selftest runs the probes, prints the answers with their conditions and writes the JSON when
// Out is set. An interrupted selftest prints and saves what it found, marked partial, and returns
// ErrPartial.
func Selftest(ctx context.Context, sp SelftestPlan, out Out) (*SelftestResult, error) {
	if err := sp.Validate(); err != nil {
		return nil, err
	}
	svc, _ := null.ParseService(sp.Service)
	res := &SelftestResult{Tool: report.Tool{Name: "candor", Version: version.String()}, StartedAt: time.Now().UTC(),
		CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), LoadAverage: loadAverage(), Service: svc.String(),
		MaxLagMs: ms(sp.MaxLag), Workload: sp.Workload, Arrivals: "poisson"}
	start := time.Now()
	fmt.Fprintf(out.Stderr, "selftest: the null engine (service time %s), %d CPUs, GOMAXPROCS %d, load average %s; budget: timer lag p99 <= %s\n",
		res.Service, res.CPUs, res.GOMAXPROCS, orDash(res.LoadAverage), sp.MaxLag)
	var err error
	if sp.Rate {
		res.Rate, err = sp.findRate(ctx, svc, out)
	}
	if err == nil && sp.Spec && ctx.Err() == nil {
		res.SpecTerminals, err = sp.findTerminals(ctx, out)
	}
	res.Seconds = time.Since(start).Seconds()
	res.Partial = ctx.Err() != nil
	PrintSelftest(out.Stdout, res)
	if sp.Out != "" {
		if werr := writeSelftest(sp.Out, res); werr != nil {
			return res, werr
		}
		fmt.Fprintf(out.Stderr, "selftest saved in %s\n", sp.Out)
	}
	switch {
	case res.Partial:
		return res, ErrPartial
	case err != nil:
		return res, err
	}
	return res, nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// findRate searches the highest open-loop rate. Each probe gets enough connections for the
// service time (twice the rate times its mean: Little's law with room, at least 4), so a
// connection is free and what is judged is the driver's lateness.
func (sp *SelftestPlan) findRate(ctx context.Context, svc null.Service, out Out) (*SelftestAnswer, error) {
	ans := &SelftestAnswer{Probes: []SelftestProbe{}}
	fmt.Fprintf(out.Stderr, "open loop: %s, poisson arrivals, probes of %s after %s of warm-up\n", sp.Workload, sp.Probe, sp.Warmup)
	probe := func(rate float64, repeat int) (bool, error) {
		w, err := sp.NewWorkload(sp.Workload, nil)
		if err != nil {
			return false, err
		}
		p := sp.base(w, workload.ModeRate, repeat)
		p.Rate, p.Arrivals, p.MaxBacklog = strconv.FormatFloat(rate, 'f', -1, 64), "poisson", DefaultMaxBacklog
		p.Warmup, p.Duration = sp.Warmup, sp.Probe
		p.Connections = max(4, int(math.Ceil(2*rate*svc.Mean().Seconds())))
		p.ConnectionsGiven = true
		began := time.Now()
		r, err := runWith(ctx, p, Out{Stdout: io.Discard, Stderr: io.Discard, Hurry: out.Hurry}, nil)
		if err != nil && r == nil {
			return false, err
		}
		pr := SelftestProbe{Value: rate, Seconds: time.Since(began).Seconds(), Confirm: repeat > 0}
		judgeRateProbe(&pr, r, sp.MaxLag)
		ans.Probes = append(ans.Probes, pr)
		fmt.Fprintf(out.Stderr, "  %s/s%s: %s\n", thousands(rate), repeatNote(repeat), probeBrief(&pr))
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return pr.Pass, nil
	}
	// Stepping down from a failing start goes to a sixteenth of it at most: a process late at a
	// low rate is late from its host (other processes taking its CPUs), not from the load.
	cfg := search.Config{Start: sp.StartRate, Factor: 4, Precision: 0.1, MaxProbes: sp.RateProbes, MinRate: max(1, sp.StartRate/16)}
	found, err := search.Find(cfg, func(rate float64) (bool, error) { return probe(rate, 0) })
	ans.Max, ans.FailAt, ans.Converged = found.MaxRate, found.FailRate, found.Converged
	if err == nil {
		err = sp.confirm(ans, found, cfg.MinRate, probe, out)
	}
	if errors.Is(err, context.Canceled) {
		err = nil // Selftest says partial
	}
	return ans, err
}

// minSamples is the fewest operations a probe's p99 is judged on: with fewer, the p99 is the
// largest of a handful of values, the host's noise rather than the load's effect.
const minSamples = 200

// judgeRateProbe: a rate passes when the run was sustained (nothing dropped or unfinished, the
// schedule kept) without errors, and the timer lateness p99 is within maxLag.
func judgeRateProbe(pr *SelftestProbe, r *report.Result, maxLag time.Duration) {
	rr := r.Rate
	if rr == nil {
		pr.Why = "no open-loop figures"
		return
	}
	pr.LagP99Ms, pr.AchievedPerSec = rr.TimerLatenessMs.P99, rr.AchievedRate
	var why []string
	if r.Partial {
		why = append(why, "interrupted")
	}
	if rr.ScheduleBehind != nil {
		why = append(why, fmt.Sprintf("the dispatcher fell behind its schedule (it scheduled %s/s)", thousands(rr.ScheduleBehind.ScheduledRate)))
	} else if !rr.Sustained {
		why = append(why, fmt.Sprintf("not sustained (%d dropped, %d unfinished, %s/s achieved)", rr.Dropped, rr.Incomplete, thousands(rr.AchievedRate)))
	}
	if errs := operationErrors(r); errs > 0 {
		why = append(why, fmt.Sprintf("%d operations failed", errs))
	}
	if n := rr.Arrived - rr.Dropped; n < minSamples {
		why = append(why, fmt.Sprintf("%d operations, too few for a p99 (at least %d): lengthen --probe", n, minSamples))
	}
	if pr.LagP99Ms > ms(maxLag) {
		why = append(why, fmt.Sprintf("timer lateness p99 %.3f ms above %s", pr.LagP99Ms, maxLag))
	}
	pr.Why = strings.Join(why, "; ")
	pr.Pass = len(why) == 0
}

// findTerminals searches the most spec-mode TPC-C terminals, by warehouses (10 terminals each).
func (sp *SelftestPlan) findTerminals(ctx context.Context, out Out) (*SelftestAnswer, error) {
	ans := &SelftestAnswer{Probes: []SelftestProbe{}}
	fmt.Fprintf(out.Stderr, "spec mode: TPC-C, 10 terminals per warehouse with keying and think times, probes of %s after %s of warm-up, at most %d warehouses\n",
		sp.SpecProbe, sp.SpecWarmup, sp.MaxWarehouses)
	seen := map[int]bool{}
	probe := func(v float64, repeat int) (bool, error) {
		W := min(sp.MaxWarehouses, max(1, int(math.Round(v))))
		if pass, ok := seen[W]; ok && repeat == 0 { // the bisection rounds to a count already probed
			return pass, nil
		}
		w, err := sp.NewWorkload("tpcc", map[string]string{"warehouses": strconv.Itoa(W)})
		if err != nil {
			return false, err
		}
		p := sp.base(w, workload.ModeSpec, repeat)
		p.Warmup, p.Duration = sp.SpecWarmup, sp.SpecProbe
		began := time.Now()
		r, err := runWith(ctx, p, Out{Stdout: io.Discard, Stderr: io.Discard, Hurry: out.Hurry}, nil)
		if err != nil && r == nil {
			return false, err
		}
		pr := SelftestProbe{Value: float64(10 * W), Warehouses: W, Seconds: time.Since(began).Seconds(), Confirm: repeat > 0}
		judgeSpecProbe(&pr, r, sp.MaxLag)
		ans.Probes = append(ans.Probes, pr)
		fmt.Fprintf(out.Stderr, "  %s terminals (%s warehouses)%s: %s\n", thousands(pr.Value), thousands(float64(W)), repeatNote(repeat), probeBrief(&pr))
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if repeat > 0 {
			return pr.Pass, nil
		}
		seen[W] = pr.Pass
		if pr.Pass && W == sp.MaxWarehouses {
			return true, errCapped
		}
		return pr.Pass, nil
	}
	// Stepping down goes to a quarter of the start at most: fewer terminals make too few operations
	// in a probe for a p99 (minSamples).
	cfg := search.Config{Start: float64(sp.StartWarehouses), Factor: 4, Precision: 0.25, MaxProbes: sp.SpecProbes, MinRate: max(1, float64(sp.StartWarehouses)/4)}
	found, err := search.Find(cfg, func(v float64) (bool, error) { return probe(v, 0) })
	if errors.Is(err, errCapped) {
		found.MaxRate, err = float64(sp.MaxWarehouses), nil
	}
	found.MaxRate, found.FailRate = math.Round(found.MaxRate), math.Round(found.FailRate)
	ans.Max, ans.FailAt, ans.Converged = found.MaxRate, found.FailRate, found.Converged
	if err == nil {
		err = sp.confirm(ans, found, cfg.MinRate, func(v float64, repeat int) (bool, error) { return probe(math.Round(v), repeat) }, out)
	}
	// In warehouses until here; the answer is in terminals.
	ans.Max, ans.FailAt, ans.SearchMax = 10*ans.Max, 10*ans.FailAt, 10*ans.SearchMax
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return ans, err
}

// errCapped ends the terminals' search at --max-warehouses, which passed.
var errCapped = errors.New("selftest: the most warehouses allowed passed")

// judgeSpecProbe: a terminal count passes when the run completed without errors and the largest
// p99 of the closed loop's lag over the terminals' operations (not TPC-C's deferred Delivery,
// whose lag is its queue) is within maxLag.
func judgeSpecProbe(pr *SelftestProbe, r *report.Result, maxLag time.Duration) {
	var n int64
	for _, t := range r.Operations {
		if t.PartOf != "" || t.Count == 0 {
			continue
		}
		n += t.Count
		pr.LagP99Ms = max(pr.LagP99Ms, t.LagMs.P99)
	}
	if r.MeasureSeconds > 0 {
		pr.AchievedPerSec = float64(n) / r.MeasureSeconds
	}
	var why []string
	if r.Partial {
		why = append(why, "interrupted")
	}
	if n < minSamples {
		why = append(why, fmt.Sprintf("%d operations, too few for a p99 (at least %d): lengthen --spec-probe or start from more --start-warehouses", n, minSamples))
	}
	if errs := operationErrors(r); errs > 0 {
		why = append(why, fmt.Sprintf("%d operations failed", errs))
	}
	if pr.LagP99Ms > ms(maxLag) {
		why = append(why, fmt.Sprintf("lag p99 %.3f ms above %s", pr.LagP99Ms, maxLag))
	}
	pr.Why = strings.Join(why, "; ")
	pr.Pass = len(why) == 0
}

func operationErrors(r *report.Result) int64 {
	var n int64
	for _, t := range r.Operations {
		n += t.Errors
	}
	return n
}

func repeatNote(repeat int) string {
	if repeat == 0 {
		return ""
	}
	return fmt.Sprintf(" (confirming, repeat %d)", repeat)
}

func probeBrief(pr *SelftestProbe) string {
	verdict := "pass"
	if !pr.Pass {
		verdict = "FAIL: " + pr.Why
	}
	return fmt.Sprintf("lag p99 %.3f ms, %s completed/s, %.0f s: %s", pr.LagP99Ms, thousands(pr.AchievedPerSec), pr.Seconds, verdict)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// thousands writes a non-negative figure rounded to a whole number with thousands separators.
func thousands(v float64) string {
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// loadAverage is /proc/loadavg's first three figures ("" where there is none): the host's own
// business at the start, which the figures depend on.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// PrintSelftest prints the answers, their conditions and what they mean.
func PrintSelftest(w io.Writer, r *SelftestResult) {
	fmt.Fprintf(w, "\ncandor selftest: this driver process's own ceiling\n")
	fmt.Fprintf(w, "conditions: the null engine (no database, service time %s), %d CPUs, GOMAXPROCS %d, load average at the start %s, %s, %.0f s in all\n",
		r.Service, r.CPUs, r.GOMAXPROCS, orDash(r.LoadAverage), r.Tool.Version, r.Seconds)
	if r.Partial {
		fmt.Fprintln(w, "PARTIAL: the selftest was interrupted; the figures cover the probes that ran")
	}
	if a := r.Rate; a != nil {
		fmt.Fprintf(w, "open loop (%s, poisson arrivals): ", r.Workload)
		switch {
		case a.Max == 0 && a.SearchMax > 0:
			fmt.Fprintf(w, "the search's %s arrivals/s was not confirmed by repeats, nor a rate a little below it: the host's noise is larger than the budget\n", thousands(a.SearchMax))
		case a.Max == 0:
			fmt.Fprintf(w, "no rate tried was sustained with timer lateness p99 <= %g ms (lowest tried %s/s)\n", r.MaxLagMs, thousands(lowest(a)))
			hostLate(w, a, r.MaxLagMs)
		default:
			fmt.Fprintf(w, "%s arrivals/s sustained with timer lateness p99 <= %g ms%s\n", thousands(a.Max), r.MaxLagMs, bound(a, "/s"))
			fmt.Fprintf(w, "  an open-loop run at R arrivals/s needs ceil(R / %s) driver processes like this one\n", thousands(a.Max))
		}
	}
	if a := r.SpecTerminals; a != nil {
		fmt.Fprintf(w, "spec mode (TPC-C, 10 terminals per warehouse): ")
		switch {
		case a.Max == 0 && a.SearchMax > 0:
			fmt.Fprintf(w, "the search's %s terminals were not confirmed by repeats, nor a count a little below: the host's noise is larger than the budget\n", thousands(a.SearchMax))
		case a.Max == 0:
			fmt.Fprintf(w, "no terminal count tried kept the lag p99 <= %g ms (lowest tried %s terminals; each probe's verdict is above)\n", r.MaxLagMs, thousands(lowest(a)))
			if lagFailed(a, r.MaxLagMs) {
				fmt.Fprintf(w, "  the closed loop waits precisely (the last 2 ms before each due time in the kernel, as the open loop does), so a lag p99 above the budget is this process's load or the host's, not Go's timers' millisecond\n")
			}
			hostLate(w, a, r.MaxLagMs)
		default:
			fmt.Fprintf(w, "%s terminals (%s warehouses) with dispatch lag p99 <= %g ms%s\n", thousands(a.Max), thousands(a.Max/10), r.MaxLagMs, bound(a, " terminals"))
			fmt.Fprintf(w, "  for W warehouses you need ceil(10W / %s) driver processes like this one\n", thousands(a.Max))
		}
	}
}

// hostLate says, when even the lightest probe was late, that the host is the cause: the load
// cannot be lowered further, so the budget cannot be met on this host as it is.
func hostLate(w io.Writer, a *SelftestAnswer, maxLagMs float64) {
	lo := lowest(a)
	for _, p := range a.Probes {
		if p.Value == lo && p.LagP99Ms > maxLagMs {
			fmt.Fprintf(w, "  even the lightest probe was %.3f ms late at p99: the host (other processes on its CPUs, see the load average) delays this process; run it on an idle host, or judge against a looser --max-lag\n", p.LagP99Ms)
			return
		}
	}
}

// lagFailed: some probe's lag was above the budget.
func lagFailed(a *SelftestAnswer, maxLagMs float64) bool {
	for _, p := range a.Probes {
		if p.LagP99Ms > maxLagMs {
			return true
		}
	}
	return false
}

func lowest(a *SelftestAnswer) float64 {
	lo := math.Inf(1)
	for _, p := range a.Probes {
		lo = min(lo, p.Value)
	}
	if math.IsInf(lo, 1) {
		return 0
	}
	return lo
}

// bound says what the answer rests on: the lowest failing value, or that none failed, and whether
// repeats confirmed it.
func bound(a *SelftestAnswer, unit string) string {
	b := " (none tried failed: a lower bound"
	if a.FailAt > 0 {
		b = fmt.Sprintf(" (failed at %s%s", thousands(a.FailAt), unit)
	}
	if a.Confirmed {
		return b + "; confirmed by repeats)"
	}
	return b + "; unconfirmed)"
}

func writeSelftest(path string, r *SelftestResult) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return userr.Errorf("cannot write the selftest's result to %s: %v: choose another --out", path, err)
	}
	return nil
}
