package tpcc

import (
	"context"
	"fmt"
	"time"

	"github.com/candor-bench/candor/driver"
)

// New-Order, clause 2.4. The engine-specific statements are in sql_postgres.go and sql_sqlite.go;
// this file holds what every engine shares: the order of the work, the stock rule, amounts and
// totals, and the business rollback.

// noStock is one stock row an order touches, with its item (clause 2.4.2.2). Lines that name the
// same item from the same supply warehouse share one noStock, which is written once.
type noStock struct {
	w, i  int32 // s_w_id, s_i_id
	found bool  // the item and its stock row exist

	qty   int32  // s_quantity as read, then after all of this order's lines
	dist  string // s_dist_<d_id>
	price int64  // i_price in cents
	name  string // i_name
	// original: both i_data and s_data contain "ORIGINAL" (brand-generic "B", clause 2.4.2.2),
	// tested by the database so that the two data strings need not travel.
	original bool

	// increments from this order's lines
	ytd, orderCnt, remoteCnt int32
}

// newOrderState is the reusable working state of one New-Order.
type newOrderState struct {
	in *NewOrderInput

	// read by the header (clause 2.4.2.2)
	oID                   int64
	wTax, dTax, cDiscount int64 // ten-thousandths
	cLast, cCredit        string

	// rows holds the distinct (supply warehouse, item) pairs sorted by (s_w_id, s_i_id), which is
	// the order the stock rows are locked in, so New-Orders never deadlock on stock.
	nRows   int
	rows    [MaxLines]noStock
	lineRow [MaxLines]int8 // index into rows of each line

	amount  [MaxLines]int64 // ol_amount in cents, per line
	brand   [MaxLines]byte  // 'B' when item and stock data both contain "ORIGINAL", else 'G'
	total   int64           // cents, clause 2.4.2.2
	missing int             // the line whose item is unused, or -1

	// PostgreSQL: array arguments, and the row scanned by newOrderRead with its destinations
	// (built once, so a Scan allocates no argument list).
	arrays   pgArrays
	scan     newOrderScan
	readDest []any
}

// newOrderScan is one row of PostgreSQL's newOrderRead: the header (kind 0) or a stock row (1).
type newOrderScan struct {
	kind                       int32
	oID, dTax, wTax, cDiscount int64
	cLast, cCredit             string
	r                          noStock
}

// NewOrder runs one New-Order (clause 2.4.2) as one database transaction. in.EntryD is set to the
// time of execution. A New-Order whose last item is unused does all its work and rolls back:
// Outcome.RolledBack, not an error (clause 2.4.2.3).
func (cl *Client) NewOrder(ctx context.Context, conn driver.Conn, in *NewOrderInput, iso driver.Isolation) Outcome {
	if in.OLCnt < 1 || in.OLCnt > MaxLines || in.DID < 1 || in.DID > DistrictsPerWarehouse {
		return Outcome{Err: fmt.Errorf("tpcc: new-order for district %d with %d lines (must be 1..%d and 1..%d)",
			in.DID, in.OLCnt, DistrictsPerWarehouse, MaxLines)}
	}
	in.EntryD = time.Now()
	cl.no.in = in
	cl.no.prepare()
	if cl.proc != nil {
		// one call, sent alone at read committed like the other single-statement transactions
		conn = cl.txConn(ctx, conn, iso)
	}
	return cl.run(ctx, conn, driver.TxOptions{Isolation: iso}, cl.newOrderFn)
}

func (cl *Client) newOrderTx(ctx context.Context, c driver.Conn) error {
	st := &cl.no
	// Warehouse, district (d_next_o_id read and incremented), customer; insert orders and
	// new_order; each line's item and stock, all stock rows locked in key order.
	for k := 0; k < st.nRows; k++ {
		st.rows[k].found = false
	}
	if err := cl.ops.newOrderRead(ctx, c, cl); err != nil {
		return err
	}
	if err := st.apply(); err != nil {
		return err
	}
	// Update stock, insert order lines: the work is done even when the order will roll back.
	if err := cl.ops.newOrderWrite(ctx, c, cl); err != nil {
		return err
	}
	if st.missing >= 0 {
		// Clause 2.4.2.3: "Item number is not valid"; the whole transaction is rolled back.
		return driver.ErrRollback
	}
	return nil
}

