package tpcc

import (
	"context"
	"strconv"

	"github.com/candor-bench/candor/driver"
)

// Stock-Level, clause 2.8. The statements are in sql_postgres.go, sql_sqlite.go and sql_mysql.go.

// stockLevelOrders is how many of the district's most recent orders Stock-Level examines (2.8.2.2).
const stockLevelOrders = 20

// stockLevelMaxLines is the most order lines those orders can have (MaxLines each), as SQL text: the
// PostgreSQL statements use it as a LIMIT that changes no result but bounds the planner's row
// estimate (see pgStockLevel).
var stockLevelMaxLines = strconv.Itoa(stockLevelOrders * MaxLines)

// stockLevelState is the reusable working state of one Stock-Level.
type stockLevelState struct {
	w, d  int
	in    *StockLevelInput
	count int64
}

// StockLevel runs one Stock-Level (clause 2.8.2) for district d of warehouse w (the terminal's own,
// clause 2.8.1.1) as one read-only transaction, and returns the number of distinct items among the
// lines of the district's last 20 orders (o_id in [d_next_o_id - 20, d_next_o_id)) whose stock in
// warehouse w is below the threshold. Clause 2.8.2.3 allows read committed for it.
func (cl *Client) StockLevel(ctx context.Context, conn driver.Conn, w, d int, in *StockLevelInput, iso driver.Isolation) (Outcome, int) {
	st := &cl.sl
	st.w, st.d, st.in = w, d, in
	out := cl.run(ctx, cl.txConn(ctx, conn, iso), driver.TxOptions{ReadOnly: true, Isolation: iso}, cl.stockLevelFn)
	if out.Err != nil {
		return out, 0
	}
	return out, int(st.count)
}

func (cl *Client) stockLevelTx(ctx context.Context, c driver.Conn) error {
	return cl.ops.stockLevel(ctx, c, cl)
}
