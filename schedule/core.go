package schedule

import (
	"context"
	"sync"
	"time"
	"unsafe"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/measure"
)

// The core: one pool of workers, each owning one connection (worker slot), optionally bound to
// groups (one per database endpoint), that both loops run on. It owns what the two loops share:
// the idle workers, the in-flight accounting, the measurement window, warm-up, grace and
// cancellation, the ticker, the recording of each completion into the measure.Recorder, the
// counting of what never finished, and the signal that the run is over. Where work comes from is a
// feeder's business (closed.go: terminals in due-time heaps; open.go: a dispatcher drawing arrivals
// from a pacer), and so is where work waits for a worker.
//
// Every measured time comes from here, the same way for both loops: an operation's intended start
// (task.at) is set by its feeder before the core sees it; dispatch is read just before Execute and
// completion just after; response = completion - intended start, service = completion - dispatch,
// lag = dispatch - intended start.

// task is one operation in the core's hands: waiting (in the open loop's backlog), then in its
// worker's slot from the moment it is taken until it has completed.
type task struct {
	t      Terminal      // the closed loop's terminal, or the open loop's job record
	at     time.Duration // intended start, since the run's start
	ready  time.Duration // when a worker was free for it (open loop: of its group; closed: the one that took it)
	nextAt time.Duration // closed loop: the terminal's next intended start, drawn once this one ran
	op     int32
	tag    int32 // closed loop: the terminal's index; open loop: its step (-1: the warm-up)
	next   int32 // closed loop: the terminal's next operation (Done: it leaves)
}

// slot is one worker's state, guarded by core.mu except where it says otherwise.
type slot struct {
	slotState
	// Each worker writes its own slot outside mu (cur's closed-loop fields, prev), so slots are
	// padded to whole cache lines: two workers never write to the same one.
	_ [cacheLine - unsafe.Sizeof(slotState{})%cacheLine]byte
}

// cacheLine is a common cache line size, doubled (adjacent-line prefetching).
const cacheLine = 128

type slotState struct {
	wake      chan struct{} // capacity 1; sent to only when the worker is taken off its group's idle stack
	g         int           // the group whose work this worker runs
	busy      bool          // running cur (or about to: handed)
	handed    bool          // cur was handed to this idle worker (open loop), already counted in flight
	abandoned bool          // still running cur when the run closed: counted incomplete, result discarded
	cur       task
	prev      finished // the worker's previous task's event, until recorded; the worker's own, no mu
}

// group is a set of workers that run the same work (Config.TerminalGroup, RateConfig.WorkerGroup):
// its idle workers, a stack (the most recently busy worker is woken first). A run without groups
// has one. The feeder keeps each group's waiting work. Guarded by core.mu.
type group struct {
	idle []int
}

// feeder brings work to the core (closed.go, open.go). The core calls the methods marked (mu) with
// core.mu held, the others without it.
type feeder interface {
	// start runs once, after the workers have started.
	start()
	// take gives worker w of group g its next task, into t, if one may start now (mu).
	take(w, g int, now time.Duration, t *task) bool
	// idle follows worker w of group g going idle: it is on top of the group's idle stack (mu).
	idle(w, g int, now time.Duration)
	// ran follows t's Execute, which returned at done.
	ran(t *task, done time.Duration)
	// complete ends worker w's task t, finished at done and counted (mu).
	complete(w int, t *task, done time.Duration)
	// recorded follows the recording of a task's event.
	recorded(e *finished)
	// pending reports whether work may still start or is waiting for a worker (mu).
	pending() bool
	// exhausted reports whether the feeder has run out of work for good (mu).
	exhausted() bool
	// closing follows the window's end or a cancellation: from now on the run finishes as soon as
	// nothing is in flight or pending (mu).
	closing(now time.Duration)
	// stopped follows core.stop becoming true: nothing more may start (mu).
	stopped()
	// halt follows core.closed becoming true (mu); when it returns a channel, the core waits for it
	// to close (without mu) before it counts what is waiting.
	halt() <-chan struct{}
	// waiting calls count for each task that arrived but never started and counts as incomplete
	// (mu; after halt).
	waiting(count func(t *task))
	// abandoned counts t, in flight when the run closed, as incomplete in the feeder's own figures (mu).
	abandoned(t *task)
	// tick runs just before each Rec.Tick, in the ticker's goroutine; final: the run's last one.
	tick(now time.Time, final bool)
}

