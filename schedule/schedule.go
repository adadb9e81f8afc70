// Package schedule decides when work starts and runs it: emulated terminals are data (design.md,
// "Emulated terminals and connections"), their next intended starts wait in one due-time heap, and a
// bounded pool of workers, each owning one database connection, runs whatever is due.
//
// The clock of an operation starts at its intended start, never later (design.md: "Start the latency
// clock late" is what the tool must never do). For a TPC-C terminal that is the end of its keying time
// (clause 5.2.5: choose the type, key, submit, wait for the response, think). Work that is due while
// every worker is busy waits, in order of intended start, and that wait is part of its response time
// but not of its service time. Nothing is re-timed.
//
// The measurement window is [Start+Warmup, Start+Warmup+Measure). An operation is measured when its
// intended start is inside the window, whenever it completes. At the window's end no new work is
// started, except work whose intended start was inside the window: it already arrived and its clock
// is running, so it is still dispatched (dropping it would hide exactly the queueing the window
// ended in). Everything measured that has not completed Grace after the window's end, in flight or
// still waiting for a worker, is counted per operation as incomplete (measure.Counts.Incomplete).
//
// Cost: workers take due work themselves under one mutex (no dispatcher goroutine, no hand-off in
// no-wait modes); idle workers sleep on a channel and one timer wakes one of them when the earliest
// intended start comes due. About 0.2 µs of CPU per operation in throughput mode and 0.5 µs when
// every operation goes through the timer (BenchmarkSchedulerOverhead*). Go's timers can fire up to
// about 1 ms late when the process is otherwise idle (the runtime sleeps in epoll with millisecond
// resolution); that lateness is real and shows in Lag and Response, which is why Lag is recorded.
package schedule

import (
	"context"
	"errors"
	"time"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/userr"
)

// Terminal is an emulated terminal's state: its random stream, its drawn inputs, its deck. The
// scheduler calls a Terminal from one goroutine at a time (whichever worker holds it).
type Terminal interface {
	// Next draws the terminal's next operation (its type and inputs, which the terminal keeps) and
	// returns the type and the keying time before it is due (0 when there is none).
	Next() (op int, keying time.Duration)
	// Think is the think time after an operation of type op completed (0 in no-wait modes).
	Think(op int) time.Duration
}

// Outcome is what running one operation gave.
type Outcome struct {
	Retries    int   // attempts beyond the first
	Err        error // non-nil: the operation failed (after its retries)
	RolledBack bool  // business rollback (completed, not an error)
	Reconnects int   // connections re-established while running it
}

// Executor runs operations.
type Executor interface {
	// Execute runs terminal t's drawn operation op on worker slot (each slot owns one connection;
	// slots are 0..Workers-1 and a slot runs one operation at a time). It must return soon after ctx
	// is cancelled: Run cancels it once the grace period is over, then waits for every worker.
	// measured says whether the operation belongs to the measurement window (its intended start is
	// inside it), so work the executor hands on (TPC-C's deferred Delivery) is counted in the same
	// window as the operation itself.
	Execute(ctx context.Context, slot int, t Terminal, op int, measured bool) Outcome
}

// ExecutorFunc adapts a function to Executor.
type ExecutorFunc func(ctx context.Context, slot int, t Terminal, op int, measured bool) Outcome

// Execute calls f.
func (f ExecutorFunc) Execute(ctx context.Context, slot int, t Terminal, op int, measured bool) Outcome {
	return f(ctx, slot, t, op, measured)
}

var _ Executor = ExecutorFunc(nil)

// Config is one run of terminals against a pool of workers.
type Config struct {
	Terminals []Terminal
	// Workers is the number of connections. Terminals wait for a free one, and that wait is response
	// time.
	Workers int
	Exec    Executor
	// Rec receives one event per completed operation; worker slot i records into Rec.Stripe(i).
	Rec *measure.Recorder
	// Warmup precedes the measurement window, Measure is its length, Grace is how long to wait after
	// it (or after a cancellation) for work in flight and work that arrived inside the window.
	Warmup, Measure, Grace time.Duration
	// Tick is the interval length (e.g. 1 s or 10 s): every Tick, Rec.Tick and then OnTick run, and
	// once more at the end.
	Tick time.Duration
	// OnTick receives each interval (progress line, interval log). Calls never overlap; the interval
	// is valid until OnTick returns (measure.Interval.Clone keeps one). May be nil.
	OnTick func(iv *measure.Interval)
	// Start is the run's start: time zero of keying times and of the window. Zero means time.Now().
	Start time.Time
	// TerminalGroup and WorkerGroup, when set, bind terminals to workers by group (TPC-C over several
	// database endpoints: one group per endpoint): worker w runs only the terminals i with
	// TerminalGroup[i] == WorkerGroup[w], each group in order of intended start. Both nil: one group.
	TerminalGroup, WorkerGroup []int
}

