package tpcc

import (
	"strings"
	"testing"
)

// TestDoltgresStatementTexts: none of Doltgres's statements, its check's queries or its stock update
// uses a form Doltgres 1.2.0 refuses or runs by scanning a whole table (sql_doltgres.go), and the
// stock update chooses exactly the found rows by their keys. What the statements do is checked on
// PostgreSQL by TestTransactionsDoltgresOnPostgres.
func TestDoltgresStatementTexts(t *testing.T) {
	texts := []string{dgNODistrict, dgNOHeader, dgNOOrder, dgNONewOrder, dgPayWarehouse, dgPayDistrict, dgByName,
		dgPayCustomer, dgPayHistory, dgOrderStatus, dgDelOldest, dgDelNewOrder, dgDelOrders, dgDelLines, dgDelCustomers, pgStockLevel}
	texts = append(texts, dgNOStock[:]...)
	texts = append(texts, dgNOLines[:]...)
	for i := range conditions {
		texts = append(texts, conditions[i].sql(dialectPostgres, dialectDoltgres))
	}
	st := newOrderState{nRows: 3}
	st.rows[0] = noStock{w: 1, i: 5, qty: 20, ytd: 3, orderCnt: 1, found: true}
	st.rows[1] = noStock{w: 1, i: 9} // an unused item: not found, not updated
	st.rows[2] = noStock{w: 2, i: 7, qty: 91, ytd: 9, orderCnt: 1, remoteCnt: 1, found: true}
	b, n := appendNOStockUpdate(nil, &st, dgStockForm)
	update := string(b)
	texts = append(texts, update)
	if n != 2 || !strings.HasSuffix(update, " WHERE (s_w_id = 1 AND s_i_id = 5) OR (s_w_id = 2 AND s_i_id = 7)") ||
		!strings.Contains(update, "THEN CAST(20 AS INTEGER)") || strings.Contains(update, "s_i_id = 9") {
		t.Errorf("the stock update of 2 found rows (%d): %s", n, update)
	}
	refused := []string{
		"FOR UPDATE",   // locking clauses are not yet supported
		"unnest", "[]", // no array parameters
		"FILTER (",            // function filters are not yet supported
		"OFFSET (", "LIMIT (", // invalid limit: a subquery
		"FULL JOIN", // minutes on 1 warehouse
		") IN ((",   // a row-value list: a scan of the whole table
		".c, 0)",    // coalesce(count, 0) typed as text
	}
	for _, q := range texts {
		for _, r := range refused {
			if strings.Contains(q, r) {
				t.Errorf("a Doltgres statement holds %q:\n%s", r, q)
			}
		}
		if strings.HasPrefix(strings.TrimSpace(q), "WITH") && strings.Contains(q, "UPDATE") {
			t.Errorf("a data-modifying CTE on Doltgres:\n%s", q)
		}
	}
}