// coreConfig is what the core needs of a Config or a RateConfig.
type coreConfig struct {
	workers                int
	workerGroup            []int // nil: one group
	groups                 int
	exec                   Executor
	rec                    *measure.Recorder
	warmup, measure, grace time.Duration
	tick                   time.Duration
	onTick                 func(iv *measure.Interval)
	start                  time.Time
	hurry                  <-chan struct{} // closed: end the grace period at once
}

// core is the state of one run. Workers take work themselves under mu (no hand-off per operation
// unless the feeder hands one); an idle worker sleeps on its wake channel.
type core struct {
	cfg    coreConfig
	feed   feeder
	start  time.Time
	mStart time.Duration // window, as offsets from start
	mEnd   time.Duration

	mu          sync.Mutex
	groups      []group
	slots       []slot
	inflight    int
	dispatched  int64
	completed   int64
	closing     bool          // the window is over or ctx was cancelled: finish when idle
	stop        bool          // cancelled (or closed): start nothing more
	closed      bool          // over: workers exit, late results are discarded
	cutoff      time.Duration // work intended before this that never started is incomplete
	finished    chan struct{} // closed once nothing is in flight or pending, and closing or exhausted
	isFinished  bool
	exhausted   bool          // finished because the feeder ran out of work, before closing
	exhaustedAt time.Duration // when

	execCtx    context.Context
	execCancel context.CancelFunc
	wg         sync.WaitGroup
}

func newCore(cfg coreConfig) *core {
	start := cfg.start
	if start.IsZero() {
		start = time.Now()
	}
	c := &core{
		cfg:      cfg,
		start:    start,
		mStart:   cfg.warmup,
		mEnd:     cfg.warmup + cfg.measure,
		groups:   make([]group, cfg.groups),
		slots:    make([]slot, cfg.workers),
		cutoff:   cfg.warmup + cfg.measure,
		finished: make(chan struct{}),
	}
	for i := range c.slots {
		c.slots[i].wake = make(chan struct{}, 1)
		if cfg.workerGroup != nil {
			c.slots[i].g = cfg.workerGroup[i]
		}
	}
	return c
}

// now is the time since the run's start (monotonic clock).
func (c *core) now() time.Duration { return time.Since(c.start) }

func (c *core) measured(at time.Duration) bool { return at >= c.mStart && at < c.mEnd }

// popIdle takes group g's most recently idle worker off its idle stack, if there is one. The
// caller wakes it (wakeIdle) or hands it work (hand). Caller holds mu.
func (c *core) popIdle(g int) (int, bool) {
	gr := &c.groups[g]
	n := len(gr.idle)
	if n == 0 {
		return 0, false
	}
	w := gr.idle[n-1]
	gr.idle = gr.idle[:n-1]
	return w, true
}

// wakeIdle wakes one of group g's idle workers, which then takes its work itself; false when none
// is idle. Caller holds mu.
func (c *core) wakeIdle(g int) bool {
	w, ok := c.popIdle(g)
	if ok {
		c.slots[w].wake <- struct{}{}
	}
	return ok
}

// hand gives t to worker w, just taken off its idle stack, and wakes it. From here t is in flight.
// Caller holds mu.
func (c *core) hand(w int, t task) {
	sl := &c.slots[w]
	sl.busy, sl.handed, sl.cur = true, true, t
	c.inflight++
	c.dispatched++
	sl.wake <- struct{}{}
}

// setStopped stops dispatching: nothing more starts. Caller holds mu.
func (c *core) setStopped() {
	if !c.stop {
		c.stop = true
		c.feed.stopped()
	}
}

// checkFinished signals run once nothing is in flight, nothing is pending, and either the window
// is over (closing) or the feeder has run out of work for good. Caller holds mu.
func (c *core) checkFinished() {
	if c.isFinished || c.inflight != 0 {
		return
	}
	if !c.closing && !c.feed.exhausted() {
		return
	}
	if c.feed.pending() {
		return
	}
	c.isFinished = true
	if !c.closing {
		c.exhausted, c.exhaustedAt = true, c.now()
	}
	close(c.finished)
}

// finished is a task's event, kept by its worker until it is recorded (outside mu, once the worker
// has decided what to run next). It holds no pointers.
type finished struct {
	ev                        measure.Event
	at, ready, dispatch, done time.Duration
	op, tag                   int32
}

