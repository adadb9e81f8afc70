package schedule

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/userr"
)

// Open-loop runs (RunRate): arrivals come at the times a pacer says (pacer.go), whatever the
// database does. An arrival that finds a free worker starts at once; one that finds every worker of
// its group busy waits in a bounded FIFO backlog, and that wait is part of its response time (which
// runs from the intended arrival, always). An arrival that finds the backlog full is dropped: it is
// counted per operation (measure.Counts.Dropped) and per step, never silently, and the run is then
// not sustained.
//
// Lag (dispatch - intended arrival) is split in two, so the driver's own lateness is never taken
// for the database's queue (design.md, "The driver watches itself"):
//   - connection wait: the part of the lag during which no worker (connection) of its group was
//     free for it: from the intended arrival to the moment one was;
//   - timer lateness: the rest, from max(intended arrival, a worker free) to the dispatch. That is
//     the driver's fault: a late timer, a slow hand-off, a starved goroutine.
//
// "A worker free" is, for an arrival handed straight to an idle worker, the moment the group last
// went from no idle worker to one (a worker was idle ever since); for an arrival taken from the
// backlog, the moment the worker that takes it finished its previous operation.
//
// Cost: about 0.7 µs of CPU per arrival for the dispatcher, hand-off and recording when busy
// (BenchmarkRateOverhead, 100,000 arrivals per second on two workers). Go's timers fire up to about
// 1 ms late when the process is otherwise idle, so below preciseBelowRate the dispatcher waits the
// last stretch before each arrival in the kernel on its own thread (sleep_linux.go): the median
// lateness at 500/s drops from about 500 µs to well under 100 µs (TestPreciseWaits), for some 30 µs
// of CPU per arrival. Whatever lateness remains is measured as timer lateness.

// Source draws the arrivals of an open-loop run.
type Source interface {
	// NewJob returns an empty job record. A job holds one arrival's drawn operation and inputs from
	// Draw until its Execute has returned; RunRate reuses records, so it allocates at most
	// Workers + MaxBacklog + 1 of them over a run.
	NewJob() Terminal
	// Draw fills job with arrival i's inputs and returns its operation and the worker group that
	// must run it (0 without groups). RunRate calls it from one goroutine, in arrival order, for
	// every arrival, the dropped ones included, so the inputs do not depend on how the run went.
	Draw(i int64, job Terminal) (op, group int)
}

// RateConfig is one open-loop run.
type RateConfig struct {
	Source Source
	// Workers is the number of connections; WorkerGroup (nil: one group) gives each worker's group,
	// and an arrival of group g runs only on a worker of group g.
	Workers     int
	WorkerGroup []int
	Exec        Executor
	// Rec receives one event per completed arrival (worker slot i records into Rec.Stripe(i)) and
	// the dropped ones (Rec.Stripe(Workers)).
	Rec *measure.Recorder
	// Process spaces the arrivals; Seed seeds the Poisson gaps (and Pacer).
	Process Process
	Seed    uint64
	// Steps are the measurement window, step by step; Warmup precedes it at Steps[0]'s rate.
	Steps  []Step
	Warmup time.Duration
	// Pacer, when set, gives the arrivals' intended times instead (any load shape: RampPacer,
	// Limit, ...), seeded with Seed, from the run's start, warm-up included; Process then only
	// names the arrivals in RateSummary.Process. The window is still Warmup and Steps: an arrival belongs to the step whose span holds
	// its intended time, and arrivals at or after the window's end are not made. A pacer that ends
	// before the window's end ends the run as soon as the work that arrived has finished
	// (Summary.Exhausted). Nil: StepsPacer(Process, the warm-up at Steps[0]'s rate, then Steps).
	Pacer Pacer
	// MaxBacklog bounds the arrivals waiting for a worker (all groups together); 0 allows none.
	MaxBacklog int
	// Grace, Tick, OnTick and Start are as in Config.
	Grace  time.Duration
	Tick   time.Duration
	OnTick func(iv *measure.Interval)
	Start  time.Time
	// OnBacklog, when set, receives each tick's backlog sample (before OnTick).
	OnBacklog func(BacklogSample)
	// Hurry is as in Config.
	Hurry <-chan struct{}
}

