package schedule

import (
	"fmt"
	"math"
	"time"
)

// Open-loop pacing (design.md, "Modes": rate). Intended arrival times come from the schedule alone,
// never from completions, so a slow database cannot slow the arrivals down (that would be
// coordinated omission). They are computed in two pure steps:
//
//  1. The pacer gives arrival i's position in "work", the expected number of arrivals so far:
//     S(i) = Gap(0) + ... + Gap(i), where a gap is 1 for constant arrivals and an exponential draw of
//     mean 1, a pure function of (seed, i), for Poisson arrivals.
//  2. The timeline maps work to time for piecewise-constant rates (a warm-up, then steps):
//     t_i = Λ⁻¹(S(i)) where Λ(t) is the integral of the rate from 0 to t.
//
// For one rate R that is t_i = S(i)/R: constant arrivals at 1/R, 2/R, ...; Poisson arrivals with
// exponential gaps of mean 1/R. Across a change of rate the process carries on where it is (the
// time-change construction of a non-homogeneous Poisson process), so every step gets exactly its
// own rate and nothing piles up at the boundary.

// Process is how arrivals are spaced.
type Process string

const (
	// Poisson arrivals: independent, exponential gaps of mean 1/rate (the default: how independent
	// users arrive).
	Poisson Process = "poisson"
	// Constant arrivals: exactly 1/rate apart.
	Constant Process = "constant"
)

// ParseProcess reads an --arrivals value.
func ParseProcess(s string) (Process, error) {
	switch Process(s) {
	case Poisson, Constant:
		return Process(s), nil
	}
	return "", fmt.Errorf("--arrivals %q is not an arrival process: use poisson or constant", s)
}

// Gap is the spacing, in units of the mean gap, between arrival i-1 and arrival i (arrival -1 is
// time zero). It is a pure function of the process, the seed and i.
func (p Process) Gap(seed uint64, i int64) float64 {
	if p == Constant {
		return 1
	}
	// -ln(u) with u uniform in (0, 1]: exponential with mean 1. u comes from SplitMix64 of the
	// seed and the index, so any arrival's gap can be computed alone, in any order.
	u := float64(splitmix(seed+uint64(i+1)*0x9e3779b97f4a7c15)>>11+1) / (1 << 53)
	return -math.Log(u)
}

// splitmix is the SplitMix64 finaliser.
func splitmix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

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

// Timeline maps work (expected arrivals since time zero) to time for a sequence of segments of
// constant rate. The zero value has no segments.
type Timeline struct {
	segs      []Step
	startWork []float64       // Λ at each segment's start
	startTime []time.Duration // each segment's start
	end       time.Duration
}

// NewTimeline returns the timeline of segs, played back to back from time zero. Segments must
// have a positive rate and duration.
func NewTimeline(segs []Step) Timeline {
	tl := Timeline{segs: append([]Step(nil), segs...)}
	var work float64
	var t time.Duration
	for _, s := range segs {
		tl.startWork = append(tl.startWork, work)
		tl.startTime = append(tl.startTime, t)
		work += s.Rate * s.Duration.Seconds()
		t += s.Duration
	}
	tl.end = t
	return tl
}

// End is the end of the last segment.
func (tl Timeline) End() time.Duration { return tl.end }

// At returns the time at which the work done reaches w (Λ⁻¹(w)), rounded to the nanosecond, and
// the index of its segment; ok is false when w lies beyond the last segment (or below zero).
func (tl Timeline) At(w float64) (at time.Duration, seg int, ok bool) {
	return tl.at(w, 0)
}

// at is At, searching forward from segment `from` (arrivals only move forward).
func (tl Timeline) at(w float64, from int) (time.Duration, int, bool) {
	if len(tl.segs) == 0 || w < 0 {
		return 0, 0, false
	}
	k := min(max(from, 0), len(tl.segs)-1)
	if w < tl.startWork[k] {
		k = 0
	}
	for k+1 < len(tl.segs) && w >= tl.startWork[k+1] {
		k++
	}
	s := tl.segs[k]
	off := time.Duration(math.Round((w - tl.startWork[k]) / s.Rate * float64(time.Second)))
	if off >= s.Duration { // rounding up to the next segment's start, or beyond the last
		if k+1 == len(tl.segs) {
			return 0, 0, false
		}
		return tl.startTime[k+1], k + 1, true
	}
	return tl.startTime[k] + off, k, true
}

// Segment returns the index of the segment holding time t, or -1 outside the timeline.
func (tl Timeline) Segment(t time.Duration) int {
	for k := len(tl.segs) - 1; k >= 0; k-- {
		if t >= tl.startTime[k] {
			if t < tl.startTime[k]+tl.segs[k].Duration {
				return k
			}
			return -1
		}
	}
	return -1
}

// Arrivals walks a pacer over a timeline: arrival 0, 1, 2, ... with their intended times. It is
// deterministic: the same process, seed and timeline give the same times.
type Arrivals struct {
	p    Process
	seed uint64
	tl   Timeline
	i    int64
	work float64
	seg  int
}

// NewArrivals returns the arrivals of process p (seeded with seed) over tl.
func NewArrivals(p Process, seed uint64, tl Timeline) *Arrivals {
	return &Arrivals{p: p, seed: seed, tl: tl}
}

// Next returns the next arrival's index, intended time and segment; ok is false once the timeline
// is over (and stays false).
func (a *Arrivals) Next() (i int64, at time.Duration, seg int, ok bool) {
	if a.i < 0 {
		return 0, 0, 0, false
	}
	a.work += a.p.Gap(a.seed, a.i)
	at, seg, ok = a.tl.at(a.work, a.seg)
	if !ok {
		a.i = -1
		return 0, 0, 0, false
	}
	i = a.i
	a.i++
	a.seg = seg
	return i, at, seg, true
}