// groups is the number of terminal groups (1 without TerminalGroup).
func (c *Config) groups() int {
	n := 1
	for _, g := range c.TerminalGroup {
		n = max(n, g+1)
	}
	for _, g := range c.WorkerGroup {
		n = max(n, g+1)
	}
	return n
}

func (c *Config) terminalGroup(i int) int {
	if c.TerminalGroup == nil {
		return 0
	}
	return c.TerminalGroup[i]
}

func (c *Config) workerGroup(w int) int {
	if c.WorkerGroup == nil {
		return 0
	}
	return c.WorkerGroup[w]
}

// validateGroups checks that every terminal's group has a worker.
func (c *Config) validateGroups() error {
	if c.TerminalGroup == nil && c.WorkerGroup == nil {
		return nil
	}
	if len(c.TerminalGroup) != len(c.Terminals) || len(c.WorkerGroup) != c.Workers {
		return errors.New("schedule: Config.TerminalGroup and WorkerGroup must have one entry per terminal and per worker")
	}
	workers := make([]int, c.groups())
	for _, g := range c.WorkerGroup {
		if g < 0 {
			return errors.New("schedule: negative worker group")
		}
		workers[g]++
	}
	for i, g := range c.TerminalGroup {
		if g < 0 {
			return errors.New("schedule: negative terminal group")
		}
		if workers[g] == 0 {
			return userr.Errorf("terminal %d belongs to group %d, which has no connection: give every endpoint at least one connection", i+1, g)
		}
	}
	return nil
}

// Summary is how the run went; the latencies and counters are in Rec.
type Summary struct {
	// Start, MeasureStart and MeasureEnd are the window as planned, except that a cancellation
	// before the window's end moves MeasureEnd (and MeasureStart, if still in warm-up) to the
	// moment of cancellation. End is when Run finished (after the grace period, if needed).
	Start, MeasureStart, MeasureEnd, End time.Time
	// Incomplete operations, warm-up included, never finished (also in Rec's counters per op).
	Incomplete int
	// Partial: the context was cancelled before the window's end; everything measured until then
	// is in Rec.
	Partial bool
	// Dispatched and Completed count operations over the whole run, warm-up included; Completed
	// counts failures too (every Execute that returned in time).
	Dispatched, Completed int64
}

func (c *Config) validate() error {
	if c.Exec == nil || c.Rec == nil {
		return errors.New("schedule: Config.Exec and Config.Rec must be set")
	}
	var errs []error
	if len(c.Terminals) == 0 {
		errs = append(errs, userr.Errorf("there are no terminals to run; give at least one terminal (or warehouse)"))
	}
	if c.Workers < 1 {
		errs = append(errs, userr.Errorf("the number of connections is %d; set it to at least 1", c.Workers))
	}
	if c.Measure <= 0 {
		errs = append(errs, userr.Errorf("the measurement duration is %v; set it above zero", c.Measure))
	}
	if c.Warmup < 0 || c.Grace < 0 {
		errs = append(errs, userr.Errorf("the warm-up (%v) and grace (%v) durations must not be negative", c.Warmup, c.Grace))
	}
	if c.Tick <= 0 {
		errs = append(errs, userr.Errorf("the interval length is %v; set it above zero (for example 1s)", c.Tick))
	}
	if len(errs) == 0 {
		if err := c.validateGroups(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Run runs cfg until the measurement window has ended and the work that arrived in it has finished
// (or Grace has run out), then makes a final tick and returns. Cancelling ctx (Ctrl-C) stops
// dispatching at once, waits up to Grace for work in flight and returns Summary{Partial: true}
// without an error; work already due but not dispatched is counted incomplete. Run returns an error
// only for an invalid Config, before starting anything.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	if err := cfg.validate(); err != nil {
		return Summary{}, err
	}
	start := cfg.Start
	if start.IsZero() {
		start = time.Now()
	}
	r := newRun(cfg, start)
	return r.run(ctx), nil
}
