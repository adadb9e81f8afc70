package schedule

import (
	"fmt"
	"math"
	"time"
)

// Open-loop pacing (design.md, "Modes": rate). Intended arrival times come from the schedule alone,
// never from completions, so a slow database cannot slow the arrivals down (that would be
// coordinated omission). A Pacer gives them as a pure function of the seed and the arrival's index.
// The pacers of this package (Paced) compute them in two pure steps:
//
//  1. The process gives arrival i's position in "work", the expected number of arrivals so far:
//     S(i) = Gap(0) + ... + Gap(i), where a gap is 1 for constant arrivals and an exponential draw of
//     mean 1, a pure function of (seed, i), for Poisson arrivals.
//  2. The timeline maps work to time for the target rate over time (steps of constant rate, ramps
//     of linearly changing rate): t_i = Λ⁻¹(S(i)) where Λ(t) is the integral of the rate from 0 to t.
//
// For one rate R that is t_i = S(i)/R: constant arrivals at 1/R, 2/R, ...; Poisson arrivals with
// exponential gaps of mean 1/R. Across a change of rate, or along a ramp, the process carries on
// where it is (the time-change construction of a non-homogeneous Poisson process), so every stretch
// gets exactly its own rate's worth of arrivals and nothing piles up at a boundary.

// Pacer says when the arrivals of an open-loop run are intended (vegeta's Pacer, as a value: a new
// load shape needs no change to the dispatcher).
type Pacer interface {
	// Arrival returns arrival i: its intended time since the run's start, its segment and the target
	// rate there. It is a pure function of seed and i: how the run went never changes it. ok is
	// false when the pacer has ended before arrival i (and then for every later i too); a.At is then
	// when it ended (the end of its schedule, or its last arrival's time).
	//
	// from, when not nil, is an earlier arrival of the same pacer and seed, which the pacer may carry
	// on from: the dispatcher passes the previous arrival, so a walk costs O(1) per arrival where
	// computing an arrival alone may cost O(i) (a Poisson arrival's time is a sum of i+1 gaps). The
	// result is the same with or without it.
	Arrival(seed uint64, i int64, from *Arrival) (a Arrival, ok bool)
}

// Arrival is one intended arrival of a pacer.
type Arrival struct {
	I       int64         // its index: 0, 1, 2, ...
	At      time.Duration // intended time, since the run's start
	Segment int           // the pacer's segment (step or ramp) holding At
	Rate    float64       // the target rate at At, arrivals per second
	Work    float64       // the process's position S(I): expected arrivals up to and including this one
}

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

// Paced is process P's arrivals over timeline T: arrival i is at Λ⁻¹(S(i)) (the construction above).
// It ends with T's last segment.
type Paced struct {
	P Process
	T Timeline
}

var _ Pacer = Paced{}

// ConstantPacer is arrivals exactly 1/rate apart, from 1/rate on, forever.
func ConstantPacer(rate float64) Paced { return Paced{P: Constant, T: steadyTimeline(rate)} }

// PoissonPacer is Poisson arrivals at rate, forever.
func PoissonPacer(rate float64) Paced { return Paced{P: Poisson, T: steadyTimeline(rate)} }

// StepsPacer is process p's arrivals over steps played back to back from time zero (each at its own
// rate): it ends with the last step. RunRate's own pacer is StepsPacer(Process, warm-up + Steps).
func StepsPacer(p Process, steps []Step) Paced { return Paced{P: p, T: NewTimeline(steps)} }

// RampPacer is process p's arrivals at a rate going linearly from `from` to `to` (per second) over
// d, then ends.
func RampPacer(p Process, from, to float64, d time.Duration) Paced {
	return Paced{P: p, T: NewRampTimeline([]Ramp{{From: from, To: to, Duration: d}})}
}

// Validate reports what makes the pacer unusable (an unknown process, a rate or a duration out of
// range), in words for the user.
func (pc Paced) Validate() error {
	if _, err := ParseProcess(string(pc.P)); err != nil {
		return err
	}
	return pc.T.validate()
}

