package tpcc

import (
	"context"
	"time"

	"github.com/candor-bench/candor/driver"
)

// Order-Status, clause 2.6. The statements are in sql_postgres.go and sql_sqlite.go.

// statusLine is one line of the customer's last order as Order-Status reads it (clause 2.6.2.2).
type statusLine struct {
	itemID, supplyWID, quantity int32
	amount                      int64 // cents
	delivered                   bool  // ol_delivery_d is not null
	deliveryD                   time.Time
}

// orderStatusState is the reusable working state of one Order-Status.
type orderStatusState struct {
	in *OrderStatusInput

	cID                 int32
	first, middle, last string
	balance             int64 // cents

	oID       int64 // 0 when the customer has no order
	entryD    time.Time
	carrierID int32 // 0 when not delivered (o_carrier_id is null)
	nLines    int
	lines     [MaxLines]statusLine
	ids       []int32 // see paymentState.ids

	// PostgreSQL: the row being scanned and its destinations, built once
	scan orderStatusScan
	dest []any
}

// orderStatusScan is one row of PostgreSQL's Order-Status: customer and order (kind 0) or a line (1).
type orderStatusScan struct {
	kind                int32
	cID                 int32
	first, middle, last string
	balance             int64
	oID                 int64
	entryD              time.Time
	carrierID           int32
	l                   statusLine
}

// OrderStatus runs one Order-Status (clause 2.6.2) as one read-only database transaction: the
// customer (by id, or by last name as Payment chooses it), their most recent order (the highest
// o_id, found through the orders (o_w_id, o_d_id, o_c_id, o_id) index) and its lines.
func (cl *Client) OrderStatus(ctx context.Context, conn driver.Conn, in *OrderStatusInput, iso driver.Isolation) Outcome {
	cl.os.in = in
	return cl.run(ctx, cl.txConn(ctx, conn, iso), driver.TxOptions{ReadOnly: true, Isolation: iso}, cl.orderStatusFn)
}

func (cl *Client) orderStatusTx(ctx context.Context, c driver.Conn) error {
	cl.os.nLines = 0
	cl.os.oID = 0
	return cl.ops.orderStatus(ctx, c, cl)
}

// addLine appends a line read for the order; more than MaxLines lines would be a corrupt order.
func (st *orderStatusState) addLine() (*statusLine, error) {
	if st.nLines == MaxLines {
		return nil, errTooManyLines
	}
	st.nLines++
	return &st.lines[st.nLines-1], nil
}
