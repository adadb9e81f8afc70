package tpcc

import (
	"math"
	"testing"
	"time"

	"github.com/candor-bench/candor/gen"
)

// simulateWindow runs terminals through their keying and think times alone (response times zero)
// and counts the cards completed by type inside [from, to), per second of it.
func simulateWindow(ts []*terminal, from, to time.Duration) (perSecond [NumTxTypes]float64) {
	var n [NumTxTypes]int
	for _, t := range ts {
		at := time.Duration(0)
		for {
			op, keying := t.Next()
			at += keying
			if at >= to {
				break
			}
			if at >= from {
				n[op]++
			}
			at += t.Think(op)
		}
	}
	for op := range n {
		perSecond[op] = float64(n[op]) / (to - from).Seconds()
	}
	return perSecond
}

// The deck's ceiling as a rate: New-Orders per second of terms terminals.
func ceilingPerSecond(terms int) float64 {
	return DeckCeilingPerWarehouse() / 60 * float64(terms) / TerminalsPerWarehouse
}

// A spec-mode run is in steady state from its first second: New-Orders arrive at the rate the deck
// and the timing rules imply, and the mix is the deck's, in a short window at the start as in a
// later one. The old start (every terminal a fresh pass, staggered by up to 12 s) fails the same
// check, so the test can tell the two apart.
func TestSteadyStart(t *testing.T) {
	const terms = 200000
	c := Constants{CLast: 1, CID: 1, OLIID: 1}
	want := ceilingPerSecond(terms)
	// New-Orders in a window of s seconds: about want x s; their count's spread is below
	// sqrt(want x s) (a renewal process with regular cycles is less variable than Poisson).
	tol := func(s float64) float64 { return 4 / math.Sqrt(want*s) }
	for _, w := range []struct{ from, to time.Duration }{
		{0, 30 * time.Second},
		{120 * time.Second, 300 * time.Second},
	} {
		got := simulateWindow(newTerminals(terms, terms/TerminalsPerWarehouse, ModeSpec, 7, c), w.from, w.to)
		total := 0.0
		for _, v := range got {
			total += v
		}
		s := (w.to - w.from).Seconds()
		t.Logf("window %v-%v: New-Order %.2f/s (ceiling %.2f/s, %+.2f%%), Payment %.2f%% of the mix", w.from, w.to,
			got[NewOrder], want, 100*(got[NewOrder]/want-1), 100*got[Payment]/total)
		if rel := got[NewOrder]/want - 1; math.Abs(rel) > tol(s) {
			t.Errorf("window %v-%v: %.1f New-Orders/s, %.2f%% from the deck's ceiling %.1f/s (tolerance %.2f%%)",
				w.from, w.to, got[NewOrder], 100*rel, want, 100*tol(s))
		}
		for op := 0; op < NumTxTypes; op++ {
			share, deck := got[op]/total, float64(DeckCards[op])/DeckSize
			if math.Abs(share-deck) > 4*math.Sqrt(deck*(1-deck)/(total*s)) {
				t.Errorf("window %v-%v: %s %.3f%% of the mix, the deck deals %.3f%%", w.from, w.to, TxNames[op], 100*share, 100*deck)
			}
		}
	}

	// The old start: a fresh pass for every terminal, the first keying delayed by up to 12 s.
	old := newTerminals(terms, terms/TerminalsPerWarehouse, ModeSpec, 7, c)
	for i, tm := range old {
		tm.r.Seed(gen.Derive(7, "tpcc", "terminal", i))
		tm.deck = Deck{}
		tm.firstDelay = time.Duration(tm.r.Float64() * float64(Timings[NewOrder].MeanThink))
	}
	got := simulateWindow(old, 120*time.Second, 300*time.Second)
	t.Logf("old start, window 2m0s-5m0s: New-Order %.2f/s (%+.2f%%)", got[NewOrder], 100*(got[NewOrder]/want-1))
	if rel := got[NewOrder]/want - 1; rel < 0.005 {
		t.Errorf("the old start gave %.1f New-Orders/s, %.2f%% from the ceiling: expected its bias (about +1.3%%)", got[NewOrder], 100*rel)
	}
}

// The start's first delays are within the cycle: a keying time shortened to no less than zero, or a
// think time's rest of at most its clamp.
func TestSteadyStartDelays(t *testing.T) {
	c := Constants{CLast: 1, CID: 1, OLIID: 1}
	ts := newTerminals(50000, 5000, ModeSpec, 3, c)
	var negative, positive int
	for _, tm := range ts {
		if tm.deck.left > DeckSize {
			t.Fatalf("deck has %d cards left", tm.deck.left)
		}
		d := tm.firstDelay
		switch {
		case d < 0:
			negative++
		case d > 0:
			positive++
		}
		op, k := tm.Next()
		if k < 0 || k > Timings[op].Keying+ThinkCap*Timings[NewOrder].MeanThink {
			t.Fatalf("first keying %v for %s", k, TxNames[op])
		}
		if d < 0 && k > Timings[op].Keying {
			t.Fatalf("a keying in progress lasts %v, more than %s's %v", k, TxNames[op], Timings[op].Keying)
		}
	}
	// Keying is 216 s of the deck's 476 s of keying and mean think: about 45% start mid-keying.
	if f := float64(negative) / float64(len(ts)); f < 0.42 || f > 0.50 {
		t.Fatalf("%.1f%% of terminals start mid-keying, want about 45%%", 100*f)
	}
	if negative+positive < len(ts)-10 {
		t.Fatalf("%d of %d terminals start exactly at a cycle's boundary", len(ts)-negative-positive, len(ts))
	}
}
