package schedule

import (
	"fmt"
	"strconv"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/measure"
)

// What an open-loop run (RunRate, open.go) reports beyond Summary: per step and for the whole
// window, the arrivals, drops, completions and the split of the lag; the backlog over time.

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
	// Unscheduled is the part of the step whose arrivals the dispatcher had not made when the
	// clock reached the window's end: its schedule had fallen behind (the driver could not keep
	// the rate; such arrivals were made late, or never).
	Unscheduled time.Duration
}

// Seconds is the step's length.
func (s *StepSummary) Seconds() float64 { return (s.End - s.Start).Seconds() }

// AchievedRate is the completions per second inside the step.
func (s *StepSummary) AchievedRate() float64 { return float64(s.CompletedInStep) / s.Seconds() }

// OfferedRate is the arrivals per second the schedule actually drew in the step (a Poisson step
// offers its target rate only on average).
func (s *StepSummary) OfferedRate() float64 { return float64(s.Arrived) / s.Seconds() }

// MaxRate is the highest arrival rate the dispatcher is asked to keep: it makes
// every arrival on one goroutine, at about 0.7 µs of CPU each when busy (BenchmarkRateOverhead), so
// past about a million a second it falls behind its own schedule whatever the database does, and
// the window would describe a rate that was never offered. A run that falls behind below it is
// caught too (StepSummary.Unscheduled).
const MaxRate = 1_000_000

// RateTooHigh is the refusal of a rate above MaxRate, with the figure.
func RateTooHigh(rate float64) string {
	return fmt.Sprintf("--rate %s/s is more than the driver can schedule: its dispatcher makes each arrival on one thread at about 0.7 µs of CPU, so at most 1,000,000/s; lower --rate (and run several drivers for more)", strconv.FormatFloat(rate, 'f', -1, 64))
}

// UnscheduledShare and UnscheduledFloor are how much of a step the dispatcher may leave unmade by
// the window's end (one late timer near the end, on a busy host) before the step counts as not
// offered in full: the larger of the two. Lateness below them is the driver's timer lateness
// (DRIVER_LATE), not a schedule it could not keep.
const (
	UnscheduledShare = 0.01
	UnscheduledFloor = 100 * time.Millisecond
)

// SustainedShare is the least share of the offered rate a step must achieve to count as sustained.
const SustainedShare = 0.95

// Sustained reports whether the database kept up with the step: the driver offered it in full
// (its schedule reached the step's end), nothing dropped, nothing left unfinished, and at least
// SustainedShare of the offered arrivals completed inside the step. An empty step the schedule
// never reached is not sustained.
func (s *StepSummary) Sustained() bool {
	return !s.Behind() && s.Dropped == 0 && s.Incomplete == 0 && float64(s.CompletedInStep) >= SustainedShare*float64(s.Arrived)
}

// Behind reports whether the dispatcher's schedule fell behind the clock before the step's end:
// more than UnscheduledShare of it (and more than UnscheduledFloor) was not offered in time.
func (s *StepSummary) Behind() bool {
	return s.Unscheduled > max(UnscheduledFloor, time.Duration(UnscheduledShare*float64(s.End-s.Start)))
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
	// Behind is how far the dispatcher's schedule lagged the clock when the window ended, when that
	// left a step behind (StepSummary.Behind; 0 otherwise); Reached is the intended time (since the
	// run's start) of the arrival it was making then. ScheduledRate is the arrivals it made per second of the
	// run, warm-up and drops included: what this driver could schedule.
	Behind, Reached time.Duration
	ScheduledRate   float64
}

// unscheduled records that the dispatcher's schedule had got only to reached (behind the clock by
// behind) at the window's end, having made made arrivals in elapsed: the part of each step after
// reached was not offered in time.
func (s *RateSummary) unscheduled(reached, behind time.Duration, made int64, elapsed time.Duration) {
	if elapsed > 0 {
		s.ScheduledRate = float64(made) / elapsed.Seconds()
	}
	if len(s.Steps) == 0 || reached >= s.Steps[len(s.Steps)-1].End {
		return
	}
	for i := range s.Steps {
		st := &s.Steps[i]
		if reached < st.End {
			st.Unscheduled = st.End - max(reached, st.Start)
		}
		if st.Behind() {
			s.Behind, s.Reached = behind, reached
		}
	}
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

func (s BacklogSample) String() string {
	return fmt.Sprintf("%.1fs depth %d max %d", s.At.Seconds(), s.Depth, s.Max)
}
