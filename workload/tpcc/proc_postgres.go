package tpcc

import (
	"context"

	"github.com/candor-bench/candor/driver"
)

// The five transactions as PL/pgSQL functions (stored-procedure mode, --procedures): the client
// sends one statement per transaction, SELECT * FROM candor_<tx>(...), and reads back what the
// interactive mode reads (see proc_ops.go for the client half). Inputs are the same generated
// inputs; New-Order's lines travel as three arrays. Money crosses the wire as int8 cents and rates as
// int8 ten-thousandths, as in the interactive mode.
//
// Errors and rollbacks. A function that finds the warehouse, district or customer missing raises an
// error whose message starts with procNotFound; one whose New-Order meets the unused item (clause
// 2.4.2.3) has done all the order's work and then raises an error whose message starts with
// procRollback (carrying O_ID, C_LAST and C_CREDIT, which the terminal displays, clause 2.4.3.4). The
// raised error aborts the statement, so PostgreSQL rolls the whole transaction back: the district's
// d_next_o_id, the order, its lines and the stock updates all disappear, as the standard asks. This
// keeps every New-Order at one round trip (no BEGIN, no ROLLBACK) and costs nothing on the 99% that
// commit, where an EXCEPTION block would start a subtransaction on every call.
//
// The functions run in the caller's transaction: at read committed they are sent alone, as their
// own implicit transaction (Client.txConn); at a stricter level between BEGIN and COMMIT.
//
// #variable_conflict use_column: a name that is both a column and a PL/pgSQL variable means the
// column inside SQL statements; the functions' own variables and parameters carry prefixes (p_, v_,
// r_) so that nothing is ambiguous anyway.

