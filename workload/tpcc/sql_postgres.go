package tpcc

import (
	"context"
	"fmt"

	"github.com/candor-bench/candor/driver"
)

// PostgreSQL statements. Each transaction takes as few round trips as the standard allows: rows are
// read and written with RETURNING, data-modifying CTEs and array parameters (unnest), so a New-Order
// is 3 statements, a Payment, Order-Status, Delivery or Stock-Level 1 (plus BEGIN and COMMIT).
// Money crosses the wire as int64 cents and rates as int64 ten-thousandths: the SQL converts from
// and to NUMERIC (x * 100)::int8 and $n::int8 * 0.01, which is exact.

type pgTxOps struct{}

var _ txOps = pgTxOps{}

// pgNewOrderRead[d-1] is New-Order, clause 2.4.2.2, part 1, in one statement: the district
// (d_next_o_id read and incremented under its row lock, d_tax), warehouse (w_tax) and customer
// (c_discount, c_last, c_credit), the orders and new_order rows, and each line's item and stock (with
// S_DIST_<d>). The first row (kind 0) is the header, the others (kind 1) the stock rows; UNION ALL
// runs its branches in order, so the district row is locked before the stock rows, and the stock rows
// are locked in (s_w_id, s_i_id) order (PostgreSQL locks after sorting): concurrent New-Orders lock
// shared rows in the same order and cannot deadlock on them. An unused item simply has no row.
// $1 w_id, $2 d_id, $3 c_id, $4 o_entry_d, $5 o_ol_cnt, $6 o_all_local, $7 supply warehouses,
// $8 item ids (the distinct pairs).
var pgNewOrderRead = func() [DistrictsPerWarehouse]string {
	var s [DistrictsPerWarehouse]string
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		s[d-1] = `WITH d AS (
	UPDATE district SET d_next_o_id = d_next_o_id + 1
	WHERE d_w_id = $1 AND d_id = $2
	RETURNING d_next_o_id - 1 AS o_id, (d_tax * 10000)::int8 AS d_tax),
o AS (
	INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
	SELECT d.o_id, $2, $1, $3, $4::timestamp, NULL, $5::int4, $6::int4 FROM d),
n AS (
	INSERT INTO new_order (no_o_id, no_d_id, no_w_id) SELECT d.o_id, $2, $1 FROM d),
s AS (
	SELECT s_w_id, s_i_id, s_quantity, s_dist_` + string(rune('0'+d/10)) + string(rune('0'+d%10)) + `::text AS dist,
		s_data::text AS data, (i_price * 100)::int8 AS price, i_name::text AS name, i_data::text AS idata
	FROM unnest($7::int4[], $8::int4[]) AS k(w, i)
	JOIN stock ON s_w_id = k.w AND s_i_id = k.i
	JOIN item ON i_id = k.i
	ORDER BY s_w_id, s_i_id
	FOR UPDATE OF stock)
SELECT 0, d.o_id, d.d_tax, (w_tax * 10000)::int8, (c_discount * 10000)::int8, c_last::text, c_credit::text,
	0, 0, 0, '', '', 0::int8, '', ''
FROM d, warehouse, customer
WHERE w_id = $1 AND c_w_id = $1 AND c_d_id = $2 AND c_id = $3
UNION ALL
SELECT 1, 0, 0, 0, 0, '', '', s_w_id, s_i_id, s_quantity, dist, data, price, name, idata FROM s`
	}
	return s
}()

// New-Order, clause 2.4.2.2, part 2: every touched stock row written once with the values computed
// in Go (S_QUANTITY after the stock rule, S_YTD, S_ORDER_CNT, S_REMOTE_CNT increments), and the order
// lines inserted (OL_DELIVERY_D null, OL_AMOUNT = OL_QUANTITY * I_PRICE, OL_DIST_INFO = S_DIST_<d>).
const pgNewOrderWrite = `WITH s AS (
	UPDATE stock SET s_quantity = u.q, s_ytd = s_ytd + u.ytd,
		s_order_cnt = s_order_cnt + u.cnt, s_remote_cnt = s_remote_cnt + u.rem
	FROM unnest($4::int4[], $5::int4[], $6::int4[], $7::int4[], $8::int4[], $9::int4[]) AS u(w, i, q, ytd, cnt, rem)
	WHERE s_w_id = u.w AND s_i_id = u.i)
INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
	ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
SELECT $1::int4, $2::int4, $3::int4, l.n, l.i, l.sw, NULL, l.q, l.amt * 0.01, l.dist
FROM unnest($10::int4[], $11::int4[], $12::int4[], $13::int4[], $14::int8[], $15::text[]) AS l(n, i, sw, q, amt, dist)`

