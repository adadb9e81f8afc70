package schedule

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/userr"
)

// Config is one run of terminals against a pool of workers (the closed loop).
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
	// Hurry, when closed (a second Ctrl-C), ends the grace period at once: what is in flight is
	// counted incomplete and the run returns what it measured.
	Hurry <-chan struct{}
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
// (or Grace has run out), then makes a final tick and returns. When every terminal is Done before
// the window's end, the run ends as soon as their last operations have finished: Summary.Exhausted,
// with MeasureEnd moved to that moment. Cancelling ctx (Ctrl-C) stops dispatching at once, waits up
// to Grace for work in flight and returns Summary{Partial: true} without an error; work already due
// but not dispatched is counted incomplete. Run returns an error only for an invalid Config, before
// starting anything.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	if err := cfg.validate(); err != nil {
		return Summary{}, err
	}
	c := newCore(coreConfig{
		workers: cfg.Workers, workerGroup: cfg.WorkerGroup, groups: cfg.groups(),
		exec: cfg.Exec, rec: cfg.Rec,
		warmup: cfg.Warmup, measure: cfg.Measure, grace: cfg.Grace,
		tick: cfg.Tick, onTick: cfg.OnTick, start: cfg.Start, hurry: cfg.Hurry,
	})
	f := newClosed(c, &cfg)
	c.feed = f
	f.begin()
	sum := c.run(ctx)
	sum.TimerLag = f.timerLag()
	return sum, nil
}

// heapGroup is a group's terminals waiting for their intended starts: its own due-time heap and
// waker. Guarded by core.mu.
type heapGroup struct {
	heap       dueHeap
	timerArmed bool          // the waker is to re-evaluate at timerAt
	timerAt    time.Duration // when it was armed for
	// rearm (capacity 1) tells the group's waker that timerAt moved earlier or was armed.
	rearm chan struct{}
}

// closed feeds the core from terminals: each terminal's next operation waits in its group's
// due-time heap until its intended start; a worker that finds it due takes it, and when it has
// run, the terminal thinks, keys its next operation and goes back into the heap. Idle workers
// sleep and one waker goroutine per group wakes one of them when the group's earliest intended
// start comes due (waitDue: Go's timer for the far part of the wait, the kernel's precise sleep
// for its last stretch). Nothing is handed over: workers take due work themselves.
type closed struct {
	c         *core
	terminals []Terminal
	groups    []heapGroup
	termGroup []int32 // each terminal's group
	nops      int
	seq       uint64
	live      int   // terminals that are not Done
	gated     []int // terminals waiting for their Gate (Gated), started by start
	quit      chan struct{}
	wakers    sync.WaitGroup // the groups' waker goroutines, ended by quit
	// freeAt is when each worker finished its last task; late is the timer lag of the measured
	// dispatches (both mu).
	freeAt []time.Duration
	late   *hdr.Histogram
}

var _ feeder = (*closed)(nil)

func newClosed(c *core, cfg *Config) *closed {
	f := &closed{
		c:         c,
		terminals: cfg.Terminals,
		groups:    make([]heapGroup, len(c.groups)),
		termGroup: make([]int32, len(cfg.Terminals)),
		nops:      len(cfg.Rec.Ops()),
		live:      len(cfg.Terminals),
		quit:      make(chan struct{}),
		freeAt:    make([]time.Duration, cfg.Workers),
		late:      measure.NewHistogram(),
	}
	per := make([]int, len(f.groups))
	for i := range f.termGroup {
		g := cfg.terminalGroup(i)
		f.termGroup[i] = int32(g)
		per[g]++
	}
	for g := range f.groups { // a terminal has at most one entry waiting: the heaps never grow
		f.groups[g].heap = make(dueHeap, 0, per[g])
		f.groups[g].rearm = make(chan struct{}, 1)
	}
	return f
}

// begin queues each terminal's first operation, due after its first keying time (which may be
// staggered). It runs before anything else.
func (f *closed) begin() {
	for i, t := range f.terminals {
		if g, ok := t.(Gated); ok && g.Gate() != nil {
			f.gated = append(f.gated, i)
			continue
		}
		op, keying := t.Next()
		f.push(int32(i), op, keying)
	}
}