// worker is one connection's loop: take the next task (handed over, or from the feeder), run it,
// record it; sleep when there is none. The task lives in the worker's slot (cur) from the moment it
// is taken until it has completed.
func (c *core) worker(w int) {
	defer c.wg.Done()
	sl := &c.slots[w]
	t := &sl.cur
	g := sl.g
	stripe := c.cfg.rec.Stripe(w)
	exec, f := c.cfg.exec, c.feed
	// The worker's note of what its operation's retried attempts failed with (driver.Retry fills
	// it), and the last such error's text and message: a cause seen again is not made again.
	var note driver.RetryNote
	ctx := driver.WithRetryNote(c.execCtx, &note)
	var lastText, lastMsg string
	prev := &sl.prev
	pending := false // prev is still to be recorded
	// record records the previous task's event, outside mu. The run closes only after every worker
	// has returned, so it is in.
	record := func() {
		if pending {
			stripe.Done(int(prev.op), c.measured(prev.at), prev.ev)
			f.recorded(prev)
			pending = false
		}
	}
	c.mu.Lock()
	for {
		if c.closed {
			c.mu.Unlock()
			record()
			return
		}
		if sl.handed {
			sl.handed = false // already in flight
		} else {
			now := c.now()
			if !f.take(w, g, now, t) {
				c.groups[g].idle = append(c.groups[g].idle, w)
				f.idle(w, g, now)
				c.checkFinished()
				c.mu.Unlock()
				record()
				<-sl.wake
				c.mu.Lock()
				continue
			}
			sl.busy = true
			c.inflight++
			c.dispatched++
		}
		c.mu.Unlock()
		record()

		dispatch := c.now()
		note = driver.RetryNote{}
		out := exec.Execute(ctx, w, t.t, int(t.op), c.measured(t.at))
		done := c.now()
		f.ran(t, done)
		pending = true
		fail, msg := driver.FailNone, ""
		if out.Err != nil {
			fail, msg = out.Class, driver.FailureMessage(out.Err)
			if fail == driver.FailNone {
				fail = driver.FailureOf(nil, out.Err) // an executor that did not classify it
			}
		}
		retryFail, retryMsg := driver.FailNone, ""
		if out.Retries > 0 && note.Err != nil {
			if text := note.Err.Error(); text != lastText {
				lastText, lastMsg = text, driver.FailureText(text)
			}
			retryFail, retryMsg = note.Class, lastMsg
		}
		*prev = finished{
			ev: measure.Event{
				Response:   done - t.at,
				Service:    done - dispatch,
				Lag:        dispatch - t.at,
				Retries:    out.Retries,
				Err:        out.Err != nil,
				RolledBack: out.RolledBack,
				Reconnects: out.Reconnects,
				InWindow:   c.measured(done),
				Fail:       fail,
				Msg:        msg,
				RetryFail:  retryFail,
				RetryMsg:   retryMsg,
			},
			at: t.at, ready: t.ready, dispatch: dispatch, done: done,
			op: t.op, tag: t.tag,
		}

		c.mu.Lock()
		if sl.abandoned {
			c.mu.Unlock() // already counted incomplete; its late result is not recorded
			return
		}
		sl.busy = false
		c.inflight--
		c.completed++
		f.complete(w, t, done)
	}
}

