package tpcc

import (
	"testing"
	"time"
	"unsafe"

	"github.com/candor-bench/candor/gen"
)

// oldTerminal is the draw order of the terminal before it was made small: every input drawn
// with its card in Next, kept in the terminal, from the public Gen* functions. The slim terminal
// must draw exactly the same cards, keying times, inputs and think times for the same seed.
type oldTerminal struct {
	r          gen.Rand
	w, W       int
	c          Constants
	wait       bool
	firstDelay time.Duration
	cards      [DeckSize]int8
	pos        int
	in         txInputs
}

func newOldTerminal(i, W int, mode Mode, seed uint64, c Constants) *oldTerminal {
	t := &oldTerminal{W: W, c: c, wait: mode == ModeSpec, pos: DeckSize}
	if mode == ModeSpec {
		t.w = i/DistrictsPerWarehouse + 1
	} else {
		t.w = i%W + 1
	}
	t.r.Seed(gen.Derive(seed, "tpcc", "terminal", i))
	if t.wait { // the same steady start (steady.go), its deck copied into the old form
		st := terminal{r: t.r}
		st.steadyStart()
		t.r, t.firstDelay, t.cards, t.pos = st.r, st.firstDelay, st.deck.cards, DeckSize-int(st.deck.left)
	}
	return t
}

func (t *oldTerminal) next() (int, time.Duration) {
	if t.pos == DeckSize {
		t.cards = deckCards
		gen.Shuffle(&t.r, t.cards[:])
		t.pos = 0
	}
	op := int(t.cards[t.pos])
	t.pos++
	switch op {
	case NewOrder:
		GenNewOrder(&t.r, t.c, t.w, t.W, &t.in.no)
	case Payment:
		GenPayment(&t.r, t.c, t.w, t.W, &t.in.pay)
	case OrderStatus:
		GenOrderStatus(&t.r, t.c, t.w, t.W, &t.in.os)
	case Delivery:
		GenDelivery(&t.r, t.c, t.w, t.W, &t.in.dl)
	case StockLevel:
		GenStockLevel(&t.r, t.c, t.w, t.W, &t.in.sl)
	}
	if !t.wait {
		return op, 0
	}
	k := Timings[op].Keying + t.firstDelay
	t.firstDelay = 0
	return op, k
}

func sameInputs(op int, a, b *txInputs) bool {
	switch op {
	case NewOrder:
		return a.no == b.no
	case Payment:
		return a.pay == b.pay
	case OrderStatus:
		return a.os == b.os
	case Delivery:
		return a.dl == b.dl
	case StockLevel:
		return a.sl == b.sl
	}
	return false
}

func TestTerminalDrawsAsBefore(t *testing.T) {
	c := Constants{CLast: 123, CID: 259, OLIID: 7911}
	for _, mode := range []Mode{ModeSpec, ModeThroughput} {
		const n, W = 30, 3
		ts := newTerminals(n, W, mode, 42, c)
		var seen [NumTxTypes]int
		for i, nt := range ts {
			ot := newOldTerminal(i, W, mode, 42, c)
			var in txInputs
			for k := 0; k < 3*DeckSize+5; k++ { // across reshuffles
				opA, keyA := ot.next()
				thinkA := time.Duration(0)
				if ot.wait {
					thinkA = ThinkTime(&ot.r, opA)
				}
				opB, keyB := nt.Next()
				nt.draw(opB, &in)
				thinkB := nt.Think(opB)
				if opA != opB || keyA != keyB || thinkA != thinkB {
					t.Fatalf("%s terminal %d draw %d: old (%d, %v, %v), new (%d, %v, %v)", mode, i, k, opA, keyA, thinkA, opB, keyB, thinkB)
				}
				if !sameInputs(opA, &ot.in, &in) {
					t.Fatalf("%s terminal %d draw %d (%s): inputs differ:\nold %+v\nnew %+v", mode, i, k, TxNames[opA], ot.in, in)
				}
				seen[opA]++
			}
		}
		for op, k := range seen {
			if k == 0 {
				t.Fatalf("%s: no %s drawn", mode, TxNames[op])
			}
		}
	}
}

// What a terminal keeps between its transactions is small (a million in one process).
func TestTerminalSize(t *testing.T) {
	if s := unsafe.Sizeof(terminal{}); s > 64 {
		t.Fatalf("a terminal takes %d bytes, more than 64", s)
	}
}