func (c *RateConfig) validate() error {
	if c.Exec == nil || c.Rec == nil || c.Source == nil {
		return errors.New("schedule: RateConfig.Source, Exec and Rec must be set")
	}
	var errs []error
	if c.Workers < 1 {
		errs = append(errs, userr.Errorf("the number of connections is %d; set it to at least 1", c.Workers))
	}
	if len(c.Steps) == 0 {
		errs = append(errs, userr.Errorf("an open-loop run needs a rate: give --rate"))
	}
	if len(c.Steps) > MaxSteps {
		errs = append(errs, userr.Errorf("%d rate steps are more than %d: take larger steps", len(c.Steps), MaxSteps))
	}
	for i, s := range c.Steps {
		if !(s.Rate > 0) || s.Duration <= 0 {
			errs = append(errs, userr.Errorf("rate step %d is %g per second for %s; rates and durations must be above zero", i+1, s.Rate, s.Duration))
		}
		if s.Rate > MaxRate {
			errs = append(errs, userr.Errorf("%s", RateTooHigh(s.Rate)))
		}
	}
	if c.Pacer == nil {
		if _, err := ParseProcess(string(c.Process)); err != nil {
			errs = append(errs, userr.Errorf("%s", err.Error()))
		}
	} else if v, ok := c.Pacer.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			errs = append(errs, userr.Errorf("the arrivals' pacer: %s", err.Error()))
		}
	}
	if c.MaxBacklog < 0 {
		errs = append(errs, userr.Errorf("--max-backlog is %d; it must not be negative", c.MaxBacklog))
	}
	if c.Warmup < 0 || c.Grace < 0 {
		errs = append(errs, userr.Errorf("the warm-up (%v) and grace (%v) durations must not be negative", c.Warmup, c.Grace))
	}
	if c.Tick <= 0 {
		errs = append(errs, userr.Errorf("the interval length is %v; set it above zero (for example 1s)", c.Tick))
	}
	if c.WorkerGroup != nil && len(c.WorkerGroup) != c.Workers {
		errs = append(errs, errors.New("schedule: RateConfig.WorkerGroup must have one entry per worker"))
	}
	for _, g := range c.WorkerGroup {
		if g < 0 {
			errs = append(errs, errors.New("schedule: negative worker group"))
			break
		}
	}
	return errors.Join(errs...)
}

// pacer is the pacer of the run: Pacer, or the steps after a warm-up at the first step's rate.
func (c *RateConfig) pacer() Pacer {
	if c.Pacer != nil {
		return c.Pacer
	}
	segs := c.Steps
	if c.Warmup > 0 {
		segs = append([]Step{{Rate: c.Steps[0].Rate, Duration: c.Warmup}}, c.Steps...)
	}
	return StepsPacer(c.Process, segs)
}

