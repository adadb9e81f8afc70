package workload

import (
	"context"
	"errors"
	"syscall"
	"time"

	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/schedule"
)

// Drive is the workload-neutral core of a run: it makes the recorder and the window, starts the
// session's work, runs it with the scheduler the mode calls for (terminals in a closed loop, or a
// pacer's arrivals from the session's source in an open loop), drains the work handed on, makes the
// final tick and returns what was measured. A cancelled ctx (Ctrl-C) stops it early: work in
// flight is waited for (Grace), the outcome says it is partial, and nothing measured is lost.

// DriveOptions is the core's resolved plan of one run of a session.
type DriveOptions struct {
	Mode                   Mode
	Warmup, Measure, Grace time.Duration
	// Tick is the interval length; OnTick receives every interval (after the session's own).
	Tick   time.Duration
	OnTick func(iv *measure.Interval)
	// Rate is the open loop's schedule (ModeRate only).
	Rate RateOptions
	// Seed is the run's root seed (the Poisson arrivals derive theirs from it and the workload's
	// name).
	Seed uint64
	// Parts are the operations that are parts of others (Info.Parts): they are left out of
	// Outcome.Completed.
	Parts map[string]string
	// OutageWindow is how long the run waits for a database it cannot reach before it ends as
	// partial (outage.go); 0 is DefaultOutageWindow.
	OutageWindow time.Duration
	// Hurry, when closed (a second Ctrl-C), ends every wait at once: the grace period and the
	// session's drain; the outcome holds what was measured.
	Hurry <-chan struct{}
	// Ready, when set, runs once the session has started (its connections open) and before the
	// run's clock starts: the caller creates its files there, so a run that cannot start creates
	// none. An error ends the run before it starts.
	Ready func() error
}

// RateOptions is the open-loop part of a run.
type RateOptions struct {
	// Steps are the measurement window step by step (one step for a single rate); the warm-up runs
	// at the first step's rate.
	Steps   []schedule.Step
	Process schedule.Process
	// MaxBacklog bounds the arrivals waiting for a connection; past it they are dropped (counted).
	MaxBacklog int
	// OnBacklog, when set, receives each tick's backlog sample (live metrics).
	OnBacklog func(schedule.BacklogSample)
	// Pacer, when set, gives the arrivals' times (a ramp) over the warm-up and Steps; nil: Process
	// over the warm-up at the first step's rate, then the steps.
	Pacer schedule.Pacer
}

// Outcome is what Drive measured.
type Outcome struct {
	Summary schedule.Summary
	Totals  *measure.Totals
	// Rate is what an open-loop run measured besides the totals: steps, drops, backlog.
	Rate *schedule.RateSummary
	// CPU is the driver process's CPU time (user + system) over the run, and Completed the
	// operations completed over the same time (warm-up included, parts of operations left out), to
	// divide it by.
	CPU       time.Duration
	Completed int64
	// Aborted says why the run stopped early when the session aborted it (the database was lost).
	Aborted string
	// Outages are the spans during which the database refused new connections (outage.go).
	Outages []Outage
}

// Drive runs s once; name is the workload's (for the arrivals' derived seed).
func Drive(ctx context.Context, name string, ops []string, s Session, o DriveOptions) (*Outcome, error) {
	if o.Mode == ModeRate {
		o.Measure = schedule.MeasureOf(o.Rate.Steps) // the window is the steps
	}
	rec := measure.NewRecorder(ops, 0)
	runCtx, abort := context.WithCancelCause(ctx)
	defer abort(nil)
	outages := NewOutages(o.OutageWindow)
	w, err := s.Start(WithOutages(runCtx, outages), Env{Rec: rec, Abort: abort, Outages: outages, Hurry: o.Hurry})
	if err != nil {
		return nil, err
	}
	if o.Ready != nil {
		if err := o.Ready(); err != nil {
			if w.Drain != nil {
				w.Drain(0)
			}
			return nil, err
		}
	}
	// The run's clock starts once the session is ready (its connections open, its marks written),
	// so none of that is in the warm-up or the window.
	start := time.Now()
	measureStart := start.Add(o.Warmup)
	rec.Begin(start, measureStart, measureStart.Add(o.Measure))
	var completed int64
	whole := wholeOps(ops, o.Parts)
	onTick := func(iv *measure.Interval) {
		for _, op := range whole {
			completed += iv.Counts[op].Completed
		}
		if w.OnTick != nil {
			w.OnTick(iv)
		}
		if o.OnTick != nil {
			o.OnTick(iv)
		}
	}
	cpu0 := ProcessCPU()
	out := &Outcome{}
	// allfailed.go: a run whose every attempt fails stops within seconds.
	stopWatch, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		watchAllFailed(runCtx, stopWatch, rec, ops, name, start, outages, abort)
	}()
	switch {
	case o.Mode == ModeRate:
		if w.Source == nil {
			return nil, errors.New("workload: the session has no arrival source for rate mode")
		}
		out.Summary, out.Rate, err = schedule.RunRate(runCtx, schedule.RateConfig{
			Source: w.Source, Workers: w.Workers, WorkerGroup: w.WorkerGroup, Exec: w.Exec, Rec: rec,
			Process: o.Rate.Process, Seed: gen.Derive(o.Seed, name, "arrivals"), Steps: o.Rate.Steps, Warmup: o.Warmup,
			MaxBacklog: o.Rate.MaxBacklog, Grace: o.Grace, Tick: o.Tick, OnTick: onTick, Start: start,
			OnBacklog: o.Rate.OnBacklog, Pacer: o.Rate.Pacer, Hurry: o.Hurry,
		})
	default:
		out.Summary, err = schedule.Run(runCtx, schedule.Config{
			Terminals: w.Terminals, Workers: w.Workers, Exec: w.Exec, Rec: rec,
			Warmup: o.Warmup, Measure: o.Measure, Grace: o.Grace, Tick: o.Tick, OnTick: onTick, Start: start,
			TerminalGroup: w.TerminalGroup, WorkerGroup: w.WorkerGroup, Hurry: o.Hurry,
		})
	}
	close(stopWatch)
	<-watched
	if err != nil {
		if w.Drain != nil {
			w.Drain(0)
		}
		return nil, err
	}
	if w.Drain != nil {
		grace := o.Grace
		if ctx.Err() != nil {
			// Interrupted: --grace bounds the whole wait since the interruption (or the window's
			// end), the scheduler's part included.
			grace = max(0, o.Grace-time.Since(out.Summary.MeasureEnd))
		}
		w.Drain(grace)
	}
	onTick(rec.Tick(time.Now())) // takes in what the drain recorded
	out.Totals = rec.Totals()
	out.CPU = ProcessCPU() - cpu0
	out.Completed = completed
	out.Outages = outages.List()
	if cause := context.Cause(runCtx); cause != nil && !errors.Is(cause, context.Canceled) {
		out.Aborted = cause.Error()
		out.Summary.Partial = true
	}
	return out, nil
}

// wholeOps are the indexes of the operations of ops that are no part of another.
func wholeOps(ops []string, parts map[string]string) []int {
	var w []int
	for i, name := range ops {
		if _, ok := parts[name]; !ok {
			w = append(w, i)
		}
	}
	return w
}

// ProcessCPU is the CPU time (user + system) this process has used so far.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
