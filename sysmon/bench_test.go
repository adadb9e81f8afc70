package sysmon

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// BenchmarkSample measures the sampler's own cost: one full sample of every source but the
// database (host: CPU times, /proc/stat, interrupts, softirqs, memory, swap and faults, diskstats,
// network, TCP; the driver's own runtime metrics), the JSON line written, the window's summary and
// findings updated. It reports the process's CPU time per sample (getrusage, user + system, which
// counts what the kernel spends producing the /proc files) and that as a share of one CPU at the
// default 1 s period: cpu_pct_at_1s.
//
//	go test ./sysmon -run '^$' -bench Sample -benchtime 200x
func BenchmarkSample(b *testing.B) {
	s := New(context.Background(), Config{Every: time.Hour, Path: b.TempDir() + "/" + File})
	s.Begin(time.Now())
	defer s.Stop()
	ctx := context.Background()
	s.sampleOnce(ctx) // the first sample sets up its maps and files
	runtime.GC()
	c0, err := processCPU()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		s.sampleOnce(ctx)
	}
	b.StopTimer()
	c1, _ := processCPU()
	per := (c1 - c0) / time.Duration(b.N)
	b.ReportMetric(float64(per.Microseconds()), "cpu_us/sample")
	b.ReportMetric(100*per.Seconds()/time.Second.Seconds(), "cpu_pct_at_1s")
}
