package ycsb

import (
	"math"
	"testing"
)

// TestExponentialDefinition: with percentile 95 and range 857.1428571 (recordcount 1000 times YCSB's
// exponential.frac), 95% of 10^6 draws fall below the range (within 5 binomial standard deviations,
// 5 * sqrt(0.95*0.05/10^6) = 0.0011), and 1 - e^-1 = 63.2% below the mean 1/gamma.
func TestExponentialDefinition(t *testing.T) {
	const draws = 1_000_000
	rangeSize := 1000 * DefaultExponentialFrac
	e, err := NewExponential(DefaultExponentialPercentile, rangeSize)
	if err != nil {
		t.Fatal(err)
	}
	if want := rangeSize / -math.Log(0.05); math.Abs(e.Mean()-want) > 1e-9 {
		t.Errorf("mean %v, want %v", e.Mean(), want)
	}
	r := newRand(11)
	var below, belowMean int
	for i := 0; i < draws; i++ {
		x := e.NextFloat(r)
		if x < rangeSize {
			below++
		}
		if x < e.Mean() {
			belowMean++
		}
	}
	check := func(what string, got int, p float64) {
		share := float64(got) / draws
		if tol := 5 * math.Sqrt(p*(1-p)/draws); math.Abs(share-p) > tol {
			t.Errorf("%s: share %.5f, want %.5f +- %.5f", what, share, p, tol)
		}
	}
	check("below the range", below, 0.95)
	check("below the mean", belowMean, 1-math.Exp(-1))
}

// TestExponentialSaturates: u = 0 gives +Inf, which Next narrows to the largest long as Java does.
func TestExponentialSaturates(t *testing.T) {
	e, err := NewExponential(95, 100)
	if err != nil {
		t.Fatal(err)
	}
	if v := e.Next(&fixedSource{f: []float64{0}}); v != math.MaxInt64 {
		t.Errorf("Next at u=0 = %d, want MaxInt64", v)
	}
	for _, bad := range [][2]float64{{0, 100}, {100, 100}, {95, 0}, {95, math.Inf(1)}} {
		if _, err := NewExponential(bad[0], bad[1]); err == nil {
			t.Errorf("NewExponential(%v, %v) accepted", bad[0], bad[1])
		}
	}
}
