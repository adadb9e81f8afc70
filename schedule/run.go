package schedule

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/candor-bench/candor/measure"
)

// slot is one worker's state, guarded by run.mu.
type slot struct {
	wake      chan struct{} // capacity 1; sent to only when the worker is taken off its group's idle
	g         *group        // the group whose terminals this worker runs
	busy      bool          // running e
	abandoned bool          // still running e when the run closed: counted incomplete, result discarded
	e         entry
}

// group is a set of terminals and the workers that run them (Config.TerminalGroup): its own
// due-time heap, idle workers and timer. A run without groups has one. Guarded by run.mu.
type group struct {
	heap       dueHeap
	idle       []int // idle workers, a stack (the most recently busy worker is woken first)
	timer      *time.Timer
	timerArmed bool          // a timer callback is pending and will re-evaluate
	timerAt    time.Duration // when it was armed for
}

// run is the state of one Run. Workers pull due work themselves under mu (no dispatcher goroutine,
// no hand-off per operation); an idle worker sleeps on its wake channel, and one timer per group
// wakes one of the group's workers when its earliest intended start comes due.
type run struct {
	cfg    Config
	start  time.Time
	mStart time.Duration // window, as offsets from start
	mEnd   time.Duration
	nops   int

	mu         sync.Mutex
	groups     []group
	termGroup  []*group // each terminal's group
	seq        uint64
	slots      []slot
	inflight   int
	dispatched int64
	completed  int64
	closing    bool          // the window is over or ctx was cancelled: finish when idle
	stopped    bool          // cancelled: dispatch nothing more
	closed     bool          // over: workers exit, late results are discarded
	cutoff     time.Duration // entries due before this that were never dispatched are incomplete
	finished   chan struct{} // closed once closing and nothing is in flight or dispatchable
	isFinished bool

	execCtx    context.Context
	execCancel context.CancelFunc
	wg         sync.WaitGroup
}

func newRun(cfg Config, start time.Time) *run {
	r := &run{
		cfg:       cfg,
		start:     start,
		mStart:    cfg.Warmup,
		mEnd:      cfg.Warmup + cfg.Measure,
		nops:      len(cfg.Rec.Ops()),
		groups:    make([]group, cfg.groups()),
		termGroup: make([]*group, len(cfg.Terminals)),
		slots:     make([]slot, cfg.Workers),
		cutoff:    cfg.Warmup + cfg.Measure,
		finished:  make(chan struct{}),
	}
	for i := range r.termGroup {
		r.termGroup[i] = &r.groups[cfg.terminalGroup(i)]
	}
	for i := range r.slots {
		r.slots[i].wake = make(chan struct{}, 1)
		r.slots[i].g = &r.groups[cfg.workerGroup(i)]
	}
	return r
}

// now is the time since the run's start (monotonic clock).
func (r *run) now() time.Duration { return time.Since(r.start) }

func (r *run) measured(at time.Duration) bool { return at >= r.mStart && at < r.mEnd }

// push queues terminal term's next operation. Caller holds mu.
func (r *run) push(term int32, op int, at time.Duration) {
	if op < 0 || op >= r.nops {
		panic(fmt.Sprintf("schedule: terminal %d drew operation %d; the recorder knows %d operations", term, op, r.nops))
	}
	r.seq++
	r.termGroup[term].heap.push(entry{at: at, seq: r.seq, term: term, op: int32(op)})
}

// dispatchable reports whether g's earliest entry may ever be dispatched: not cancelled, and its
// intended start is inside the run (before the window's end). Caller holds mu.
func (r *run) dispatchable(g *group) bool {
	return len(g.heap) > 0 && !r.stopped && !r.closed && g.heap[0].at < r.mEnd
}

// anyDispatchable reports whether some group has an entry that may still be dispatched.
func (r *run) anyDispatchable() bool {
	for i := range r.groups {
		if r.dispatchable(&r.groups[i]) {
			return true
		}
	}
	return false
}

