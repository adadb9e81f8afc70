package schedule

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/candor-bench/candor/measure"
)

// job is one arrival: its drawn inputs (t) and where it belongs.
type job struct {
	t     Terminal
	at    time.Duration // intended arrival, since the run's start
	op    int32
	step  int32 // -1: warm-up
	group int32
}

// jobQueue is a FIFO of jobs (a growing ring).
type jobQueue struct {
	buf        []*job
	head, size int
}

func (q *jobQueue) push(j *job) {
	if q.size == len(q.buf) {
		nb := make([]*job, max(16, 2*len(q.buf)))
		for i := 0; i < q.size; i++ {
			nb[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.size)%len(q.buf)] = j
	q.size++
}

func (q *jobQueue) pop() *job {
	j := q.buf[q.head]
	q.buf[q.head] = nil
	q.head = (q.head + 1) % len(q.buf)
	q.size--
	return j
}

// rgroup is a group of workers and the arrivals waiting for them. Guarded by rateRun.mu.
type rgroup struct {
	queue jobQueue
	idle  []int // idle workers, a stack
	// freeSince is when the group last went from no idle worker to one.
	freeSince time.Duration
}

// rslot is one worker's state, guarded by rateRun.mu.
type rslot struct {
	wake chan struct{} // capacity 1
	g    *rgroup
	// handed is a job the dispatcher gave this idle worker, and ready when a worker was free for it.
	handed    *job
	ready     time.Duration
	busy      bool
	abandoned bool
	cur       *job
	freeSince time.Duration // when it finished its previous operation
}

// rateRun is the state of one RunRate. The dispatcher goroutine draws each arrival ahead of its
// intended time, sleeps until then, and hands it to an idle worker or queues it; workers take
// queued arrivals themselves when they finish, under mu.
type rateRun struct {
	cfg    RateConfig
	start  time.Time
	tl     Timeline
	warmup int // 1 when the timeline's segment 0 is the warm-up
	mStart time.Duration
	mEnd   time.Duration
	nops   int
	stats  *rateStats

	mu         sync.Mutex
	groups     []rgroup
	slots      []rslot
	free       []*job
	backlog    int // queued, all groups
	maxSince   int // deepest backlog since the last sample
	samples    []BacklogSample
	inflight   int
	dispatched int64
	completed  int64
	dispDone   bool
	closing    bool // the window is over or ctx was cancelled: finish when idle
	stopped    bool // cancelled: start nothing more
	closed     bool
	finished   chan struct{}
	isFinished bool

	stopDisp   chan struct{} // closed to stop the dispatcher
	dispExited chan struct{}
	execCtx    context.Context
	execCancel context.CancelFunc
	wg         sync.WaitGroup
}

func newRateRun(cfg RateConfig, start time.Time) *rateRun {
	segs := cfg.Steps
	warm := 0
	if cfg.Warmup > 0 {
		segs = append([]Step{{Rate: cfg.Steps[0].Rate, Duration: cfg.Warmup}}, cfg.Steps...)
		warm = 1
	}
	ngroups := 1
	for _, g := range cfg.WorkerGroup {
		ngroups = max(ngroups, g+1)
	}
	r := &rateRun{
		cfg:        cfg,
		start:      start,
		tl:         NewTimeline(segs),
		warmup:     warm,
		mStart:     cfg.Warmup,
		mEnd:       cfg.Warmup + MeasureOf(cfg.Steps),
		nops:       len(cfg.Rec.Ops()),
		groups:     make([]rgroup, ngroups),
		slots:      make([]rslot, cfg.Workers),
		finished:   make(chan struct{}),
		stopDisp:   make(chan struct{}),
		dispExited: make(chan struct{}),
	}
	r.stats = newRateStats(r.nops, cfg.Steps, cfg.Warmup)
	for i := range r.slots {
		g := 0
		if cfg.WorkerGroup != nil {
			g = cfg.WorkerGroup[i]
		}
		r.slots[i].wake = make(chan struct{}, 1)
		r.slots[i].g = &r.groups[g]
	}
	return r
}

func (r *rateRun) now() time.Duration { return time.Since(r.start) }

func (r *rateRun) measured(at time.Duration) bool { return at >= r.mStart && at < r.mEnd }

// newJob returns a free job record. Caller holds mu.
func (r *rateRun) newJob() *job {
	if n := len(r.free); n > 0 {
		j := r.free[n-1]
		r.free = r.free[:n-1]
		return j
	}
	return &job{t: r.cfg.Source.NewJob()}
}

// dispatch generates the arrivals until the window's end or a stop.
func (r *rateRun) dispatch() {
	defer close(r.dispExited)
	defer func() {
		r.stats.dispatcherDone()
		r.mu.Lock()
		r.dispDone = true
		r.checkFinished()
		r.mu.Unlock()
	}()
	precise := make([]bool, len(r.tl.segs)) // per segment: wait precisely before its arrivals
	anyPrecise := false
	for k, sg := range r.tl.segs {
		precise[k] = usePreciseWaits && sg.Rate < preciseBelowRate
		anyPrecise = anyPrecise || precise[k]
	}
	if anyPrecise {
		defer lockForWaits()()
	}
	arr := NewArrivals(r.cfg.Process, r.cfg.Seed, r.tl)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	r.mu.Lock()
	j := r.newJob()
	r.mu.Unlock()
	for {
		i, at, seg, ok := arr.Next()
		if !ok {
			return
		}
		// Draw ahead of the intended time, so the hand-off at that time is all that is left.
		op, g := r.cfg.Source.Draw(i, j.t)
		if op < 0 || op >= r.nops || g < 0 || g >= len(r.groups) {
			panic(fmt.Sprintf("schedule: arrival %d drew operation %d of group %d; the recorder knows %d operations and there are %d groups", i, op, g, r.nops, len(r.groups)))
		}
		j.at, j.op, j.step, j.group = at, int32(op), int32(seg-r.warmup), int32(g)
		if !r.waitUntil(at, timer, precise[seg]) {
			return
		}
		j = r.arrive(j)
	}
}

// usePreciseWaits turns the precise waits of sleep_linux.go on (tests under fake time turn them
// off: a system call sleeps in real time).
var usePreciseWaits = preciseWaits

// preciseBelowRate is the rate below which the dispatcher waits precisely. Above it arrivals are
// less than half a millisecond apart on average, the process is rarely idle long enough for the
// runtime to oversleep, and Go's timers were measured on time (a microsecond at the median), while
// a system call per arrival would cost some 30 µs of CPU for nothing.
const preciseBelowRate = 2000

// preciseStretch is how long before an arrival the dispatcher stops trusting Go's timer (which may
// be about 1 ms late) and waits in the kernel instead.
const preciseStretch = 2 * time.Millisecond

// waitUntil sleeps until the run's clock reaches at, the last stretch in the kernel when precise;
// false when the dispatcher was stopped.
func (r *rateRun) waitUntil(at time.Duration, timer *time.Timer, precise bool) bool {
	coarse := at - r.now()
	if precise {
		coarse -= preciseStretch
	}
	if coarse > 0 {
		timer.Reset(coarse)
		select {
		case <-timer.C:
		case <-r.stopDisp:
			timer.Stop()
			return false
		}
	}
	if precise {
		for rem := at - r.now(); rem > 0; rem = at - r.now() {
			nanosleep(rem)
		}
	}
	select {
	case <-r.stopDisp:
		return false
	default:
		return true
	}
}

// arrive hands j to an idle worker of its group, or queues it, or drops it, and returns the record
// to draw the next arrival into.
func (r *rateRun) arrive(j *job) *job {
	r.mu.Lock()
	if r.stopped {
		r.mu.Unlock()
		return j
	}
	g := &r.groups[j.group]
	next, dropped := j, false
	switch {
	case len(g.idle) > 0:
		w := g.idle[len(g.idle)-1]
		g.idle = g.idle[:len(g.idle)-1]
		sl := &r.slots[w]
		sl.handed, sl.ready = j, max(j.at, g.freeSince)
		sl.busy, sl.cur = true, j
		r.inflight++
		r.dispatched++
		sl.wake <- struct{}{}
		next = r.newJob()
	case r.backlog < r.cfg.MaxBacklog:
		g.queue.push(j)
		r.backlog++
		r.maxSince = max(r.maxSince, r.backlog)
		next = r.newJob()
	default:
		dropped = true
	}
	// Counted before any worker can finish it (mu is taken before the stats' lock, never after).
	r.stats.arrived(int(j.step), dropped, r.backlog)
	r.mu.Unlock()
	if dropped {
		r.cfg.Rec.Stripe(r.cfg.Workers).Dropped(int(j.op), r.measured(j.at))
	}
	return next
}

// checkFinished signals run when, after the window, nothing is in flight, queued or still to come.
// Caller holds mu.
func (r *rateRun) checkFinished() {
	if !r.closing || r.isFinished || r.inflight != 0 || !r.dispDone {
		return
	}
	if !r.stopped && r.backlog > 0 {
		return
	}
	r.isFinished = true
	close(r.finished)
}

// worker is one connection's loop: run what the dispatcher hands over, or the oldest queued
// arrival of its group; sleep when there is neither.
func (r *rateRun) worker(w int) {
	defer r.wg.Done()
	sl := &r.slots[w]
	g := sl.g
	stripe := r.cfg.Rec.Stripe(w)
	exec := r.cfg.Exec
	r.mu.Lock()
	for {
		if r.closed {
			r.mu.Unlock()
			return
		}
		var j *job
		var ready time.Duration
		switch {
		case sl.handed != nil:
			j, ready = sl.handed, sl.ready
			sl.handed = nil
		case !r.stopped && g.queue.size > 0:
			j = g.queue.pop()
			r.backlog--
			ready = max(j.at, sl.freeSince)
			sl.busy, sl.cur = true, j
			r.inflight++
			r.dispatched++
		default:
			if len(g.idle) == 0 {
				g.freeSince = sl.freeSince
			}
			g.idle = append(g.idle, w)
			r.checkFinished()
			r.mu.Unlock()
			<-sl.wake
			r.mu.Lock()
			continue
		}
		r.mu.Unlock()

		op, meas := int(j.op), r.measured(j.at)
		dispatch := r.now()
		out := exec.Execute(r.execCtx, w, j.t, op, meas)
		done := r.now()
		ev := measure.Event{
			Response:   done - j.at,
			Service:    done - dispatch,
			Lag:        dispatch - j.at,
			Retries:    out.Retries,
			Err:        out.Err != nil,
			RolledBack: out.RolledBack,
			Reconnects: out.Reconnects,
		}

		step, at := int(j.step), j.at

		r.mu.Lock()
		if sl.abandoned {
			r.mu.Unlock() // already counted incomplete; its late result is not recorded
			return
		}
		sl.busy, sl.cur, sl.freeSince = false, nil, done
		r.inflight--
		r.completed++
		r.free = append(r.free, j)
		r.mu.Unlock()
		// Recorded outside mu; the run closes only after every worker has returned, so it is in.
		stripe.Done(op, meas, ev)
		r.stats.done(step, op, &ev, dispatch-ready, ready-at, done)
		r.mu.Lock()
	}
}

func (r *rateRun) run(ctx context.Context) (Summary, *RateSummary) {
	cfg := r.cfg
	sum := Summary{Start: r.start, MeasureStart: r.start.Add(r.mStart), MeasureEnd: r.start.Add(r.mEnd)}
	cfg.Rec.Begin(r.start, sum.MeasureStart, sum.MeasureEnd)
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
	go r.dispatch()

	cancelled := waitWindowEnd(ctx, sum.MeasureEnd)

	r.mu.Lock()
	now := r.now()
	deadline := r.mEnd + cfg.Grace
	if cancelled {
		r.stopped = true // start nothing more: the backlog will be counted incomplete
		close(r.stopDisp)
		if now < r.mEnd {
			sum.Partial = true
			sum.MeasureEnd = r.start.Add(now)
			if now < r.mStart {
				sum.MeasureStart = sum.MeasureEnd
			}
			deadline = now + cfg.Grace
		}
	}
	r.closing = true
	r.checkFinished()
	r.mu.Unlock()

	waitGrace(ctx, cancelled, deadline-r.now(), r.finished, func() {
		r.mu.Lock()
		if !r.stopped {
			r.stopped = true
			close(r.stopDisp)
		}
		r.checkFinished()
		r.mu.Unlock()
	})

	// Close: what is in flight or queued is incomplete, never dropped silently.
	r.mu.Lock()
	r.closed = true
	if !r.stopped {
		r.stopped = true
		close(r.stopDisp)
	}
	r.mu.Unlock()
	<-r.dispExited // the dispatcher no longer touches the queues or the stats
	r.mu.Lock()
	stripe := cfg.Rec.Stripe(0)
	for w := range r.slots {
		sl := &r.slots[w]
		if sl.busy {
			sl.abandoned = true
			stripe.Incomplete(int(sl.cur.op), r.measured(sl.cur.at))
			r.stats.incomplete(int(sl.cur.step))
			sum.Incomplete++
		}
	}
	for gi := range r.groups {
		g := &r.groups[gi]
		for g.queue.size > 0 {
			j := g.queue.pop()
			stripe.Incomplete(int(j.op), r.measured(j.at))
			r.stats.incomplete(int(j.step))
			sum.Incomplete++
		}
		for _, w := range g.idle {
			r.slots[w].wake <- struct{}{}
		}
		g.idle = g.idle[:0]
	}
	r.backlog = 0
	sum.Dispatched, sum.Completed = r.dispatched, r.completed
	r.mu.Unlock()
	r.execCancel()
	r.wg.Wait()

	close(tickStop)
	<-tickDone
	sum.End = time.Now()
	r.sample(sum.End.Sub(r.start))
	iv := cfg.Rec.Tick(sum.End)
	if cfg.OnTick != nil {
		cfg.OnTick(iv)
	}
	rs := r.stats.summary(cfg.Process, cfg.MaxBacklog)
	rs.Backlog = r.samples
	return sum, rs
}

// sample records the backlog's depth at `at` and its deepest since the previous sample.
func (r *rateRun) sample(at time.Duration) {
	r.mu.Lock()
	s := BacklogSample{At: at, Depth: r.backlog, Max: r.maxSince}
	r.samples = append(r.samples, s)
	r.maxSince = r.backlog
	r.mu.Unlock()
	if r.cfg.OnBacklog != nil {
		r.cfg.OnBacklog(s)
	}
}

// ticker samples the backlog, releases finished steps, and calls Rec.Tick and OnTick every Tick.
func (r *rateRun) ticker(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	tk := time.NewTicker(r.cfg.Tick)
	defer tk.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tk.C:
			now := time.Now()
			r.sample(now.Sub(r.start))
			r.stats.release()
			iv := r.cfg.Rec.Tick(now)
			if r.cfg.OnTick != nil {
				r.cfg.OnTick(iv)
			}
		}
	}
}
