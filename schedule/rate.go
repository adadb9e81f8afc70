package schedule

import (
	"context"
	"errors"
	"fmt"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/userr"
)

// Open-loop runs (RunRate): arrivals come at the times the schedule says (pacer.go), whatever the
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
	// Process spaces the arrivals; Seed seeds the Poisson gaps.
	Process Process
	Seed    uint64
	// Steps are the measurement window, step by step; Warmup precedes it at Steps[0]'s rate.
	Steps  []Step
	Warmup time.Duration
	// MaxBacklog bounds the arrivals waiting for a worker (all groups together); 0 allows none.
	MaxBacklog int
	// Grace, Tick, OnTick and Start are as in Config.
	Grace  time.Duration
	Tick   time.Duration
	OnTick func(iv *measure.Interval)
	Start  time.Time
	// OnBacklog, when set, receives each tick's backlog sample (before OnTick).
	OnBacklog func(BacklogSample)
}

// BacklogSample is the backlog's depth at the end of one tick and the deepest it was in the tick.
type BacklogSample struct {
	At    time.Duration // since the run's start
	Depth int
	Max   int
}

// OpSummary is one operation type's figures among a step's arrivals.
type OpSummary struct {
	Completed, Errors int64
	Response, Service measure.Percentiles
}

// StepSummary is one step's figures. Arrived, Dropped, Completed, Errors and Incomplete count the
// arrivals whose intended time falls in the step (whenever they finished); CompletedInStep counts
// the operations of any step that completed without error inside the step's time span, which is
// the rate the database achieved while the step's load was offered.
type StepSummary struct {
	Rate                                            float64
	Start, End                                      time.Duration // since the run's start
	Arrived, Dropped, Completed, Errors, Incomplete int64
	CompletedInStep                                 int64
	MaxBacklog                                      int
	Ops                                             []OpSummary // by operation index
	// Lag, timer lateness and connection wait of the step's arrivals, all types together.
	Lag, Lateness, ConnWait measure.Percentiles
}

// Seconds is the step's length.
func (s *StepSummary) Seconds() float64 { return (s.End - s.Start).Seconds() }

// AchievedRate is the completions per second inside the step.
func (s *StepSummary) AchievedRate() float64 { return float64(s.CompletedInStep) / s.Seconds() }

// OfferedRate is the arrivals per second the schedule actually drew in the step (a Poisson step
// offers its target rate only on average).
func (s *StepSummary) OfferedRate() float64 { return float64(s.Arrived) / s.Seconds() }

// SustainedShare is the least share of the offered rate a step must achieve to count as sustained.
const SustainedShare = 0.95

// Sustained reports whether the database kept up with the step: nothing dropped, nothing left
// unfinished, and at least SustainedShare of the offered arrivals completed inside the step.
func (s *StepSummary) Sustained() bool {
	return s.Dropped == 0 && s.Incomplete == 0 && float64(s.CompletedInStep) >= SustainedShare*float64(s.Arrived)
}

// RateSummary is what an open-loop run adds to Summary.
type RateSummary struct {
	Process    Process
	MaxBacklog int
	Steps      []StepSummary
	// Backlog is sampled once per tick.
	Backlog []BacklogSample
	// The measurement window, all steps and types together (counts as in StepSummary).
	Arrived, Dropped, Completed, Errors, Incomplete int64
	CompletedInWindow                               int64
	MaxBacklogSeen                                  int
	// Lag, timer lateness and connection wait of the window's arrivals (microseconds, the one
	// geometry of package measure).
	Lag, Lateness, ConnWait *hdr.Histogram
	// WarmupArrived and WarmupDropped count the warm-up's arrivals.
	WarmupArrived, WarmupDropped int64
}

// Sustained reports whether every step was sustained.
func (s *RateSummary) Sustained() bool {
	for i := range s.Steps {
		if !s.Steps[i].Sustained() {
			return false
		}
	}
	return true
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
	}
	if _, err := ParseProcess(string(c.Process)); err != nil {
		errs = append(errs, userr.Errorf("%s", err.Error()))
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

// RunRate runs an open-loop schedule: the warm-up, then each step, then up to Grace for the work
// that arrived in the window (in flight or waiting in the backlog). Cancelling ctx stops the
// arrivals at once, waits up to Grace for work in flight, counts the backlog as incomplete and
// returns a Partial summary. It returns an error only for an invalid config, before starting.
func RunRate(ctx context.Context, cfg RateConfig) (Summary, *RateSummary, error) {
	if err := cfg.validate(); err != nil {
		return Summary{}, nil, err
	}
	start := cfg.Start
	if start.IsZero() {
		start = time.Now()
	}
	r := newRateRun(cfg, start)
	sum, rs := r.run(ctx)
	return sum, rs, nil
}

// MeasureOf is the length of the measurement window of steps.
func MeasureOf(steps []Step) time.Duration {
	var d time.Duration
	for _, s := range steps {
		d += s.Duration
	}
	return d
}

func (s BacklogSample) String() string {
	return fmt.Sprintf("%.1fs depth %d max %d", s.At.Seconds(), s.Depth, s.Max)
}
