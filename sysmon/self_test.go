package sysmon

import (
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestHistogramMath(t *testing.T) {
	inf := math.Inf(1)
	// Buckets [0,1) [1,2) [2,4) [4,8) [8,+Inf), in seconds.
	b := []float64{0, 1, 2, 4, 8, inf}
	prev := []uint64{10, 10, 0, 0, 0}
	cur := []uint64{100, 15, 3, 1, 0}
	d := deltaCounts(prev, cur)
	if want := []uint64{90, 5, 3, 1, 0}; !equalU(d, want) {
		t.Fatalf("delta = %v, want %v", d, want)
	}
	// 99 events: rank ceil(0.99*99) = 99 is the last one, in [4,8): upper bound 8.
	if got := histQuantile(b, d, 0.99); got != 8 {
		t.Errorf("p99 = %v, want 8", got)
	}
	// rank ceil(0.5*99) = 50 lies in the first bucket: upper bound 1.
	if got := histQuantile(b, d, 0.5); got != 1 {
		t.Errorf("p50 = %v, want 1", got)
	}
	if got := histMax(b, d); got != 8 {
		t.Errorf("max = %v, want 8", got)
	}
	// Middles: 90*0.5 + 5*1.5 + 3*3 + 1*6 = 45 + 7.5 + 9 + 6 = 67.5.
	if got := histSum(b, d); got != 67.5 {
		t.Errorf("sum = %v, want 67.5", got)
	}
	// The unbounded last bucket reports its lower bound.
	if got := histMax(b, []uint64{0, 0, 0, 0, 2}); got != 8 {
		t.Errorf("max in the last bucket = %v, want 8", got)
	}
	if histQuantile(b, []uint64{0, 0, 0, 0, 0}, 0.99) != 0 || histMax(b, make([]uint64, 5)) != 0 {
		t.Error("an empty histogram has a non-zero quantile or max")
	}
	if deltaCounts(nil, cur) != nil || deltaCounts([]uint64{1}, cur) != nil {
		t.Error("delta of readings that do not line up is not nil")
	}
	// A counter that went backwards (never, in practice) counts as no event, not a huge number.
	if d := deltaCounts([]uint64{5}, []uint64{3}); d[0] != 0 {
		t.Errorf("backwards delta = %v", d)
	}
}

func equalU(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSelfSourceSeesGCAndCPU: the driver's own series react to real work: a forced GC shows as a
// pause, busy work as CPU. The work lasts until the process has had 150 ms of CPU (on a busy host
// its share of the wall clock is whatever the host gives it): the sampled share must be at least
// what those 150 ms make of the sampled interval.
func TestSelfSourceSeesGCAndCPU(t *testing.T) {
	s := newSelfSource()
	v := map[string]float64{}
	t0 := time.Now()
	if err := s.sample(t.Context(), t0, v); err != nil {
		t.Fatal(err)
	}
	cpu0, err := processCPU()
	if err != nil {
		t.Fatal(err)
	}
	const busy = 150 * time.Millisecond
	var sink []byte
	for {
		sink = append(sink[:0], strings.Repeat("x", 1<<16)...)
		if cpu, err := processCPU(); err != nil || cpu-cpu0 >= busy || time.Since(t0) > 10*time.Second {
			break
		}
	}
	runtime.GC()
	v = map[string]float64{}
	t1 := time.Now()
	if err := s.sample(t.Context(), t1, v); err != nil {
		t.Fatal(err)
	}
	if least := 100 * busy.Seconds() / t1.Sub(t0).Seconds(); v["driver.cpu_pct"] < least {
		t.Errorf("driver.cpu_pct = %.1f after %s of CPU in %s of busy work, want at least %.1f", v["driver.cpu_pct"], busy, t1.Sub(t0).Round(time.Millisecond), least)
	}
	if v["driver.gc_pauses"] < 1 || v["driver.gc_pause_max_ms"] <= 0 || v["driver.gc_pause_total_ms"] < v["driver.gc_pause_max_ms"]/2 {
		t.Errorf("after a forced GC: gc_pauses %v, max %v ms, total %v ms", v["driver.gc_pauses"], v["driver.gc_pause_max_ms"], v["driver.gc_pause_total_ms"])
	}
	if _, ok := v["driver.sched_latency_p99_ms"]; !ok || v["driver.heap_bytes"] <= 0 || v["driver.goroutines"] < 1 {
		t.Errorf("driver series = %v", v)
	}
	_ = sink
}