// RunRate runs an open-loop schedule: the warm-up, then each step, then up to Grace for the work
// that arrived in the window (in flight or waiting in the backlog). Cancelling ctx stops the
// arrivals at once, waits up to Grace for work in flight, counts the backlog as incomplete and
// returns a Partial summary. When the pacer ends before the window's end, the run ends once the
// work that arrived has finished (Exhausted). It returns an error only for an invalid config,
// before starting.
func RunRate(ctx context.Context, cfg RateConfig) (Summary, *RateSummary, error) {
	if err := cfg.validate(); err != nil {
		return Summary{}, nil, err
	}
	ngroups := 1
	for _, g := range cfg.WorkerGroup {
		ngroups = max(ngroups, g+1)
	}
	c := newCore(coreConfig{
		workers: cfg.Workers, workerGroup: cfg.WorkerGroup, groups: ngroups,
		exec: cfg.Exec, rec: cfg.Rec,
		warmup: cfg.Warmup, measure: MeasureOf(cfg.Steps), grace: cfg.Grace,
		tick: cfg.Tick, onTick: cfg.OnTick, start: cfg.Start, hurry: cfg.Hurry,
	})
	o := newOpen(c, &cfg)
	c.feed = o
	sum := c.run(ctx)
	rs := o.stats.summary(cfg.Process, cfg.MaxBacklog)
	rs.Backlog = o.samples
	if !sum.Partial {
		rs.unscheduled(o.reached, o.behind, o.made, sum.End.Sub(c.start))
	}
	return sum, rs, nil
}

// taskQueue is a FIFO of tasks (a growing ring).
type taskQueue struct {
	buf        []task
	head, size int
}

