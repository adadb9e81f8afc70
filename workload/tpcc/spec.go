// Package tpcc is candor's TPC-C workload, derived from the TPC-C standard revision 5.11 (a digest is
// in shared/tpcc-spec.md). Clause numbers beside the code point into the standard. Results from it are
// "derived from TPC-C, not audited".
package tpcc

import "time"

// Scale, clause 1.2 and 4.3.3.1.
const (
	DistrictsPerWarehouse = 10
	CustomersPerDistrict  = 3000
	Items                 = 100000
	StockPerWarehouse     = Items
	OrdersPerDistrict     = 3000 // initial orders, one per customer
	// FirstUndelivered is the first initial o_id still waiting in new_order (clause 4.3.3.1:
	// o_id 2101..3000 have a null carrier and a new_order row).
	FirstUndelivered = 2101
	// TerminalsPerWarehouse, clause 5.2.5 / 4.2.2: ten per warehouse, one per district.
	TerminalsPerWarehouse = 10
)

// Transaction types, in the order used everywhere (results, histograms, logs).
const (
	NewOrder = iota
	Payment
	OrderStatus
	Delivery
	StockLevel
	NumTxTypes
)

// TxNames are the keys used in result.json and the interval log tags.
var TxNames = [NumTxTypes]string{"new_order", "payment", "order_status", "delivery", "stock_level"}

// DeckCards is the card deck of clause 5.2.4.2 as used by most implementations: 23 cards per pass,
// 10 New-Order, 10 Payment, 1 each of the others; reshuffled after every pass. Named, not positional.
// A terminal deals from a Deck (deck.go).
var DeckCards = map[int]int{NewOrder: 10, Payment: 10, OrderStatus: 1, Delivery: 1, StockLevel: 1}

// DeckSize is the number of cards in one pass of DeckCards.
const DeckSize = 23

// Timing of clause 5.2.5: keying time, mean think time, and the 90th-percentile response-time limit.
type Timing struct {
	Keying    time.Duration
	MeanThink time.Duration
	Limit90   time.Duration
}

// Timings per transaction type (clause 5.2.5.7 keying and think; 5.2.5.3 limits).
var Timings = [NumTxTypes]Timing{
	NewOrder:    {18 * time.Second, 12 * time.Second, 5 * time.Second},
	Payment:     {3 * time.Second, 12 * time.Second, 5 * time.Second},
	OrderStatus: {2 * time.Second, 10 * time.Second, 5 * time.Second},
	Delivery:    {2 * time.Second, 5 * time.Second, 5 * time.Second},
	StockLevel:  {2 * time.Second, 5 * time.Second, 20 * time.Second},
}

// ThinkCap is the truncation of think time at ten times its mean (clause 5.2.5.4).
const ThinkCap = 10

// DeliveryCompletionLimit: 90% of deferred deliveries must complete within 80 s (clause 2.7.2.1).
const DeliveryCompletionLimit = 80 * time.Second

// MaxTpmCPerWarehouse is the ceiling with spec timing (clause 5.4 note: about 12.86 tpmC per
// warehouse); efficiency = tpmC / (12.86 x W).
const MaxTpmCPerWarehouse = 12.86
