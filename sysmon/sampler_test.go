package sysmon

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
)

// hostSeriesExpected are series every sample on Linux has after the first second.
var hostSeriesExpected = []string{"host.cpu.busy_pct", "host.cpu.user_pct", "host.cpu.system_pct",
	"host.cpu.iowait_pct", "host.cpu.steal_pct", "host.cpu0.busy_pct", "host.runq", "host.procs_blocked",
	"host.mem.used_bytes", "host.mem.available_bytes", "host.swap.used_bytes", "net.lo.rx_bytes_per_s",
	"driver.cpu_pct", "driver.sched_latency_p99_ms", "driver.gc_pause_max_ms", "driver.gc_pause_total_ms",
	"driver.heap_bytes", "driver.goroutines"}

// TestSamplerWritesAlignedSamples runs the sampler for a little over a second at 100 ms and checks
// the file: increasing t on the start clock, one sample per period, the expected series, and the
// summary covering exactly the samples whose period lies in the window.
func TestSamplerWritesAlignedSamples(t *testing.T) {
	path := filepath.Join(t.TempDir(), File)
	start := time.Now()
	every := 100 * time.Millisecond
	from, to := 220*time.Millisecond, 680*time.Millisecond
	s := Start(context.Background(), Config{Start: start, Every: every, Path: path, MeasureFrom: from, MeasureTo: to})
	time.Sleep(1050 * time.Millisecond)
	sum := s.Stop()
	sum2 := s.Stop() // idempotent
	if sum2.Samples != sum.Samples {
		t.Errorf("a second Stop changed the summary: %d then %d samples", sum.Samples, sum2.Samples)
	}
	if len(sum.Errors) > 0 {
		t.Errorf("sampling errors: %v", sum.Errors)
	}
	samples, err := ReadSamples(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != sum.Samples || len(samples) < 5 || len(samples) > 11 {
		t.Fatalf("%d samples in the file, %d counted; want about 10", len(samples), sum.Samples)
	}
	inWindow, aligned := 0, 0
	for i, smp := range samples {
		if i > 0 && smp.T <= samples[i-1].T {
			t.Errorf("t goes backwards: %v after %v", smp.T, samples[i-1].T)
		}
		// Samples are taken on the start clock's period boundaries (late only by scheduling).
		if k := math.Round(smp.T / every.Seconds()); smp.T >= k*every.Seconds()-0.001 && smp.T <= k*every.Seconds()+0.02 {
			aligned++
		}
		mid := smp.T - every.Seconds()/2
		if mid >= from.Seconds() && mid <= to.Seconds() {
			inWindow++
		}
		for _, name := range hostSeriesExpected {
			if _, ok := smp.V[name]; !ok {
				t.Errorf("sample %d (t=%v) has no %s", i, smp.T, name)
			}
		}
	}
	if aligned < len(samples)/2 {
		t.Errorf("only %d of %d samples were taken within 20 ms after a multiple of %v since the start", aligned, len(samples), every)
	}
	if sum.Window != inWindow {
		t.Errorf("summary covers %d samples, want the %d whose period lies in [%v, %v]", sum.Window, inWindow, from, to)
	}
	busy := sum.Series["host.cpu.busy_pct"]
	if busy.N != inWindow || busy.Max < busy.Mean || busy.Mean < 0 || busy.Max > 100 {
		t.Errorf("host.cpu.busy_pct summary = %+v", busy)
	}
	for _, name := range SeriesNames(samples) {
		if Unit(name) == "" && !isCount(name) {
			t.Errorf("series %q has no unit suffix and is not a known count", name)
		}
	}
}

// isCount: the series without a unit suffix, which are counts.
func isCount(name string) bool {
	if strings.HasPrefix(name, "db.wait.") {
		return true
	}
	switch name[strings.LastIndexByte(name, '.')+1:] {
	case "runq", "procs_blocked", "queue", "gc_pauses", "goroutines", "deadlocks", "checkpoints_timed",
		"checkpoints_req", "sessions_active":
		return true
	}
	return false
}

// TestSamplerCutEndsWindow: cancelling Cut (Ctrl-C) ends the window; sampling goes on until Stop.
func TestSamplerCutEndsWindow(t *testing.T) {
	cut, cancel := context.WithCancel(context.Background())
	start := time.Now()
	every := 100 * time.Millisecond
	path := filepath.Join(t.TempDir(), File)
	s := Start(context.Background(), Config{Start: start, Every: every, Path: path, Cut: cut})
	time.Sleep(420 * time.Millisecond)
	before := time.Since(start).Seconds()
	cancel()
	after := time.Since(start).Seconds()
	time.Sleep(400 * time.Millisecond)
	sum := s.Stop()
	samples, err := ReadSamples(path)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := 0, 0
	for _, smp := range samples {
		mid := smp.T - every.Seconds()/2
		if mid <= before {
			lo++
		}
		if mid <= after+0.001 {
			hi++
		}
	}
	if sum.Window < lo || sum.Window > hi || sum.Samples <= hi {
		t.Errorf("window has %d of %d samples, want %d..%d and sampling to go on after the cut", sum.Window, sum.Samples, lo, hi)
	}
}

// TestSamplingCost: one sample (host and driver, no database) costs far less than 1% of a second of
// CPU. Measured over 50 samples as this process's CPU time.
func TestSamplingCost(t *testing.T) {
	s := Start(context.Background(), Config{Every: time.Hour})
	defer s.Stop()
	const n = 50
	c0, err := processCPU()
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		s.sampleOnce(context.Background())
	}
	c1, _ := processCPU()
	per := (c1 - c0) / n
	t.Logf("one sample costs %v of CPU (%.3f%% of a second)", per, 100*per.Seconds())
	if per > 3*time.Millisecond {
		t.Errorf("one sample costs %v of CPU, want well under 10 ms (1%% of the 1 s period)", per)
	}
}

