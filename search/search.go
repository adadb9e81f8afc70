package search

import (
	"math"
	"strconv"
)

// Config shapes a search.
type Config struct {
	// Start is the first rate probed (per second, all types together).
	Start float64
	// Factor multiplies the rate while probes pass (and divides it while they fail from the start).
	Factor float64
	// Precision ends the bisection once (fail - pass) / pass is at most this (0.05: within 5%).
	Precision float64
	// MaxProbes bounds the number of probes; MinRate is the lowest rate stepping down may try.
	MaxProbes int
	MinRate   float64
}

// Defaults are the search's default shape.
var Defaults = Config{Start: 50, Factor: 2, Precision: 0.05, MaxProbes: 12, MinRate: 1}

// Step is one probe of a search: the rate tried and whether it met every budget.
type Step struct {
	Rate float64
	Pass bool
}

// Result is the search's answer.
type Result struct {
	// MaxRate is the highest rate that passed (0: none did).
	MaxRate float64
	// FailRate is the lowest rate that failed (0: none did, so MaxRate is only a lower bound).
	FailRate float64
	// Converged: both bounds are known and within Precision of each other.
	Converged bool
	Steps     []Step
}

// Find steps the rate up by Factor from Start while probes pass, then bisects between the highest
// passing and the lowest failing rate until they are within Precision; when the very first rate
// fails it steps down by Factor first. probe runs one probe at a rate and says whether it met every
// budget; an error from it ends the search, returning what was found so far.
func Find(cfg Config, probe func(rate float64) (bool, error)) (Result, error) {
	var res Result
	lo, hi := 0.0, math.Inf(1)
	try := func(r float64) (bool, error) {
		pass, err := probe(r)
		if err != nil {
			return false, err
		}
		res.Steps = append(res.Steps, Step{Rate: r, Pass: pass})
		if pass {
			lo = max(lo, r)
		} else {
			hi = min(hi, r)
		}
		return pass, nil
	}
	done := func() bool { return len(res.Steps) >= cfg.MaxProbes }
	finish := func(err error) (Result, error) {
		res.MaxRate = lo
		if !math.IsInf(hi, 1) {
			res.FailRate = hi
		}
		res.Converged = lo > 0 && res.FailRate > 0 && (hi-lo)/lo <= cfg.Precision
		return res, err
	}
	// Up while passing.
	for r := cfg.Start; !done() && math.IsInf(hi, 1); r *= cfg.Factor {
		if _, err := try(r); err != nil {
			return finish(err)
		}
	}
	// Down while failing from the start.
	for r := hi / cfg.Factor; !done() && lo == 0 && r >= cfg.MinRate; r /= cfg.Factor {
		if _, err := try(r); err != nil {
			return finish(err)
		}
	}
	// Bisect.
	for !done() && lo > 0 && !math.IsInf(hi, 1) && (hi-lo)/lo > cfg.Precision {
		if _, err := try(midpoint(lo, hi)); err != nil {
			return finish(err)
		}
	}
	return finish(nil)
}

// midpoint is (lo+hi)/2 rounded to three significant digits when that stays strictly between them
// (rates in the table read better), else exact.
func midpoint(lo, hi float64) float64 {
	m := (lo + hi) / 2
	if r, err := strconv.ParseFloat(strconv.FormatFloat(m, 'g', 3, 64), 64); err == nil && r > lo && r < hi {
		return r
	}
	return m
}