// pgProcNewOrder is New-Order, clause 2.4.2.2, in two statements. The first locks and increments
// the district's d_next_o_id, reads w_tax, d_tax and the customer, and inserts the orders and
// new_order rows. The second does all the lines: each distinct (supply warehouse, item) is updated
// once, in (s_w_id, s_i_id) order (so concurrent New-Orders lock shared stock rows in the same order),
// with S_QUANTITY computed from its current value by the stock rule of clause 2.4.2.2 applied line
// after line (candor_stock_after, for an item ordered twice from one warehouse), S_YTD, S_ORDER_CNT
// and S_REMOTE_CNT incremented; the order lines are inserted with OL_AMOUNT = OL_QUANTITY * I_PRICE
// and OL_DIST_INFO = S_DIST_<d>. The UPDATE takes the row lock itself and computes from the row it
// locked, so no SELECT ... FOR UPDATE is needed (the interactive mode needs one: it computes in Go
// between its statements). An unused item has no item row, so its line updates and inserts nothing.
//
// It returns the header (kind 0: o_id, w_tax, d_tax, c_discount, c_last, c_credit), then one row
// per line found (kind 1: ol_number, the total in cents rounded half up, s_quantity after the order,
// i_name, i_price, ol_amount, whether i_data and s_data both contain "ORIGINAL").
const pgProcNewOrder = `CREATE OR REPLACE FUNCTION candor_new_order(p_w int, p_d int, p_c int, p_entry timestamp,
	p_all_local int, p_supply int[], p_item int[], p_qty int[],
	OUT r_kind int, OUT r_num int, OUT r_o_id int, OUT r_w_tax int8, OUT r_d_tax int8, OUT r_discount int8,
	OUT r_last text, OUT r_credit text, OUT r_total int8,
	OUT r_quantity int, OUT r_name text, OUT r_price int8, OUT r_amount int8, OUT r_original bool)
RETURNS SETOF record LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
	v_n int := cardinality(p_item);
	v_o int; v_dtax int8; v_wtax int8; v_disc int8; v_last text; v_credit text; v_lines int8;
BEGIN
	WITH d AS (
		UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d
		RETURNING d_next_o_id - 1 AS o_id, (d_tax * 10000)::int8 AS tax),
	o AS (
		INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
		SELECT d.o_id, p_d, p_w, p_c, p_entry, NULL, v_n, p_all_local FROM d),
	n AS (
		INSERT INTO new_order (no_o_id, no_d_id, no_w_id) SELECT d.o_id, p_d, p_w FROM d)
	SELECT d.o_id, d.tax, (w_tax * 10000)::int8, (c_discount * 10000)::int8, c_last, c_credit
	INTO v_o, v_dtax, v_wtax, v_disc, v_last, v_credit
	FROM d, warehouse, customer
	WHERE w_id = p_w AND c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'candor-not-found: new-order: warehouse %, district % or customer % does not exist', p_w, p_d, p_c;
	END IF;
	r_kind := 0; r_num := 0; r_o_id := v_o; r_w_tax := v_wtax; r_d_tax := v_dtax; r_discount := v_disc;
	r_last := v_last; r_credit := v_credit; r_total := 0;
	r_quantity := 0; r_name := ''; r_price := 0; r_amount := 0; r_original := false;
	RETURN NEXT;

	RETURN QUERY
	WITH l AS (
		SELECT l.w, l.i, l.q, l.x::int AS x FROM unnest(p_supply, p_item, p_qty) WITH ORDINALITY AS l(w, i, q, x)),
	k AS (
		SELECT l.w, l.i, array_agg(l.q ORDER BY l.x) AS qs, sum(l.q)::int AS ytd, count(*)::int AS cnt,
			(count(*) FILTER (WHERE l.w <> p_w))::int AS rem
		FROM l GROUP BY l.w, l.i ORDER BY l.w, l.i),
	s AS (
		UPDATE stock SET
			s_quantity = CASE WHEN k.cnt > 1 THEN candor_stock_after(s_quantity, k.qs)
				WHEN s_quantity - k.qs[1] >= 10 THEN s_quantity - k.qs[1]
				ELSE s_quantity - k.qs[1] + 91 END,
			s_ytd = s_ytd + k.ytd, s_order_cnt = s_order_cnt + k.cnt, s_remote_cnt = s_remote_cnt + k.rem
		FROM k JOIN item ON i_id = k.i
		WHERE s_w_id = k.w AND s_i_id = k.i
		RETURNING s_w_id, s_i_id, s_quantity,
			CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
				WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08
				WHEN 9 THEN s_dist_09 ELSE s_dist_10 END AS dist,
			(i_price * 100)::int8 AS price, i_name::text AS name,
			(s_data LIKE '%ORIGINAL%' AND i_data LIKE '%ORIGINAL%') AS original),
	j AS (
		SELECT l.x, l.i, l.w, l.q, s.s_quantity, s.dist, s.price, s.name, s.original, l.q * s.price AS amount
		FROM l JOIN s ON s.s_w_id = l.w AND s.s_i_id = l.i),
	ol AS (
		INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
			ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
		SELECT v_o, p_d, p_w, j.x, j.i, j.w, NULL, j.q, j.amount * 0.01, j.dist FROM j)
	SELECT 1, j.x, 0, 0::int8, 0::int8, 0::int8, ''::text, ''::text,
		-- Total = sum(OL_AMOUNT) * (1 - C_DISCOUNT) * (1 + W_TAX + D_TAX), in cents rounded half up
		((sum(j.amount) OVER ())::int8 * (10000 - v_disc) * (10000 + v_wtax + v_dtax) + 50000000) / 100000000,
		j.s_quantity, j.name, j.price, j.amount, j.original
	FROM j;
	GET DIAGNOSTICS v_lines = ROW_COUNT;

	IF v_lines < v_n THEN
		-- clause 2.4.2.3: only the last line may name an unused item; the work is done, and the
		-- error rolls the transaction back
		IF v_lines = v_n - 1 AND NOT EXISTS (SELECT FROM item WHERE i_id = p_item[v_n]) THEN
			RAISE EXCEPTION 'candor-rollback: item number is not valid: o_id % c_last % c_credit %', v_o, v_last, v_credit;
		END IF;
		RAISE EXCEPTION 'candor-missing-stock: new-order: % of % lines have no item or stock row (is the database fully loaded?)', v_n - v_lines, v_n;
	END IF;
END
$fn$`

