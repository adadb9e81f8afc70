package tpcc

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/schedule"
)

// BenchmarkMillionTerminals measures what a spec-mode terminal costs in memory (a million
// terminals in one process): the heap a million terminals take alone (terminal-B/terminal), then
// what the closed loop adds for them (sched-B/terminal: its due-time heap and the Config's list,
// read at the first tick, once every terminal waits in the heap), running the real scheduler and
// executor on the null engine (a real engine inside candor that completes an operation after 1 ms);
// and, over that short run, the closed loop's timer lag. CANDOR_SCALE_TERMINALS
// (default 1,000,000) and CANDOR_SCALE_SECONDS (default 20) change the size and the run:
//
//	go test -run '^$' -bench MillionTerminals -benchtime 1x ./workload/tpcc/
//
// The run's first seconds are the spec ramp-up (first delays and keying times), not its steady
// state: the timer lag at the steady rate is scripts/bench's SCALE section, a real run.
func BenchmarkMillionTerminals(b *testing.B) {
	n := envInt(b, "CANDOR_SCALE_TERMINALS", 1_000_000)
	secs := envInt(b, "CANDOR_SCALE_SECONDS", 20)
	W := max(1, n/TerminalsPerWarehouse)
	n = W * TerminalsPerWarehouse
	ctx := context.Background()
	db, err := driver.Open(ctx, "null:?service=fixed:1ms")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		terms := newTerminals(n, W, ModeSpec, 1, RunConstants(1, LoadConstants(1)))
		runtime.GC()
		runtime.ReadMemStats(&m1)
		b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/float64(n), "terminal-B/terminal")

		o := RunOptions{Mode: ModeSpec, Warehouses: W, Terminals: n, Connections: DefaultConnections(ModeSpec, W, n),
			DeliveryWorkers: DefaultDeliveryWorkers(W)}
		spread, err := spreadEndpoints(db, nil, terms, o.Connections)
		if err != nil {
			b.Fatal(err)
		}
		ex, err := newExecutor(ctx, db, o, func(error) {}, spread)
		if err != nil {
			b.Fatal(err)
		}
		rec := measure.NewRecorder(OpNames, o.Connections+1+o.DeliveryWorkers)
		if ex.deliveries, err = newDeferredQueue(ctx, db, o, rec, o.Connections+1, spread); err != nil {
			b.Fatal(err)
		}
		// The scheduler's share: what the heap holds at the first tick (every terminal waits in the
		// due-time heap) beyond the terminals, the executor and the recorder (fixed costs, whose
		// histograms are mostly pages never touched: the real run's RSS is the figure for them).
		var m2 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m2)
		sts := make([]schedule.Terminal, n)
		for i, t := range terms {
			sts[i] = t
		}
		terms = nil
		var all runtime.MemStats
		ticks := 0
		sum, err := schedule.Run(ctx, schedule.Config{Terminals: sts, Workers: o.Connections, Exec: ex, Rec: rec,
			Measure: time.Duration(secs) * time.Second, Grace: 5 * time.Second, Tick: 5 * time.Second, // the CLI's --interval
			OnTick: func(*measure.Interval) {
				if ticks++; ticks == 1 {
					runtime.GC()
					runtime.ReadMemStats(&all)
				}
			}})
		if err != nil {
			b.Fatal(err)
		}
		ex.deliveries.finish(5*time.Second, nil)
		ex.close()
		b.ReportMetric(float64(int64(all.HeapAlloc)-int64(m2.HeapAlloc))/float64(n), "sched-B/terminal")
		b.ReportMetric(float64(sum.Completed)/sum.End.Sub(sum.Start).Seconds(), "tx/s")
		if tl := sum.TimerLag; tl != nil {
			b.ReportMetric(tl.Ms.P99, "timer-lag-p99-ms")
		}
		runtime.KeepAlive(sts)
	}
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: give a positive whole number", name, v)
	}
	return n
}