func TestRoundSig(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{
		{69.23076923, 69.2308}, {0, 0}, {23417344000, 23417300000}, {-0.0012345678, -0.00123457}, {100, 100},
	} {
		if got := roundSig(c.in); math.Abs(got-c.want) > 1e-9*math.Abs(c.want) {
			t.Errorf("roundSig(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// hangingDB is a PostgreSQL whose connections never open (a stalled server): only Connect is
// called by the sampler.
type hangingDB struct {
	driver.DB
	attempts atomic.Int32
}

func (h *hangingDB) Kind() string { return "postgres" }
func (h *hangingDB) Connect(ctx context.Context) (driver.Conn, error) {
	h.attempts.Add(1)
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestSamplerWithStalledDatabase: a database that does not answer neither stops nor delays the
// host's samples, is reported once, and is not retried every second.
func TestSamplerWithStalledDatabase(t *testing.T) {
	db := &hangingDB{}
	path := filepath.Join(t.TempDir(), File)
	t0 := time.Now()
	s := New(t.Context(), Config{Every: 100 * time.Millisecond, DB: db, Path: path})
	if el := time.Since(t0); el > 2*time.Second {
		t.Errorf("preparing took %v with a stalled database, want the connect timeout (1.5 s) at most", el)
	}
	s.Begin(time.Now())
	time.Sleep(time.Second)
	sum := s.Stop()
	if sum.Samples < 7 {
		t.Errorf("%d samples in 1 s at 100 ms with a stalled database", sum.Samples)
	}
	if len(sum.Errors) != 1 || !strings.Contains(sum.Errors[0], "connecting for statistics") {
		t.Errorf("errors = %v, want one about connecting", sum.Errors)
	}
	if n := db.attempts.Load(); n != 1 {
		t.Errorf("%d connection attempts in a second, want 1 (the next waits %v)", n, reconnectEvery)
	}
}
