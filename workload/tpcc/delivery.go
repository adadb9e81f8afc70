package tpcc

import (
	"context"
	"math"
	"time"

	"github.com/candor-bench/candor/driver"
)

// Delivery, clause 2.7. The statements are in sql_postgres.go and sql_sqlite.go.

// deliveryState is the reusable working state of one Delivery.
type deliveryState struct {
	w   int
	in  *DeliveryInput
	now time.Time // ol_delivery_d
	res DeliveryResult

	// row is where the engines that return a Delivery's outcome as one row (PostgreSQL's statement,
	// both engines' procedures) scan it: districts delivered, skipped, then the O_ID of each district
	// (0: skipped). dest points into it and is built once, so a Scan allocates no argument list. The
	// columns are read as int64, which every driver scans without allocating (database/sql converts
	// into int32 only through a string).
	row  [2 + DistrictsPerWarehouse]int64
	dest []any
}

// scanDest is the scan destination of a Delivery's outcome row (see row).
func (st *deliveryState) scanDest() []any {
	if st.dest == nil {
		st.dest = make([]any, len(st.row))
		for i := range st.row {
			st.dest[i] = &st.row[i]
		}
	}
	return st.dest
}

// setRow sets the result from the outcome row scanned into st.row.
func (st *deliveryState) setRow() error {
	st.res.Delivered, st.res.Skipped = int(st.row[0]), int(st.row[1])
	n := 0
	for d := range st.res.OIDs {
		o := st.row[2+d]
		if o < 0 || o > math.MaxInt32 {
			return driver.Checkf("tpcc: delivery of warehouse %d: district %d reports order %d", st.w, d+1, o)
		}
		if o != 0 {
			n++
		}
		st.res.OIDs[d] = int32(o)
	}
	if n != st.res.Delivered || st.res.Delivered+st.res.Skipped != DistrictsPerWarehouse {
		return driver.Checkf("tpcc: delivery of warehouse %d: %d delivered and %d skipped, but %d orders named", st.w, st.res.Delivered, st.res.Skipped, n)
	}
	return nil
}

var errTooManyLines = &driver.CheckError{Msg: "tpcc: an order has more than 15 order lines (corrupt database?)"}

// Delivery runs the deferred part of one Delivery of warehouse w (clause 2.7.4) as one database
// transaction covering its 10 districts (clause 2.7.4.2 allows one to ten transactions). For each
// district, in order: the oldest new_order row is taken (a district without one is skipped and
// counted); it is deleted; the order gets O_CARRIER_ID; its lines get OL_DELIVERY_D = now; the sum of
// their OL_AMOUNT is added to the customer's C_BALANCE and C_DELIVERY_CNT grows by one.
//
// Callers run at most one Delivery per warehouse at a time, but concurrent ones stay correct: the
// oldest new_order row is locked before it is deleted, so two Deliveries never take the same order
// and never leave a hole (under read committed the second waits and then takes the next order;
// under stricter isolation it fails with a serialization error and is retried).
func (cl *Client) Delivery(ctx context.Context, conn driver.Conn, w int, in *DeliveryInput, iso driver.Isolation) (Outcome, DeliveryResult) {
	st := &cl.del
	st.w, st.in, st.now = w, in, time.Now()
	out := cl.run(ctx, cl.txConn(ctx, conn, iso), driver.TxOptions{Isolation: iso}, cl.deliveryFn)
	if out.Err != nil {
		return out, DeliveryResult{}
	}
	return out, st.res
}

func (cl *Client) deliveryTx(ctx context.Context, c driver.Conn) error {
	cl.del.res = DeliveryResult{}
	return cl.ops.delivery(ctx, c, cl)
}
