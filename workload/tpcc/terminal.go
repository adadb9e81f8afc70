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

// terminal is one emulated user: a small state record, not a goroutine (design.md), 64 bytes. It
// keeps only what must survive between its transactions: its home warehouse and district (clause
// 2.4.1.1, 2.8.1.1), its own random stream (derived from the run seed and its id), its place in its
// card deck and its first delay. A transaction's inputs are drawn when it runs (draw), from the
// terminal's stream into the running worker's scratch (txInputs): the stream is consumed in the
// order of clause 5.2.5 (card, inputs, think, card, ...), so the same seed gives the same work as
// drawing the inputs with the card. A million terminals fit in one process this way.
type terminal struct {
	r   gen.Rand    // 16 bytes
	run *termShared // what all the run's terminals share
	// firstDelay corrects the first card's keying time so that the terminal starts at a random
	// instant of its steady state (steady.go): negative, the rest of a keying time in progress;
	// positive, the rest of a think time in progress. Zero once used.
	firstDelay time.Duration
	w          int32 // home warehouse
	d          int8  // home district (Stock-Level always uses it)
	deck       Deck  // 24 bytes
}

// termShared is what every terminal of a run shares.
type termShared struct {
	W    int // warehouses in the database
	c    Constants
	wait bool // keying and think times (spec mode)
}

// txInputs holds one transaction's inputs: a worker's scratch (the executor's slot) or an
// open-loop arrival's job record.
type txInputs struct {
	no  NewOrderInput
	pay PaymentInput
	os  OrderStatusInput
	dl  DeliveryInput
	sl  StockLevelInput
}

var _ schedule.Terminal = (*terminal)(nil)

// newTerminals builds n terminals over W warehouses, in one allocation. In spec mode n is 10 x W and
// terminal i has warehouse i/10+1 and district i%10+1 (clause 4.2.2: one terminal per district).
// Otherwise terminals are spread round-robin over warehouses first, then districts, so any n covers
// the warehouses evenly.
func newTerminals(n, W int, mode Mode, seed uint64, c Constants) []*terminal {
	return newTerminalsOf(n, W, 1, W, mode, seed, c)
}

// newTerminalsOf builds n terminals whose home warehouses are lo..hi of W (a shard's range,
// shard.go); remote warehouses (New-Order's supplying warehouses, Payment's customer warehouse)
// are still drawn from all W.
func newTerminalsOf(n, W, lo, hi int, mode Mode, seed uint64, c Constants) []*terminal {
	run := &termShared{W: W, c: c, wait: mode == ModeSpec}
	all := make([]terminal, n)
	ts := make([]*terminal, n)
	nw := hi - lo + 1
	for i := range ts {
		t := &all[i]
		t.run = run
		if mode == ModeSpec {
			t.w, t.d = int32(lo+i/DistrictsPerWarehouse), int8(i%DistrictsPerWarehouse+1)
		} else {
			t.w, t.d = int32(lo+i%nw), int8((i/nw)%DistrictsPerWarehouse+1)
		}
		t.r.Seed(gen.Derive(seed, "tpcc", "terminal", i))
		if run.wait {
			t.steadyStart() // at a random instant of its steady state (steady.go)
		}
		ts[i] = t
	}
	return ts
}

// home is the terminal's home warehouse and district.
func (t *terminal) home() (w, d int) { return int(t.w), int(t.d) }

// Next draws the next card (clause 5.2.4.2); its inputs are drawn when it runs (draw). The returned
// keying time is the spec's constant for the type in spec mode, else zero.
func (t *terminal) Next() (int, time.Duration) {
	op := t.deck.Next(&t.r)
	if !t.run.wait {
		return op, 0
	}
	k := Timings[op].Keying + t.firstDelay
	t.firstDelay = 0
	return op, k
}

// draw generates the inputs of transaction op, the terminal's last card, into in (clause 2.x.1).
// Called once per card, between Next and Think.
func (t *terminal) draw(op int, in *txInputs) {
	r, c, w, W := &t.r, t.run.c, int(t.w), t.run.W
	switch op {
	case NewOrder:
		GenNewOrder(r, c, w, W, &in.no)
	case Payment:
		GenPayment(r, c, w, W, &in.pay)
	case OrderStatus:
		GenOrderStatus(r, c, w, W, &in.os)
	case Delivery:
		GenDelivery(r, c, w, W, &in.dl)
	case StockLevel:
		GenStockLevel(r, c, w, W, &in.sl)
	}
}

// Think is the think time after op (clause 5.2.5.4), zero outside spec mode.
func (t *terminal) Think(op int) time.Duration {
	if !t.run.wait {
		return 0
	}
	return ThinkTime(&t.r, op)
}