// pgProcStockAfter applies the stock rule of clause 2.4.2.2 to s_quantity for each of an order's
// lines of one item from one warehouse, in line order.
const pgProcStockAfter = `CREATE OR REPLACE FUNCTION candor_stock_after(p_quantity int, p_qty int[])
RETURNS int LANGUAGE plpgsql IMMUTABLE AS $fn$
DECLARE
	v_s int := p_quantity; v_q int;
BEGIN
	FOREACH v_q IN ARRAY p_qty LOOP
		IF v_s - v_q >= 10 THEN
			v_s := v_s - v_q;
		ELSE
			v_s := v_s - v_q + 91;
		END IF;
	END LOOP;
	RETURN v_s;
END
$fn$`

// pgProcByName is the customer-by-last-name choice of clause 2.5.2.2 and 2.6.2.2, shared by Payment
// and Order-Status: among the customers of (p_c_w, p_c_d) named p_c_last, sorted by c_first, the one
// at position ceil(n/2), that is OFFSET (n-1)/2.
const pgProcByName = `c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last
			ORDER BY c_first OFFSET (SELECT (count(*) - 1) / 2 FROM customer
				WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last) LIMIT 1`

// pgProcPayment is Payment, clause 2.5.2.2: the customer (by id, or by last name when p_c_last is
// not null), then warehouse, district and customer updated in that order (the lock order of the
// interactive mode), the bad-credit c_data rule, and the history row. It returns the warehouse's and
// district's name and address and the customer after update (28 columns, in the order the
// interactive mode scans them).
const pgProcPayment = `CREATE OR REPLACE FUNCTION candor_payment(p_w int, p_d int, p_c_w int, p_c_d int,
	p_c_id int, p_c_last text, p_amount int8, p_date timestamp,
	OUT r_w_name text, OUT r_w_street_1 text, OUT r_w_street_2 text, OUT r_w_city text, OUT r_w_state text, OUT r_w_zip text,
	OUT r_d_name text, OUT r_d_street_1 text, OUT r_d_street_2 text, OUT r_d_city text, OUT r_d_state text, OUT r_d_zip text,
	OUT r_c_id int, OUT r_first text, OUT r_middle text, OUT r_last text, OUT r_street_1 text, OUT r_street_2 text,
	OUT r_city text, OUT r_state text, OUT r_zip text, OUT r_phone text, OUT r_since timestamp, OUT r_credit text,
	OUT r_credit_lim int8, OUT r_discount int8, OUT r_balance int8, OUT r_data text)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
	v_amount numeric := p_amount * 0.01;
	v_c int := p_c_id;
BEGIN
	IF p_c_last IS NOT NULL THEN
		SELECT c_id INTO v_c FROM customer WHERE ` + pgProcByName + `;
		IF NOT FOUND THEN
			RAISE EXCEPTION 'candor-not-found: payment: no customer named % in warehouse % district %', p_c_last, p_c_w, p_c_d;
		END IF;
	END IF;
	UPDATE warehouse SET w_ytd = w_ytd + v_amount WHERE w_id = p_w
	RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip
	INTO r_w_name, r_w_street_1, r_w_street_2, r_w_city, r_w_state, r_w_zip;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'candor-not-found: payment: warehouse % does not exist', p_w;
	END IF;
	UPDATE district SET d_ytd = d_ytd + v_amount WHERE d_w_id = p_w AND d_id = p_d
	RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip
	INTO r_d_name, r_d_street_1, r_d_street_2, r_d_city, r_d_state, r_d_zip;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'candor-not-found: payment: district % of warehouse % does not exist', p_d, p_w;
	END IF;
	-- bad credit: "C_ID C_D_ID C_W_ID D_ID W_ID H_AMOUNT " at the left of C_DATA, cut to 500 characters
	UPDATE customer SET c_balance = c_balance - v_amount, c_ytd_payment = c_ytd_payment + v_amount,
		c_payment_cnt = c_payment_cnt + 1,
		c_data = CASE WHEN c_credit = 'BC' THEN left(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' ||
			p_d || ' ' || p_w || ' ' || v_amount || ' ' || c_data, 500) ELSE c_data END
	WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c
	RETURNING c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone,
		c_since, c_credit, (c_credit_lim * 100)::int8, (c_discount * 10000)::int8, (c_balance * 100)::int8,
		CASE WHEN c_credit = 'BC' THEN left(c_data, 200) ELSE '' END
	INTO r_c_id, r_first, r_middle, r_last, r_street_1, r_street_2, r_city, r_state, r_zip, r_phone,
		r_since, r_credit, r_credit_lim, r_discount, r_balance, r_data;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'candor-not-found: payment: customer % of warehouse % district % does not exist', v_c, p_c_w, p_c_d;
	END IF;
	INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
	VALUES (v_c, p_c_d, p_c_w, p_d, p_w, p_date, v_amount, r_w_name || '    ' || r_d_name);
END
$fn$`

