package ycsb

import (
	"fmt"
	"math"
)

// Defaults of ExponentialGenerator's properties.
const (
	// DefaultExponentialPercentile is exponential.percentile: the share (in percent) of draws that
	// fall within the most recent exponential.frac of the records.
	DefaultExponentialPercentile = 95.0
	// DefaultExponentialFrac is exponential.frac, YCSB's literal 0.8571428571 (its comment says
	// "1/7", which it is not: 6/7).
	DefaultExponentialFrac = 0.8571428571
)

// Exponential is YCSB's ExponentialGenerator (requestdistribution=exponential): -ln(u)/gamma with
// gamma = -ln(1 - percentile/100)/rangeSize, so that percentile% of the draws are below rangeSize.
// CoreWorkload builds it with rangeSize = recordcount * exponential.frac and reads record
// last - draw, so the newest records are the most popular.
type Exponential struct {
	gamma float64
}

var _ NumberGenerator = (*Exponential)(nil)

// NewExponential returns the generator; percentile must lie in (0, 100) and rangeSize be positive.
func NewExponential(percentile, rangeSize float64) (*Exponential, error) {
	if !(percentile > 0 && percentile < 100) {
		return nil, fmt.Errorf("ycsb: exponential generator: percentile %v outside (0, 100)", percentile)
	}
	if !(rangeSize > 0) || math.IsInf(rangeSize, 0) {
		return nil, fmt.Errorf("ycsb: exponential generator: range %v is not positive", rangeSize)
	}
	return &Exponential{gamma: -math.Log(1-percentile/100) / rangeSize}, nil
}

// NextFloat returns -ln(u)/gamma for u uniform in [0, 1) (+Inf when u is 0, as in Java).
func (e *Exponential) NextFloat(r Source) float64 { return -math.Log(r.Float64()) / e.gamma }

// Next returns NextFloat truncated toward zero and saturated (Java narrows with intValue(), which
// saturates at 2^31-1; here at 2^63-1, so record numbers beyond 2^31 work).
func (e *Exponential) Next(r Source) int64 { return javaDoubleToLong(e.NextFloat(r)) }

// Mean returns 1/gamma.
func (e *Exponential) Mean() float64 { return 1 / e.gamma }
