package run

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/workload"
)

// Open-loop runs (--mode rate): the plan's rate flags, their result and their warnings.

// DefaultMaxBacklog is --max-backlog's default: room for every arrival of a short stall at
// thousands per second; each waiting arrival holds about 1 KiB of drawn inputs.
const DefaultMaxBacklog = 10000

// rateSyntax is the expected form, quoted in errors.
const rateSyntax = "a number of operations per second, all types together (--rate 500) or a range with --step and --step-every (--rate 100..1000 --step 100 --step-every 30s)"

// ParseRate reads a --rate value: "R" or "A..B" (transactions per second, all types together).
func ParseRate(s string) (from, to float64, isRange bool, err error) {
	num := func(v string) (float64, error) {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(f > 0) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("--rate %q is not a rate: give %s", s, rateSyntax)
		}
		return f, nil
	}
	if a, b, ok := strings.Cut(s, ".."); ok {
		if from, err = num(a); err == nil {
			to, err = num(b)
		}
		return from, to, true, err
	}
	from, err = num(s)
	return from, from, false, err
}

// shardRate is --rate as this process drives it: a shard drives rate/N (shard.go), so that the
// shards together offer the rate given.
func (r *RunPlan) shardRate() (from, to float64, isRange bool, err error) {
	from, to, isRange, err = ParseRate(r.Rate)
	d := r.shardDiv()
	return from / d, to / d, isRange, err
}

// rateSteps is the plan's measurement, step by step: one step of --duration for a single rate.
func (r *RunPlan) rateSteps() ([]schedule.Step, error) {
	from, to, isRange, err := r.shardRate()
	if err != nil {
		return nil, err
	}
	if !isRange {
		return []schedule.Step{{Rate: from, Duration: r.Duration}}, nil
	}
	if r.Ramp {
		// One step over the whole ramp, for the window and its figures, at the ramp's mean rate.
		return []schedule.Step{{Rate: (from + to) / 2, Duration: r.Duration}}, nil
	}
	return schedule.Steps(from, to, r.Step/r.shardDiv(), r.StepEvery)
}

// validateRate adds the problems of the open-loop flags.
func (r *RunPlan) validateRate(p *problems) {
	if r.Mode != workload.ModeRate {
		if r.Rate != "" || r.Step != 0 || r.StepEvery != 0 || r.Ramp {
			p.add("--rate, --step, --step-every and --ramp apply to open-loop runs: add --mode rate")
		}
		return
	}
	if r.Rate == "" {
		p.add("--mode rate needs --rate: give %s", rateSyntax)
		return
	}
	from, to, isRange, err := ParseRate(r.Rate)
	if err != nil {
		p.add("%s", err.Error())
		return
	}
	if hi := max(from, to); hi > schedule.MaxRate {
		p.add("%s", schedule.RateTooHigh(hi))
	}
	switch {
	case r.Ramp && !isRange:
		p.add("--ramp needs a range of rates to ramp over, for example --rate 100..1000 --ramp --duration 5m")
	case r.Ramp && (r.Step != 0 || r.StepEvery != 0):
		p.add("--ramp rises linearly over --duration: drop --step and --step-every (or drop --ramp for steps)")
	case r.Ramp:
	case isRange && (r.Step <= 0 || r.StepEvery <= 0):
		p.add("--rate %s is a range: give the step and how long each lasts, for example --step 100 --step-every 30s", r.Rate)
	case !isRange && (r.Step != 0 || r.StepEvery != 0):
		p.add("--step and --step-every apply to a range of rates (--rate 100..1000): drop them or give a range")
	default:
		steps, err := r.rateSteps()
		if err != nil {
			p.add("--rate %s --step %g --step-every %s: %v", r.Rate, r.Step, r.StepEvery, err)
			break
		}

		if total := schedule.MeasureOf(steps); isRange && r.DurationGiven && r.Duration != total {
			p.add("--duration %s does not match the steps (%d steps of %s = %s): drop --duration", r.Duration, len(steps), r.StepEvery, total)
		}
	}
	if r.Arrivals != "" {
		if _, err := schedule.ParseProcess(r.Arrivals); err != nil {
			p.add("%s", err.Error())
		}
	}
	if r.MaxBacklog < 0 {
		p.add("--max-backlog must not be negative (got %d)", r.MaxBacklog)
	}
}

