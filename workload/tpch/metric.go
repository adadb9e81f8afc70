package tpch

import (
	"math"
	"slices"
)

// The metric of clause 5.4: Power@Size from the power test, Throughput@Size from the throughput
// test, and QphH@Size their geometric mean. Pure functions of the timing intervals.

// Interval is a timing interval as clause 5.3.7.5 reports it and as the metric uses it: the
// measured seconds (candor's clock resolves nanoseconds; clause 5.3.7.4 asks for 0.01 s or finer)
// rounded to the nearest 0.1 second, a half up (23.74 s is 23.7, 23.75 s is 23.8), and anything
// below 0.05 s raised to 0.1 s so that no interval is zero. The arithmetic is on whole
// microseconds, so the halves are exact. A non-positive measurement (nothing measured) stays 0.
func Interval(measured float64) float64 {
	if measured <= 0 || math.IsNaN(measured) {
		return 0
	}
	us := int64(math.Round(measured * 1e6))
	tenths := (us + 50_000) / 100_000
	if tenths < 1 {
		tenths = 1
	}
	return float64(tenths) / 10
}

// QueryFloorRatio is clause 5.4.1.4's bound: when the longest query timing interval of the power
// test is more than 1000 times the shortest, every query interval below 1/1000 of the longest
// counts as 1/1000 of the longest.
const QueryFloorRatio = 1000

// Floor applies clause 5.4.1.4 to the power test's query timing intervals (QI(i,0), seconds):
// a copy of the intervals (each as clause 5.3.7.5 reports it, Interval) where each interval below
// max/1000 is max/1000, and how many were raised. The clause treats max/1000 as a timing interval
// of clause 5.3.7.5, so it is rounded the same way (a longest of 150 s floors at 0.2 s, of 120 s at
// 0.1 s: then no interval, being at least 0.1 s, is raised). Only the 22 queries are adjusted,
// never the refresh functions' intervals.
func Floor(qi []float64) (adjusted []float64, raised int) {
	adjusted = make([]float64, len(qi))
	for i, v := range qi {
		adjusted[i] = Interval(v)
	}
	if len(qi) == 0 {
		return adjusted, 0
	}
	floor := Interval(slices.Max(adjusted) / QueryFloorRatio)
	for i, v := range adjusted {
		if v < floor {
			adjusted[i], raised = floor, raised+1
		}
	}
	return adjusted, raised
}

// Power is Power@Size (clause 5.4.1.1): 3600·SF / (∏ QI(i,0) · ∏ RI(j,0))^(1/24), with the 22
// query intervals qi and the two refresh intervals ri in seconds, each taken as clause 5.3.7.5
// reports it (Interval: to 0.1 s, at least 0.1 s), qi floored by clause 5.4.1.4 first. The geometric mean is taken over as many intervals as are given (24 in a compliant power
// test; 22 without the refresh functions, which makes the figure not the standard's: the caller
// warns). It is computed as exp of the mean of logs, so 24 products of long intervals never
// overflow. A zero or negative interval gives 0 (no figure).
func Power(sf float64, qi, ri []float64) float64 {
	for _, v := range append(slices.Clone(qi), ri...) {
		if v <= 0 {
			return 0
		}
	}
	q, _ := Floor(qi)
	all := q
	for _, v := range ri {
		all = append(all, Interval(v))
	}
	if len(all) == 0 {
		return 0
	}
	var logs float64
	for _, v := range all {
		logs += math.Log(v)
	}
	return 3600 * sf / math.Exp(logs/float64(len(all)))
}

// Throughput is Throughput@Size (clause 5.4.2.1): (S·22·3600 / Ts)·SF, with S the query streams
// and Ts the throughput test's measurement interval (clause 5.3.7.6: from the start of the first
// query stream to the end of the last stream's or refresh function's last operation) in seconds,
// as measured (clause 5.3.7.5's rounding is the queries' and refresh functions' intervals').
func Throughput(sf float64, streams int, ts float64) float64 {
	if ts <= 0 || streams <= 0 {
		return 0
	}
	return float64(streams) * 22 * 3600 / ts * sf
}

// QphH is QphH@Size (clause 5.4.3.1): sqrt(Power@Size × Throughput@Size).
func QphH(power, throughput float64) float64 {
	if power <= 0 || throughput <= 0 {
		return 0
	}
	return math.Sqrt(power * throughput)
}

// MinStreams is clause 5.3.4's minimum number of query streams of the throughput test for scale
// factor sf; scale factors below 1 (not the standard's) take SF 1's.
func MinStreams(sf float64) int {
	for _, r := range minStreams {
		if sf <= r.sf {
			return r.streams
		}
	}
	return minStreams[len(minStreams)-1].streams
}

// minStreams is clause 5.3.4's table: scale factor, minimum query streams.
var minStreams = []struct {
	sf      float64
	streams int
}{
	{1, 2}, {10, 3}, {30, 4}, {100, 5}, {300, 6}, {1000, 7}, {3000, 8}, {10000, 9}, {30000, 10}, {100000, 11},
}

// StandardSF reports whether sf is a scale factor clause 4.1.3.1 lists for results (1, 10, 30,
// 100, 300, 1000, 3000, 10000, 30000, 100000); any other may be measured, never reported as
// TPC-H's metric.
func StandardSF(sf float64) bool {
	for _, r := range minStreams {
		if sf == r.sf {
			return true
		}
	}
	return false
}
