package tpcc

import (
	"context"
	"fmt"
	"strings"
	"unsafe"

	"github.com/candor-bench/candor/driver"
)

// Doltgres statements: PostgreSQL's SQL in the forms Doltgres 1.2.0 takes. PostgreSQL's one-statement
// transactions (sql_postgres.go) rest on what Doltgres lacks: data-modifying CTEs (WITH ... UPDATE:
// "unsupported CTE statement type"), array parameters (unnest), a subquery in LIMIT or OFFSET
// ("invalid limit"), aggregate FILTER and locking reads (SELECT ... FOR UPDATE: "locking clauses are
// not yet supported"). So the transactions run statement by statement in the order of the standard,
// as on the MySQL family (sql_mysql.go, whose stock update and Order-Status scan they share),
// reading and writing the same rows: UPDATE ... RETURNING reads the row it writes, parameters are
// typed where Doltgres cannot infer them (in a list, in arithmetic), several rows are chosen by ORs
// of key equalities (dgPairs), and the customer of a last name is chosen in Go from the sorted
// matches (customerByName). Without locking reads, a row two transactions change at once is Dolt's
// commit-time conflict (a serialization failure, SQLSTATE 40001), retried whole (driver.Retry).
// Every transaction is explicit (Client.txConn: no implicit single-statement ones); the last
// statement of New-Order and Payment carries its COMMIT (carryCommit), while Delivery's last is
// checked before its COMMIT, so that a Delivery over a missing customer leaves nothing; the read-only
// Order-Status and Stock-Level (PostgreSQL's statement) carry theirs too. Round trips, BEGIN
// travelling with the first statement: New-Order 7, Payment 4 (5 by last name), Order-Status 1 (2),
// Delivery 6, Stock-Level 1.

type doltgresTxOps struct{ pgTxOps }

var _ txOps = doltgresTxOps{}

// New-Order, clause 2.4.2.2.
const (
	// $1 w_id, $2 d_id: D_NEXT_O_ID read (the value before the increment) and incremented, D_TAX.
	dgNODistrict = `UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2
RETURNING d_next_o_id - 1, (d_tax * 10000)::int8`
	// $1 w_id, $2 d_id, $3 c_id: W_TAX, and the customer's C_DISCOUNT, C_LAST, C_CREDIT.
	dgNOHeader = `SELECT (w_tax * 10000)::int8, (c_discount * 10000)::int8, c_last::text, c_credit::text
FROM warehouse, customer WHERE w_id = $1 AND c_w_id = $1 AND c_d_id = $2 AND c_id = $3`
	// $1 o_id, $2 d_id, $3 w_id, $4 c_id, $5 entry_d, $6 ol_cnt, $7 all_local
	dgNOOrder = `INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
VALUES ($1::int4, $2::int4, $3::int4, $4::int4, $5::timestamp, NULL, $6::int4, $7::int4)`
	// $1 o_id, $2 d_id, $3 w_id
	dgNONewOrder = `INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1::int4, $2::int4, $3::int4)`
)

// dgPairs is "(a = $k::int4 AND b = $k+1::int4) OR ..." with n pairs, the first parameter
// numbered from: the rows of n keys, each looked up in the key. Doltgres 1.2.0 scans the whole
// table for a list of row values ((a, b) IN ((1, 2), ...)).
func dgPairs(a, b string, from, n int) string {
	var s strings.Builder
	for k := 0; k < n; k++ {
		if k > 0 {
			s.WriteString(" OR ")
		}
		fmt.Fprintf(&s, "(%s = $%d::int4 AND %s = $%d::int4)", a, from+2*k, b, from+2*k+1)
	}
	return s.String()
}

// dgStockForm is appendNOStockUpdate's statement on Doltgres: the rows chosen by ORs of key
// equalities (see dgPairs).
var dgStockForm = &stockUpdateForm{cast: " AS INTEGER)", where: " WHERE ", sep: " OR ", open: "(s_w_id = ", mid: " AND s_i_id = "}