// start starts the groups' wakers and waits, for each Gated terminal, for its gate, then queues
// its first operation from that moment; a gate still shut when the run closes leaves the terminal
// out (nothing of it arrived).
func (f *closed) start() {
	f.wakers.Add(len(f.groups))
	for g := range f.groups {
		go f.waker(g)
	}
	for _, i := range f.gated {
		gate := f.terminals[i].(Gated).Gate()
		go func() {
			select {
			case <-gate:
			case <-f.quit:
				return
			}
			op, keying := f.terminals[i].Next()
			c := f.c
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.stop || c.closed {
				return
			}
			now := c.now()
			f.push(int32(i), op, now+keying)
			f.kick(int(f.termGroup[i]), now)
			c.checkFinished()
		}()
	}
}

// push queues terminal term's next operation, intended at at, or lets the terminal leave when op
// is Done. Caller holds mu (or runs before the workers).
func (f *closed) push(term int32, op int, at time.Duration) {
	if op == Done {
		f.live--
		return
	}
	if op < 0 || op >= f.nops {
		panic(fmt.Sprintf("schedule: terminal %d drew operation %d; the recorder knows %d operations", term, op, f.nops))
	}
	f.seq++
	f.groups[f.termGroup[term]].heap.push(entry{at: at, seq: f.seq, term: term, op: int32(op)})
}

// dispatchable reports whether g's earliest entry may ever be dispatched: not stopped, and its
// intended start is inside the run (before the window's end). Caller holds mu.
func (f *closed) dispatchable(g *heapGroup) bool {
	return len(g.heap) > 0 && !f.c.stop && !f.c.closed && g.heap[0].at < f.c.mEnd
}

// kick makes sure group g's due work gets a worker: it wakes one of g's idle workers when the
// earliest entry is due, or arms g's timer for when it will be. Caller holds mu.
func (f *closed) kick(g int, now time.Duration) {
	hg := &f.groups[g]
	if len(f.c.groups[g].idle) == 0 || !f.dispatchable(hg) {
		return
	}
	at := hg.heap[0].at
	if at <= now {
		f.c.wakeIdle(g)
		return
	}
	if !hg.timerArmed || at < hg.timerAt {
		hg.timerArmed, hg.timerAt = true, at
		select {
		case hg.rearm <- struct{}{}:
		default: // the waker has a signal pending already
		}
	}
}

// preciseSlice bounds each of the waker's precise sleeps, so that a due time armed earlier during
// the last stretch is still kept within about that much.
const preciseSlice = time.Millisecond

// rateWindow is how often a waker measures the run's dispatch rate, which decides whether it waits
// precisely (below preciseBelowRate, as the open loop's dispatcher).
const rateWindow = 250 * time.Millisecond

// waker is group g's timer: it sleeps until the time kick armed (timerAt), then kicks the group,
// which wakes an idle worker for the due work. Far from the due time it waits on Go's timer,
// which costs nothing while it waits but fires up to about 1 ms late when the process is idle (the
// runtime sleeps in epoll with millisecond resolution); the last preciseStretch (2 ms) it sleeps
// in the kernel (clock_nanosleep, at most preciseSlice = 1 ms at a time, on its own OS thread with a
// timer slack of 1 µs; sleep_linux.go), as the open loop's dispatcher does: a few tens of
// microseconds late, for a few system calls per wake-up and no spinning. Like the open loop's
// dispatcher it waits precisely only while the run dispatches fewer than preciseBelowRate
// operations per second (measured over the last rateWindow): a busier process is rarely idle long
// enough for Go's timers to oversleep, and a system call per dispatch would cost CPU for nothing.
// What is measured does not change: the intended start is still the due time, and the timer lag
// is what is left.
func (f *closed) waker(g int) {
	defer f.wakers.Done()
	unlock := func() {}
	defer func() { unlock() }()
	locked, precise := false, usePreciseWaits
	hg, c := &f.groups[g], f.c
	var rateAt time.Duration
	var rateN int64
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		c.mu.Lock()
		armed, at, now := hg.timerArmed, hg.timerAt, c.now()
		fired := armed && at <= now
		if fired {
			hg.timerArmed = false
			f.kick(g, now) // wakes an idle worker, or arms again for a later due time
		}
		if el := now - rateAt; el >= rateWindow {
			rate := float64(c.dispatched-rateN) / el.Seconds()
			precise = usePreciseWaits && rate < preciseBelowRate
			rateAt, rateN = now, c.dispatched
		}
		c.mu.Unlock()
		if precise && !locked {
			unlock, locked = lockForWaits(), true
		}
		if fired && precise {
			// The worker just woken is queued to run next on this goroutine's P, which a sleep in
			// the kernel would hold (in a system call) until the runtime's monitor takes it back,
			// up to 10 ms later on a busy process: let the worker run first.
			runtime.Gosched()
		}
		switch {
		case !armed:
			select {
			case <-hg.rearm:
			case <-f.quit:
				return
			}
		case at <= now:
		case precise && at-now <= preciseStretch:
			nanosleep(min(at-now, preciseSlice))
			select {
			case <-f.quit:
				return
			default:
			}
		default:
			d := at - now
			if precise {
				d -= preciseStretch
			}
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-hg.rearm:
				timer.Stop()
			case <-f.quit:
				timer.Stop()
				return
			}
		}
	}
}

