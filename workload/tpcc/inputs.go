package tpcc

import (
	"time"

	"github.com/candor-bench/candor/gen"
)

// Input generation (clauses 2.4.1, 2.5.1, 2.6.1, 2.7.1, 2.8.1): pure functions of a terminal's random
// stream, the run's NURand constants and the warehouse count. Each fills a caller-owned struct, so a
// terminal generates its inputs without allocating. Draws follow the order the standard lists them.

// Order-line counts, clause 2.4.1.3.
const (
	MinLines = 5
	MaxLines = 15
)

// UnusedItemID is the item id of the 1% of New-Orders that must roll back (clause 2.4.1.5: "an
// unused value"); item ids run 1..Items.
const UnusedItemID = Items + 1

// NewOrderLine is one item of a New-Order.
type NewOrderLine struct {
	ItemID    int
	SupplyWID int
	Quantity  int
}

// NewOrderInput is the input of one New-Order (clause 2.4.1).
type NewOrderInput struct {
	WID, DID, CID int
	OLCnt         int
	Lines         [MaxLines]NewOrderLine // the first OLCnt are used
	// Rollback: the last line carries UnusedItemID (clause 2.4.1.4, rbk = 1).
	Rollback bool
	// RemoteLines counts lines supplied by another warehouse (clause 2.4.1.5).
	RemoteLines int
	// EntryD is o_entry_d, set when the transaction executes (clause 2.4.2.2).
	EntryD time.Time
}

// AllLocal reports whether every line is supplied by the home warehouse (o_all_local, clause 2.4.2.2).
func (in *NewOrderInput) AllLocal() bool { return in.RemoteLines == 0 }

// GenNewOrder fills in with a New-Order of terminal warehouse w in a database of W warehouses.
func GenNewOrder(r *gen.Rand, c Constants, w, W int, in *NewOrderInput) {
	in.WID = w
	in.DID = r.IntRange(1, DistrictsPerWarehouse) // 2.4.1.2
	in.CID = c.CustomerID(r)                      // 2.4.1.2: NURand(1023, 1, 3000)
	in.OLCnt = r.IntRange(MinLines, MaxLines)     // 2.4.1.3
	in.Rollback = r.IntRange(1, 100) == 1         // 2.4.1.4: rbk = random(1, 100), 1 rolls back
	in.RemoteLines = 0
	in.EntryD = time.Time{}
	for i := 0; i < in.OLCnt; i++ {
		l := &in.Lines[i]
		// 2.4.1.5: OL_I_ID = NURand(8191, 1, 100000); the last line of a rollback order is unused.
		l.ItemID = c.ItemID(r)
		if in.Rollback && i == in.OLCnt-1 {
			l.ItemID = UnusedItemID
		}
		// 2.4.1.5: the home warehouse 99% of the time, else a uniformly chosen other one (only
		// possible with more than one warehouse).
		l.SupplyWID = w
		if r.IntRange(1, 100) == 1 && W > 1 {
			l.SupplyWID = otherWarehouse(r, w, W)
			in.RemoteLines++
		}
		l.Quantity = r.IntRange(1, 10) // 2.4.1.5: OL_QUANTITY = random(1, 10)
	}
	for i := in.OLCnt; i < MaxLines; i++ {
		in.Lines[i] = NewOrderLine{}
	}
}

// otherWarehouse draws a warehouse uniformly among 1..W other than w (W > 1).
func otherWarehouse(r *gen.Rand, w, W int) int {
	o := r.IntRange(1, W-1)
	if o >= w {
		o++
	}
	return o
}

// PaymentInput is the input of one Payment (clause 2.5.1).
type PaymentInput struct {
	WID, DID   int // the terminal's warehouse and the district paid to
	CWID, CDID int // the customer's warehouse and district
	// Remote: the customer belongs to another warehouse (15%, clause 2.5.1.2).
	Remote bool
	// ByName: the customer is chosen by CLast (60%), else by CID (clause 2.5.1.2).
	ByName bool
	CID    int
	CLast  string
	// AmountCents is H_AMOUNT, 1.00..5,000.00 (clause 2.5.1.3).
	AmountCents int64
	// Date is h_date, set when the transaction executes.
	Date time.Time
}

// GenPayment fills in with a Payment of terminal warehouse w in a database of W warehouses.
func GenPayment(r *gen.Rand, c Constants, w, W int, in *PaymentInput) {
	in.WID = w
	in.DID = r.IntRange(1, DistrictsPerWarehouse) // 2.5.1.1
	// 2.5.1.2: x <= 85 home warehouse and district; else a random district of a random other
	// warehouse. With one warehouse every customer is local.
	if r.IntRange(1, 100) <= 85 || W == 1 {
		in.CWID, in.CDID, in.Remote = w, in.DID, false
	} else {
		in.CDID = r.IntRange(1, DistrictsPerWarehouse)
		in.CWID = otherWarehouse(r, w, W)
		in.Remote = true
	}
	// 2.5.1.2: y <= 60 by last name NURand(255, 0, 999) (the run's C), else by id NURand(1023, 1, 3000).
	if r.IntRange(1, 100) <= 60 {
		in.ByName, in.CID, in.CLast = true, 0, LastName(c.LastNameNumber(r))
	} else {
		in.ByName, in.CID, in.CLast = false, c.CustomerID(r), ""
	}
	in.AmountCents = int64(r.IntRange(100, 500000)) // 2.5.1.3
	in.Date = time.Time{}
}

// OrderStatusInput is the input of one Order-Status (clause 2.6.1).
type OrderStatusInput struct {
	WID, DID int
	ByName   bool
	CID      int
	CLast    string
}

// GenOrderStatus fills in with an Order-Status of terminal warehouse w (W is unused: the customer is
// always in the home warehouse).
func GenOrderStatus(r *gen.Rand, c Constants, w, W int, in *OrderStatusInput) {
	in.WID = w
	in.DID = r.IntRange(1, DistrictsPerWarehouse) // 2.6.1.2
	if r.IntRange(1, 100) <= 60 {                 // 2.6.1.2: 60% by last name, 40% by id
		in.ByName, in.CID, in.CLast = true, 0, LastName(c.LastNameNumber(r))
	} else {
		in.ByName, in.CID, in.CLast = false, c.CustomerID(r), ""
	}
}

// DeliveryInput is the input of one Delivery (clause 2.7.1); the warehouse is the terminal's.
type DeliveryInput struct {
	CarrierID int
}

// GenDelivery fills in with a Delivery of terminal warehouse w.
func GenDelivery(r *gen.Rand, c Constants, w, W int, in *DeliveryInput) {
	in.CarrierID = r.IntRange(1, 10) // 2.7.1.2
}

// StockLevelInput is the input of one Stock-Level (clause 2.8.1); the warehouse and district are the
// terminal's own (clause 2.8.1.1), passed to Client.StockLevel.
type StockLevelInput struct {
	Threshold int
}

// GenStockLevel fills in with a Stock-Level of terminal warehouse w.
func GenStockLevel(r *gen.Rand, c Constants, w, W int, in *StockLevelInput) {
	in.Threshold = r.IntRange(10, 20) // 2.8.1.2
}
