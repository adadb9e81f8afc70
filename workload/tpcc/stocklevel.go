package tpcc

import (
	"context"

	"github.com/candor-bench/candor/driver"
)

// Stock-Level, clause 2.8. The statement is in sql_postgres.go and sql_sqlite.go.

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
