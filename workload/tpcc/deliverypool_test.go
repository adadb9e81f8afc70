package tpcc

import (
	"bytes"
	"context"
	"encoding/csv"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	_ "github.com/candor-bench/candor/driver/null"
	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

// The deferred Delivery's workers and queues, and the default connections, are bounded whatever
// the warehouse count (100,000 warehouses once meant 10,001 workers with 4,096 entries
// each, and 200,000 connections).
func TestDeliveryPoolBounds(t *testing.T) {
	for _, c := range []struct{ W, want int }{{1, 1}, {9, 1}, {10, 2}, {149, 15}, {150, 16}, {100000, MaxDefaultDeliveryWorkers}} {
		if got := DefaultDeliveryWorkers(c.W); got != c.want {
			t.Errorf("DefaultDeliveryWorkers(%d) = %d, want %d", c.W, got, c.want)
		}
	}
	for n := 1; n <= MaxDeliveryWorkers; n++ {
		l := deliveryQueueLen(n)
		if l < deliveryQueueMin || l > deliveryQueueMax || (n*l > deliveryQueueRoom && l != deliveryQueueMin) {
			t.Fatalf("%d workers: queues of %d, %d entries in all", n, l, n*l)
		}
	}
	if got := deliveryQueueLen(MaxDefaultDeliveryWorkers); got != deliveryQueueMax {
		t.Errorf("the default's %d workers get queues of %d, want %d", MaxDefaultDeliveryWorkers, got, deliveryQueueMax)
	}
	for _, c := range []struct {
		mode           Mode
		W, terms, want int
	}{
		{ModeSpec, 1, 10, 4}, {ModeSpec, 10, 100, 20}, {ModeSpec, 128, 1280, 256}, {ModeSpec, 100000, 1000000, MaxDefaultConnections},
		{ModeRate, 100000, 1000000, MaxDefaultConnections}, {ModeThroughput, 100000, 64, 64},
	} {
		if got := DefaultConnections(c.mode, c.W, c.terms); got != c.want {
			t.Errorf("DefaultConnections(%s, %d warehouses, %d terminals) = %d, want %d", c.mode, c.W, c.terms, got, c.want)
		}
	}
	w := &Workload{}
	for _, n := range []int{-1, MaxDeliveryWorkers + 1} {
		w.deliveryWorkers = n
		if p := w.Validate(workload.Validation{Cmd: workload.CmdRun, Mode: ModeSpec}); len(p) != 1 {
			t.Errorf("--delivery-workers %d: problems %q, want one", n, p)
		}
	}
	w.deliveryWorkers = MaxDeliveryWorkers
	if p := w.Validate(workload.Validation{Cmd: workload.CmdRun, Mode: ModeSpec}); len(p) != 0 {
		t.Errorf("--delivery-workers %d: problems %q", MaxDeliveryWorkers, p)
	}
}

// Deliveries of one warehouse run on one worker, one after the other, in the order they were
// queued (clause 2.7: they never race for the same oldest order), on the null engine's connections
// (a real engine inside candor that waits its service time).
func TestDeliveryPoolPerWarehouseOrder(t *testing.T) {
	ctx := context.Background()
	db, err := driver.Open(ctx, "null:?service=fixed:2ms")
	if err != nil {
		t.Fatal(err)
	}
	const W, workers, jobs = 7, 3, 140
	spread, err := spreadEndpoints(db, nil, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rec := measure.NewRecorder(OpNames, 2+workers)
	q, err := newDeferredQueue(ctx, db, RunOptions{Warehouses: W, DeliveryWorkers: workers, Deliveries: &out}, rec, 2, spread)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.queues) != workers || cap(q.queues[0]) != deliveryQueueLen(workers) {
		t.Fatalf("%d queues of %d, want %d of %d", len(q.queues), cap(q.queues[0]), workers, deliveryQueueLen(workers))
	}
	for k := 0; k < jobs; k++ {
		// Carrier k numbers the jobs (the file records it).
		if err := q.enqueue(ctx, k%W+1, k, true); err != nil {
			t.Fatal(err)
		}
	}
	q.finish(time.Minute, nil)
	lines, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != jobs+1 {
		t.Fatalf("%d lines, want a header and %d", len(lines), jobs)
	}
	last := map[int]int{}
	lastDone := map[int]time.Time{}
	for _, l := range lines[1:] {
		w, _ := strconv.Atoi(l[3])
		k, _ := strconv.Atoi(l[4])
		done, err := time.Parse(deliveryTimeLayout, l[1])
		if err != nil || l[len(l)-1] != "" {
			t.Fatalf("line %q: %v", l, err)
		}
		if k%W+1 != w {
			t.Fatalf("job %d ran for warehouse %d", k, w)
		}
		if p, ok := last[w]; ok {
			if k <= p {
				t.Fatalf("warehouse %d: job %d completed after job %d, queued later", w, p, k)
			}
			if done.Sub(lastDone[w]) < 2*time.Millisecond {
				t.Fatalf("warehouse %d: jobs %d and %d completed %v apart, less than one 2 ms service time: they ran at once", w, p, k, done.Sub(lastDone[w]))
			}
		}
		last[w], lastDone[w] = k, done
	}
	if len(last) != W {
		t.Fatalf("%d warehouses delivered, want %d", len(last), W)
	}
}

// A run whose terminals would take more memory than the host has is refused when it opens, naming
// the bound and what to give instead, before a terminal is made: 100,000,000 warehouses in spec
// mode are a billion terminals, some 477 GiB at 512 bytes each.
func TestOpenRefusesTerminalsPastMemory(t *testing.T) {
	ctx := context.Background()
	db, err := driver.Open(ctx, "null:?service=fixed:1ms")
	if err != nil {
		t.Fatal(err)
	}
	w := &Workload{Options: Options{Warehouses: 100_000_000}}
	_, err = w.Open(ctx, db, workload.SessionConfig{Mode: ModeSpec, Seed: 1})
	if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), "1,000,000,000 terminals") || !strings.Contains(err.Error(), "give fewer --warehouses") {
		t.Fatalf("100,000,000 warehouses on the null engine: %v, want a refusal naming the terminals and --warehouses", err)
	}
}
