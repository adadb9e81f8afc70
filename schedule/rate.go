package schedule

import (
	"fmt"
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

func (s BacklogSample) String() string {
	return fmt.Sprintf("%.1fs depth %d max %d", s.At.Seconds(), s.Depth, s.Max)
}
