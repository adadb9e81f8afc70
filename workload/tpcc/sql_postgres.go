package tpcc

import (
	"context"
	"strconv"

	"github.com/candor-bench/candor/driver"
)

// PostgreSQL statements. Each transaction takes as few round trips as the standard allows: rows are
// read and written with RETURNING, data-modifying CTEs and array parameters (unnest), so a New-Order
// is 2 statements between BEGIN and COMMIT (3 round trips: BEGIN travels with the first statement,
// see driver/postgres), and a Payment, Order-Status, Delivery or Stock-Level 1 statement, sent alone
// at read committed (1 round trip; see Client.txConn).
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
		(i_price * 100)::int8 AS price, i_name::text AS name,
		(s_data LIKE '%ORIGINAL%' AND i_data LIKE '%ORIGINAL%') AS original
	FROM unnest($7::int4[], $8::int4[]) AS k(w, i)
	JOIN stock ON s_w_id = k.w AND s_i_id = k.i
	JOIN item ON i_id = k.i
	ORDER BY s_w_id, s_i_id
	FOR UPDATE OF stock)
SELECT 0, d.o_id, d.d_tax, (w_tax * 10000)::int8, (c_discount * 10000)::int8, c_last::text, c_credit::text,
	0, 0, 0, '', 0::int8, '', false
