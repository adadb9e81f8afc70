package schedule

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Step is a stretch of the schedule at one target rate.
type Step struct {
	Rate     float64       // arrivals per second, all operation types together; > 0
	Duration time.Duration // > 0
}

// MaxSteps bounds the number of steps of a run (each step keeps its own histograms while it has
// work in flight, and its own line in the results).
const MaxSteps = 100

// Steps returns the steps from `from` to `to` (arrivals per second) by `by`, each lasting every:
// 100..1000 by 100 is 100, 200, ..., 1000 (ten steps); downwards when from > to; when `to` is not
// a whole number of steps away, it is added as the last step (100..950 by 100 ends 900, 950).
func Steps(from, to, by float64, every time.Duration) ([]Step, error) {
	switch {
	case !(from > 0) || !(to > 0) || math.IsInf(from, 0) || math.IsInf(to, 0):
		return nil, fmt.Errorf("rates must be above zero (got %g..%g)", from, to)
	case !(by > 0) || math.IsInf(by, 0):
		return nil, fmt.Errorf("the step must be above zero (got %g)", by)
	case every <= 0:
		return nil, fmt.Errorf("the step length must be above zero (got %s)", every)
	}
	dir := 1.0
	if to < from {
		dir = -1
	}
	n := math.Floor(math.Abs(to-from)/by*(1+1e-12)) + 1
	if n > MaxSteps {
		return nil, fmt.Errorf("%g..%g by %g is %.0f steps, more than %d: take a larger step", from, to, by, n, MaxSteps)
	}
	var steps []Step
	for k := 0; k < int(n); k++ {
		steps = append(steps, Step{Rate: from + dir*float64(k)*by, Duration: every})
	}
	if last := steps[len(steps)-1].Rate; math.Abs(last-to) > 1e-9*to {
		if len(steps) == MaxSteps {
			return nil, fmt.Errorf("%g..%g by %g is more than %d steps: take a larger step", from, to, by, MaxSteps)
		}
		steps = append(steps, Step{Rate: to, Duration: every})
	}
	return steps, nil
}

// MeasureOf is the length of the measurement window of steps.
func MeasureOf(steps []Step) time.Duration {
	var d time.Duration
	for _, s := range steps {
		d += s.Duration
	}
	return d
}

// Ramp is a stretch of the schedule whose target rate changes linearly from From to To (arrivals per
// second) over Duration. A Step is a Ramp with From == To.
type Ramp struct {
	From, To float64
	Duration time.Duration
}

// validate checks that the ramp is a schedule: rates finite and not negative, some arrivals, a
// positive duration.
func (r Ramp) validate() error {
	if !(r.From >= 0) || !(r.To >= 0) || math.IsInf(r.From, 0) || math.IsInf(r.To, 0) || r.From+r.To == 0 {
		return fmt.Errorf("a rate of %g to %g per second: rates must be finite, not negative, and not both zero", r.From, r.To)
	}
	if r.Duration <= 0 {
		return fmt.Errorf("a rate stretch of %s: durations must be above zero", r.Duration)
	}
	return nil
}

// forever is the length of a pacer's segment that never ends (some 292 years).
const forever = time.Duration(math.MaxInt64)

// Timeline maps work (expected arrivals since time zero) to time for a sequence of segments whose
// target rate is constant (steps) or changes linearly (ramps): Λ(t) is the integral of the rate from
// 0 to t, and At is its inverse. The zero value has no segments.
type Timeline struct {
	segs []segment
	end  time.Duration
}

// segment is one stretch of a timeline.
type segment struct {
	start, dur time.Duration
	work0      float64 // Λ at the segment's start
	from, to   float64 // the target rate at its start and at its end, per second
}

// NewTimeline returns the timeline of segs, played back to back from time zero. Segments must
// have a positive rate and duration.
func NewTimeline(segs []Step) Timeline {
	ramps := make([]Ramp, len(segs))
	for i, s := range segs {
		ramps[i] = Ramp{From: s.Rate, To: s.Rate, Duration: s.Duration}
	}
	return NewRampTimeline(ramps)
}

