// Package schedule decides when work starts and runs it. One core (core.go) owns a bounded pool of
// workers, each owning one database connection, optionally grouped by endpoint (a group's work runs
// only on its own workers), and two feeders bring it work:
//
//   - the closed loop (Run, closed.go): emulated terminals are data (design.md, "Emulated terminals
//     and connections"); their next intended starts wait in one due-time heap per group (heap.go),
//     and a terminal goes back into it after its think and keying times. A terminal whose Next
//     returns Done leaves the run: a finite sequence, such as a power test's queries;
//   - the open loop (RunRate, open.go; its figures in rate.go and rate_stats.go): a dispatcher draws
//     arrivals from a Pacer (pacer.go, timeline.go), at times that depend on the seed and the
//     arrival's index alone, and hands each to an idle worker or a bounded backlog.
//
// The clock of an operation starts at its intended start, never later (design.md: "Start the latency
// clock late" is what the tool must never do). For a TPC-C terminal that is the end of its keying time
// (clause 5.2.5: choose the type, key, submit, wait for the response, think); for an arrival, its
// scheduled time. Work that is due while every worker is busy waits, in order of intended start, and
// that wait is part of its response time but not of its service time. Nothing is re-timed: response
// = completion - intended start, service = completion - dispatch, lag = dispatch - intended start.
//
// The measurement window is [Start+Warmup, Start+Warmup+Measure). An operation is measured when its
// intended start is inside the window, whenever it completes. At the window's end no new work is
// started, except work whose intended start was inside the window: it already arrived and its clock
// is running, so it is still dispatched (dropping it would hide exactly the queueing the window
// ended in). Everything measured that has not completed Grace after the window's end, in flight or
// still waiting for a worker, is counted per operation as incomplete (measure.Counts.Incomplete).
// When the work runs out before the window's end (every terminal Done, or a pacer that ends), the
// run ends as soon as the last operation has finished, and the window with it (Summary.Exhausted):
// early, but whole, not partial.
//
// Cost of the closed loop: workers take due work themselves under one mutex (no dispatcher
// goroutine, no hand-off in no-wait modes); idle workers sleep on a channel and one waker goroutine
// per group wakes one of them when the earliest intended start comes due. About 0.2 µs of CPU per
// operation in throughput mode and 0.5 µs when every operation goes through the timer
// (BenchmarkSchedulerOverhead*, with Go's timers alone). Go's timers can fire up to about 1 ms late
// when the process is otherwise idle (the runtime sleeps in epoll with millisecond resolution), so
// on Linux the waker sleeps the last 2 ms before a due time in the kernel (closed.go's waker,
// sleep_linux.go): a median lag of tens of microseconds instead of half a millisecond, for a few
// tens of µs of CPU per wake-up (BenchmarkClosedWaits). What lateness is left is real and shows in
// Lag and Response, which is why Lag is recorded; the closed loop's share of it, with waits for a
// connection left out, is Summary.TimerLag. At a million terminals a terminal costs 64
// bytes of its own plus its heap entry (24) and its place in Config.Terminals (16). The open loop's cost is in open.go.
package schedule

import (
	"context"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/measure"
)

// Terminal is an emulated terminal's state: its random stream, its deck, its place. The scheduler
// calls a Terminal from one goroutine at a time (whichever worker holds it), and its Executor's
// Execute between a Next and the Think after it: a terminal may draw its operation's inputs there,
// into the worker's scratch, and keep none between operations (TPC-C's terminal does).
type Terminal interface {
	// Next draws the terminal's next operation and returns its type and the keying time before it is
	// due (0 when there is none); or Done, when the terminal has no more work: it then leaves the
	// run.
	Next() (op int, keying time.Duration)
	// Think is the think time after an operation of type op completed (0 in no-wait modes).
	Think(op int) time.Duration
}

// Gated is an optional ability of a closed-loop Terminal: its first operation waits until Gate is
// closed (TPC-H's throughput test, whose streams start once the power test has ended). Its first
// Next is called then, and its keying time counts from that moment, so the wait is nobody's
// response time. A nil Gate starts it with the others. A terminal whose gate is still shut when
// the run ends never started: nothing of it arrived, nothing of it is incomplete; while it waits
// the run is not out of work (Summary.Exhausted needs every terminal Done).
type Gated interface {
	Terminal
	Gate() <-chan struct{}
}

// Done is the operation a Terminal's Next returns when the terminal has finished its sequence (a
// finite workload, such as TPC-H's power test): the terminal leaves the run, and once every terminal
// has left and its last operation has finished, the run ends (Summary.Exhausted).
const Done = -1

// Outcome is what running one operation gave.
type Outcome struct {
	Retries    int   // attempts beyond the first
	Err        error // non-nil: the operation failed (after its retries)
	RolledBack bool  // business rollback (completed, not an error)
	Reconnects int   // connections re-established while running it
	// Class is why Err failed (driver.FailureOf, which the executor calls with its database);
	// FailNone leaves it to the core, which can classify from the error alone.
	Class driver.FailureClass
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

// Summary is how the run went; the latencies and counters are in Rec.
type Summary struct {
	// Start, MeasureStart and MeasureEnd are the window as planned, except that a cancellation
	// before the window's end moves MeasureEnd (and MeasureStart, if still in warm-up) to the
	// moment of cancellation, and running out of work (Exhausted) to the moment the last operation
	// finished. End is when Run finished (after the grace period, if needed).
	Start, MeasureStart, MeasureEnd, End time.Time
	// Incomplete operations, warm-up included, never finished (also in Rec's counters per op).
	Incomplete int
	// Partial: the context was cancelled before the window's end; everything measured until then
	// is in Rec.
	Partial bool
	// Exhausted: the work ran out before the window's end (every terminal was Done, or the pacer
	// ended) and all of it finished; the run ended there, early but whole (not Partial).
	Exhausted bool
	// Dispatched and Completed count operations over the whole run, warm-up included; Completed
	// counts failures too (every Execute that returned in time).
	Dispatched, Completed int64
	// TimerLag is the closed loop's lateness of its measured dispatches (nil for the open loop,
	// whose lateness is in RateSummary).
	TimerLag *TimerLag
}

// TimerLag is how late a closed loop's operations were dispatched by the driver itself: from the
// intended start (or, when every worker was busy then, from the moment the worker that ran it
// became free) to the dispatch. Timer firing, wake-ups and the lock are in it; waiting for a
// connection is not (that is in each operation's Lag). Past a millisecond at p99 the driver is the
// bottleneck.
type TimerLag struct {
	Count int64               // measured dispatches
	Ms    measure.Percentiles // milliseconds
}