// resolveRate derives the open-loop defaults: the process, and the window's length from the steps.
func (r *RunPlan) resolveRate() {
	if r.Mode != workload.ModeRate {
		return
	}
	if r.Arrivals == "" {
		r.Arrivals = string(schedule.Poisson)
	}
	if steps, err := r.rateSteps(); err == nil {
		r.Duration = schedule.MeasureOf(steps)
	}
	if r.StepEvery > 0 {
		r.StepEveryText = r.StepEvery.String()
	}
}

// rateOptions is the workload's part of the open-loop plan (after Validate and resolve).
func (r *RunPlan) rateOptions() workload.RateOptions {
	if r.Mode != workload.ModeRate {
		return workload.RateOptions{}
	}
	steps, _ := r.rateSteps()
	var pacer schedule.Pacer
	if r.Ramp {
		// The warm-up at the ramp's first rate, then the ramp over the measurement.
		from, to, _, _ := r.shardRate()
		var ramps []schedule.Ramp
		if r.Warmup > 0 {
			ramps = append(ramps, schedule.Ramp{From: from, To: from, Duration: r.Warmup})
		}
		ramps = append(ramps, schedule.Ramp{From: from, To: to, Duration: r.Duration})
		pacer = schedule.Paced{P: schedule.Process(r.Arrivals), T: schedule.NewRampTimeline(ramps)}
	}
	return workload.RateOptions{Pacer: pacer, Steps: steps, Process: schedule.Process(r.Arrivals), MaxBacklog: r.MaxBacklog}
}

// rateLine describes the open-loop plan in one line (printed when the run starts).
func (r *RunPlan) rateLine() string {
	line := r.rateLineWhole()
	if r.Shard != nil {
		line += fmt.Sprintf("; this shard's 1/%d of --rate %s", r.Shard.Count, r.Rate)
	}
	return line
}

func (r *RunPlan) rateLineWhole() string {
	steps, _ := r.rateSteps()
	if r.Ramp {
		from, to, _, _ := r.shardRate()
		return fmt.Sprintf("open loop: %s arrivals ramping linearly from %g/s to %g/s over %s (all types together), at most %d waiting for a connection", r.Arrivals, from, to, r.Duration, r.MaxBacklog)
	}
	if len(steps) == 1 {
		return fmt.Sprintf("open loop: %s arrivals at %g/s (all types together), at most %d waiting for a connection", r.Arrivals, steps[0].Rate, r.MaxBacklog)
	}
	return fmt.Sprintf("open loop: %s arrivals in %d steps of %s from %g/s to %g/s (all types together), at most %d waiting for a connection",
		r.Arrivals, len(steps), r.StepEvery, steps[0].Rate, steps[len(steps)-1].Rate, r.MaxBacklog)
}

// rateResult turns an open-loop run's summary into result.json's "rate".
func rateResult(rs *schedule.RateSummary, measureSeconds float64, ops []string) *report.RateResult {
	if rs == nil {
		return nil
	}
	rr := &report.RateResult{
		Arrivals: string(rs.Process), Arrived: rs.Arrived, Dropped: rs.Dropped, Incomplete: rs.Incomplete,
		MaxBacklog: rs.MaxBacklog, MaxBacklogSeen: rs.MaxBacklogSeen, Sustained: rs.Sustained(),
		LagMs: measure.Summarize(rs.Lag), TimerLatenessMs: measure.Summarize(rs.Lateness), ConnectionWaitMs: measure.Summarize(rs.ConnWait),
		TimerLatenessHist: measure.EncodeHist(rs.Lateness), ConnectionWaitHist: measure.EncodeHist(rs.ConnWait),
		WarmupArrived: rs.WarmupArrived, WarmupDropped: rs.WarmupDropped,
		Steps: []report.RateStep{}, Backlog: []report.BacklogSample{},
	}
	var work, secs float64
	var windowStart time.Duration
	for k, s := range rs.Steps {
		if k == 0 {
			windowStart = s.Start
		}
		work += s.Rate * s.Seconds()
		secs += s.Seconds()
		st := report.RateStep{
			Step: k + 1, StartSeconds: (s.Start - windowStart).Seconds(), Seconds: s.Seconds(),
			TargetRate: s.Rate, OfferedRate: s.OfferedRate(), AchievedRate: s.AchievedRate(),
			Arrived: s.Arrived, Dropped: s.Dropped, Completed: s.Completed, Errors: s.Errors, Incomplete: s.Incomplete,
			MaxBacklog: s.MaxBacklog, Sustained: s.Sustained(), Transactions: map[string]*report.StepTx{},
			LagMs: s.Lag, TimerLatenessMs: s.Lateness, ConnectionWaitMs: s.ConnWait,
		}
		for op := 0; op < len(ops) && op < len(s.Ops); op++ {
			o := s.Ops[op]
			st.Transactions[ops[op]] = &report.StepTx{Count: o.Completed, Errors: o.Errors,
				PerSecond: float64(o.Completed) / s.Seconds(), ResponseMs: o.Response, ServiceMs: o.Service}
		}
		rr.Steps = append(rr.Steps, st)
	}
	if secs > 0 {
		rr.TargetRate = work / secs
	}
	// Over the window actually measured (shorter when interrupted).
	if measureSeconds > 0 {
		rr.OfferedRate = float64(rs.Arrived) / measureSeconds
		rr.AchievedRate = float64(rs.CompletedInWindow) / measureSeconds
	}
	for _, b := range rs.Backlog {
		rr.Backlog = append(rr.Backlog, report.BacklogSample{Seconds: b.At.Seconds(), Depth: b.Depth, Max: b.Max})
	}
	if rs.Behind > 0 || rs.Reached > 0 {
		rr.ScheduleBehind = &report.ScheduleBehind{ReachedSeconds: max(0, (rs.Reached - windowStart).Seconds()), WindowSeconds: secs,
			BehindSeconds: rs.Behind.Seconds(), ScheduledRate: rs.ScheduledRate}
	}
	return rr
}

