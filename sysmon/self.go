package sysmon

import (
	"context"
	"math"
	"runtime/metrics"
	"slices"
	"syscall"
	"time"
)

// The runtime/metrics the driver watches itself with (Go 1.22+ names).
const (
	metricSchedLatency = "/sched/latencies:seconds"           // time goroutines waited runnable
	metricGCPauses     = "/sched/pauses/total/gc:seconds"     // stop-the-world GC pauses
	metricHeap         = "/memory/classes/heap/objects:bytes" // live and not yet swept objects
	metricGoroutines   = "/sched/goroutines:goroutines"
)

// selfSource watches the driver process: its CPU time (getrusage: user + system, so for SQLite
// the embedded engine's work too), the Go scheduler's latency (how long runnable goroutines
// waited for a thread: when it grows, timers fire late and transactions start late because of the
// driver, not the database) and GC pauses, from the runtime's cumulative histograms.
type selfSource struct {
	ms         []metrics.Sample
	prevAt     time.Time
	prevCPU    time.Duration
	prevSched  []uint64
	prevGC     []uint64
	lastSched  []uint64 // the last interval's scheduler-latency counts
	windowSch  []uint64 // their sum over the measurement window
	schBuckets []float64
	started    bool
}

func newSelfSource() *selfSource {
	s := &selfSource{ms: []metrics.Sample{{Name: metricSchedLatency}, {Name: metricGCPauses}, {Name: metricHeap}, {Name: metricGoroutines}}}
	return s
}

func (s *selfSource) name() string { return "driver" }
func (s *selfSource) close()       {}

func (s *selfSource) sample(_ context.Context, now time.Time, v map[string]float64) error {
	cpu, cpuErr := processCPU()
	metrics.Read(s.ms)
	var sched, gc []uint64
	var schedB, gcB []float64
	if h := s.ms[0].Value; h.Kind() == metrics.KindFloat64Histogram {
		fh := h.Float64Histogram()
		sched, schedB = slices.Clone(fh.Counts), fh.Buckets
	}
	if h := s.ms[1].Value; h.Kind() == metrics.KindFloat64Histogram {
		fh := h.Float64Histogram()
		gc, gcB = slices.Clone(fh.Counts), fh.Buckets
	}
	if x := s.ms[2].Value; x.Kind() == metrics.KindUint64 {
		v["driver.heap_bytes"] = float64(x.Uint64())
	}
	if x := s.ms[3].Value; x.Kind() == metrics.KindUint64 {
		v["driver.goroutines"] = float64(x.Uint64())
	}
	if s.started {
		if dt := now.Sub(s.prevAt).Seconds(); dt > 0 && cpuErr == nil {
			v["driver.cpu_pct"] = 100 * (cpu - s.prevCPU).Seconds() / dt
		}
		if d := deltaCounts(s.prevSched, sched); d != nil {
			v["driver.sched_latency_p99_ms"] = 1000 * histQuantile(schedB, d, 0.99)
			s.lastSched, s.schBuckets = d, schedB
		}
		if d := deltaCounts(s.prevGC, gc); d != nil {
			v["driver.gc_pause_max_ms"] = 1000 * histMax(gcB, d)
			v["driver.gc_pause_total_ms"] = 1000 * histSum(gcB, d)
			v["driver.gc_pauses"] = float64(histCount(d))
		}
	}
	s.started, s.prevAt, s.prevCPU, s.prevSched, s.prevGC = true, now, cpu, sched, gc
	return cpuErr
}

// addLastToWindow adds the last interval's scheduler latencies to the window's histogram.
func (s *selfSource) addLastToWindow() {
	if s.lastSched == nil {
		return
	}
	if len(s.windowSch) != len(s.lastSched) {
		s.windowSch = make([]uint64, len(s.lastSched))
	}
	for i, c := range s.lastSched {
		s.windowSch[i] += c
	}
	s.lastSched = nil
}

// windowP99Ms is the scheduler latency's 99th percentile over the window, in ms (0 without data).
func (s *selfSource) windowP99Ms() float64 {
	if histCount(s.windowSch) == 0 {
		return 0
	}
	return 1000 * histQuantile(s.schBuckets, s.windowSch, 0.99)
}

// processCPU is this process's CPU time (user + system) so far.
func processCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// The histograms of runtime/metrics are cumulative: bucket i counts values in
// [buckets[i], buckets[i+1]), and len(buckets) == len(counts)+1 (the ends may be infinite). An
// interval's histogram is the difference of two readings.

// deltaCounts returns cur - prev bucket by bucket, or nil when they do not line up (no reading).
func deltaCounts(prev, cur []uint64) []uint64 {
	if prev == nil || len(prev) != len(cur) {
		return nil
	}
	d := make([]uint64, len(cur))
	for i := range cur {
		if cur[i] >= prev[i] {
			d[i] = cur[i] - prev[i]
		}
	}
	return d
}

func histCount(counts []uint64) uint64 {
	var n uint64
	for _, c := range counts {
		n += c
	}
	return n
}

// histQuantile is the upper bound of the bucket holding quantile q (0..1): a value at least as
// large as the true quantile, within one bucket's width (runtime time histograms have buckets
// about 6% wide). Zero for an empty histogram.
func histQuantile(buckets []float64, counts []uint64, q float64) float64 {
	n := histCount(counts)
	if n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(n)))
	var seen uint64
	for i, c := range counts {
		seen += c
		if seen >= rank && c > 0 {
			return bucketHigh(buckets, i)
		}
	}
	return bucketHigh(buckets, len(counts)-1)
}

// histMax is the upper bound of the highest non-empty bucket (0 for an empty histogram).
func histMax(buckets []float64, counts []uint64) float64 {
	for i := len(counts) - 1; i >= 0; i-- {
		if counts[i] > 0 {
			return bucketHigh(buckets, i)
		}
	}
	return 0
}

// histSum approximates the sum of the values from the buckets' middles.
func histSum(buckets []float64, counts []uint64) float64 {
	var s float64
	for i, c := range counts {
		if c == 0 {
			continue
		}
		lo, hi := buckets[i], buckets[i+1]
		switch {
		case math.IsInf(lo, -1):
			s += float64(c) * hi
		case math.IsInf(hi, 1):
			s += float64(c) * lo
		default:
			s += float64(c) * (lo + hi) / 2
		}
	}
	return s
}

// bucketHigh is bucket i's upper bound, or its lower bound for the last, unbounded bucket.
func bucketHigh(buckets []float64, i int) float64 {
	if hi := buckets[i+1]; !math.IsInf(hi, 1) {
		return hi
	}
	return max(0, buckets[i])
}
