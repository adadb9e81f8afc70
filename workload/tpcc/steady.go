package tpcc

import (
	"math"
	"time"

	"github.com/candor-bench/candor/gen"
)

// A spec-mode terminal starts at a random instant of its own steady state, as if it had been
// running for a long time before the run began.
//
// Why: a terminal's deck (clause 5.2.4.2) deals 23 cards per pass, and one pass takes about 476 s of
// keying and think time (clause 5.2.5.7). If every terminal began a fresh pass at the start of the
// run, a window of a few minutes would see each terminal's first pass only, and a pass cut by time
// is not a fair sample of its cards: a terminal that happened to deal its short cards first (Payment,
// 15 s a cycle) has more of its long New-Orders (30 s) left, so the window is rich in New-Orders.
// Measured with 1,000,000 terminals on the null engine, 120 s warm-up and 180 s measured: tpmC 1.26%
// above the deck's ceiling and Payment 42.9% of the mix (below clause 5.2.3's 43%). Passes
// de-synchronise only slowly (a pass's length varies by about 11%), so a longer warm-up barely helps.
// The standard's 2-hour interval hides the effect; candor's shorter runs must not show it.
//
// How: the terminal's cycles of (keying, transaction, think) form a renewal process, and its state at
// an instant of the steady state is drawn exactly (response times, a few milliseconds against cycles
// of 7 to 30 s, are left out):
//   - the card in progress is of type x with probability proportional to its count in the deck times
//     its mean cycle (keying + mean think): a long card covers more of the time;
//   - its position in the pass is uniform, and the other cards lie in a uniformly random order around
//     it (what was dealt before it is gone; the rest are dealt next);
//   - its cycle length is length-biased (a random instant falls more often into a long cycle) and the
//     instant is uniform within that cycle. If it falls in the keying time, the terminal's first
//     transaction is that card, after the rest of its keying; if in the think time, the first is the
//     next card, after the rest of the think time and that card's own keying.
// The warm-up is then for the database's caches, not for the terminals' pacing.

// meanThink is the mean of the think time ThinkTime draws for op: a negative exponential with mean
// m clamped at ThinkCap x m has mean m x (1 - e^-ThinkCap).
func meanThink(op int) float64 {
	return Timings[op].MeanThink.Seconds() * (1 - math.Exp(-ThinkCap))
}

// steadyStart puts t at a random instant of its steady state (see above): its deck positioned at
// the card in progress or the one after it, and firstDelay the signed correction to the first
// card's keying time (negative: the rest of a keying time in progress; positive: the rest of a
// think time in progress).
func (t *terminal) steadyStart() {
	r := &t.r
	// The type of the card in progress, weighted by count x mean cycle.
	var weight [NumTxTypes]float64
	total := 0.0
	for tx := 0; tx < NumTxTypes; tx++ {
		weight[tx] = float64(DeckCards[tx]) * (Timings[tx].Keying.Seconds() + meanThink(tx))
		total += weight[tx]
	}
	u, op := r.Float64()*total, NumTxTypes-1
	for tx := 0; tx < NumTxTypes; tx++ {
		if u < weight[tx] {
			op = tx
			break
		}
		u -= weight[tx]
	}
	// Its position j, uniform, in a pass otherwise uniformly shuffled: shuffle, then swap a card of
	// type op (chosen uniformly among them) into position j, which leaves the arrangement uniform
	// among those with op at j.
	j := r.IntRange(0, DeckSize-1)
	t.deck.cards = deckCards
	gen.Shuffle(r, t.deck.cards[:])
	if int(t.deck.cards[j]) != op {
		k := r.IntRange(1, DeckCards[op])
		for p := range t.deck.cards {
			if int(t.deck.cards[p]) == op {
				if k--; k == 0 {
					t.deck.cards[p], t.deck.cards[j] = t.deck.cards[j], t.deck.cards[p]
					break
				}
			}
		}
	}
	// The length-biased cycle keying + think, and the instant within it.
	keying := Timings[op].Keying.Seconds()
	think := lengthBiasedThink(r, op, keying)
	age := r.Float64() * (keying + think)
	if age < keying { // keying the card at j: it is dealt first, with the rest of its keying time
		t.deck.left = uint8(DeckSize - j)
		t.firstDelay = -time.Duration(age * float64(time.Second))
		return
	}
	// thinking after the card at j: the next card is dealt first, after the rest of the think time
	t.deck.left = uint8(DeckSize - 1 - j)
	t.firstDelay = time.Duration((keying + think - age) * float64(time.Second))
}

// lengthBiasedThink draws the think time of a cycle of type op picked by a random instant: the cycle
// keying + think has density proportional to (keying + x) f(x), f the think time's density, which is
// the mixture of f itself (weight keying) and x f(x) / mean (weight mean). For the exponential think
// time that second part is a gamma of shape 2 (the sum of two exponentials) cut at the clamp.
func lengthBiasedThink(r *gen.Rand, op int, keying float64) float64 {
	mean := Timings[op].MeanThink.Seconds()
	limit := ThinkCap * mean
	if r.Float64()*(keying+meanThink(op)) < keying {
		return r.Exp(mean, ThinkCap)
	}
	for {
		if x := r.Exp(mean, 0) + r.Exp(mean, 0); x <= limit {
			return x
		}
	}
}