// dgNOStock[d-1] reads the stock rows of an order with their items and S_DIST_<d>: MaxLines
// (s_w_id, s_i_id) pairs, the distinct ones padded by repeating the last, so there is one text per
// district. An unused item has no stock row, so no row comes back for it.
var dgNOStock = func() (s [DistrictsPerWarehouse]string) {
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		s[d-1] = `SELECT s_w_id, s_i_id, s_quantity, s_dist_` + twoDigits(d) + `::text,
	(i_price * 100)::int8, i_name::text, s_data LIKE '%ORIGINAL%' AND i_data LIKE '%ORIGINAL%'
FROM stock JOIN item ON i_id = s_i_id
WHERE ` + dgPairs("s_w_id", "s_i_id", 1, MaxLines) + `
ORDER BY s_w_id, s_i_id`
	}
	return s
}()

// dgNOLines[n-1] inserts n order lines: $ o_id, d_id, w_id, number, i_id, supply_w_id, quantity,
// amount (cents), dist_info per line (OL_DELIVERY_D null).
var dgNOLines = func() (s [MaxLines]string) {
	var v strings.Builder
	for n := 1; n <= MaxLines; n++ {
		if n > 1 {
			v.WriteString(", ")
		}
		p := 9 * (n - 1)
		fmt.Fprintf(&v, "($%d::int4, $%d::int4, $%d::int4, $%d::int4, $%d::int4, $%d::int4, NULL, $%d::int4, $%d::int8 * 0.01, $%d::text)",
			p+1, p+2, p+3, p+4, p+5, p+6, p+7, p+8, p+9)
		s[n-1] = `INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
	ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES ` + v.String()
	}
	return s
}()