// pgProcOrderStatus is Order-Status, clause 2.6.2.2: the customer (by id, or by last name when
// p_c_last is not null) and their most recent order in the first row (kind 0; o_id 0 when the
// customer has no order), then the order's lines (kind 1), in the columns the interactive mode scans.
const pgProcOrderStatus = `CREATE OR REPLACE FUNCTION candor_order_status(p_c_w int, p_c_d int, p_c_id int, p_c_last text,
	OUT r_kind int, OUT r_c_id int, OUT r_first text, OUT r_middle text, OUT r_last text, OUT r_balance int8,
	OUT r_o_id int, OUT r_entry_d timestamp, OUT r_carrier int,
	OUT r_i_id int, OUT r_supply_w int, OUT r_quantity int, OUT r_amount int8, OUT r_delivered bool, OUT r_delivery_d timestamp)
RETURNS SETOF record LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
BEGIN
	IF p_c_last IS NULL THEN
		SELECT c_id, c_first, c_middle, c_last, (c_balance * 100)::int8
		INTO r_c_id, r_first, r_middle, r_last, r_balance
		FROM customer WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = p_c_id;
	ELSE
		SELECT c_id, c_first, c_middle, c_last, (c_balance * 100)::int8
		INTO r_c_id, r_first, r_middle, r_last, r_balance
		FROM customer WHERE ` + pgProcByName + `;
	END IF;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'candor-not-found: order-status: customer % (%) of warehouse % district % does not exist', p_c_id, p_c_last, p_c_w, p_c_d;
	END IF;
	SELECT o_id, o_entry_d, coalesce(o_carrier_id, 0) INTO r_o_id, r_entry_d, r_carrier
	FROM orders WHERE o_w_id = p_c_w AND o_d_id = p_c_d AND o_c_id = r_c_id
	ORDER BY o_id DESC LIMIT 1;
	IF NOT FOUND THEN
		r_o_id := 0; r_entry_d := 'epoch'; r_carrier := 0;
	END IF;
	r_kind := 0; r_i_id := 0; r_supply_w := 0; r_quantity := 0; r_amount := 0; r_delivered := false; r_delivery_d := 'epoch';
	RETURN NEXT;
	RETURN QUERY SELECT 1, 0, ''::text, ''::text, ''::text, 0::int8, 0, 'epoch'::timestamp, 0,
		ol_i_id, ol_supply_w_id, ol_quantity, (ol_amount * 100)::int8, ol_delivery_d IS NOT NULL,
		coalesce(ol_delivery_d, 'epoch')
	FROM order_line WHERE ol_w_id = p_c_w AND ol_d_id = p_c_d AND ol_o_id = r_o_id
	ORDER BY ol_number;
END
$fn$`

