package compare

import (
	"math"
)

// Series summarizes a series of per-interval values (for example transactions per second in each
// measured interval) with a standard error that allows for autocorrelation.
//
// Consecutive intervals of a run are not independent: a checkpoint, a vacuum or a cache warming up
// lasts longer than one interval, so a slow interval tends to follow a slow one. The plain standard
// error sd/sqrt(n) then claims more certainty than the data hold and noise looks like a win. We
// use the effective sample size of an AR(1) process, n_eff = n (1-r1)/(1+r1), with r1 the lag-1
// autocorrelation of the series, corrected for its small-sample bias (CorrectedAutocorr1); a
// negative r1 is taken as 0: it never buys more certainty than n independent intervals would. Batch means would need many more intervals than a run of a few
// minutes has.
type Series struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	// SD is the sample standard deviation (n-1 in the denominator).
	SD float64 `json:"sd"`
	// R1 is the lag-1 autocorrelation (CorrectedAutocorr1); NEff the effective sample size it gives.
	R1   float64 `json:"r1"`
	NEff float64 `json:"n_eff"`
	// SE is the standard error of the mean: SD / sqrt(NEff).
	SE float64 `json:"se"`
}

// Mean returns the arithmetic mean of xs (0 for none).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Autocorr1 returns the lag-1 autocorrelation of xs:
//
//	r1 = sum_{t=1}^{n-1} (x_t - m)(x_{t+1} - m) / sum_{t=1}^{n} (x_t - m)^2
//
// (the standard estimator, biased towards 0 for short series). It is 0 for fewer than 3 values or
// a constant series.
func Autocorr1(xs []float64) float64 {
	n := len(xs)
	if n < 3 {
		return 0
	}
	m := Mean(xs)
	var num, den float64
	for t, x := range xs {
		d := x - m
		den += d * d
		if t+1 < n {
			num += d * (xs[t+1] - m)
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// CorrectedAutocorr1 is Autocorr1 with the small-sample bias of the lag-1 estimator removed:
// for an AR(1) series of length n its expectation is about r - (1+4r)/n (Kendall 1954; Marriott and
// Pope 1954), so a dozen intervals of a strongly autocorrelated run would otherwise look nearly
// independent. It is Autocorr1 + (1 + 4 Autocorr1)/n, within [-1, 1]; 0 for fewer than 3 values.
func CorrectedAutocorr1(xs []float64) float64 {
	if len(xs) < 3 {
		return 0
	}
	r := Autocorr1(xs)
	return math.Max(-1, math.Min(1, r+(1+4*r)/float64(len(xs))))
}

// EffectiveN returns n (1-r)/(1+r) with r = max(r1, 0), never more than n and, for n >= 2, never
// less than 2 (so a standard error and n_eff-1 degrees of freedom exist).
func EffectiveN(n int, r1 float64) float64 {
	if n <= 0 {
		return 0
	}
	r := math.Max(r1, 0)
	if r >= 1 {
		r = 1
	}
	ne := float64(n) * (1 - r) / (1 + r)
	if n >= 2 {
		ne = math.Max(ne, 2)
	}
	return math.Min(ne, float64(n))
}

// Summarize returns the Series of xs.
func Summarize(xs []float64) Series {
	s := Series{N: len(xs), Mean: Mean(xs)}
	if s.N < 2 {
		s.NEff = float64(s.N)
		return s
	}
	var ss float64
	for _, x := range xs {
		ss += (x - s.Mean) * (x - s.Mean)
	}
	s.SD = math.Sqrt(ss / float64(s.N-1))
	s.R1 = CorrectedAutocorr1(xs)
	s.NEff = EffectiveN(s.N, s.R1)
	s.SE = s.SD / math.Sqrt(s.NEff)
	return s
}

// Interval is a confidence interval [Low, High] around an estimate.
type Interval struct {
	Estimate float64 `json:"estimate"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
}

// Excludes reports whether v lies outside [Low, High].
func (c Interval) Excludes(v float64) bool { return v < c.Low || v > c.High }

// WelchDiff is the difference of two means (b - a) with its Welch confidence interval.
type WelchDiff struct {
	Interval
	SE float64 `json:"se"`
	// DF is the Welch-Satterthwaite degrees of freedom, from the effective sample sizes.
	DF float64 `json:"df"`
}

// Welch returns the level (e.g. 0.95) confidence interval of b.Mean - a.Mean by Welch's t: the
// standard error is sqrt(a.SE^2 + b.SE^2) and the degrees of freedom
//
//	df = (a.SE^2 + b.SE^2)^2 / (a.SE^4/(a.NEff-1) + b.SE^4/(b.NEff-1)).
//
// With both standard errors zero the interval is the difference itself. Each series needs N >= 2.
func Welch(a, b Series, level float64) WelchDiff {
	d := WelchDiff{Interval: Interval{Estimate: b.Mean - a.Mean}}
	va, vb := a.SE*a.SE, b.SE*b.SE
	d.SE = math.Sqrt(va + vb)
	if d.SE == 0 {
		d.Low, d.High = d.Estimate, d.Estimate
		return d
	}
	den := 0.0
	if a.NEff > 1 {
		den += va * va / (a.NEff - 1)
	}
	if b.NEff > 1 {
		den += vb * vb / (b.NEff - 1)
	}
	d.DF = 1
	if den > 0 {
		d.DF = math.Max(1, (va+vb)*(va+vb)/den)
	}
	t := StudentTQuantile(1-(1-level)/2, d.DF)
	d.Low, d.High = d.Estimate-t*d.SE, d.Estimate+t*d.SE
	return d
}

// StudentTQuantile returns the p-quantile (0 < p < 1) of Student's t distribution with df > 0
// degrees of freedom (df need not be whole), by bisection on its distribution function.
func StudentTQuantile(p, df float64) float64 {
	if p == 0.5 {
		return 0
	}
	if p < 0.5 {
		return -StudentTQuantile(1-p, df)
	}
	lo, hi := 0.0, 1.0
	for studentTCDF(hi, df) < p {
		hi *= 2
		if hi > 1e12 {
			return math.Inf(1)
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if studentTCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo <= 1e-12*hi {
			break
		}
	}
	return (lo + hi) / 2
}

// studentTCDF is P(T <= t) for t >= 0: 1 - I_{df/(df+t^2)}(df/2, 1/2) / 2.
func studentTCDF(t, df float64) float64 {
	return 1 - 0.5*regIncBeta(df/(df+t*t), df/2, 0.5)
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by the continued fraction of
// Numerical Recipes (section 6.4), using the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) where it
// converges faster.
func regIncBeta(x, a, b float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(x, a, b) / a
	}
	return 1 - front*betaCF(1-x, b, a)/b
}

func betaCF(x, a, b float64) float64 {
	const maxIter, eps, tiny = 500, 1e-15, 1e-300
	clamp := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1/clamp(1-qab*x/qap)
	h := d
	for m := 1; m <= maxIter; m++ {
		fm := float64(m)
		m2 := 2 * fm
		aa := fm * (b - fm) * x / ((qam + m2) * (a + m2))
		d = 1 / clamp(1+aa*d)
		c = clamp(1 + aa/c)
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
		d = 1 / clamp(1+aa*d)
		c = clamp(1 + aa/c)
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

// quantileSorted returns the p-quantile of sorted values by linear interpolation between order
// statistics (Hyndman and Fan's type 7, the default of R and NumPy).
func quantileSorted(s []float64, p float64) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	h := p * float64(len(s)-1)
	i := int(math.Floor(h))
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[i] + (h-float64(i))*(s[i+1]-s[i])
}

// RateSeries describes a throughput (per minute) measured over a whole window: Mean is the
// window's rate (its count over its length, as the report gives it), and its standard error comes
// from the measured intervals, each of counts[i] operations in secs[i] seconds. The intervals'
// rates are weighted by their length: the residuals e_i = (c_i - R s_i)/s̄, with R the intervals'
// pooled rate Σc/Σs and s̄ their mean length, have the variance of a rate over one typical
// interval, and the window's rate is their mean; so SD is the residuals' standard deviation, and
// SE = SD/sqrt(n_eff) with n_eff from their lag-1 autocorrelation as in Summarize.
func RateSeries(mean float64, counts []int64, secs []float64) Series {
	s := Series{N: len(counts), Mean: mean}
	if s.N < 2 {
		s.NEff = float64(s.N)
		return s
	}
	var c, sec float64
	for i := range counts {
		c += float64(counts[i])
		sec += secs[i]
	}
	rate, mlen := c/sec, sec/float64(s.N)
	res := make([]float64, s.N)
	var ss float64
	for i := range counts {
		res[i] = (float64(counts[i]) - rate*secs[i]) / mlen * 60
		ss += res[i] * res[i]
	}
	s.SD = math.Sqrt(ss / float64(s.N-1))
	s.R1 = CorrectedAutocorr1(res)
	s.NEff = EffectiveN(s.N, s.R1)
	s.SE = s.SD / math.Sqrt(s.NEff)
	return s
}
