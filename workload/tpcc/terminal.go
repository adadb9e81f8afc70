package tpcc

import (
	"time"

	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/workload"
)

// Mode is how terminals pace themselves (the core's modes, workload.Mode).
type Mode = workload.Mode

const (
	// ModeSpec: 10 terminals per warehouse with keying and think times (clause 5.2.5); efficiency and
	// the 90th-percentile verdicts apply.
	ModeSpec = workload.ModeSpec
	// ModeThroughput: N terminals with no waits (a closed loop); finds peak throughput.
	ModeThroughput = workload.ModeThroughput
	// ModeRate: open-loop arrivals at a target rate (arrivals.go); latency at a given offered load.
	ModeRate = workload.ModeRate
)

// terminal is one emulated user: a small state record, not a goroutine (design.md). It is bound to
// a home warehouse and district for its whole life (clause 2.4.1.1, 2.8.1.1), draws its transaction
// types from its own card deck and its inputs from its own random stream, derived from the run seed
// and its id.
type terminal struct {
	id   int
	w, d int // home warehouse and district (Stock-Level always uses d)
	W    int // warehouses in the database
	c    Constants
	wait bool // keying and think times (spec mode)
	// firstDelay staggers the terminals' first transaction over the ramp-up, so that ten terminals
	// per warehouse do not all finish keying at the same instant.
	firstDelay time.Duration

	r    gen.Rand
	deck Deck

	no  NewOrderInput
	pay PaymentInput
	os  OrderStatusInput
	dl  DeliveryInput
	sl  StockLevelInput
}

var _ schedule.Terminal = (*terminal)(nil)

// newTerminals builds n terminals over W warehouses. In spec mode n is 10 x W and terminal i has
// warehouse i/10+1 and district i%10+1 (clause 4.2.2: one terminal per district). Otherwise terminals
// are spread round-robin over warehouses first, then districts, so any n covers the warehouses evenly.
func newTerminals(n, W int, mode Mode, seed uint64, c Constants) []*terminal {
	return newTerminalsOf(n, W, 1, W, mode, seed, c)
}

// newTerminalsOf builds n terminals whose home warehouses are lo..hi of W (a shard's range,
// shard.go); remote warehouses (New-Order's supplying warehouses, Payment's customer warehouse)
// are still drawn from all W.
func newTerminalsOf(n, W, lo, hi int, mode Mode, seed uint64, c Constants) []*terminal {
	ts := make([]*terminal, n)
	nw := hi - lo + 1
	for i := range ts {
		t := &terminal{id: i, W: W, c: c, wait: mode == ModeSpec}
		if mode == ModeSpec {
			t.w, t.d = lo+i/DistrictsPerWarehouse, i%DistrictsPerWarehouse+1
		} else {
			t.w, t.d = lo+i%nw, (i/nw)%DistrictsPerWarehouse+1
		}
		t.r.Seed(gen.Derive(seed, "tpcc", "terminal", i))
		if t.wait {
			// Up to one mean think time of New-Order (12 s), part of the warm-up.
			t.firstDelay = time.Duration(t.r.Float64() * float64(Timings[NewOrder].MeanThink))
		}
		ts[i] = t
	}
	return ts
}

// Next draws the next card and generates that transaction's inputs (clause 5.2.4.2, 2.x.1). The
// returned keying time is the spec's constant for the type in spec mode, else zero.
func (t *terminal) Next() (int, time.Duration) {
	op := t.deck.Next(&t.r)
	switch op {
	case NewOrder:
		GenNewOrder(&t.r, t.c, t.w, t.W, &t.no)
	case Payment:
		GenPayment(&t.r, t.c, t.w, t.W, &t.pay)
	case OrderStatus:
		GenOrderStatus(&t.r, t.c, t.w, t.W, &t.os)
	case Delivery:
		GenDelivery(&t.r, t.c, t.w, t.W, &t.dl)
	case StockLevel:
		GenStockLevel(&t.r, t.c, t.w, t.W, &t.sl)
	}
	if !t.wait {
		return op, 0
	}
	k := Timings[op].Keying + t.firstDelay
	t.firstDelay = 0
	return op, k
}

// Think is the think time after op (clause 5.2.5.4), zero outside spec mode.
func (t *terminal) Think(op int) time.Duration {
	if !t.wait {
		return 0
	}
	return ThinkTime(&t.r, op)
}
