package tpcc

import (
	"context"
	"errors"
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
}

var errTooManyLines = errors.New("tpcc: an order has more than 15 order lines (corrupt database?)")

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
