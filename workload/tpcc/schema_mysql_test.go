package tpcc

import (
	"strings"
	"testing"
)

// TestSchemaMySQL: the MySQL DDL has the types of clause 1.3, InnoDB with a binary collation, the
// primary keys in CREATE TABLE (history has none), and the two secondary indexes.
func TestSchemaMySQL(t *testing.T) {
	stmts, err := SchemaSQL(dialectMySQL)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(stmts, "\n")
	for _, want := range []string{
		"w_ytd DECIMAL(12,2) NOT NULL", "w_tax DECIMAL(4,4) NOT NULL", "h_amount DECIMAL(6,2) NOT NULL",
		"i_price DECIMAL(5,2) NOT NULL", "ol_delivery_d DATETIME(6),", "o_carrier_id INT,", "c_data VARCHAR(500) NOT NULL",
		"s_dist_10 CHAR(24) NOT NULL", "PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)", "PRIMARY KEY (s_w_id, s_i_id)",
		"CREATE INDEX customer_name_idx ON customer (c_w_id, c_d_id, c_last, c_first)",
		"CREATE INDEX orders_customer_idx ON orders (o_w_id, o_d_id, o_c_id, o_id)",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the MySQL schema lacks %q", want)
		}
	}
	creates := 0
	for _, s := range stmts {
		if !strings.HasPrefix(s, "CREATE TABLE ") {
			continue
		}
		creates++
		if !strings.HasSuffix(s, ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin") {
			t.Errorf("table options missing: %s", s)
		}
		if strings.HasPrefix(s, "CREATE TABLE history ") == strings.Contains(s, "PRIMARY KEY") {
			t.Errorf("primary key wrong: %s", s)
		}
	}
	if creates != len(tables) || len(stmts) != len(tables)+len(indexes) {
		t.Errorf("%d statements, %d CREATE TABLE", len(stmts), creates)
	}
}

func TestMySQLPlaceholders(t *testing.T) {
	if got := placeholders(dialectMySQL, "UPDATE t SET a = $1, b = '$x' WHERE c = $2 AND d = $3"); got != "UPDATE t SET a = ?, b = '$x' WHERE c = ? AND d = ?" {
		t.Errorf("mysqlPlaceholders = %q", got)
	}
	if got := placeholders(dialectMySQL, metaInsertSQL); strings.Count(got, "?") != 8 || strings.Contains(got, "$") {
		t.Errorf("candor_load's insert for MySQL: %s", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("parameters out of order did not panic")
		}
	}()
	placeholders(dialectMySQL, "SELECT $2, $1")
}

// TestMySQLStatementTexts: every statement text is built once and has as many parameters as the
// code passes (a mismatch would only show on a server).
func TestMySQLStatementTexts(t *testing.T) {
	for _, c := range []struct {
		sql  string
		args int
	}{
		{mysqlNOHeader, 6}, {mysqlNOOrder, 7}, {mysqlNONewOrder, 3}, {mysqlNOStock, 1 + 2*MaxLines},
		{mysqlNOLines[0], 9}, {mysqlNOLines[MaxLines-1], 9 * MaxLines},
		{mysqlPayCustomer, 8}, {mysqlPayRead, 6}, {mysqlPayHistory, 10}, {mysqlOrderStatus, 6},
		{mysqlDelLock, 1 + 2*DistrictsPerWarehouse}, {mysqlDelNewOrder, 1 + 2*DistrictsPerWarehouse},
		{mysqlDelOrders, 2 + 2*DistrictsPerWarehouse}, {mysqlDelLines, 2 + 2*DistrictsPerWarehouse},
		{mysqlDelCustomers, 2 + 2*DistrictsPerWarehouse}, {mysqlStockLevel, 6},
	} {
		if n := strings.Count(c.sql, "?"); n != c.args {
			t.Errorf("%d parameters, want %d: %s", n, c.args, c.sql)
		}
	}
	if !strings.Contains(mysqlNOStock, "WHEN 10 THEN s_dist_10") || strings.Contains(mysqlNOStock, "JOIN item") {
		t.Errorf("New-Order's stock read: %s", mysqlNOStock)
	}
}

// TestMySQLStockUpdateText: New-Order's stock update carries its values as literals, each CASE's
// first cast to SIGNED, has no derived table (see appendNOStockUpdate), and leaves out the rows whose
// item was not found.
func TestMySQLStockUpdateText(t *testing.T) {
	var st newOrderState
	st.nRows = 3
	st.rows[0] = noStock{w: 1, i: 5, qty: 40, ytd: 5, orderCnt: 1, found: true}
	st.rows[1] = noStock{w: 1, i: UnusedItemID}
	st.rows[2] = noStock{w: 2, i: 99999, qty: 91, ytd: 10, orderCnt: 1, remoteCnt: 1, found: true}
	b, n := appendNOStockUpdate(nil, &st, mysqlStockForm)
	want := "UPDATE stock SET s_quantity = CASE WHEN s_w_id = 1 AND s_i_id = 5 THEN CAST(40 AS SIGNED) " +
		"WHEN s_w_id = 2 AND s_i_id = 99999 THEN 91 END, s_ytd = s_ytd + CASE WHEN s_w_id = 1 AND s_i_id = 5 THEN CAST(5 AS SIGNED) " +
		"WHEN s_w_id = 2 AND s_i_id = 99999 THEN 10 END, s_order_cnt = s_order_cnt + CASE WHEN s_w_id = 1 AND s_i_id = 5 THEN CAST(1 AS SIGNED) " +
		"WHEN s_w_id = 2 AND s_i_id = 99999 THEN 1 END, s_remote_cnt = s_remote_cnt + CASE WHEN s_w_id = 1 AND s_i_id = 5 THEN CAST(0 AS SIGNED) " +
		"WHEN s_w_id = 2 AND s_i_id = 99999 THEN 1 END WHERE (s_w_id, s_i_id) IN ((1, 5), (2, 99999))"
	if n != 2 || string(b) != want {
		t.Errorf("%d rows:\n%s\nwant\n%s", n, b, want)
	}
}