// NewRampTimeline returns the timeline of ramps, played back to back from time zero. Ramps must
// have finite rates, not negative and not both zero, and a positive duration (Paced.Validate).
func NewRampTimeline(ramps []Ramp) Timeline {
	var tl Timeline
	var work float64
	var t time.Duration
	for _, r := range ramps {
		tl.segs = append(tl.segs, segment{start: t, dur: r.Duration, work0: work, from: r.From, to: r.To})
		// The integral of a linear rate is its mean times its length (exact for a step).
		if r.From == r.To {
			work += r.From * r.Duration.Seconds()
		} else {
			work += (r.From + r.To) / 2 * r.Duration.Seconds()
		}
		t += r.Duration
	}
	tl.end = t
	return tl
}

// steadyTimeline is one rate from time zero, forever.
func steadyTimeline(rate float64) Timeline {
	return Timeline{segs: []segment{{dur: forever, from: rate, to: rate}}, end: forever}
}

// validate checks every segment (see Ramp).
func (tl Timeline) validate() error {
	if len(tl.segs) == 0 {
		return errors.New("a pacer needs at least one stretch of arrivals")
	}
	var errs []error
	for i, s := range tl.segs {
		if err := (Ramp{From: s.from, To: s.to, Duration: s.dur}).validate(); err != nil {
			errs = append(errs, fmt.Errorf("stretch %d: %w", i+1, err))
		}
	}
	return errors.Join(errs...)
}

// End is the end of the last segment.
func (tl Timeline) End() time.Duration { return tl.end }

// At returns the time at which the work done reaches w (Λ⁻¹(w)), rounded to the nanosecond, and
// the index of its segment; ok is false when w lies beyond the last segment (or below zero).
func (tl Timeline) At(w float64) (at time.Duration, seg int, ok bool) {
	at, seg, _, ok = tl.at(w, 0)
	return at, seg, ok
}

// at is At, searching forward from segment `from` (arrivals only move forward), and also returns
// the target rate at that time.
//
// Within a segment that starts at work W0 with rate r0 and ends after D with rate r1, the work done
// x seconds in is Λ(x) = r0·x + (r1-r0)·x²/(2D). For a step (r0 = r1) the inverse is x = (w-W0)/r0;
// for a ramp it is the root of that quadratic, x = 2(w-W0) / (r0 + √(r0² + 2(r1-r0)(w-W0)/D)), the
// form that stays exact when r1-r0 is small or r0 is zero. Worked: 0 to 10 per second over 10 s
// (Λ(x) = x²/2) puts work 2 at x = 4 / √(0 + 2·1·2) = 2 s, and work 50, the ramp's total, at 10 s.
func (tl Timeline) at(w float64, from int) (time.Duration, int, float64, bool) {
	if len(tl.segs) == 0 || w < 0 {
		return 0, 0, 0, false
	}
	k := min(max(from, 0), len(tl.segs)-1)
	if w < tl.segs[k].work0 {
		k = 0
	}
	for k+1 < len(tl.segs) && w >= tl.segs[k+1].work0 {
		k++
	}
	s := &tl.segs[k]
	rel := w - s.work0
	var off time.Duration
	rate := s.from
	if s.from == s.to {
		off = time.Duration(math.Round(rel / s.from * float64(time.Second)))
	} else if rel > 0 {
		d := s.dur.Seconds()
		slope := (s.to - s.from) / d
		x := 2 * rel / (s.from + math.Sqrt(max(s.from*s.from+2*slope*rel, 0)))
		off = time.Duration(math.Round(x * float64(time.Second)))
		rate = s.from + slope*x
	}
	if off >= s.dur { // rounding up to the next segment's start, or beyond the last
		if k+1 == len(tl.segs) {
			return 0, 0, 0, false
		}
		return tl.segs[k+1].start, k + 1, tl.segs[k+1].from, true
	}
	return s.start + off, k, rate, true
}

// Segment returns the index of the segment holding time t, or -1 outside the timeline.
func (tl Timeline) Segment(t time.Duration) int {
	for k := len(tl.segs) - 1; k >= 0; k-- {
		if s := tl.segs[k]; t >= s.start {
			if t-s.start < s.dur {
				return k
			}
			return -1
		}
	}
	return -1
}