// pgProcDelivery is the deferred part of Delivery, clause 2.7.4.2, for the ten districts of p_w in
// one transaction. For each district in order: the oldest new_order row is deleted (a district
// without one is skipped and counted); its order gets the carrier; its lines the delivery date; the
// customer the sum of the lines' amounts and one more delivery. An order, lines or customer missing
// behind a new_order row is an error, which rolls the whole Delivery back. It returns the number of
// districts delivered and skipped, then the O_ID delivered in each district (0: skipped), which the
// result file records. Its result columns changed once (the O_IDs were added), which CREATE OR
// REPLACE cannot do: pgDropDelivery drops the function first.
const pgProcDelivery = `CREATE OR REPLACE FUNCTION candor_delivery(p_w int, p_carrier int, p_now timestamp,
	OUT r_delivered int, OUT r_skipped int, OUT r_o1 int, OUT r_o2 int, OUT r_o3 int, OUT r_o4 int,
	OUT r_o5 int, OUT r_o6 int, OUT r_o7 int, OUT r_o8 int, OUT r_o9 int, OUT r_o10 int)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
	v_d int; v_o int; v_c int; v_sum numeric;
	v_os int[] := '{0,0,0,0,0,0,0,0,0,0}';
BEGIN
	r_delivered := 0; r_skipped := 0;
	FOR v_d IN 1..10 LOOP
		-- the oldest undelivered order; under read committed a concurrent Delivery that took it
		-- first makes this find nothing, and the district is skipped
		DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id =
			(SELECT no_o_id FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d ORDER BY no_o_id LIMIT 1)
		RETURNING no_o_id INTO v_o;
		IF NOT FOUND THEN
			r_skipped := r_skipped + 1;
			CONTINUE;
		END IF;
		UPDATE orders SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o
		RETURNING o_c_id INTO v_c;
		IF NOT FOUND THEN
			RAISE EXCEPTION 'candor-delivery: new_order row %/%/% has no order', p_w, v_d, v_o;
		END IF;
		WITH ol AS (
			UPDATE order_line SET ol_delivery_d = p_now WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o
			RETURNING ol_amount)
		SELECT sum(ol_amount) INTO v_sum FROM ol;
		IF v_sum IS NULL THEN
			RAISE EXCEPTION 'candor-delivery: order %/%/% has no lines', p_w, v_d, v_o;
		END IF;
		UPDATE customer SET c_balance = c_balance + v_sum, c_delivery_cnt = c_delivery_cnt + 1
		WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_c;
		IF NOT FOUND THEN
			RAISE EXCEPTION 'candor-delivery: the customer % of order %/%/% does not exist', v_c, p_w, v_d, v_o;
		END IF;
		r_delivered := r_delivered + 1;
		v_os[v_d] := v_o;
	END LOOP;
	r_o1 := v_os[1]; r_o2 := v_os[2]; r_o3 := v_os[3]; r_o4 := v_os[4]; r_o5 := v_os[5];
	r_o6 := v_os[6]; r_o7 := v_os[7]; r_o8 := v_os[8]; r_o9 := v_os[9]; r_o10 := v_os[10];
END
$fn$`

// pgDropDelivery drops candor_delivery, whatever its result columns, before pgProcDelivery creates
// it again: an older candor's returned two columns only.
const pgDropDelivery = `DROP FUNCTION IF EXISTS candor_delivery(int, int, timestamp)`

// pgProcStockLevel is Stock-Level, clause 2.8.2.2: d_next_o_id of the district, then the number of
// distinct items of the lines of its last 20 orders whose stock in the home warehouse is below the
// threshold. Two statements rather than one join: with d_next_o_id known, the order lines are an
// index range of the primary key whatever plan the function caches, while the join's generic plan
// could not bound that range and was seen to turn into a hash join over all of the district's lines
// once order_line had grown (60 ms instead of 1.5).
var pgProcStockLevel = `CREATE OR REPLACE FUNCTION candor_stock_level(p_w int, p_d int, p_threshold int)
RETURNS int8 LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
	v_next int; v_count int8;
BEGIN
	SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'candor-not-found: stock-level: district % of warehouse % does not exist', p_d, p_w;
	END IF;
	SELECT count(DISTINCT s_i_id) INTO v_count
	FROM (SELECT ol_i_id FROM order_line
		WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id >= v_next - 20 AND ol_o_id < v_next
		LIMIT ` + stockLevelMaxLines + `) AS ol
	JOIN stock ON s_w_id = p_w AND s_i_id = ol.ol_i_id
	WHERE s_quantity < p_threshold;
	RETURN v_count;
END
$fn$`