// take pops g's earliest entry when it is due, and wakes the next idle worker when more is due.
func (f *closed) take(w, g int, now time.Duration, t *task) bool {
	hg := &f.groups[g]
	if len(hg.heap) == 0 || hg.heap[0].at > now || !f.dispatchable(hg) {
		return false
	}
	e := hg.heap.pop()
	f.kick(g, now) // more due work and idle workers: wake the next one
	t.t, t.at, t.op, t.tag = f.terminals[e.term], e.at, e.op, e.term
	// Timer lag: from the intended start, or from when this worker became free if that was later
	// (the wait before is the connection's, not the driver's lateness), to now, the dispatch (but
	// for the unlock and the recording of the worker's previous task): timers, wake-ups, the lock.
	t.ready = max(e.at, f.freeAt[w])
	if f.c.measured(e.at) {
		record(f.late, now-t.ready)
	}
	return true
}

func (f *closed) idle(_, g int, now time.Duration) { f.kick(g, now) }

// ran draws the terminal's next operation, outside the lock: clause 5.2.5, after the response,
// think, then choose and key the next transaction.
func (f *closed) ran(t *task, done time.Duration) {
	think := t.t.Think(int(t.op))
	next, keying := t.t.Next()
	t.next, t.nextAt = int32(next), done+think+keying
}

func (f *closed) complete(w int, t *task, done time.Duration) {
	f.freeAt[w] = done
	f.push(t.tag, int(t.next), t.nextAt)
}

func (f *closed) recorded(*finished) {}

// timerLag summarises the timer lag; call it once the workers have returned.
func (f *closed) timerLag() *TimerLag {
	return &TimerLag{Count: f.late.TotalCount(), Ms: measure.Summarize(f.late)}
}

func (f *closed) pending() bool {
	for i := range f.groups {
		if f.dispatchable(&f.groups[i]) {
			return true
		}
	}
	return false
}

func (f *closed) exhausted() bool { return f.live == 0 }

// closing wakes the workers for work that arrived inside the window and is still due.
func (f *closed) closing(now time.Duration) {
	for g := range f.groups {
		f.kick(g, now)
	}
}

func (f *closed) stopped() {}

// halt ends the wakers and the gates' goroutines; the core waits for the wakers (which take mu).
func (f *closed) halt() <-chan struct{} {
	close(f.quit)
	done := make(chan struct{})
	go func() {
		f.wakers.Wait()
		close(done)
	}()
	return done
}

// waiting counts the entries that were due before the cutoff (the window's end, or the moment of
// a cancellation) and never started; later ones never arrived inside the run.
func (f *closed) waiting(count func(t *task)) {
	for i := range f.groups {
		for _, e := range f.groups[i].heap {
			if e.at < f.c.cutoff {
				count(&task{at: e.at, op: e.op, tag: e.term})
			}
		}
	}
}

func (f *closed) abandoned(*task) {}

func (f *closed) tick(time.Time, bool) {}
