package html

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
)

// TestLongRun: 20 minutes in 5 s intervals render in bounded time and size, reading the log one
// histogram at a time.
func TestLongRun(t *testing.T) {
	dir := t.TempDir()
	const length = 20 * time.Minute
	start := time.Now().Add(-length).Truncate(time.Second)
	ops := []string{"new_order", "payment", "order_status", "delivery", "stock_level", "delivery_deferred"}
	r := &report.Result{FormatVersion: report.FormatVersion, Workload: "tpcc", Mode: "throughput", StartedAt: start, WarmupSeconds: 60,
		MeasureSeconds: (length - time.Minute).Seconds(), Operations: map[string]*report.TxResult{}, OpOrder: ops, Warnings: []report.Warning{}}
	for _, op := range ops {
		r.Operations[op] = &report.TxResult{Count: 1}
	}
	r.Operations["delivery_deferred"].PartOf = "delivery"
	if err := report.Write(dir, r); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	lw, err := measure.NewLogWriter(&buf, start, "test")
	if err != nil {
		t.Fatal(err)
	}
	rec := measure.NewRecorder(ops, 1)
	rec.Begin(start, start.Add(time.Minute), start.Add(length))
	rng := rand.New(rand.NewPCG(1, 2))
	const every = 5 * time.Second
	for i := 1; i <= int(length/every); i++ {
		s := rec.Stripe(0)
		at := start.Add(time.Duration(i) * every)
		for op := range ops {
			for range 50 {
				d := time.Duration(rng.ExpFloat64() * float64(2*time.Millisecond))
				s.Done(op, true, measure.Event{Response: d + time.Millisecond, Service: d, Lag: time.Millisecond})
			}
		}
		if err := lw.Write(rec.Tick(at)); err != nil {
			t.Fatal(err)
		}
	}
	if err := lw.WriteTotals(rec.Totals(), start.Add(time.Minute), start.Add(length)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, report.LogFile), buf.Bytes(), 0o644)

	t0 := time.Now()
	var sb strings.Builder
	if err := Render(&sb, dir); err != nil {
		t.Fatal(err)
	}
	el := time.Since(t0)
	t.Logf("rendered %d intervals (%d KiB of log) in %v: %d KiB of page", int(length/every), buf.Len()/1024, el, sb.Len()/1024)
	if sb.Len() > 2<<20 {
		t.Errorf("page is %d KiB, want under 2 MiB", sb.Len()/1024)
	}
	if strings.Contains(sb.String(), "could not be used") {
		t.Error("the log was not read")
	}
}