// prepare builds the sorted distinct stock keys of the input and maps each line to its key. It
// depends on the input only, so it runs once per New-Order, not once per attempt.
func (st *newOrderState) prepare() {
	in := st.in
	st.nRows = 0
	for l := 0; l < in.OLCnt; l++ {
		w, i := int32(in.Lines[l].SupplyWID), int32(in.Lines[l].ItemID)
		// insertion into the sorted distinct keys (at most 15)
		k := 0
		for k < st.nRows && (st.rows[k].w < w || st.rows[k].w == w && st.rows[k].i < i) {
			k++
		}
		if k < st.nRows && st.rows[k].w == w && st.rows[k].i == i {
			continue
		}
		copy(st.rows[k+1:st.nRows+1], st.rows[k:st.nRows])
		st.rows[k] = noStock{w: w, i: i}
		st.nRows++
	}
	for l := 0; l < in.OLCnt; l++ {
		st.lineRow[l] = int8(st.find(int32(in.Lines[l].SupplyWID), int32(in.Lines[l].ItemID)))
	}
}

// find returns the index of key (w, i) in rows, or -1.
func (st *newOrderState) find(w, i int32) int {
	for k := 0; k < st.nRows; k++ {
		if st.rows[k].w == w && st.rows[k].i == i {
			return k
		}
	}
	return -1
}

// newStockQuantity is the stock rule of clause 2.4.2.2: if S_QUANTITY exceeds OL_QUANTITY by 10 or
// more it decreases by OL_QUANTITY, otherwise it becomes S_QUANTITY - OL_QUANTITY + 91.
func newStockQuantity(sQuantity, olQuantity int32) int32 {
	if sQuantity-olQuantity >= 10 {
		return sQuantity - olQuantity
	}
	return sQuantity - olQuantity + 91
}

// apply runs the per-line part of clause 2.4.2.2 in Go on the rows just read: lines are applied in
// order, so an item ordered twice from one warehouse sees the quantity left by the first line.
func (st *newOrderState) apply() error {
	in := st.in
	for k := 0; k < st.nRows; k++ {
		r := &st.rows[k]
		r.ytd, r.orderCnt, r.remoteCnt = 0, 0, 0
	}
	st.missing = -1
	var sum int64
	for l := 0; l < in.OLCnt; l++ {
		line := &in.Lines[l]
		r := &st.rows[st.lineRow[l]]
		if !r.found {
			// Clause 2.4.2.3: an unused item. Only the generated rollback line may be one; any other
			// missing item or stock row means the database does not hold what the load wrote.
			if !in.Rollback || l != in.OLCnt-1 {
				return driver.Checkf("tpcc: new-order: item %d or its stock in warehouse %d not found (is the database fully loaded?)", line.ItemID, line.SupplyWID)
			}
			st.missing = l
			st.amount[l] = 0
			continue
		}
		q := int32(line.Quantity)
		r.qty = newStockQuantity(r.qty, q)
		r.ytd += q
		r.orderCnt++
		if line.SupplyWID != in.WID {
			r.remoteCnt++
		}
		st.amount[l] = int64(q) * r.price // OL_AMOUNT = OL_QUANTITY * I_PRICE
		st.brand[l] = 'G'
		if r.original {
			st.brand[l] = 'B'
		}
		sum += st.amount[l]
	}
	// Total = sum(OL_AMOUNT) * (1 - C_DISCOUNT) * (1 + W_TAX + D_TAX), in cents rounded half up;
	// rates are ten-thousandths, so the product carries a factor of 10^8 (at most about 2.1e14).
	st.total = (sum*(10000-st.cDiscount)*(10000+st.wTax+st.dTax) + 50_000_000) / 100_000_000
	return nil
}