// run runs the workers, the ticker and the feeder until the window has ended and its work has
// finished (or the grace period is over), the run was cancelled, or the feeder ran out of work;
// then it makes the final tick.
func (c *core) run(ctx context.Context) Summary {
	cfg := &c.cfg
	sum := Summary{
		Start:        c.start,
		MeasureStart: c.start.Add(c.mStart),
		MeasureEnd:   c.start.Add(c.mEnd),
	}
	cfg.rec.Begin(c.start, sum.MeasureStart, sum.MeasureEnd)
	// Work in flight must be able to finish during the grace period even after a cancellation, so
	// Execute's context is cancelled only when the run closes.
	c.execCtx, c.execCancel = context.WithCancel(context.WithoutCancel(ctx))
	defer c.execCancel()

	tickStop, tickDone := make(chan struct{}), make(chan struct{})
	go c.ticker(tickStop, tickDone)
	c.wg.Add(cfg.workers)
	for w := range cfg.workers {
		go c.worker(w)
	}
	c.feed.start()

	// Until the window ends, or cancellation, or the work ran out.
	cancelled := waitWindowEnd(ctx, sum.MeasureEnd, c.finished)

	c.mu.Lock()
	now := c.now()
	deadline := c.mEnd + cfg.grace
	switch {
	case c.exhausted && c.exhaustedAt < c.mEnd:
		// Every terminal is done, or the pacer ended, and all its work finished: the window ends
		// here, early and whole (not partial).
		sum.Exhausted = true
		sum.MeasureEnd = c.start.Add(c.exhaustedAt)
		if c.exhaustedAt < c.mStart {
			sum.MeasureStart = sum.MeasureEnd
		}
	case cancelled:
		c.setStopped() // start nothing more, not even work that arrived inside the window
		if now < c.mEnd {
			sum.Partial = true
			// Work due up to now was waiting: if never dispatched it is incomplete.
			c.cutoff = now + 1
			sum.MeasureEnd = c.start.Add(now)
			if now < c.mStart {
				sum.MeasureStart = sum.MeasureEnd
			}
			deadline = now + cfg.grace
		}
	}
	c.closing = true
	c.feed.closing(now)
	c.checkFinished()
	c.mu.Unlock()

	// Wait for the work that arrived in the window, up to the grace period.
	waitGrace(ctx, cancelled, deadline-c.now(), c.finished, cfg.hurry, func() {
		c.mu.Lock()
		c.setStopped()
		c.checkFinished()
		c.mu.Unlock()
	})

	// Close: what is still in flight or still waiting is incomplete, never dropped silently.
	c.mu.Lock()
	c.closed = true
	c.setStopped()
	if wait := c.feed.halt(); wait != nil {
		c.mu.Unlock()
		<-wait // the feeder no longer touches its queues
		c.mu.Lock()
	}
	stripe := cfg.rec.Stripe(0)
	for w := range c.slots {
		sl := &c.slots[w]
		if sl.busy {
			sl.abandoned = true
			stripe.Incomplete(int(sl.cur.op), c.measured(sl.cur.at))
			c.feed.abandoned(&sl.cur)
			sum.Incomplete++
		}
	}
	c.feed.waiting(func(t *task) {
		stripe.Incomplete(int(t.op), c.measured(t.at))
		sum.Incomplete++
	})
	for g := range c.groups {
		for c.wakeIdle(g) {
		}
	}
	sum.Dispatched, sum.Completed = c.dispatched, c.completed
	c.mu.Unlock()
	c.execCancel()
	c.wg.Wait() // every worker has recorded its last event or abandoned it

	close(tickStop)
	<-tickDone
	sum.End = time.Now()
	c.feed.tick(sum.End, true)
	iv := cfg.rec.Tick(sum.End)
	if cfg.onTick != nil {
		cfg.onTick(iv)
	}
	return sum
}

// ticker calls the feeder's tick, Rec.Tick and OnTick every Tick until stop is closed.
func (c *core) ticker(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	tk := time.NewTicker(c.cfg.tick)
	defer tk.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tk.C:
			now := time.Now()
			c.feed.tick(now, false)
			iv := c.cfg.rec.Tick(now)
			if c.cfg.onTick != nil {
				c.cfg.onTick(iv)
			}
		}
	}
}

// waitGrace waits until finished is closed, the grace period d has passed or hurry is closed. A
// cancellation of ctx during the wait (when the run was not cancelled already) calls stop once, so
// that nothing more starts while the work in flight finishes.
func waitGrace(ctx context.Context, cancelled bool, d time.Duration, finished <-chan struct{}, hurry <-chan struct{}, stop func()) {
	grace := time.NewTimer(d)
	defer grace.Stop()
	ctxDone := ctx.Done()
	if cancelled {
		ctxDone = nil
	}
	for {
		select {
		case <-finished:
			return
		case <-grace.C:
			return
		case <-hurry:
			return
		case <-ctxDone:
			ctxDone = nil
			stop()
		}
	}
}

// waitWindowEnd waits until end, until ctx is cancelled, or until finished is closed (the work ran
// out), and says whether it was cancelled.
func waitWindowEnd(ctx context.Context, end time.Time, finished <-chan struct{}) (cancelled bool) {
	t := time.NewTimer(time.Until(end))
	defer t.Stop()
	select {
	case <-t.C:
		return false
	case <-finished:
		return false
	case <-ctx.Done():
		return true
	}
}