FROM d, warehouse, customer
WHERE w_id = $1 AND c_w_id = $1 AND c_d_id = $2 AND c_id = $3
UNION ALL
SELECT 1, 0, 0, 0, 0, '', '', s_w_id, s_i_id, s_quantity, dist, price, name, original FROM s`
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
	a := &st.arrays
	a.reset()
	a.begin()
	for k := 0; k < st.nRows; k++ {
		a.int(int64(st.rows[k].w))
	}
	a.end()
	a.begin()
	for k := 0; k < st.nRows; k++ {
		a.int(int64(st.rows[k].i))
	}
	a.end()
	args := a.appendArgs(cl.argList(in.WID, in.DID, in.CID, in.EntryD, in.OLCnt, allLocal))
	rows, err := c.Query(ctx, pgNewOrderRead[in.DID-1], args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	sc := &st.scan
	if st.readDest == nil {
		st.readDest = []any{&sc.kind, &sc.oID, &sc.dTax, &sc.wTax, &sc.cDiscount, &sc.cLast, &sc.cCredit,
			&sc.r.w, &sc.r.i, &sc.r.qty, &sc.r.dist, &sc.r.price, &sc.r.name, &sc.r.original}
	}
	header := false
	for rows.Next() {
		if err := rows.Scan(st.readDest...); err != nil {
			return err
		}
		if sc.kind == 0 {
			header = true
			st.oID, st.dTax, st.wTax, st.cDiscount, st.cLast, st.cCredit = sc.oID, sc.dTax, sc.wTax, sc.cDiscount, sc.cLast, sc.cCredit
			continue
		}
		k := st.find(sc.r.w, sc.r.i)
		if k < 0 {
			return driver.Checkf("tpcc: new-order: unexpected stock row (%d, %d)", sc.r.w, sc.r.i)
		}
		st.rows[k] = sc.r
		st.rows[k].found = true
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if !header {
		return errNotFound
	}
	return nil
}

// carryCommit makes the transaction's next statement its last, COMMIT sent in the same write after
// it, where the connection can (driver/postgres's CarryCommit): Payment and Delivery take one round
// trip instead of two, New-Order two instead of three. The statements that carry it are each
// transaction's last, whose success on the server leaves nothing to roll back in valid data (a
// failed check of their result after it finds the transaction committed). A New-Order with an
// unused item (clause 2.4.2.3), rolled back after its write, does not carry it. On the MySQL family
// (driver/mysql's CarryCommit) only a read-only transaction's last pipeline carries it: Order-Status
// and Stock-Level (sql_mysql.go).
func carryCommit(c driver.Conn) {
	if cc, ok := c.(interface{ CarryCommit() }); ok {
		cc.CarryCommit()
	}
}

func (pgTxOps) newOrderWrite(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.no
	in := st.in
	a := &st.arrays
	a.reset()
	// the stock rows: s_w_id, s_i_id, s_quantity, and the s_ytd, s_order_cnt, s_remote_cnt increments
	for f := 0; f < 6; f++ {
		a.begin()
		for k := 0; k < st.nRows; k++ {
			r := &st.rows[k]
			if !r.found {
				continue
			}
			switch f {
			case 0:
				a.int(int64(r.w))
			case 1:
				a.int(int64(r.i))
			case 2:
				a.int(int64(r.qty))
			case 3:
				a.int(int64(r.ytd))
			case 4:
				a.int(int64(r.orderCnt))
			case 5:
				a.int(int64(r.remoteCnt))
			}
		}
		a.end()
	}
	// the order lines: ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount (cents), ol_dist_info
	lines := 0
	for f := 0; f < 6; f++ {
		a.begin()
		for l := 0; l < in.OLCnt; l++ {
			if l == st.missing {
				continue
			}
			line := &in.Lines[l]
			switch f {
			case 0:
				a.int(int64(l + 1))
				lines++
			case 1:
				a.int(int64(line.ItemID))
			case 2:
				a.int(int64(line.SupplyWID))
			case 3:
				a.int(int64(line.Quantity))
			case 4:
				a.int(st.amount[l])
			case 5:
				a.text(st.rows[st.lineRow[l]].dist)
			}
		}
		a.end()
	}
	args := a.appendArgs(cl.argList(st.oID, in.DID, in.WID))
	if st.missing < 0 { // an order with an unused item rolls back after this (clause 2.4.2.3)
		carryCommit(c)
	}
	n, err := c.Exec(ctx, pgNewOrderWrite, args...)
	if err != nil {
		return err
	}
	if int(n) != lines {
		return driver.Checkf("tpcc: new-order inserted %d order lines, expected %d", n, lines)
	}
	return nil
}

// pgArrays builds the array parameters of one statement as PostgreSQL array literals ('{1,2,3}')
// in one reused buffer. They are passed as *string, which pgx sends in text format without
// encoding work: measured with pgx v5.12, the twelve 15-element arrays of New-Order's write cost
// 29 µs and 196 allocations through pgx's binary array encoding, and 10 µs as text (with one
// allocation per array; here there is one per statement).
type pgArrays struct {
	buf  []byte
	ends [16]int    // end of each array in buf
	strs [16]string // the arrays, sliced from one string copy of buf
	n    int
}

func (a *pgArrays) reset() { a.buf, a.n = a.buf[:0], 0 }

func (a *pgArrays) begin() { a.buf = append(a.buf, '{') }

func (a *pgArrays) sep() {
	if a.buf[len(a.buf)-1] != '{' {
		a.buf = append(a.buf, ',')
	}
}

func (a *pgArrays) int(v int64) {
	a.sep()
	a.buf = strconv.AppendInt(a.buf, v, 10)
}

// text appends s as a quoted element ("..." with " and \ escaped).
func (a *pgArrays) text(s string) {
	a.sep()
	a.buf = append(a.buf, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			a.buf = append(a.buf, '\\')
		}
		a.buf = append(a.buf, s[i])
	}
	a.buf = append(a.buf, '"')
}

func (a *pgArrays) end() {
	a.buf = append(a.buf, '}')
	a.ends[a.n] = len(a.buf)
	a.n++
}

// appendArgs appends the arrays built since reset to args, as *string.
func (a *pgArrays) appendArgs(args []any) []any {
	s := string(a.buf)
	start := 0
	for i := 0; i < a.n; i++ {
		a.strs[i] = s[start:a.ends[i]]
		start = a.ends[i]
		args = append(args, &a.strs[i])
	}
	return args
}

// Payment, clause 2.5.2.2, in one statement. The customer is found first (cu, a plain read), and
// the updates run only if it exists, so a Payment for a missing customer changes nothing even when
// the statement is its own transaction. The CTEs are chained (w waits for cu, d for w, c for d) so
// every Payment locks warehouse, district, customer in that order. $1 w_id, $2 d_id, $3 h_amount in
// cents, $4 c_w_id, $5 c_d_id, $6 c_id or c_last, $7 h_date. The customer's row comes back after
// update.
const pgPaymentHead = `WITH cu AS (
	SELECT c_id FROM customer WHERE c_w_id = $4 AND c_d_id = $5 AND c_id = `

const pgPaymentTail = `),
w AS (
	UPDATE warehouse SET w_ytd = w_ytd + $3::int8 * 0.01 WHERE w_id = $1 AND EXISTS (SELECT 1 FROM cu)
	RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip),
d AS (
	UPDATE district SET d_ytd = d_ytd + $3::int8 * 0.01
	WHERE d_w_id = $1 AND d_id = $2 AND EXISTS (SELECT 1 FROM w)
	RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip),
c AS (
	UPDATE customer SET c_balance = c_balance - $3::int8 * 0.01,
		c_ytd_payment = c_ytd_payment + $3::int8 * 0.01,
		c_payment_cnt = c_payment_cnt + 1,
		c_data = CASE WHEN c_credit = 'BC' THEN left(c_id::text || ' ' || c_d_id::text || ' ' || c_w_id::text || ' ' ||
			$2::int4::text || ' ' || $1::int4::text || ' ' || ($3::int8 * 0.01)::text || ' ' || c_data, 500) ELSE c_data END
	WHERE c_w_id = $4 AND c_d_id = $5 AND c_id = (SELECT c_id FROM cu) AND EXISTS (SELECT 1 FROM d)
	RETURNING c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone,
		c_since, c_credit, (c_credit_lim * 100)::int8 AS credit_lim, (c_discount * 10000)::int8 AS discount,
		(c_balance * 100)::int8 AS balance, CASE WHEN c_credit = 'BC' THEN left(c_data, 200) ELSE '' END AS data),