func (pgTxOps) newOrderRead(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.no
	in := st.in
	allLocal := 0
	if in.AllLocal() {
		allLocal = 1
	}
	st.keyW, st.keyI = st.keyW[:0], st.keyI[:0]
	for k := 0; k < st.nRows; k++ {
		st.keyW = append(st.keyW, st.rows[k].w)
		st.keyI = append(st.keyI, st.rows[k].i)
	}
	rows, err := c.Query(ctx, pgNewOrderRead[in.DID-1],
		cl.argList(in.WID, in.DID, in.CID, in.EntryD, in.OLCnt, allLocal, st.keyW, st.keyI)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	header := false
	var kind int32
	var oID, dTax, wTax, cDiscount int64
	var cLast, cCredit string
	var r noStock
	for rows.Next() {
		if err := rows.Scan(&kind, &oID, &dTax, &wTax, &cDiscount, &cLast, &cCredit,
			&r.w, &r.i, &r.qty, &r.dist, &r.sdata, &r.price, &r.name, &r.idata); err != nil {
			return err
		}
		if kind == 0 {
			header = true
			st.oID, st.dTax, st.wTax, st.cDiscount, st.cLast, st.cCredit = oID, dTax, wTax, cDiscount, cLast, cCredit
			continue
		}
		k := st.find(r.w, r.i)
		if k < 0 {
			return fmt.Errorf("tpcc: new-order: unexpected stock row (%d, %d)", r.w, r.i)
		}
		r.found = true
		st.rows[k] = r
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if !header {
		return errCustomerNotFound
	}
	return nil
}

func (pgTxOps) newOrderWrite(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.no
	in := st.in
	st.upW, st.upI, st.upQty = st.upW[:0], st.upI[:0], st.upQty[:0]
	st.upYtd, st.upOrder, st.upRemote = st.upYtd[:0], st.upOrder[:0], st.upRemote[:0]
	for k := 0; k < st.nRows; k++ {
		r := &st.rows[k]
		if !r.found {
			continue
		}
		st.upW = append(st.upW, r.w)
		st.upI = append(st.upI, r.i)
		st.upQty = append(st.upQty, r.qty)
		st.upYtd = append(st.upYtd, r.ytd)
		st.upOrder = append(st.upOrder, r.orderCnt)
		st.upRemote = append(st.upRemote, r.remoteCnt)
	}
	st.olNum, st.olItem, st.olSupply, st.olQty = st.olNum[:0], st.olItem[:0], st.olSupply[:0], st.olQty[:0]
	st.olAmount, st.olDist = st.olAmount[:0], st.olDist[:0]
	for l := 0; l < in.OLCnt; l++ {
		if l == st.missing {
			continue
		}
		line := &in.Lines[l]
		st.olNum = append(st.olNum, int32(l+1))
		st.olItem = append(st.olItem, int32(line.ItemID))
		st.olSupply = append(st.olSupply, int32(line.SupplyWID))
		st.olQty = append(st.olQty, int32(line.Quantity))
		st.olAmount = append(st.olAmount, st.amount[l])
		st.olDist = append(st.olDist, st.rows[st.lineRow[l]].dist)
	}
	n, err := c.Exec(ctx, pgNewOrderWrite, cl.argList(st.oID, in.DID, in.WID,
		st.upW, st.upI, st.upQty, st.upYtd, st.upOrder, st.upRemote,
		st.olNum, st.olItem, st.olSupply, st.olQty, st.olAmount, st.olDist)...)
	if err != nil {
		return err
	}
	if int(n) != len(st.olNum) {
		return fmt.Errorf("tpcc: new-order inserted %d order lines, expected %d", n, len(st.olNum))
	}
	return nil
}

// Payment, clause 2.5.2.2, in one statement. The CTEs are chained (d waits for w, c for d) so every
// Payment locks warehouse, district, customer in that order. $1 w_id, $2 d_id, $3 h_amount in cents,
// $4 c_w_id, $5 c_d_id, $6 c_id or c_last, $7 h_date. The customer's row comes back after update.
const pgPaymentHead = `WITH w AS (
	UPDATE warehouse SET w_ytd = w_ytd + $3::int8 * 0.01 WHERE w_id = $1
	RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip),
d AS (
	UPDATE district SET d_ytd = d_ytd + $3::int8 * 0.01
	WHERE d_w_id = $1 AND d_id = $2 AND EXISTS (SELECT FROM w)
	RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip),
c AS (
	UPDATE customer SET c_balance = c_balance - $3::int8 * 0.01,
		c_ytd_payment = c_ytd_payment + $3::int8 * 0.01,
		c_payment_cnt = c_payment_cnt + 1,
		c_data = CASE WHEN c_credit = 'BC' THEN left(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' ||
			$2::int4 || ' ' || $1::int4 || ' ' || ($3::int8 * 0.01) || ' ' || c_data, 500) ELSE c_data END
	WHERE c_w_id = $4 AND c_d_id = $5 AND EXISTS (SELECT FROM d) AND c_id = `

const pgPaymentTail = `
	RETURNING c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone,
		c_since, c_credit, (c_credit_lim * 100)::int8 AS credit_lim, (c_discount * 10000)::int8 AS discount,
		(c_balance * 100)::int8 AS balance, CASE WHEN c_credit = 'BC' THEN left(c_data, 200) ELSE '' END AS data),
h AS (
	INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
	SELECT c.c_id, $5, $4, $2, $1, $7::timestamp, $3::int8 * 0.01, w.w_name || '    ' || d.d_name FROM w, d, c)
SELECT w.*, d.*, c.* FROM w, d, c`

// pgByName picks, among the customers of ($4, $5) named $6 sorted by c_first, the one at position
// ceil(n/2) (clause 2.5.2.2): OFFSET (n-1)/2.
const pgByName = `(SELECT c_id FROM customer WHERE c_w_id = $4 AND c_d_id = $5 AND c_last = $6
		ORDER BY c_first OFFSET (SELECT (count(*) - 1) / 2 FROM customer
			WHERE c_w_id = $4 AND c_d_id = $5 AND c_last = $6) LIMIT 1)`

var (
	pgPaymentByID   = pgPaymentHead + `$6` + pgPaymentTail
	pgPaymentByName = pgPaymentHead + pgByName + pgPaymentTail
)

func (pgTxOps) payment(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.pay
	in := st.in
	sql, key := pgPaymentByID, any(in.CID)
	if in.ByName {
		sql, key = pgPaymentByName, any(in.CLast)
	}
	cu := &st.c
	err := c.QueryRow(ctx, sql, cl.argList(in.WID, in.DID, in.AmountCents, in.CWID, in.CDID, key, in.Date)...).Scan(
		&st.wName, &st.wAddr.street1, &st.wAddr.street2, &st.wAddr.city, &st.wAddr.state, &st.wAddr.zip,
		&st.dName, &st.dAddr.street1, &st.dAddr.street2, &st.dAddr.city, &st.dAddr.state, &st.dAddr.zip,
		&cu.id, &cu.first, &cu.middle, &cu.last, &cu.addr.street1, &cu.addr.street2, &cu.addr.city,
		&cu.addr.state, &cu.addr.zip, &cu.phone, &cu.since, &cu.credit, &cu.creditLim, &cu.discount,
		&cu.balance, &cu.data)
	if err == driver.ErrNoRows {
		return errCustomerNotFound
	}
	return err
}

// Order-Status, clause 2.6.2.2, in one statement: the customer, their order with the highest o_id
// (through the orders (o_w_id, o_d_id, o_c_id, o_id) index) and its lines, one row per line.
// $1 w_id, $2 d_id, $3 c_id or c_last.
const pgOrderStatusHead = `WITH c AS (
	SELECT c_id, c_first, c_middle, c_last, (c_balance * 100)::int8 AS balance FROM customer
	WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = `

const pgOrderStatusTail = `),
o AS (
	SELECT o_id, o_entry_d, o_carrier_id FROM orders, c
	WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = c.c_id
	ORDER BY o_id DESC LIMIT 1)
SELECT c.c_id, c.c_first, c.c_middle, c.c_last, c.balance,
	coalesce(o.o_id, 0), coalesce(o.o_entry_d, 'epoch'), coalesce(o.o_carrier_id, 0),
	coalesce(ol_i_id, 0), coalesce(ol_supply_w_id, 0), coalesce(ol_quantity, 0),
	coalesce((ol_amount * 100)::int8, 0), ol_delivery_d IS NOT NULL, coalesce(ol_delivery_d, 'epoch')
FROM c LEFT JOIN o ON true
LEFT JOIN order_line ON ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = o.o_id
ORDER BY ol_number`

var (
	pgOrderStatusByID   = pgOrderStatusHead + `$3` + pgOrderStatusTail
	pgOrderStatusByName = pgOrderStatusHead + pgByNameOS + pgOrderStatusTail
	// pgByNameOS is pgByName with Order-Status's parameters ($1, $2, $3).
	pgByNameOS = `(SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3
		ORDER BY c_first OFFSET (SELECT (count(*) - 1) / 2 FROM customer
			WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3) LIMIT 1)`
)

func (pgTxOps) orderStatus(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.os
	in := st.in
	sql, key := pgOrderStatusByID, any(in.CID)
	if in.ByName {
		sql, key = pgOrderStatusByName, any(in.CLast)
	}
	rows, err := c.Query(ctx, sql, cl.argList(in.WID, in.DID, key)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	n := 0
	var l statusLine
	for rows.Next() {
		if err := rows.Scan(&st.cID, &st.first, &st.middle, &st.last, &st.balance,
			&st.oID, &st.entryD, &st.carrierID,
			&l.itemID, &l.supplyWID, &l.quantity, &l.amount, &l.delivered, &l.deliveryD); err != nil {
			return err
		}
		n++
		if l.itemID == 0 { // the customer has no order (the LEFT JOINs found nothing)
			continue
		}
		p, err := st.addLine()
		if err != nil {
			return err
		}
		*p = l
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if n == 0 {
		return errCustomerNotFound
	}
	return nil
}

// Delivery, clause 2.7.4.2, all ten districts in one statement. For each district the oldest
// new_order row is locked (FOR UPDATE: under read committed a Delivery that finds it taken by a
// concurrent one waits and then moves on to the next row) and deleted; its order gets the carrier,
// its lines the delivery date, and the customer the sum of the line amounts. The counts returned
// let the caller check that every delivered order reached its customer. $1 w_id, $2 carrier, $3 now.
const pgDelivery = `WITH no AS (
	DELETE FROM new_order n
	USING (SELECT x.no_d_id, x.no_o_id
		FROM generate_series(1, 10) AS g(d_id)
		CROSS JOIN LATERAL (
			SELECT no_d_id, no_o_id FROM new_order
			WHERE no_w_id = $1 AND no_d_id = g.d_id
			ORDER BY no_o_id LIMIT 1 FOR UPDATE) x) AS f
	WHERE n.no_w_id = $1 AND n.no_d_id = f.no_d_id AND n.no_o_id = f.no_o_id
	RETURNING n.no_d_id, n.no_o_id),
o AS (
	UPDATE orders SET o_carrier_id = $2
	FROM no WHERE o_w_id = $1 AND o_d_id = no.no_d_id AND o_id = no.no_o_id
	RETURNING o_d_id, o_c_id),
ol AS (
	UPDATE order_line SET ol_delivery_d = $3
	FROM no WHERE ol_w_id = $1 AND ol_d_id = no.no_d_id AND ol_o_id = no.no_o_id
	RETURNING ol_d_id, ol_amount),
s AS (
	SELECT o.o_d_id, o.o_c_id, sum(ol.ol_amount) AS amount
	FROM o JOIN ol ON ol.ol_d_id = o.o_d_id GROUP BY o.o_d_id, o.o_c_id),
c AS (
	UPDATE customer SET c_balance = c_balance + s.amount, c_delivery_cnt = c_delivery_cnt + 1
	FROM s WHERE c_w_id = $1 AND c_d_id = s.o_d_id AND c_id = s.o_c_id
	RETURNING c_id)
SELECT (SELECT count(*) FROM no), (SELECT count(*) FROM o), (SELECT count(*) FROM c)`

func (pgTxOps) delivery(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.del
	var nNo, nO, nC int64
	if err := c.QueryRow(ctx, pgDelivery, cl.argList(st.w, st.in.CarrierID, st.now)...).Scan(&nNo, &nO, &nC); err != nil {
		return err
	}
	if nNo != nO || nO != nC {
		return fmt.Errorf("tpcc: delivery of warehouse %d took %d new orders but updated %d orders and %d customers (inconsistent database?)", st.w, nNo, nO, nC)
	}
	st.res.Delivered = int(nNo)
	st.res.Skipped = DistrictsPerWarehouse - int(nNo)
	return nil
}

// Stock-Level, clause 2.8.2.2: d_next_o_id of the district and the distinct items of the lines of
// its last 20 orders whose stock in the home warehouse is below the threshold, in one statement.
// $1 w_id, $2 d_id, $3 threshold.
const pgStockLevel = `SELECT count(DISTINCT s_i_id)
FROM district
JOIN order_line ON ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id < d_next_o_id AND ol_o_id >= d_next_o_id - 20
JOIN stock ON s_w_id = $1 AND s_i_id = ol_i_id
WHERE d_w_id = $1 AND d_id = $2 AND s_quantity < $3`

func (pgTxOps) stockLevel(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.sl
	return c.QueryRow(ctx, pgStockLevel, cl.argList(st.w, st.d, st.in.Threshold)...).Scan(&st.count)
}
