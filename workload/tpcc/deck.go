package tpcc

import (
	"time"

	"github.com/candor-bench/candor/gen"
)

// deckCards is one pass of the deck of clause 5.2.4.2 in transaction-type order (10 New-Order,
// 10 Payment, 1 Order-Status, 1 Delivery, 1 Stock-Level), built from the named counts in DeckCards.
var deckCards = func() [DeckSize]int8 {
	var cards [DeckSize]int8
	n := 0
	for tx := 0; tx < NumTxTypes; tx++ { // by type index, never by map order: the deck is reproducible
		for k := 0; k < DeckCards[tx]; k++ {
			if n == DeckSize {
				panic("tpcc: DeckCards holds more than DeckSize cards")
			}
			cards[n] = int8(tx)
			n++
		}
	}
	if n != DeckSize {
		panic("tpcc: DeckCards holds fewer than DeckSize cards")
	}
	return cards
}()

// Deck is a terminal's card deck (clause 5.2.4.2): each pass deals all DeckSize cards once, in an
// order reshuffled with the terminal's own random stream before every pass. 24 bytes; the zero value
// is ready (no cards left: the first Next deals).
type Deck struct {
	cards [DeckSize]int8
	left  uint8 // cards not yet dealt in this pass; 0: the pass is over (or never began)
}

// Next returns the transaction type of the next card, reshuffling with r when a pass is complete.
func (d *Deck) Next(r *gen.Rand) int {
	if d.left == 0 {
		d.cards = deckCards
		gen.Shuffle(r, d.cards[:])
		d.left = DeckSize
	}
	c := d.cards[DeckSize-int(d.left)]
	d.left--
	return int(c)
}

// ThinkTime draws the think time of clause 5.2.5.4 for transaction type op: negative exponential,
// -ln(u) x mean with u uniform in (0, 1], truncated at ThinkCap (10) times the mean.
func ThinkTime(r *gen.Rand, op int) time.Duration {
	return time.Duration(r.Exp(float64(Timings[op].MeanThink), ThinkCap))
}
