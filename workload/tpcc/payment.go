package tpcc

import (
	"context"
	"fmt"
	"time"

	"github.com/candor-bench/candor/driver"
)

// Payment, clause 2.5. The statements are in sql_postgres.go and sql_sqlite.go.

// addrBlock is the street/city/state/zip block of a warehouse, district or customer.
type addrBlock struct {
	street1, street2, city, state, zip string
}

// paymentCustomer is what Payment reads of the customer it pays for (clause 2.5.2.2), after update.
type paymentCustomer struct {
	id                  int32
	first, middle, last string
	addr                addrBlock
	phone               string
	since               time.Time
	credit              string
	creditLim           int64  // cents
	discount            int64  // ten-thousandths
	balance             int64  // cents
	data                string // the first 200 characters of c_data for "BC" customers, else ""
}

// paymentState is the reusable working state of one Payment.
type paymentState struct {
	in           *PaymentInput
	wName, dName string
	wAddr, dAddr addrBlock
	c            paymentCustomer
	ids          []int32 // customers matching a last name, in c_first order (SQLite)
	dest         []any   // PostgreSQL's scan destinations, built once
}

// errNotFound means that the warehouse, district or customer a transaction names does not exist,
// which a complete load rules out (every district has customers 1..3000 and each of the 1000 last
// names).
var errNotFound = &driver.CheckError{Msg: "tpcc: the warehouse, district or customer of the transaction does not exist (is the database loaded, with this many warehouses?)"}

// Payment runs one Payment (clause 2.5.2) as one database transaction. in.Date is set to the time
// of execution.
func (cl *Client) Payment(ctx context.Context, conn driver.Conn, in *PaymentInput, iso driver.Isolation) Outcome {
	if in.DID < 1 || in.DID > DistrictsPerWarehouse || in.CDID < 1 || in.CDID > DistrictsPerWarehouse {
		return Outcome{Err: fmt.Errorf("tpcc: payment for districts %d and %d (must be 1..%d)", in.DID, in.CDID, DistrictsPerWarehouse)}
	}
	in.Date = time.Now()
	cl.pay.in = in
	return cl.run(ctx, cl.txConn(ctx, conn, iso), driver.TxOptions{Isolation: iso}, cl.paymentFn)
}

// paymentTx: clause 2.5.2.2. W_YTD and D_YTD grow by H_AMOUNT; the customer (by id, or by last name
// at position ceil(n/2) of the matches sorted by C_FIRST) pays: C_BALANCE -= H_AMOUNT,
// C_YTD_PAYMENT += H_AMOUNT, C_PAYMENT_CNT += 1, and for bad credit ("BC") the text
// "C_ID C_D_ID C_W_ID D_ID W_ID H_AMOUNT " is inserted at the left of C_DATA, which is cut to 500
// characters; a HISTORY row records the payment with H_DATA = W_NAME + 4 spaces + D_NAME.
func (cl *Client) paymentTx(ctx context.Context, c driver.Conn) error {
	return cl.ops.payment(ctx, c, cl)
}

// byNameIndex is the 0-based index of the customer chosen among n matches sorted by C_FIRST: the
// position ceil(n/2) (1-based) of clause 2.5.2.2 and 2.6.2.2, which is (n-1)/2 counted from zero.
func byNameIndex(n int) int { return (n - 1) / 2 }

// customerByName reads the ids of the customers of (w, d) named last, sorted by c_first, and
// returns the one at position ceil(n/2). It is for engines that do this in Go (SQLite).
func customerByName(ctx context.Context, c driver.Conn, sql string, ids *[]int32, args ...any) (int32, error) {
	rows, err := c.Query(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	return readByName(rows, ids)
}

// readByName reads the ids of a by-name query's rows (sorted by c_first) into ids and returns the
// one at position ceil(n/2) (clause 2.5.2.2); errNotFound when there is none.
func readByName(rows driver.Rows, ids *[]int32) (int32, error) {
	*ids = (*ids)[:0]
	var id int32
	for rows.Next() {
		if err := rows.Scan(&id); err != nil {
			return 0, err
		}
		*ids = append(*ids, id)
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(*ids) == 0 {
		return 0, errNotFound
	}
	return (*ids)[byNameIndex(len(*ids))], nil
}