h AS (
	INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
	SELECT c.c_id, $5, $4, $2, $1, $7::timestamp, $3::int8 * 0.01, w.w_name || '    ' || d.d_name FROM w, d, c)
SELECT w.*, d.*, c.* FROM w, d, c`

// pgByName picks, among the customers of ($4, $5) named $6 sorted by c_first, the one at position
// ceil(n/2) (clause 2.5.2.2): OFFSET ceil(n/2) - 1, written so that it reads the same on
// CockroachDB, where integer / integer is a decimal ((n-1)/2 would be 0.5 for n = 2).
const pgByName = `(SELECT c_id FROM customer WHERE c_w_id = $4 AND c_d_id = $5 AND c_last = $6
		ORDER BY c_first OFFSET (SELECT greatest(ceil(count(*) / 2.0)::int8 - 1, 0) FROM customer
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
	if st.dest == nil {
		cu := &st.c
		st.dest = []any{&st.wName, &st.wAddr.street1, &st.wAddr.street2, &st.wAddr.city, &st.wAddr.state, &st.wAddr.zip,
			&st.dName, &st.dAddr.street1, &st.dAddr.street2, &st.dAddr.city, &st.dAddr.state, &st.dAddr.zip,
			&cu.id, &cu.first, &cu.middle, &cu.last, &cu.addr.street1, &cu.addr.street2, &cu.addr.city,
			&cu.addr.state, &cu.addr.zip, &cu.phone, &cu.since, &cu.credit, &cu.creditLim, &cu.discount,
			&cu.balance, &cu.data}
	}
	carryCommit(c)
	err := c.QueryRow(ctx, sql, cl.argList(in.WID, in.DID, in.AmountCents, in.CWID, in.CDID, key, in.Date)...).Scan(st.dest...)
	if err == driver.ErrNoRows {
		return errNotFound
	}
	return err
}

// Order-Status, clause 2.6.2.2, in one statement: the customer and their order with the highest
// o_id (through the orders (o_w_id, o_d_id, o_c_id, o_id) index) in the first row (kind 0), then the
// order's lines (kind 1). $1 w_id, $2 d_id, $3 c_id or c_last.
const pgOrderStatusHead = `WITH c AS (
	SELECT c_id, c_first, c_middle, c_last, (c_balance * 100)::int8 AS balance FROM customer
	WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = `

const pgOrderStatusTail = `),
o AS (
	SELECT o_id, o_entry_d, o_carrier_id FROM orders, c
	WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = c.c_id
	ORDER BY o_id DESC LIMIT 1)
SELECT 0, c.c_id, c.c_first::text, c.c_middle::text, c.c_last::text, c.balance,
	coalesce(o.o_id, 0), coalesce(o.o_entry_d, 'epoch'), coalesce(o.o_carrier_id, 0),
	0, 0, 0, 0::int8, false, 'epoch'::timestamp
FROM c LEFT JOIN o ON true
UNION ALL
(SELECT 1, 0, '', '', '', 0, 0, 'epoch', 0,
	ol_i_id, ol_supply_w_id, ol_quantity, (ol_amount * 100)::int8, ol_delivery_d IS NOT NULL,
	coalesce(ol_delivery_d, 'epoch')
FROM o JOIN order_line ON ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = o.o_id
ORDER BY ol_number)`

var (
	pgOrderStatusByID   = pgOrderStatusHead + `$3` + pgOrderStatusTail
	pgOrderStatusByName = pgOrderStatusHead + pgByNameOS + pgOrderStatusTail
	// pgByNameOS is pgByName with Order-Status's parameters ($1, $2, $3).
	pgByNameOS = `(SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3
		ORDER BY c_first OFFSET (SELECT greatest(ceil(count(*) / 2.0)::int8 - 1, 0) FROM customer
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
	return st.scanRows(rows)
}

// scanRows reads the rows of the one-statement Order-Status (interactive or procedure): the customer
// and order first (kind 0), then the order's lines. No header row means no such customer.
func (st *orderStatusState) scanRows(rows driver.Rows) error {
	sc := &st.scan
	if st.dest == nil {
		st.dest = []any{&sc.kind, &sc.cID, &sc.first, &sc.middle, &sc.last, &sc.balance, &sc.oID, &sc.entryD,
			&sc.carrierID, &sc.l.itemID, &sc.l.supplyWID, &sc.l.quantity, &sc.l.amount, &sc.l.delivered, &sc.l.deliveryD}
	}
	header := false
	for rows.Next() {
		if err := rows.Scan(st.dest...); err != nil {
			return err
		}
		if sc.kind == 0 {
			header = true
			st.cID, st.first, st.middle, st.last, st.balance = sc.cID, sc.first, sc.middle, sc.last, sc.balance
			st.oID, st.entryD, st.carrierID = sc.oID, sc.entryD, sc.carrierID
			continue
		}
		p, err := st.addLine()
		if err != nil {
			return err
		}
		*p = sc.l
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if !header {
		return errNotFound
	}
	return nil
}

// Delivery, clause 2.7.4.2, all ten districts in one statement. For each district the oldest
// new_order row is locked (FOR UPDATE: under read committed a Delivery that finds it taken by a
// concurrent one waits and then moves on to the next row) and deleted; its order gets the carrier,
// its lines the delivery date, and the customer the sum of the line amounts. If a new_order row
// taken has no order, no lines or no customer, the statement fails (the text that cannot be cast to
// a number is the error message), so that nothing of it stays, even when it runs as its own
// transaction. It returns one row: the number of districts delivered and skipped, then the O_ID
// delivered in each district 1..10 (0: skipped), which the result file records (clause 2.7.4.2):
// one row of plain integers rather than a row per district or an array, so that reading it costs
// the client about what the count alone did. $1 w_id, $2 carrier, $3 now.
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
SELECT CASE WHEN (SELECT count(*) FROM o) = n.taken AND (SELECT count(*) FROM c) = n.taken THEN n.taken
	ELSE ('tpcc delivery: ' || n.taken::text || ' new_order rows taken but their orders, lines or customers are missing')::int8 END,
	10 - n.taken, n.o1, n.o2, n.o3, n.o4, n.o5, n.o6, n.o7, n.o8, n.o9, n.o10
FROM (SELECT count(*) AS taken,
	coalesce(max(no_o_id) FILTER (WHERE no_d_id = 1), 0) AS o1,
	coalesce(max(no_o_id) FILTER (WHERE no_d_id = 2), 0) AS o2,
	coalesce(max(no_o_id) FILTER (WHERE no_d_id = 3), 0) AS o3,
	coalesce(max(no_o_id) FILTER (WHERE no_d_id = 4), 0) AS o4,
	coalesce(max(no_o_id) FILTER (WHERE no_d_id = 5), 0) AS o5,
	coalesce(max(no_o_id) FILTER (WHERE no_d_id = 6), 0) AS o6,
	coalesce(max(no_o_id) FILTER (WHERE no_d_id = 7), 0) AS o7,
	coalesce(max(no_o_id) FILTER (WHERE no_d_id = 8), 0) AS o8,
	coalesce(max(no_o_id) FILTER (WHERE no_d_id = 9), 0) AS o9,
	coalesce(max(no_o_id) FILTER (WHERE no_d_id = 10), 0) AS o10
	FROM no) AS n`

func (pgTxOps) delivery(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.del
	carryCommit(c)
	if err := c.QueryRow(ctx, pgDelivery, cl.argList(st.w, st.in.CarrierID, st.now)...).Scan(st.scanDest()...); err != nil {
		return err
	}
	return st.setRow()
}

// Stock-Level, clause 2.8.2.2: d_next_o_id of the district and the distinct items of the lines of
// its last 20 orders whose stock in the home warehouse is below the threshold, in one statement.
// $1 w_id, $2 d_id, $3 threshold.
//
// LIMIT stockLevelMaxLines changes no result (20 orders have at most 20 x 15 lines, clause 2.4.1.3)
// but bounds the planner's estimate of the lines. Without it the estimate of the range
// [d_next_o_id - 20, d_next_o_id), whose bounds the planner cannot see, grows with order_line, and
// the cached generic plan was seen to turn, after a long run, into a hash join over all of the
// warehouse's stock (60 ms instead of 1.5).
var pgStockLevel = `SELECT count(DISTINCT s_i_id)
FROM district
CROSS JOIN LATERAL (SELECT ol_i_id FROM order_line
	WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id < d_next_o_id AND ol_o_id >= d_next_o_id - 20
	LIMIT ` + stockLevelMaxLines + `) AS ol
JOIN stock ON s_w_id = $1 AND s_i_id = ol.ol_i_id
WHERE d_w_id = $1 AND d_id = $2 AND s_quantity < $3`

func (pgTxOps) stockLevel(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.sl
	return c.QueryRow(ctx, pgStockLevel, cl.argList(st.w, st.d, st.in.Threshold)...).Scan(&st.count)
}
