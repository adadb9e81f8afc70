package compare

import (
	"math"
	"slices"
)

// ShiftInterval is the Hodges-Lehmann estimate of the shift of b over a (the median of the n_a n_b
// differences b_j - a_i) and its level confidence interval by Mann-Whitney's rank statistic (the
// differences at the ranks N/2 ∓ z sd(U), N = n_a n_b; Lehmann 1963). The rank statistic's
// standard deviation sqrt(n_a n_b (n_a+n_b+1)/12) is that of independent values; inflate (>= 1)
// widens it for autocorrelated ones. ok is false with fewer than two values on a side.
//
// The differences are never listed: the k-th smallest is found by bisection on the difference,
// counting the pairs at or below it in one pass over both sorted samples, so long runs of
// thousands of intervals cost no more than a few passes.
func ShiftInterval(a, b []float64, inflate, level float64) (iv Interval, ok bool) {
	if len(a) < 2 || len(b) < 2 {
		return Interval{}, false
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	na, nb := float64(len(a)), float64(len(b))
	n := na * nb
	z := normalQuantile(1 - (1-level)/2)
	k := math.Floor(n/2 - z*math.Max(inflate, 1)*math.Sqrt(na*nb*(na+nb+1)/12))
	k = math.Max(k, 1)
	lo, hi := b[0]-a[len(a)-1], b[len(b)-1]-a[0]
	iv.Low = kthDiff(a, b, k, lo, hi)
	iv.High = kthDiff(a, b, n-k+1, lo, hi)
	if int64(n)%2 == 1 {
		iv.Estimate = kthDiff(a, b, (n+1)/2, lo, hi)
	} else {
		iv.Estimate = (kthDiff(a, b, n/2, lo, hi) + kthDiff(a, b, n/2+1, lo, hi)) / 2
	}
	return iv, true
}

// countAtMost counts the pairs with b_j - a_i <= d (a and b sorted).
func countAtMost(a, b []float64, d float64) float64 {
	var c float64
	i := 0 // a[i:] are the a_i >= b_j - d; as b_j rises, i does
	for _, bj := range b {
		for i < len(a) && a[i] < bj-d {
			i++
		}
		c += float64(len(a) - i)
	}
	return c
}

// kthDiff is the k-th smallest (1-based) difference b_j - a_i, within [lo, hi] (the least and
// greatest), to a precision of 1e-9 of its range: the difference itself, since it is a value the
// count jumps at.
func kthDiff(a, b []float64, k, lo, hi float64) float64 {
	if countAtMost(a, b, lo) >= k {
		return lo
	}
	for range 100 {
		if hi-lo <= 1e-12*math.Max(1, math.Abs(hi)) {
			break
		}
		mid := lo + (hi-lo)/2
		if countAtMost(a, b, mid) >= k {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// normalQuantile is the p-quantile of the standard normal distribution (0 < p < 1), by bisection
// on its distribution function.
func normalQuantile(p float64) float64 {
	lo, hi := -40.0, 40.0
	for range 200 {
		mid := (lo + hi) / 2
		if 0.5*math.Erfc(-mid/math.Sqrt2) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