// pgProcedures are the statements that create the functions, in order.
var pgProcedures = []string{pgProcStockAfter, pgProcNewOrder, pgProcPayment, pgProcOrderStatus, pgDropDelivery, pgProcDelivery, pgProcStockLevel}

// The calls, one statement per transaction.
const (
	pgCallNewOrder    = `SELECT * FROM candor_new_order($1, $2, $3, $4, $5, $6, $7, $8)`
	pgCallPayment     = `SELECT * FROM candor_payment($1, $2, $3, $4, $5, $6, $7, $8)`
	pgCallOrderStatus = `SELECT * FROM candor_order_status($1, $2, $3, $4)`
	pgCallDelivery    = `SELECT * FROM candor_delivery($1, $2, $3)`
	pgCallStockLevel  = `SELECT candor_stock_level($1, $2, $3)`
)

// pgProcOps is the client half of the procedure mode on PostgreSQL.
type pgProcOps struct{ noProcNewOrderParts }

var _ procOps = pgProcOps{}

func (pgProcOps) newOrder(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.no
	in := st.in
	allLocal := 0
	if in.AllLocal() {
		allLocal = 1
	}
	a := &st.arrays
	a.reset()
	for f := 0; f < 3; f++ {
		a.begin()
		for l := 0; l < in.OLCnt; l++ {
			line := &in.Lines[l]
			switch f {
			case 0:
				a.int(int64(line.SupplyWID))
			case 1:
				a.int(int64(line.ItemID))
			case 2:
				a.int(int64(line.Quantity))
			}
		}
		a.end()
	}
	args := a.appendArgs(cl.argList(in.WID, in.DID, in.CID, in.EntryD, allLocal))
	rows, err := c.Query(ctx, pgCallNewOrder, args...)
	if err != nil {
		return procError(err, cl)
	}
	defer rows.Close()
	if err := cl.proc.scanNewOrder(rows, st); err != nil {
		return procError(err, cl)
	}
	return nil
}

func (pgProcOps) payment(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.pay
	in := st.in
	var cID, cLast any = in.CID, nil
	if in.ByName {
		cID, cLast = 0, in.CLast
	}
	err := c.QueryRow(ctx, pgCallPayment, cl.argList(in.WID, in.DID, in.CWID, in.CDID, cID, cLast, in.AmountCents, in.Date)...).Scan(cl.proc.paymentDest(st)...)
	if err != nil {
		return procError(err, cl)
	}
	return nil
}

func (pgProcOps) orderStatus(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.os
	in := st.in
	var cID, cLast any = in.CID, nil
	if in.ByName {
		cID, cLast = 0, in.CLast
	}
	rows, err := c.Query(ctx, pgCallOrderStatus, cl.argList(in.WID, in.DID, cID, cLast)...)
	if err != nil {
		return procError(err, cl)
	}
	defer rows.Close()
	if err := cl.proc.scanOrderStatus(rows, st); err != nil {
		return procError(err, cl)
	}
	return nil
}

func (pgProcOps) delivery(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.del
	if err := c.QueryRow(ctx, pgCallDelivery, cl.argList(st.w, st.in.CarrierID, st.now)...).Scan(st.scanDest()...); err != nil {
		return procError(err, cl)
	}
	return st.setRow()
}

func (pgProcOps) stockLevel(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.sl
	if err := c.QueryRow(ctx, pgCallStockLevel, cl.argList(st.w, st.d, st.in.Threshold)...).Scan(&st.count); err != nil {
		return procError(err, cl)
	}
	return nil
}
