package sysmon

import "math"

// Summary is what a run keeps of its samples in result.json: per series, the mean and the maximum
// over the samples of the measurement window (memory stays bounded however long the run).
type Summary struct {
	// Samples is the number of samples taken (lines written); Window those inside the window.
	Samples      int             `json:"samples"`
	Window       int             `json:"window_samples"`
	EverySeconds float64         `json:"every_seconds"`
	Series       map[string]Stat `json:"series"`
	// SchedLatencyP99Ms is the 99th percentile of the Go scheduler latency over the whole window
	// (the per-interval histograms merged, not an average of per-interval percentiles).
	SchedLatencyP99Ms float64 `json:"sched_latency_p99_ms"`
	// Errors name the sources that could not be read (once per distinct error).
	Errors []string `json:"errors,omitempty"`
	// Findings are the conditions the window's samples showed (findings.go), with their evidence.
	Findings []Finding `json:"findings,omitempty"`
}

// Stat is one series over the window: N samples had it.
type Stat struct {
	Mean float64 `json:"mean"`
	Max  float64 `json:"max"`
	N    int     `json:"n"`
}

// Mean returns the mean of a series and whether the window had it.
func (s Summary) Mean(series string) (float64, bool) {
	st, ok := s.Series[series]
	return st.Mean, ok && st.N > 0
}

type acc struct {
	n        int
	sum, max float64
}

type accumulator struct {
	n      int
	series map[string]*acc
}

func newAccumulator() *accumulator { return &accumulator{series: map[string]*acc{}} }

func (a *accumulator) add(v map[string]float64) {
	a.n++
	for k, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		s := a.series[k]
		if s == nil {
			s = &acc{max: math.Inf(-1)}
			a.series[k] = s
		}
		s.n++
		s.sum += x
		s.max = math.Max(s.max, x)
	}
}

func (a *accumulator) summary() Summary {
	out := Summary{Window: a.n, Series: make(map[string]Stat, len(a.series))}
	for k, s := range a.series {
		out.Series[k] = Stat{Mean: s.sum / float64(s.n), Max: s.max, N: s.n}
	}
	return out
}