// kick makes sure g's due work gets a worker: it wakes one of g's idle workers when the earliest
// entry is due, or arms g's timer for when it will be. Caller holds mu.
func (r *run) kick(g *group, now time.Duration) {
	if len(g.idle) == 0 || !r.dispatchable(g) {
		return
	}
	at := g.heap[0].at
	if at <= now {
		w := g.idle[len(g.idle)-1]
		g.idle = g.idle[:len(g.idle)-1]
		r.slots[w].wake <- struct{}{}
		return
	}
	if !g.timerArmed || at < g.timerAt {
		g.timer.Reset(at - now)
		g.timerArmed, g.timerAt = true, at
	}
}

// kickAll kicks every group. Caller holds mu.
func (r *run) kickAll(now time.Duration) {
	for i := range r.groups {
		r.kick(&r.groups[i], now)
	}
}

func (r *run) onTimer(g *group) {
	r.mu.Lock()
	g.timerArmed = false
	r.kick(g, r.now())
	r.mu.Unlock()
}

// checkFinished signals Run when, after the window, nothing is in flight and nothing is left to
// dispatch. Caller holds mu.
func (r *run) checkFinished() {
	if r.closing && !r.isFinished && r.inflight == 0 && !r.anyDispatchable() {
		r.isFinished = true
		close(r.finished)
	}
}

// worker is one connection's loop: take the earliest due entry, run it, record it, queue the
// terminal's next operation; sleep when nothing is due.
func (r *run) worker(w int) {
	defer r.wg.Done()
	sl := &r.slots[w]
	g := sl.g
	stripe := r.cfg.Rec.Stripe(w)
	// The previous operation's event, recorded outside mu (after deciding what to run next).
	var (
		pending    bool
		pendOp     int
		pendMeas   bool
		pendEv     measure.Event
		terminals  = r.cfg.Terminals
		exec       = r.cfg.Exec
		flushEvent = func() {
			if pending {
				stripe.Done(pendOp, pendMeas, pendEv)
				pending = false
			}
		}
	)
	r.mu.Lock()
	for {
		if r.closed {
			r.mu.Unlock()
			flushEvent()
			return
		}
		now := r.now()
		if len(g.heap) == 0 || g.heap[0].at > now || !r.dispatchable(g) {
			r.checkFinished()
			g.idle = append(g.idle, w)
			r.kick(g, now)
			r.mu.Unlock()
			flushEvent()
			<-sl.wake
			r.mu.Lock()
			continue
		}
		e := g.heap.pop()
		sl.busy, sl.e = true, e
		r.inflight++
		r.dispatched++
		r.kick(g, now) // more due work and idle workers: wake the next one
		r.mu.Unlock()
		flushEvent()

		t, op := terminals[e.term], int(e.op)
		dispatch := r.now()
		out := exec.Execute(r.execCtx, w, t, op, r.measured(e.at))
		done := r.now()
		think := t.Think(op)
		next, keying := t.Next()
		pending, pendOp, pendMeas = true, op, r.measured(e.at)
		pendEv = measure.Event{
			Response:   done - e.at,
			Service:    done - dispatch,
			Lag:        dispatch - e.at,
			Retries:    out.Retries,
			Err:        out.Err != nil,
			RolledBack: out.RolledBack,
			Reconnects: out.Reconnects,
		}

		r.mu.Lock()
		if sl.abandoned {
			r.mu.Unlock() // already counted incomplete; its late result is not recorded
			return
		}
		sl.busy = false
		r.inflight--
		r.completed++
		// Clause 5.2.5: after the response, think, then choose and key the next transaction.
		r.push(e.term, next, done+think+keying)
	}
}