// Arrival implements Pacer.
func (pc Paced) Arrival(seed uint64, i int64, from *Arrival) (Arrival, bool) {
	if i < 0 {
		return Arrival{I: i}, false
	}
	var work float64
	k, seg := int64(0), 0
	if from != nil && from.I >= 0 && from.I <= i {
		work, k, seg = from.Work, from.I+1, from.Segment
	}
	for ; k <= i; k++ {
		work += pc.P.Gap(seed, k)
	}
	at, seg, rate, ok := pc.T.at(work, seg)
	if !ok {
		return Arrival{I: i, At: pc.T.end, Work: work}, false
	}
	return Arrival{I: i, At: at, Segment: seg, Rate: rate, Work: work}, true
}

// Limited is P's first N arrivals: a finite sequence.
type Limited struct {
	P Pacer
	N int64
}

var _ Pacer = Limited{}

// Limit returns p's first n arrivals: after them, p ends.
func Limit(p Pacer, n int64) Limited { return Limited{P: p, N: n} }

// Arrival implements Pacer. Past the N-th arrival it ends at that arrival's time (or when P ended,
// if sooner).
func (l Limited) Arrival(seed uint64, i int64, from *Arrival) (Arrival, bool) {
	if i < l.N {
		return l.P.Arrival(seed, i, from)
	}
	if l.N <= 0 {
		return Arrival{I: i}, false
	}
	if from != nil && from.I >= l.N {
		from = nil
	}
	last, _ := l.P.Arrival(seed, l.N-1, from) // its time, or P's end when P ended sooner
	return Arrival{I: i, At: last.At}, false
}

// Validate validates P when it can.
func (l Limited) Validate() error {
	if v, ok := l.P.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}

// Arrivals walks a pacer: arrival 0, 1, 2, ... with their intended times. It is deterministic: the
// same pacer and seed give the same times.
type Arrivals struct {
	p    Pacer
	seed uint64
	prev Arrival
	next int64 // -1: ended
	// A Paced pacer is walked here directly, with the same arithmetic as Paced.Arrival (the sum of
	// the gaps in order, then the timeline): the same times for a fraction of the cost, since one
	// arrival's gap is computed while the previous one's time still is.
	paced bool
	pc    Paced
	work  float64
	seg   int
}

// NewArrivals returns the arrivals of process p (seeded with seed) over tl.
func NewArrivals(p Process, seed uint64, tl Timeline) *Arrivals {
	return Walk(Paced{P: p, T: tl}, seed)
}

// Walk returns the arrivals of pacer p, seeded with seed.
func Walk(p Pacer, seed uint64) *Arrivals {
	a := &Arrivals{p: p, seed: seed}
	a.pc, a.paced = p.(Paced)
	return a
}

// Next returns the next arrival's index, intended time and segment; ok is false once the pacer has
// ended (and stays false).
func (a *Arrivals) Next() (i int64, at time.Duration, seg int, ok bool) {
	arr, ok := a.NextArrival()
	if !ok {
		return 0, 0, 0, false
	}
	return arr.I, arr.At, arr.Segment, true
}

// NextArrival returns the next arrival; ok is false once the pacer has ended (and stays false), and
// the arrival then says when it ended (see Pacer).
func (a *Arrivals) NextArrival() (Arrival, bool) {
	if a.next < 0 {
		return a.prev, false
	}
	if a.paced {
		a.work += a.pc.P.Gap(a.seed, a.next)
		at, seg, rate, ok := a.pc.T.at(a.work, a.seg)
		if !ok {
			a.prev, a.next = Arrival{I: a.next, At: a.pc.T.end, Work: a.work}, -1
			return a.prev, false
		}
		a.seg = seg
		a.next++
		return Arrival{I: a.next - 1, At: at, Segment: seg, Rate: rate, Work: a.work}, true
	}
	var from *Arrival
	if a.next > 0 {
		from = &a.prev
	}
	arr, ok := a.p.Arrival(a.seed, a.next, from)
	a.prev = arr
	if !ok {
		a.next = -1
		return arr, false
	}
	a.next++
	return arr, true
}
