package search

import "math"

// ConfirmConfig shapes the confirmation of a search's answer. A search's probes are short and each
// rate is tried once, so its answer can rest on one lucky probe: the database may degrade over a
// longer run (a backlog that grows slowly, a cache that fills, a table that grows), or a repeat may
// simply land elsewhere. Confirmation re-runs the answer in longer probes, several times, and steps
// down while any of them fails.
type ConfirmConfig struct {
	// Repeats is how many confirming probes must all pass at one rate (0: no confirmation).
	Repeats int
	// StepDown is the fraction the rate drops by after a failed confirmation (0.1: to 90%).
	StepDown float64
	// MaxRounds bounds the rates tried; MinRate is the lowest one.
	MaxRounds int
	MinRate   float64
}

// Round is one rate tried by the confirmation: the probes run there, in order.
type Round struct {
	Rate   float64
	Passes []bool
}

// Confirmation is the outcome: the highest rate whose every repeat passed (0: none).
type Confirmation struct {
	Rate   float64
	Rounds []Round
}

// Confirmed says whether some rate passed every repeat.
func (c Confirmation) Confirmed() bool { return c.Rate > 0 }

// FailRate is the lowest rate where a confirming probe failed (0: none failed).
func (c Confirmation) FailRate() float64 {
	f := 0.0
	for _, r := range c.Rounds {
		for _, p := range r.Passes {
			if !p && (f == 0 || r.Rate < f) {
				f = r.Rate
			}
		}
	}
	return f
}

// Confirm runs cfg.Repeats probes at rate; the first failure moves it down by cfg.StepDown and
// starts again, until every repeat at one rate passes, cfg.MaxRounds rates were tried, or the rate
// would fall below cfg.MinRate. probe(rate, repeat) runs one probe (repeat from 1) and says whether it
// passed; an error from it ends the confirmation, returning what was found so far.
func Confirm(cfg ConfirmConfig, rate float64, probe func(rate float64, repeat int) (bool, error)) (Confirmation, error) {
	var c Confirmation
	if cfg.Repeats <= 0 || !(rate > 0) {
		return c, nil
	}
	step := cfg.StepDown
	if !(step > 0 && step < 1) {
		step = 0.1
	}
	for round := 0; round < max(cfg.MaxRounds, 1) && rate >= cfg.MinRate; round++ {
		c.Rounds = append(c.Rounds, Round{Rate: rate})
		r := &c.Rounds[len(c.Rounds)-1]
		all := true
		for k := 1; k <= cfg.Repeats; k++ {
			pass, err := probe(rate, k)
			if err != nil {
				return c, err
			}
			r.Passes = append(r.Passes, pass)
			if !pass {
				all = false
				break
			}
		}
		if all {
			c.Rate = rate
			return c, nil
		}
		rate = roundRate(rate * (1 - step))
	}
	return c, nil
}

// roundRate keeps three significant digits (rates in the table read better).
func roundRate(r float64) float64 {
	if r <= 0 {
		return r
	}
	p := math.Pow(10, math.Floor(math.Log10(r))-2)
	return math.Round(r/p) * p
}

// Spread is the range of one figure over the probes an answer rests on.
type Spread struct {
	Min, Max float64
	N        int
}

// Add takes one more value into the range.
func (s *Spread) Add(v float64) {
	if s.N == 0 || v < s.Min {
		s.Min = v
	}
	if s.N == 0 || v > s.Max {
		s.Max = v
	}
	s.N++
}

// Relative is (max - min) / min, the spread as a fraction of the lowest value (0 with fewer than
// two values or a zero minimum).
func (s Spread) Relative() float64 {
	if s.N < 2 || s.Min <= 0 {
		return 0
	}
	return (s.Max - s.Min) / s.Min
}