func (r *run) run(ctx context.Context) Summary {
	cfg := r.cfg
	sum := Summary{
		Start:        r.start,
		MeasureStart: r.start.Add(r.mStart),
		MeasureEnd:   r.start.Add(r.mEnd),
	}
	cfg.Rec.Begin(r.start, sum.MeasureStart, sum.MeasureEnd)
	// Each terminal's first operation is due after its first keying time (which may be staggered).
	for i, t := range cfg.Terminals {
		op, keying := t.Next()
		r.push(int32(i), op, keying)
	}
	for i := range r.groups {
		g := &r.groups[i]
		g.timer = time.AfterFunc(time.Hour, func() { r.onTimer(g) })
		g.timer.Stop()
	}
	// Work in flight must be able to finish during the grace period even after a cancellation, so
	// Execute's context is cancelled only when the run closes.
	r.execCtx, r.execCancel = context.WithCancel(context.WithoutCancel(ctx))
	defer r.execCancel()

	tickStop, tickDone := make(chan struct{}), make(chan struct{})
	go r.ticker(tickStop, tickDone)
	r.wg.Add(cfg.Workers)
	for w := range cfg.Workers {
		go r.worker(w)
	}

	// Until the window ends, or cancellation.
	cancelled := waitWindowEnd(ctx, sum.MeasureEnd)

	r.mu.Lock()
	now := r.now()
	deadline := r.mEnd + cfg.Grace
	if cancelled {
		r.stopped = true // start nothing more, not even work that arrived inside the window
	}
	if cancelled && now < r.mEnd {
		sum.Partial = true
		// Arrivals due up to now were waiting: if never dispatched they are incomplete.
		r.cutoff = now + 1
		sum.MeasureEnd = r.start.Add(now)
		if now < r.mStart {
			sum.MeasureStart = sum.MeasureEnd
		}
		deadline = now + cfg.Grace
	}
	r.closing = true
	r.kickAll(now)
	r.checkFinished()
	r.mu.Unlock()

	// Wait for the work that arrived in the window, up to the grace period.
	waitGrace(ctx, cancelled, deadline-r.now(), r.finished, func() {
		r.mu.Lock()
		r.stopped = true
		r.checkFinished()
		r.mu.Unlock()
	})

	// Close: what is still in flight or still waiting is incomplete, never dropped silently.
	r.mu.Lock()
	r.closed = true
	for i := range r.groups {
		r.groups[i].timer.Stop()
	}
	stripe := cfg.Rec.Stripe(0)
	for w := range r.slots {
		sl := &r.slots[w]
		if sl.busy {
			sl.abandoned = true
			stripe.Incomplete(int(sl.e.op), r.measured(sl.e.at))
			sum.Incomplete++
		}
	}
	for i := range r.groups {
		g := &r.groups[i]
		for _, e := range g.heap {
			if e.at < r.cutoff {
				stripe.Incomplete(int(e.op), r.measured(e.at))
				sum.Incomplete++
			}
		}
		for _, w := range g.idle {
			r.slots[w].wake <- struct{}{}
		}
		g.idle = g.idle[:0]
	}
	sum.Dispatched, sum.Completed = r.dispatched, r.completed
	r.mu.Unlock()
	r.execCancel()
	r.wg.Wait() // every worker has recorded its last event or abandoned it

	close(tickStop)
	<-tickDone
	sum.End = time.Now()
	iv := cfg.Rec.Tick(sum.End)
	if cfg.OnTick != nil {
		cfg.OnTick(iv)
	}
	return sum
}

// ticker calls Rec.Tick and OnTick every cfg.Tick until stop is closed.
func (r *run) ticker(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	tk := time.NewTicker(r.cfg.Tick)
	defer tk.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tk.C:
			iv := r.cfg.Rec.Tick(time.Now())
			if r.cfg.OnTick != nil {
				r.cfg.OnTick(iv)
			}
		}
	}
}

// waitGrace waits until finished is closed or the grace period d has passed. A cancellation of ctx
// during the wait (when the run was not cancelled already) calls stop once, so that nothing more
// starts while the work in flight finishes.
func waitGrace(ctx context.Context, cancelled bool, d time.Duration, finished <-chan struct{}, stop func()) {
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
		case <-ctxDone:
			ctxDone = nil
			stop()
		}
	}
}

// waitWindowEnd waits until end or until ctx is cancelled, and says whether it was cancelled.
func waitWindowEnd(ctx context.Context, end time.Time) (cancelled bool) {
	t := time.NewTimer(time.Until(end))
	defer t.Stop()
	select {
	case <-t.C:
		return false
	case <-ctx.Done():
		return true
	}
}