// DriverLateLimit is the 99th percentile of timer lateness above which the driver itself is
// flagged as delaying arrivals (Go's timers alone may be about 1 ms late on an idle process).
const DriverLateLimit = 10 * time.Millisecond

// rateWarnings are the open-loop conditions that make the numbers misleading.
func rateWarnings(r *report.Result) []report.Warning {
	rr := r.Rate
	if rr == nil {
		return nil
	}
	var ws []report.Warning
	add := func(code, format string, a ...any) {
		ws = append(ws, report.Warning{Code: code, Message: fmt.Sprintf(format, a...)})
	}
	if b := rr.ScheduleBehind; b != nil {
		// The window describes a rate that was never offered: say so first.
		add("SCHEDULE_BEHIND", "the driver could not keep its own schedule of %.1f/s: by the window's end it had made the arrivals of only the first %.1f s of the %.1f s window (%.1f s behind the clock), scheduling %.0f arrivals/s at most; the figures do not describe %.1f/s, so lower --rate (or run several drivers)",
			rr.TargetRate, b.ReachedSeconds, b.WindowSeconds, b.BehindSeconds, b.ScheduledRate, rr.TargetRate)
	}
	// An interrupted run's last step is cut short: judge it by its drops only.
	if !rr.Sustained && (!r.Partial || rr.Dropped > 0) {
		var bad []report.RateStep
		for _, s := range rr.Steps {
			if !s.Sustained {
				bad = append(bad, s)
			}
		}
		switch {
		case len(rr.Steps) == 1 && len(bad) == 1:
			s := bad[0]
			add("RATE_NOT_SUSTAINED", "the database did not sustain %.1f/s: it achieved %.1f/s of the %.1f/s offered, with %d arrivals dropped (backlog bound %d) and %d unfinished, so response times at this rate grow without bound; lower --rate (or give the database more capacity or connections)",
				s.TargetRate, s.AchievedRate, s.OfferedRate, s.Dropped, rr.MaxBacklog, s.Incomplete)
		case len(bad) > 0:
			s := bad[0]
			add("RATE_NOT_SUSTAINED", "%d of %d steps were not sustained, the first at %.1f/s (step %d: achieved %.1f/s of %.1f/s offered, %d dropped, %d unfinished); the rates from there on are beyond what the database sustains",
				len(bad), len(rr.Steps), s.TargetRate, s.Step, s.AchievedRate, s.OfferedRate, s.Dropped, s.Incomplete)
		}
	}
	if l := rr.TimerLatenessMs.P99; l > float64(DriverLateLimit.Milliseconds()) {
		add("DRIVER_LATE", "1%% of arrivals started more than %.1f ms late while a connection was free: the driver itself (its timers or CPU) delayed them, and that delay is in their response times", l)
	}
	return ws
}