func (q *taskQueue) push(t task) {
	if q.size == len(q.buf) {
		nb := make([]task, max(16, 2*len(q.buf)))
		for i := 0; i < q.size; i++ {
			nb[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.size)%len(q.buf)] = t
	q.size++
}

func (q *taskQueue) pop() task {
	t := q.buf[q.head]
	q.buf[q.head] = task{}
	q.head = (q.head + 1) % len(q.buf)
	q.size--
	return t
}

// backlogGroup is the arrivals waiting for a group's workers. Guarded by core.mu.
type backlogGroup struct {
	queue taskQueue
	// freeSince is when the group last went from no idle worker to one.
	freeSince time.Duration
}

// open feeds the core from a pacer: the dispatcher goroutine draws each arrival ahead of its
// intended time, sleeps until then, and hands it to an idle worker of its group or queues it in the
// bounded backlog (or drops it); workers take queued arrivals themselves when they finish.
type open struct {
	c         *core
	cfg       *RateConfig
	pacer     Pacer
	stepStart []time.Duration // each step's start, since the run's start
	nops      int
	stats     *rateStats

	// Guarded by core.mu.
	groups   []backlogGroup
	slotFree []time.Duration // each worker: when it finished its previous operation
	free     []Terminal      // job records to draw into
	backlog  int             // queued, all groups
	maxSince int             // deepest backlog since the last sample
	samples  []BacklogSample
	dispDone bool // the dispatcher has returned: no arrival will come any more
	ended    bool // ... because the pacer ended before the window's end
	// reached is how far the dispatcher's schedule had got when the clock reached the window's
	// end: the window's end when it had made every arrival of the window by then, else the
	// intended time of the arrival it was making; behind is how far that lagged the clock.
	reached, behind time.Duration
	made            int64         // arrivals made (warm-up included, dropped ones too)
	stopDisp        chan struct{} // closed to stop the dispatcher
	dispExits       chan struct{}
}

var _ feeder = (*open)(nil)

func newOpen(c *core, cfg *RateConfig) *open {
	o := &open{
		c:         c,
		cfg:       cfg,
		pacer:     cfg.pacer(),
		nops:      len(cfg.Rec.Ops()),
		groups:    make([]backlogGroup, len(c.groups)),
		slotFree:  make([]time.Duration, cfg.Workers),
		stopDisp:  make(chan struct{}),
		dispExits: make(chan struct{}),
	}
	t := cfg.Warmup
	for _, s := range cfg.Steps {
		o.stepStart = append(o.stepStart, t)
		t += s.Duration
	}
	o.stats = newRateStats(o.nops, cfg.Steps, cfg.Warmup)
	return o
}

func (o *open) start() { go o.dispatch() }

// newJob returns a free job record. Caller holds mu.
func (o *open) newJob() Terminal {
	if n := len(o.free); n > 0 {
		j := o.free[n-1]
		o.free = o.free[:n-1]
		return j
	}
	return o.cfg.Source.NewJob()
}

// stepOf is the step whose span holds at (-1: the warm-up), at before the window's end; *k is the
// previous arrival's step, where the search starts (arrivals move forward).
func (o *open) stepOf(at time.Duration, k *int) int32 {
	if at < o.c.mStart {
		return -1
	}
	if at < o.stepStart[*k] {
		*k = 0
	}
	for *k+1 < len(o.stepStart) && at >= o.stepStart[*k+1] {
		*k++
	}
	return int32(*k)
}

// dispatch generates the arrivals until the window's end, the pacer's end or a stop.
func (o *open) dispatch() {
	defer close(o.dispExits)
	ended := false
	unlockThread := func() {}
	reached, made, atEnd := o.c.mEnd, int64(0), false
	var behind time.Duration
	defer func() {
		unlockThread()
		o.stats.dispatcherDone()
		o.c.mu.Lock()
		o.dispDone, o.ended = true, ended
		o.reached, o.behind, o.made = reached, behind, made
		o.c.checkFinished()
		o.c.mu.Unlock()
	}()
	arrivals := Walk(o.pacer, o.cfg.Seed)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	o.c.mu.Lock()
	j := o.newJob()
	o.c.mu.Unlock()
	locked, k := false, 0
	for {
		a, ok := arrivals.NextArrival()
		if !ok {
			ended = a.At < o.c.mEnd
			return
		}
		if a.At >= o.c.mEnd {
			return
		}
		// Draw ahead of the intended time, so the hand-off at that time is all that is left.
		op, g := o.cfg.Source.Draw(a.I, j)
		if op < 0 || op >= o.nops || g < 0 || g >= len(o.groups) {
			panic(fmt.Sprintf("schedule: arrival %d drew operation %d of group %d; the recorder knows %d operations and there are %d groups", a.I, op, g, o.nops, len(o.groups)))
		}
		precise := usePreciseWaits && a.Rate < preciseBelowRate
		if precise && !locked {
			unlockThread, locked = lockForWaits(), true
		}
		t := task{t: j, at: a.At, op: int32(op), tag: o.stepOf(a.At, &k)}
		stopped := !o.waitUntil(a.At, timer, precise)
		if !atEnd {
			// Where the schedule is when the clock reaches the window's end: an arrival of the
			// window still to make then is behind.
			if now := o.c.now(); now >= o.c.mEnd {
				atEnd, reached, behind = true, a.At, now-a.At
			}
		}
		if stopped {
			return
		}
		j = o.arrive(t, g)
		made++
	}
}

// usePreciseWaits turns the precise waits of sleep_linux.go on (tests under fake time turn them
// off: a system call sleeps in real time).
var usePreciseWaits = preciseWaits

// preciseBelowRate is the target rate below which the dispatcher waits precisely. Above it arrivals
// are less than half a millisecond apart on average, the process is rarely idle long enough for the
// runtime to oversleep, and Go's timers were measured on time (a microsecond at the median), while
// a system call per arrival would cost some 30 µs of CPU for nothing.
const preciseBelowRate = 2000

// preciseStretch is how long before an arrival the dispatcher stops trusting Go's timer (which may
// be about 1 ms late) and waits in the kernel instead.
const preciseStretch = 2 * time.Millisecond

// waitUntil sleeps until the run's clock reaches at, the last stretch in the kernel when precise;
// false when the dispatcher was stopped.
func (o *open) waitUntil(at time.Duration, timer *time.Timer, precise bool) bool {
	coarse := at - o.c.now()
	if precise {
		coarse -= preciseStretch
	}
	if coarse > 0 {
		timer.Reset(coarse)
		select {
		case <-timer.C:
		case <-o.stopDisp:
			timer.Stop()
			return false
		}
	}
	if precise {
		for rem := at - o.c.now(); rem > 0; rem = at - o.c.now() {
			nanosleep(rem)
		}
	}
	select {
	case <-o.stopDisp:
		return false
	default:
		return true
	}
}

// arrive hands t to an idle worker of group g, or queues it, or drops it, and returns the record
// to draw the next arrival into.
func (o *open) arrive(t task, g int) Terminal {
	c := o.c
	c.mu.Lock()
	if c.stop {
		c.mu.Unlock()
		return t.t
	}
	next, dropped := t.t, false
	if w, ok := c.popIdle(g); ok {
		t.ready = max(t.at, o.groups[g].freeSince)
		c.hand(w, t)
		next = o.newJob()
	} else if o.backlog < o.cfg.MaxBacklog {
		o.groups[g].queue.push(t)
		o.backlog++
		o.maxSince = max(o.maxSince, o.backlog)
		next = o.newJob()
	} else {
		dropped = true
	}
	// Counted before any worker can finish it (mu is taken before the stats' lock, never after).
	o.stats.arrived(int(t.tag), dropped, o.backlog)
	c.mu.Unlock()
	if dropped {
		c.cfg.rec.Stripe(o.cfg.Workers).Dropped(int(t.op), c.measured(t.at))
	}
	return next
}

// take gives worker w the oldest arrival waiting for its group.
func (o *open) take(w, g int, _ time.Duration, t *task) bool {
	bg := &o.groups[g]
	if o.c.stop || bg.queue.size == 0 {
		return false
	}
	*t = bg.queue.pop()
	o.backlog--
	t.ready = max(t.at, o.slotFree[w])
	return true
}

// idle notes when group g went from no idle worker to one: worker w, idle since it finished.
func (o *open) idle(w, g int, _ time.Duration) {
	if len(o.c.groups[g].idle) == 1 {
		o.groups[g].freeSince = o.slotFree[w]
	}
}

func (o *open) ran(*task, time.Duration) {}

func (o *open) complete(w int, t *task, done time.Duration) {
	o.slotFree[w] = done
	o.free = append(o.free, t.t)
}

// recorded adds the event to its step's figures, with its lag split: timer lateness from the
// moment a worker was free to the dispatch, connection wait before.
func (o *open) recorded(e *finished) {
	o.stats.done(int(e.tag), int(e.op), &e.ev, e.dispatch-e.ready, e.ready-e.at, e.done)
}

// pending: arrivals may still come, or wait in the backlog for a worker (unless stopped: then they
// will be counted incomplete).
func (o *open) pending() bool { return !o.dispDone || (!o.c.stop && o.backlog > 0) }

func (o *open) exhausted() bool { return o.dispDone && o.ended }

func (o *open) closing(time.Duration) {}

func (o *open) stopped() { close(o.stopDisp) }

// halt waits for the dispatcher, which no longer touches the queues or the stats once it exits.
func (o *open) halt() <-chan struct{} { return o.dispExits }

// waiting counts the backlog, which never started, as incomplete.
func (o *open) waiting(count func(t *task)) {
	for g := range o.groups {
		q := &o.groups[g].queue
		for q.size > 0 {
			t := q.pop()
			o.stats.incomplete(int(t.tag))
			count(&t)
		}
	}
	o.backlog = 0
}

func (o *open) abandoned(t *task) { o.stats.incomplete(int(t.tag)) }

// tick samples the backlog and, until the end, releases the steps that are over.
func (o *open) tick(now time.Time, final bool) {
	o.sample(now.Sub(o.c.start))
	if !final {
		o.stats.release()
	}
}

// sample records the backlog's depth at `at` and its deepest since the previous sample.
func (o *open) sample(at time.Duration) {
	o.c.mu.Lock()
	s := BacklogSample{At: at, Depth: o.backlog, Max: o.maxSince}
	o.samples = append(o.samples, s)
	o.maxSince = o.backlog
	o.c.mu.Unlock()
	if o.cfg.OnBacklog != nil {
		o.cfg.OnBacklog(s)
	}
}