func (doltgresTxOps) newOrderRead(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.no
	in := st.in
	if err := c.QueryRow(ctx, dgNODistrict, cl.argList(in.WID, in.DID)...).Scan(&st.oID, &st.dTax); err != nil {
		return notFound(err)
	}
	if err := c.QueryRow(ctx, dgNOHeader, cl.argList(in.WID, in.DID, in.CID)...).Scan(&st.wTax, &st.cDiscount, &st.cLast, &st.cCredit); err != nil {
		return notFound(err)
	}
	allLocal := 0
	if in.AllLocal() {
		allLocal = 1
	}
	if _, err := c.Exec(ctx, dgNOOrder, cl.argList(st.oID, in.DID, in.WID, in.CID, in.EntryD, in.OLCnt, allLocal)...); err != nil {
		return err
	}
	if _, err := c.Exec(ctx, dgNONewOrder, cl.argList(st.oID, in.DID, in.WID)...); err != nil {
		return err
	}
	args := cl.args[:0]
	for k := 0; k < MaxLines; k++ {
		r := &st.rows[min(k, st.nRows-1)]
		args = append(args, r.w, r.i)
	}
	cl.args = args
	rows, err := c.Query(ctx, dgNOStock[in.DID-1], args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return cl.my.scanStock(rows, st)
}

func (doltgresTxOps) newOrderWrite(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.no
	var found int
	cl.my.stmt, found = appendNOStockUpdate(cl.my.stmt[:0], st, dgStockForm)
	if found > 0 {
		n, err := c.Exec(ctx, unsafe.String(unsafe.SliceData(cl.my.stmt), len(cl.my.stmt)))
		if err != nil {
			return err
		}
		if int(n) != found {
			return driver.Checkf("tpcc: new-order updated %d stock rows, expected %d", n, found)
		}
	}
	lines := cl.orderLineArgs()
	if lines == 0 {
		return nil
	}
	if st.missing < 0 { // an order with an unused item rolls back after this (clause 2.4.2.3)
		carryCommit(c)
	}
	n, err := c.Exec(ctx, dgNOLines[lines-1], cl.args...)
	if err != nil {
		return err
	}
	if int(n) != lines {
		return driver.Checkf("tpcc: new-order inserted %d order lines, expected %d", n, lines)
	}
	return nil
}

// Payment, clause 2.5.2.2: warehouse, district, customer, in that order, each updated and read back
// in one statement, then the history row.
const (
	// $1 amount (cents), $2 w_id
	dgPayWarehouse = `UPDATE warehouse SET w_ytd = w_ytd + $1::int8 * 0.01 WHERE w_id = $2
RETURNING w_name::text, w_street_1::text, w_street_2::text, w_city::text, w_state::text, w_zip::text`
	// $1 amount, $2 w_id, $3 d_id
	dgPayDistrict = `UPDATE district SET d_ytd = d_ytd + $1::int8 * 0.01 WHERE d_w_id = $2 AND d_id = $3
RETURNING d_name::text, d_street_1::text, d_street_2::text, d_city::text, d_state::text, d_zip::text`
	// $1 c_w_id, $2 c_d_id, $3 c_last: the matching customers sorted by c_first (clause 2.5.2.2).
	dgByName = `SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3::text ORDER BY c_first`
	// $1 amount, $2 d_id, $3 w_id, $4 c_w_id, $5 c_d_id, $6 c_id. For bad credit, "C_ID C_D_ID
	// C_W_ID D_ID W_ID H_AMOUNT " goes in front of C_DATA, cut to 500 characters. The columns read
	// back are named apart from the table's (c_credit::text named c_credit made the CASE's c_credit
	// "ambiguous" on Doltgres 1.2.0).
	dgPayCustomer = `UPDATE customer SET c_balance = c_balance - $1::int8 * 0.01,
	c_ytd_payment = c_ytd_payment + $1::int8 * 0.01, c_payment_cnt = c_payment_cnt + 1,
	c_data = CASE WHEN c_credit = 'BC' THEN left(c_id::text || ' ' || c_d_id::text || ' ' || c_w_id::text || ' ' ||
		$2::int4::text || ' ' || $3::int4::text || ' ' || ($1::int8 * 0.01)::text || ' ' || c_data, 500) ELSE c_data END
WHERE c_w_id = $4 AND c_d_id = $5 AND c_id = $6
RETURNING c_first::text AS first, c_middle::text AS middle, c_last::text AS last, c_street_1::text AS street_1,
	c_street_2::text AS street_2, c_city::text AS city, c_state::text AS state, c_zip::text AS zip,
	c_phone::text AS phone, c_since, c_credit::text AS credit, (c_credit_lim * 100)::int8,
	(c_discount * 10000)::int8, (c_balance * 100)::int8, CASE WHEN c_credit = 'BC' THEN left(c_data, 200) ELSE '' END`
	// $1 c_id, $2 c_d_id, $3 c_w_id, $4 d_id, $5 w_id, $6 date, $7 amount, $8 W_NAME, $9 D_NAME
	dgPayHistory = `INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
VALUES ($1::int4, $2::int4, $3::int4, $4::int4, $5::int4, $6::timestamp, $7::int8 * 0.01, $8::text || '    ' || $9::text)`
)

func (doltgresTxOps) payment(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.pay
	in := st.in
	w, d, cu := &st.wAddr, &st.dAddr, &st.c
	if err := c.QueryRow(ctx, dgPayWarehouse, cl.argList(in.AmountCents, in.WID)...).Scan(
		&st.wName, &w.street1, &w.street2, &w.city, &w.state, &w.zip); err != nil {
		return notFound(err)
	}
	if err := c.QueryRow(ctx, dgPayDistrict, cl.argList(in.AmountCents, in.WID, in.DID)...).Scan(
		&st.dName, &d.street1, &d.street2, &d.city, &d.state, &d.zip); err != nil {
		return notFound(err)
	}
	cID := int32(in.CID)
	if in.ByName {
		var err error
		if cID, err = customerByName(ctx, c, dgByName, &st.ids, cl.argList(in.CWID, in.CDID, in.CLast)...); err != nil {
			return err
		}
	}
	if err := c.QueryRow(ctx, dgPayCustomer, cl.argList(in.AmountCents, in.DID, in.WID, in.CWID, in.CDID, cID)...).Scan(
		&cu.first, &cu.middle, &cu.last, &cu.addr.street1, &cu.addr.street2, &cu.addr.city, &cu.addr.state,
		&cu.addr.zip, &cu.phone, &cu.since, &cu.credit, &cu.creditLim, &cu.discount, &cu.balance, &cu.data); err != nil {
		return notFound(err)
	}
	cu.id = cID
	carryCommit(c)
	_, err := c.Exec(ctx, dgPayHistory, cl.argList(cID, in.CDID, in.CWID, in.DID, in.WID, in.Date, in.AmountCents, st.wName, st.dName)...)
	return err
}

// Order-Status, clause 2.6.2.2, in one statement: the customer, their latest order (the highest
// o_id) and its lines, one row per line (one row with null order and line columns for a customer
// without orders), as on the MySQL family; by last name the customer is chosen first from the
// sorted matches. PostgreSQL's statement (a CTE, LEFT JOIN ON true, UNION ALL) fails on Doltgres
// 1.2.0 ("unable to find field with index 62 in row of 9 columns"). $1 w_id, $2 d_id, $3 c_id.
const dgOrderStatus = `SELECT (c.c_balance * 100)::int8, c.c_first::text, c.c_middle::text, c.c_last::text,
	o.o_id::int8, o.o_entry_d, o.o_carrier_id::int8,
	ol.ol_i_id::int8, ol.ol_supply_w_id::int8, ol.ol_quantity::int8, (ol.ol_amount * 100)::int8, ol.ol_delivery_d
FROM customer c
LEFT JOIN orders o ON o.o_w_id = c.c_w_id AND o.o_d_id = c.c_d_id
	AND o.o_id = (SELECT max(o_id) FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3::int4)
LEFT JOIN order_line ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id
WHERE c.c_w_id = $1 AND c.c_d_id = $2 AND c.c_id = $3::int4
ORDER BY ol.ol_number`

func (doltgresTxOps) orderStatus(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.os
	in := st.in
	cID := int32(in.CID)
	if in.ByName {
		var err error
		if cID, err = customerByName(ctx, c, dgByName, &st.ids, cl.argList(in.WID, in.DID, in.CLast)...); err != nil {
			return err
		}
	}
	st.cID = cID
	carryCommit(c) // read-only: committing it changes nothing, whatever the statement did
	rows, err := c.Query(ctx, dgOrderStatus, cl.argList(in.WID, in.DID, cID)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return cl.my.scanOrderStatusRows(rows, st)
}

// Stock-Level, clause 2.8.2.2: PostgreSQL's statement, carrying its COMMIT (read-only).
func (o doltgresTxOps) stockLevel(ctx context.Context, c driver.Conn, cl *Client) error {
	carryCommit(c)
	return o.pgTxOps.stockLevel(ctx, c, cl)
}

// Delivery, clause 2.7.4.2, all ten districts in one transaction: the oldest new_order row of each
// district (an index dive per district), then those rows deleted, their orders given the carrier,
// their lines the delivery date, and each order's customer the sum of its lines' amounts. The pair
// lists hold DistrictsPerWarehouse (d_id, o_id) pairs, the districts delivered padded by repeating
// the last one, so each statement has one text.
var (
	// $1 w_id: one index dive per district (a LATERAL join or GROUP BY scans the warehouse's rows).
	dgDelOldest = func() string {
		var b strings.Builder
		for d := 1; d <= DistrictsPerWarehouse; d++ {
			if d > 1 {
				b.WriteString("\nUNION ALL ")
			}
			fmt.Fprintf(&b, "(SELECT %d, no_o_id FROM new_order WHERE no_w_id = $1 AND no_d_id = %d ORDER BY no_o_id LIMIT 1)", d, d)
		}
		return b.String()
	}()
	// $1 w_id, pairs
	dgDelNewOrder = `DELETE FROM new_order WHERE no_w_id = $1 AND (` + dgPairs("no_d_id", "no_o_id", 2, DistrictsPerWarehouse) + `)`
	// $1 w_id, pairs, then the carrier
	dgDelOrders = `UPDATE orders SET o_carrier_id = $22::int4 WHERE o_w_id = $1 AND (` + dgPairs("o_d_id", "o_id", 2, DistrictsPerWarehouse) + `)`
	// $1 w_id, pairs, then the delivery date
	dgDelLines = `UPDATE order_line SET ol_delivery_d = $22::timestamp WHERE ol_w_id = $1 AND (` + dgPairs("ol_d_id", "ol_o_id", 2, DistrictsPerWarehouse) + `)`
	// $1 w_id, pairs: each order's customer gets the sum of its lines' amounts.
	dgDelCustomers = `UPDATE customer SET c_balance = c_balance + s.amount, c_delivery_cnt = c_delivery_cnt + 1
FROM (SELECT o_d_id AS sd, o_c_id AS sc, sum(ol_amount) AS amount
	FROM orders JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
	WHERE o_w_id = $1 AND (` + dgPairs("o_d_id", "o_id", 2, DistrictsPerWarehouse) + `)
	GROUP BY o_d_id, o_c_id) AS s
WHERE c_w_id = $1 AND c_d_id = s.sd AND c_id = s.sc`
)

func (doltgresTxOps) delivery(ctx context.Context, c driver.Conn, cl *Client) error {
	st, my := &cl.del, &cl.my
	rows, err := c.Query(ctx, dgDelOldest, cl.argList(st.w)...)
	if err != nil {
		return err
	}
	n, err := scanPairRows(rows, &my.delD, &my.delO)
	rows.Close()
	if err != nil {
		return err
	}
	if n == 0 {
		st.res.Skipped = DistrictsPerWarehouse // clause 2.7.4.2: skipped districts
		return nil
	}
	if err := cl.deliveryRecord(n); err != nil {
		return err
	}
	args := append(cl.args[:0], st.w)
	for k := 0; k < DistrictsPerWarehouse; k++ {
		j := min(k, n-1)
		args = append(args, my.delD[j], my.delO[j])
	}
	cl.args = args
	pairs := len(args)
	for i, s := range [...]struct {
		sql, what string
		extra     any
	}{
		{dgDelNewOrder, "deleted new_order", nil},
		{dgDelOrders, "updated orders", st.in.CarrierID},
		{dgDelLines, "", st.now},
		{dgDelCustomers, "updated customer", nil},
	} {
		args = cl.args[:pairs]
		if s.extra != nil {
			args = append(args, s.extra)
		}
		got, err := c.Exec(ctx, s.sql, args...)
		if err != nil {
			return err
		}
		if i == 0 && int(got) < n {
			// A concurrent Delivery of the warehouse took an order between the read and the
			// delete (PostgreSQL at read committed; Doltgres sees its snapshot and reports the
			// conflict at COMMIT): retried, as without locking reads the oldest orders must be
			// read again.
			return driver.Conflictf("tpcc: delivery of warehouse %d: deleted %d of the %d oldest new_order rows read (a concurrent Delivery took the others)", st.w, got, n)
		}
		if s.what != "" && int(got) != n {
			return driver.Checkf("tpcc: delivery of warehouse %d: %s %d rows for %d districts (orders, lines or customers missing)", st.w, s.what, got, n)
		}
	}
	return nil
}

// doltgresCheckSQL is a consistency condition's query (check_sql.go) as Doltgres 1.2.0 takes it:
// it types coalesce(c, 0) of a derived table's count(*) as text ("operator does not exist: bigint
// <> text"), so the 0 is typed.
func doltgresCheckSQL(q string) string { return dgCounts.Replace(q) }

var dgCounts = strings.NewReplacer("coalesce(l.c, 0)", "coalesce(l.c, 0::int8)", "coalesce(o.c, 0)", "coalesce(o.c, 0::int8)",
	"coalesce(n.c, 0)", "coalesce(n.c, 0::int8)")
