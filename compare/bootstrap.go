package compare

import (
	"math"
	"slices"

	"github.com/candor-bench/candor/gen"
)

// Bootstrap configures the percentile comparison. The zero value means the defaults.
type Bootstrap struct {
	// Resamples per run (default DefaultResamples).
	Resamples int
	// Seed of the resampling stream (default DefaultSeed): the same seed and data give the same
	// intervals, digit for digit.
	Seed uint64
	// Level of the confidence interval (default 0.95).
	Level float64
	// bootstrapOnly judges every quantile by the bootstrap, never by the per-interval shift (for
	// measuring one against the other).
	bootstrapOnly bool
}

// DefaultResamples and DefaultSeed are the bootstrap's defaults.
const (
	DefaultResamples = 1000
	DefaultSeed      = 1
	DefaultLevel     = 0.95
)

func (o Bootstrap) withDefaults() Bootstrap {
	if o.Resamples <= 0 {
		o.Resamples = DefaultResamples
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.Level <= 0 || o.Level >= 1 {
		o.Level = DefaultLevel
	}
	return o
}

// resample fills picked with len(picked) interval indexes drawn with replacement from 0..n-1.
func resample(r *gen.Rand, n int, picked []int) {
	for k := range picked {
		picked[k] = r.IntRange(0, n-1)
	}
}

// PercentileRatio compares one quantile of two runs.
type PercentileRatio struct {
	Q float64 `json:"q"`
	// A and B are the values at Q of each run's intervals merged (microseconds); 0 when empty.
	A int64 `json:"a_us"`
	B int64 `json:"b_us"`
	// Ratio is B/A with its confidence interval; meaningful only when Valid.
	Ratio Interval `json:"ratio"`
	Valid bool     `json:"valid"`
	// SEA and SEB are the bootstrap standard errors of log(value) of each run, already corrected
	// for autocorrelation; R1A/R1B and NEffA/NEffB the lag-1 autocorrelation of the per-interval
	// values and the effective number of intervals it gives; DF the Welch degrees of freedom.
	SEA   float64 `json:"se_log_a"`
	SEB   float64 `json:"se_log_b"`
	R1A   float64 `json:"r1_a"`
	R1B   float64 `json:"r1_b"`
	NEffA float64 `json:"n_eff_a"`
	NEffB float64 `json:"n_eff_b"`
	DF    float64 `json:"df"`
	// Resamples is the number of resamples in which both runs had values.
	Resamples int `json:"resamples"`
	// Method is how the interval was found: "per-interval shift" (ShiftInterval on the logs of
	// each measured interval's value at Q) or "bootstrap".
	Method string `json:"method"`
	// Shift is the Hodges-Lehmann ratio of the per-interval values (B's over A's), with the
	// per-interval shift; the ratio compared (Ratio.Estimate) is the windows' all the same.
	Shift float64 `json:"shift,omitempty"`
}

// Methods of a percentile's interval.
const (
	MethodShift     = "per-interval shift"
	MethodBootstrap = "bootstrap"
)

// ShiftMinTail is the fewest events beyond a quantile that the typical (median) measured interval of
// each run must hold for the quantile to be judged by the per-interval shift: with fewer, an
// interval's value at the quantile is its largest or near it, and the bootstrap judges.
const ShiftMinTail = 1

// Sides is one run's data for ComparePercentiles: the window's histogram (the values compared;
// nil: the intervals merged) and its measured intervals' histograms in time order (their spread).
type Sides struct {
	Window    Hist
	Intervals []Hist
}

// ComparePercentiles compares the quantiles qs (ascending, in 0..1) of two runs, each given as its
// measured intervals' histograms in time order.
//
// The values compared come from each run's window histogram (by default all of its intervals
// merged bucket by bucket). Their uncertainty comes from the intervals, in one of two ways.
//
// Where the typical (median) interval of both runs holds at least ShiftMinTail events beyond the
// quantile, each interval has a value of its own at it, and the interval of the change is
// ShiftInterval's on the logs of those values: the Hodges-Lehmann shift of B's over A's, with
// Mann-Whitney's interval widened by sqrt((1/n_eff,A + 1/n_eff,B)/(1/n_A + 1/n_B)) for the
// autocorrelation of the per-interval values (the effective sample sizes as throughput's, see
// Series). A run's window p99 rests on its worst intervals: on a busy host a few seconds of stalls
// move it by tens of percent, and an interval from the window's value (the bootstrap below) spans
// that spread, so a 10% slower engine went unseen in most pairs; the intervals' own values are
// not moved by a few stalled intervals, and the same pairs were told apart
// (TestShiftPowerWithStalls; docs/compare.md, measured).
//
// Elsewhere (a high quantile of intervals of few events) the interval comes from a bootstrap over
// whole intervals: each resample draws a run's intervals with replacement, merges the drawn
// histograms bucket by bucket and takes the quantile; the spread of log(quantile) over
// o.Resamples resamples (times n/(n-1) for the small-sample bias) is the standard error of each
// run's log value, as if its intervals were independent. Intervals are not independent, so, as
// for throughput (see Series), the variance is multiplied by n/n_eff with the effective sample
// size from the lag-1 autocorrelation of the per-interval values of that quantile. The o.Level
// interval of log(B/A) is then Welch's: log(B/A) ± t(df) sqrt(SEA^2 + SEB^2).
//
// Why not the bootstrap's percentile interval, or blocks of consecutive intervals? On synthetic
// runs of 8 to 40 intervals drawn from one distribution, the percentile interval called 8 to 18%
// of the comparisons significant (27% with autocorrelated intervals) where a 95% interval promises
// 5%; short moving blocks did not fix it, because runs have too few intervals for blocks long
// enough. This interval stayed at or below 8% in the same trials (TestBootstrapFalseAlarmRate).
//
// Resampling is deterministic for a given o.Seed.
func ComparePercentiles(sa, sb Sides, qs []float64, o Bootstrap) []PercentileRatio {
	a, b := sa.Intervals, sb.Intervals
	o = o.withDefaults()
	out := make([]PercentileRatio, len(qs))
	for k, q := range qs {
		out[k].Q = q
		out[k].A, out[k].B = ValueAt(sa.Window, q), ValueAt(sb.Window, q)
	}
	if len(qs) == 0 || len(a) == 0 || len(b) == 0 {
		return out
	}
	d := newDense(a, b)
	counts := make([]int64, len(d[0].values))
	pa, pb := make([]float64, len(qs)), make([]float64, len(qs))
	okA := d[0].quantiles(seq(len(a)), counts, qs, pa)
	okB := d[1].quantiles(seq(len(b)), counts, qs, pb)
	for k := range qs {
		if okA && sa.Window == nil {
			out[k].A = int64(pa[k])
		}
		if okB && sb.Window == nil {
			out[k].B = int64(pb[k])
		}
	}
	if !okA || !okB {
		return out
	}
	// Per-interval values of each quantile, for their autocorrelation.
	r1a, r1b := intervalAutocorr(&d[0], len(a), counts, qs), intervalAutocorr(&d[1], len(b), counts, qs)

	// The per-interval shift where the typical interval has its own value at the quantile.
	la, lb := intervalLogs(&d[0], len(a), counts, qs), intervalLogs(&d[1], len(b), counts, qs)
	ma, mb := medianCount(a), medianCount(b)
	done := make([]bool, len(qs))
	need := false
	for k, q := range qs {
		pr := &out[k]
		if !o.bootstrapOnly && pr.A > 0 && pr.B > 0 && float64(ma)*(1-q) >= ShiftMinTail && float64(mb)*(1-q) >= ShiftMinTail {
			nea, neb := EffectiveN(len(la[k]), r1a[k]), EffectiveN(len(lb[k]), r1b[k])
			n1, n2 := float64(len(la[k])), float64(len(lb[k]))
			inflate := math.Sqrt((1/nea + 1/neb) / (1/n1 + 1/n2))
			if iv, ok := ShiftInterval(la[k], lb[k], inflate, o.Level); ok {
				pr.R1A, pr.R1B, pr.NEffA, pr.NEffB = r1a[k], r1b[k], nea, neb
				pr.Method, pr.Shift = MethodShift, math.Exp(iv.Estimate)
				pr.Ratio = Interval{Estimate: float64(pr.B) / float64(pr.A), Low: math.Exp(iv.Low), High: math.Exp(iv.High)}
				pr.Valid = true
				done[k] = true
				continue
			}
		}
		need = true
	}
	if !need {
		return out
	}

	r := gen.New(o.Seed)
	pickA, pickB := make([]int, len(a)), make([]int, len(b))
	logA, logB := make([][]float64, len(qs)), make([][]float64, len(qs))
	valid := make([]int, len(qs))
	for range o.Resamples {
		resample(r, len(a), pickA)
		resample(r, len(b), pickB)
		if !d[0].quantiles(pickA, counts, qs, pa) || !d[1].quantiles(pickB, counts, qs, pb) {
			continue
		}
		for k := range qs {
			if pa[k] > 0 && pb[k] > 0 {
				logA[k] = append(logA[k], math.Log(pa[k]))
				logB[k] = append(logB[k], math.Log(pb[k]))
				valid[k]++
			}
		}
	}
	na, nb := float64(len(a)), float64(len(b))
	for k := range qs {
		if done[k] {
			continue
		}
		pr := &out[k]
		pr.Method = MethodBootstrap
		pr.Resamples = valid[k]
		// Require nearly every resample: an interval from a few lucky ones would not be 95%.
		if pr.A == 0 || pr.B == 0 || len(a) < 2 || len(b) < 2 || valid[k] < o.Resamples*9/10 {
			continue
		}
		pr.R1A, pr.R1B = r1a[k], r1b[k]
		pr.NEffA, pr.NEffB = EffectiveN(len(a), pr.R1A), EffectiveN(len(b), pr.R1B)
		sa, sb := Summarize(logA[k]), Summarize(logB[k])
		va := sa.SD * sa.SD * na / (na - 1) * na / pr.NEffA
		vb := sb.SD * sb.SD * nb / (nb - 1) * nb / pr.NEffB
		pr.SEA, pr.SEB = math.Sqrt(va), math.Sqrt(vb)
		est := math.Log(float64(pr.B) / float64(pr.A))
		w := Welch(Series{Mean: 0, SE: pr.SEA, NEff: pr.NEffA}, Series{Mean: est, SE: pr.SEB, NEff: pr.NEffB}, o.Level)
		pr.DF = w.DF
		pr.Ratio = Interval{Estimate: math.Exp(est), Low: math.Exp(w.Low), High: math.Exp(w.High)}
		pr.Valid = true
	}
	return out
}

// intervalLogs returns, for each quantile, the log of its value in each single interval of d that
// has values, in time order.
func intervalLogs(d *dense, n int, counts []int64, qs []float64) [][]float64 {
	series := make([][]float64, len(qs))
	one := make([]float64, len(qs))
	pick := []int{0}
	for i := range n {
		pick[0] = i
		if !d.quantiles(pick, counts, qs, one) {
			continue
		}
		for k, v := range one {
			if v > 0 {
				series[k] = append(series[k], math.Log(v))
			}
		}
	}
	return series
}

// medianCount is the median number of values in the intervals.
func medianCount(hs []Hist) int64 {
	if len(hs) == 0 {
		return 0
	}
	c := make([]int64, len(hs))
	for i, h := range hs {
		c[i] = h.Total()
	}
	slices.Sort(c)
	return c[len(c)/2]
}

// intervalAutocorr returns, for each quantile, the (bias-corrected) lag-1 autocorrelation of the
// log of its value in each single interval of d (intervals without values are skipped), at least
// the median's.
func intervalAutocorr(d *dense, n int, counts []int64, qs []float64) []float64 {
	series := intervalLogs(d, n, counts, qs)
	// A drift of the whole distribution moves every quantile, but the per-interval value of a high
	// quantile rests on few events and its noise hides the drift; the median shows it best. So each
	// quantile's autocorrelation is at least the median's (the first quantile's, when qs holds 0.5).
	out := make([]float64, len(qs))
	var floor float64
	if len(qs) > 0 && qs[0] == 0.5 {
		floor = CorrectedAutocorr1(series[0])
	}
	for k, s := range series {
		out[k] = max(CorrectedAutocorr1(s), floor)
	}
	return out
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
