package tpcc

import (
	"math"
	"testing"
	"time"

	"github.com/candor-bench/candor/gen"
)

// Clause 5.2.4.2: each pass of 23 cards holds exactly 10 New-Order, 10 Payment and one each of the
// others, and the shares over a run meet the minimums (Payment 43%, the others 4%).
func TestDeckPasses(t *testing.T) {
	r := gen.New(gen.Derive(1, "deck-test"))
	var d Deck
	const passes = 5000
	var total [NumTxTypes]int
	orders := map[[DeckSize]int8]bool{}
	for p := 0; p < passes; p++ {
		var counts [NumTxTypes]int
		var order [DeckSize]int8
		for k := 0; k < DeckSize; k++ {
			c := d.Next(r)
			if c < 0 || c >= NumTxTypes {
				t.Fatalf("pass %d card %d: type %d out of range", p, k, c)
			}
			counts[c]++
			order[k] = int8(c)
		}
		want := [NumTxTypes]int{NewOrder: 10, Payment: 10, OrderStatus: 1, Delivery: 1, StockLevel: 1}
		if counts != want {
			t.Fatalf("pass %d dealt %v, want %v", p, counts, want)
		}
		for i := range total {
			total[i] += counts[i]
		}
		orders[order] = true
	}
	// reshuffled every pass: with 23!/(10!10!) orders, repeats are rare
	if len(orders) < passes*9/10 {
		t.Errorf("only %d distinct orders in %d passes: the deck is not reshuffled", len(orders), passes)
	}
	n := float64(passes * DeckSize)
	mins := map[int]float64{Payment: 0.43, OrderStatus: 0.04, Delivery: 0.04, StockLevel: 0.04}
	for tx, m := range mins {
		if share := float64(total[tx]) / n; share < m {
			t.Errorf("%s share %.4f below the minimum %.2f", TxNames[tx], share, m)
		}
	}
}

func TestDeckReproducible(t *testing.T) {
	var a, b Deck
	ra, rb := gen.New(7), gen.New(7)
	for i := 0; i < 10*DeckSize; i++ {
		if x, y := a.Next(ra), b.Next(rb); x != y {
			t.Fatalf("card %d differs for the same seed: %d and %d", i, x, y)
		}
	}
}

// Clause 5.2.5.4: think time is negative exponential with the type's mean, truncated at 10 times it.
func TestThinkTime(t *testing.T) {
	for op := 0; op < NumTxTypes; op++ {
		r := gen.New(gen.Derive(42, "think", op))
		mean := Timings[op].MeanThink
		const n = 100000
		var sum float64
		var maxSeen time.Duration
		for i := 0; i < n; i++ {
			d := ThinkTime(r, op)
			if d < 0 {
				t.Fatalf("%s: negative think time %v", TxNames[op], d)
			}
			maxSeen = max(maxSeen, d)
			sum += float64(d)
		}
		got := sum / n
		// The truncation at 10x lowers the mean by a factor e^-10 (0.005%), far inside the tolerance.
		if rel := math.Abs(got/float64(mean) - 1); rel > 0.02 {
			t.Errorf("%s: mean think %v, want %v within 2%%", TxNames[op], time.Duration(got), mean)
		}
		if maxSeen > ThinkCap*mean {
			t.Errorf("%s: think time %v above %d x %v", TxNames[op], maxSeen, ThinkCap, mean)
		}
	}
}
