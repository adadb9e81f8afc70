package tpcc

import (
	"context"
	"errors"
	"strconv"
	"time"
	"unsafe"

	"github.com/candor-bench/candor/driver"
)

// The MySQL family's transactions in batches: several statements sent in one round trip
// (driver.Batcher: the protocol's multi-statements), the transaction's START TRANSACTION in front
// of its first batch and, where nothing is left to decide, COMMIT behind its last. A batch carries
// no parameters, so its values are written into the text: only values candor computed itself
// (keys, quantities, the carrier, amounts in cents, its own clock's dates), last names made of
// TPC-C's syllables (checked to be capital letters) and New-Order's S_DIST_xx strings as read
// (checked to be alphanumeric); never text from a user.
// Batches are used only when the URL says batches=on (driver.Dialect.Batches; never on Dolt's
// engine); otherwise the statements go one by one (sql_mysql.go), the same SQL with parameters,
// prepared. Measured on loopback MariaDB, the batches cost the server more (statements parsed from
// text each time) than the round trips save, and tpmC was lower with them
// (docs/performance/driver-cpu-mysql.md).
//
// Round trips (BEGIN and COMMIT included), against 8, 6 (7), 3 (4), 7 and 3 one by one. "BEGIN" below
// is what driver/mysql puts in front of the first batch: SET autocommit = 0 in a session's first
// read-write transaction and nothing after it (the first statement starts the transaction), START
// TRANSACTION READ ONLY for the read-only ones:
//   - New-Order 2: [BEGIN; district update; header; stock read FOR UPDATE], [stock update; orders,
//     new_order and order_line inserts; COMMIT]. The 1% that roll back by design: 3 (ROLLBACK).
//   - Payment 2 by id: [BEGIN; warehouse, district and customer updates; history insert; the read],
//     then COMMIT once the read has found the rows; 3 by last name (the customers of that name
//     after the district update; the customer's update, history and the read; COMMIT).
//   - Order-Status 1 by id: [BEGIN READ ONLY; the read; COMMIT]; 2 by last name.
//   - Delivery 4 for all ten districts: [BEGIN; the oldest orders], the locking read, [delete,
//     orders, lines and customers updates], COMMIT once their affected rows are checked (more when
//     a concurrent Delivery took a district's order meanwhile).
//   - Stock-Level 1: [BEGIN; the count; COMMIT].
//
// A COMMIT sent in a batch runs only if every statement before it succeeded (the server stops at
// the first that fails, and candor then rolls back). It goes in a batch only where nothing is left
// to check: read-only transactions, and New-Order's writes, whose stock rows were read and locked
// earlier in the transaction (a missing district, warehouse, customer or stock row is found by the
// first batch's reads, before anything is committed). An order line insert or stock update that
// affected another number of rows than expected is reported as a failure after the commit.

// batcher returns c's batches when the engine has them.
func (cl *Client) batcher(c driver.Conn) (driver.Batcher, bool) {
	if !cl.batches {
		return nil, false
	}
	b, ok := c.(driver.Batcher)
	return b, ok
}

// sqlText builds a batch's text in a reused buffer.
type sqlText struct{ b []byte }

func (t *sqlText) reset() *sqlText     { t.b = t.b[:0]; return t }
func (t *sqlText) s(s string) *sqlText { t.b = append(t.b, s...); return t }
func (t *sqlText) i(v int64) *sqlText  { t.b = strconv.AppendInt(t.b, v, 10); return t }
func (t *sqlText) n(v int) *sqlText    { return t.i(int64(v)) }
func (t *sqlText) time(v time.Time) *sqlText {
	t.b = v.UTC().AppendFormat(t.b, "'2006-01-02 15:04:05.000000'")
	return t
}

// String is the text, valid until the next reset: the driver sends it and does not keep it
// (driver/mysql's batches copy it into the packet), so it is not copied.
func (t *sqlText) String() string { return unsafe.String(unsafe.SliceData(t.b), len(t.b)) }

// cents writes an amount in cents as a decimal literal with two places ("12.34"), the value the
// one-by-one statements compute as ? * 0.01.
func (t *sqlText) cents(v int64) *sqlText {
	if v < 0 {
		t.b = append(t.b, '-')
		v = -v
	}
	t.b = strconv.AppendInt(t.b, v/100, 10)
	t.b = append(t.b, '.', byte('0'+v%100/10), byte('0'+v%10))
	return t
}

// lastName writes a customer's last name as a quoted literal. Only names of TPC-C's syllables are
// written (capital letters, clause 4.3.2.3); any other is a driver-side check failure.
func (t *sqlText) lastName(s string) (*sqlText, error) {
	if s == "" {
		return t, driver.Checkf("tpcc: an empty last name")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return t, driver.Checkf("tpcc: last name %q is not one of TPC-C's syllables", s)
		}
	}
	t.b = append(append(append(t.b, '\''), s...), '\'')
	return t, nil
}

// alphanumeric: s is not empty and only digits and ASCII letters (nothing to quote or escape).
func alphanumeric(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return s != ""
}

// readSets reads a batch's remaining result sets to the end (there should be none) and returns
// the error of any statement the batch ran after the last one read, COMMIT's included.
func readSets(rows driver.BatchRows) error {
	for rows.NextResultSet() {
		if rows.Next() {
			rows.Close()
			return driver.Checkf("tpcc: a batch returned more result sets than it has queries")
		}
	}
	err := rows.Err()
	rows.Close()
	return err
}

// New-Order.

func (cl *Client) newOrderReadBatch(ctx context.Context, b driver.Batcher) error {
	st, my := &cl.no, &cl.my
	in := st.in
	w, d := int64(in.WID), int64(in.DID)
	t := my.text.reset()
	t.s("UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ").i(w).s(" AND d_id = ").i(d)
	t.s("; SELECT d_next_o_id - 1, CAST(d_tax * 10000 AS SIGNED), CAST(w_tax * 10000 AS SIGNED), CAST(c_discount * 10000 AS SIGNED), c_last, c_credit FROM district, warehouse, customer WHERE d_w_id = ").i(w).
		s(" AND d_id = ").i(d).s(" AND w_id = ").i(w).s(" AND c_w_id = ").i(w).s(" AND c_d_id = ").i(d).s(" AND c_id = ").n(in.CID)
	// the stock rows in key order, locked, with their items (see mysqlNOStock)
	t.s("; SELECT s_w_id, s_i_id, s_quantity, s_dist_").s(twoDigits(in.DID)).s(`,
	(SELECT CAST(i_price * 100 AS SIGNED) FROM item WHERE i_id = s_i_id),
	(SELECT i_name FROM item WHERE i_id = s_i_id),
	(SELECT i_data LIKE '%ORIGINAL%' FROM item WHERE i_id = s_i_id) AND s_data LIKE '%ORIGINAL%'
FROM stock WHERE (s_w_id, s_i_id) IN (`)
	for k := 0; k < st.nRows; k++ {
		if k > 0 {
			t.s(", ")
		}
		t.s("(").i(int64(st.rows[k].w)).s(", ").i(int64(st.rows[k].i)).s(")")
	}
	t.s(") ORDER BY s_w_id, s_i_id FOR UPDATE")
	rows, err := b.QueryBatch(ctx, t.String(), false)
	if err != nil {
		return err
	}
	defer rows.Close()
	if my.noHeader == nil {
		my.noHeader = []any{&st.oID, &st.dTax, &st.wTax, &st.cDiscount, &st.cLast, &st.cCredit}
	}
	// the header: no row when the district, warehouse or customer is missing (then the district
	// update changed nothing)
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return errNotFound
	}
	if err := rows.Scan(my.noHeader...); err != nil {
		return err
	}
	if rows.Next() {
		return driver.Checkf("tpcc: new-order: more than one header row")
	}
	if !rows.NextResultSet() {
		if err := rows.Err(); err != nil {
			return err
		}
		return driver.Checkf("tpcc: new-order: the batch returned no stock rows' result")
	}
	if err := my.scanStock(rows, st); err != nil { // sql_mysql.go
		return err
	}
	return readSets(rows)
}

func (cl *Client) newOrderWriteBatch(ctx context.Context, b driver.Batcher) error {
	st, my := &cl.no, &cl.my
	in := st.in
	var found int
	my.stmt, found = appendNOStockUpdate(my.stmt[:0], st, mysqlStockForm)
	t := my.text.reset()
	if found > 0 {
		t.b = append(append(t.b, my.stmt...), "; "...)
	}
	allLocal := int64(0)
	if in.AllLocal() {
		allLocal = 1
	}
	o, d, w := st.oID, int64(in.DID), int64(in.WID)
	t.s("INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES (").
		i(o).s(", ").i(d).s(", ").i(w).s(", ").n(in.CID).s(", ").time(in.EntryD).s(", NULL, ").n(in.OLCnt).s(", ").i(allLocal).s(")")
	t.s("; INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (").i(o).s(", ").i(d).s(", ").i(w).s(")")
	// OL_DIST_INFO: the S_DIST_xx just read, written as a literal when it is TPC-C's
	// alphanumeric a-string (clause 4.3.2.2; candor's load writes only those), else copied from
	// the stock row by the server (a subquery per line: more work for the server, which the
	// literal saves).
	lines := 0
	for l := 0; l < in.OLCnt; l++ {
		if l == st.missing {
			continue
		}
		line := &in.Lines[l]
		if lines == 0 {
			t.s("; INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES ")
		} else {
			t.s(", ")
		}
		t.s("(").i(o).s(", ").i(d).s(", ").i(w).s(", ").n(l + 1).s(", ").n(line.ItemID).s(", ").n(line.SupplyWID).s(", NULL, ").
			n(line.Quantity).s(", ").cents(st.amount[l]).s(", ")
		if dist := st.rows[st.lineRow[l]].dist; alphanumeric(dist) {
			t.s("'").s(dist).s("')")
		} else {
			t.s("(SELECT s_dist_").s(twoDigits(in.DID)).s(" FROM stock WHERE s_w_id = ").n(line.SupplyWID).
				s(" AND s_i_id = ").n(line.ItemID).s("))")
		}
		lines++
	}
	// Clause 2.4.2.3: an order with an unused item does all its work and rolls back, so its batch
	// has no COMMIT.
	commit := st.missing < 0
	n, err := b.ExecBatch(ctx, t.String(), commit, my.affected[:0])
	my.affected = n
	if err != nil {
		return err
	}
	want := my.want[:0]
	if found > 0 {
		want = append(want, int64(found))
	}
	want = append(want, 1, 1)
	if lines > 0 {
		want = append(want, int64(lines))
	}
	my.want = want
	what := [...]string{"stock rows updated", "orders inserted", "new_order rows inserted", "order lines inserted"}
	if found == 0 {
		what = [...]string{"orders inserted", "new_order rows inserted", "order lines inserted", ""}
	}
	if len(n) != len(want) {
		return driver.Checkf("tpcc: new-order: %d statements answered in a batch of %d", len(n), len(want))
	}
	for k := range want {
		if n[k] != want[k] {
			return driver.Checkf("tpcc: new-order: %d %s, expected %d", n[k], what[k], want[k])
		}
	}
	return nil
}

// Payment.

func (cl *Client) paymentBatch(ctx context.Context, b driver.Batcher) error {
	st, my := &cl.pay, &cl.my
	in := st.in
	w, d, amount := int64(in.WID), int64(in.DID), in.AmountCents
	t := my.text.reset()
	t.s("UPDATE warehouse SET w_ytd = w_ytd + ").cents(amount).s(" WHERE w_id = ").i(w)
	t.s("; UPDATE district SET d_ytd = d_ytd + ").cents(amount).s(" WHERE d_w_id = ").i(w).s(" AND d_id = ").i(d)
	cID := int32(in.CID)
	if in.ByName {
		// the customers of that name, then the one in the middle (clause 2.5.2.2)
		var err error
		if cID, err = t.s("; ").byNameBatch(ctx, b, int64(in.CWID), int64(in.CDID), in.CLast, &st.ids); err != nil {
			return err
		}
	} else {
		t.s("; ")
	}
	t.s("UPDATE customer SET c_balance = c_balance - ").cents(amount).s(", c_ytd_payment = c_ytd_payment + ").cents(amount).
		s(", c_payment_cnt = c_payment_cnt + 1, c_data = CASE WHEN c_credit = 'BC' THEN LEFT(CONCAT(c_id, ' ', c_d_id, ' ', c_w_id, ' ', ").
		i(d).s(", ' ', ").i(w).s(", ' ', ").cents(amount).s(", ' ', c_data), 500) ELSE c_data END WHERE c_w_id = ").n(in.CWID).
		s(" AND c_d_id = ").n(in.CDID).s(" AND c_id = ").i(int64(cID))
	t.s("; INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) SELECT ").i(int64(cID)).s(", ").
		n(in.CDID).s(", ").n(in.CWID).s(", ").i(d).s(", ").i(w).s(", ").time(in.Date).s(", ").cents(amount).
		s(", CONCAT(w_name, '    ', d_name) FROM warehouse, district WHERE w_id = ").i(w).s(" AND d_w_id = ").i(w).s(" AND d_id = ").i(d)
	t.s("; SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip,\n\td_name, d_street_1, d_street_2, d_city, d_state, d_zip,\n\tc_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit,\n\tCAST(c_credit_lim * 100 AS SIGNED), CAST(c_discount * 10000 AS SIGNED), CAST(c_balance * 100 AS SIGNED),\n\tCASE WHEN c_credit = 'BC' THEN LEFT(c_data, 200) ELSE '' END\nFROM warehouse, district, customer WHERE w_id = ").
		i(w).s(" AND d_w_id = ").i(w).s(" AND d_id = ").i(d).s(" AND c_w_id = ").n(in.CWID).s(" AND c_d_id = ").n(in.CDID).s(" AND c_id = ").i(int64(cID))
	// COMMIT is not in the batch: the read must find the three rows first (else the updates and
	// the history row it would commit belong to no complete Payment).
	rows, err := b.QueryBatch(ctx, t.String(), false)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return errNotFound
	}
	if err := rows.Scan(cl.payDest()...); err != nil {
		return err
	}
	st.c.id = cID
	return readSets(rows)
}

// byNameBatch ends the batch in t with the query of the customers of (w, d) named last, sorted by
// c_first, sends it, and returns the one at position ceil(n/2) (scanByName); t is reset for the
// next batch.
func (t *sqlText) byNameBatch(ctx context.Context, b driver.Batcher, w, d int64, last string, ids *[]int32) (int32, error) {
	t.s("SELECT c_id FROM customer WHERE c_w_id = ").i(w).s(" AND c_d_id = ").i(d).s(" AND c_last = ")
	if _, err := t.lastName(last); err != nil {
		return 0, err
	}
	t.s(" ORDER BY c_first")
	rows, err := b.QueryBatch(ctx, t.String(), false)
	if err != nil {
		return 0, err
	}
	id, err := scanByName(rows, ids)
	t.reset()
	return id, err
}

// scanByName reads the ids of a by-name query's rows (sorted by c_first) and returns the one at
// position ceil(n/2), as customerByName does; it reads the batch to its end.
func scanByName(rows driver.BatchRows, ids *[]int32) (int32, error) {
	defer rows.Close()
	id, err := readByName(rows, ids) // payment.go
	if err != nil && !errors.Is(err, errNotFound) {
		return 0, err
	}
	if err := readSets(rows); err != nil {
		return 0, err
	}
	return id, err
}

// Order-Status.

func (cl *Client) orderStatusBatch(ctx context.Context, b driver.Batcher) error {
	st, my := &cl.os, &cl.my
	in := st.in
	w, d := int64(in.WID), int64(in.DID)
	t := my.text.reset()
	cID := int32(in.CID)
	if in.ByName {
		var err error
		if cID, err = t.byNameBatch(ctx, b, w, d, in.CLast, &st.ids); err != nil {
			return err
		}
	}
	st.cID = cID
	c := int64(cID)
	t.s(`SELECT CAST(c.c_balance * 100 AS SIGNED), c.c_first, c.c_middle, c.c_last,
	o.o_id, o.o_entry_d, o.o_carrier_id,
	ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity, CAST(ol.ol_amount * 100 AS SIGNED), ol.ol_delivery_d
FROM customer c
LEFT JOIN orders o ON o.o_w_id = c.c_w_id AND o.o_d_id = c.c_d_id
	AND o.o_id = (SELECT MAX(o_id) FROM orders WHERE o_w_id = `).i(w).s(" AND o_d_id = ").i(d).s(" AND o_c_id = ").i(c).s(`)
LEFT JOIN order_line ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id
WHERE c.c_w_id = `).i(w).s(" AND c.c_d_id = ").i(d).s(" AND c.c_id = ").i(c).s(" ORDER BY ol.ol_number")
	// read-only: COMMIT goes with the read
	rows, err := b.QueryBatch(ctx, t.String(), true)
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := my.scanOrderStatusRows(rows, st); err != nil {
		return err
	}
	return readSets(rows)
}

// Delivery.

// deliveryPairs writes " IN ((d, o), ...)" of the first n districts of my.delD, my.delO.
func (t *sqlText) deliveryPairs(my *mysqlState, n int) *sqlText {
	t.s(" IN (")
	for k := 0; k < n; k++ {
		if k > 0 {
			t.s(", ")
		}
		t.s("(").i(my.delD[k]).s(", ").i(my.delO[k]).s(")")
	}
	return t.s(")")
}

// deliveryBatch is the Delivery of sql_mysql.go's delivery (see there for the locking) in four
// round trips: the oldest orders with BEGIN, the locking read, the writes, and COMMIT once their
// affected rows are checked.
func (cl *Client) deliveryBatch(ctx context.Context, c driver.Conn, b driver.Batcher) error {
	st, my := &cl.del, &cl.my
	w := int64(st.w)
	t := my.text.reset()
	t.s("SELECT no_d_id, MIN(no_o_id) FROM new_order WHERE no_w_id = ").i(w).s(" GROUP BY no_d_id ORDER BY no_d_id")
	rows, err := b.QueryBatch(ctx, t.String(), false)
	if err != nil {
		return err
	}
	n, err := scanPairRows(rows, &my.delD, &my.delO)
	if err == nil {
		err = readSets(rows)
	}
	if err != nil {
		return err
	}
	if n == 0 {
		st.res.Skipped = DistrictsPerWarehouse // clause 2.7.4.2: skipped districts
		return nil
	}
	t.reset().s("SELECT no_d_id, no_o_id FROM new_order WHERE no_w_id = ").i(w).s(" AND (no_d_id, no_o_id)").deliveryPairs(my, n).
		s(" ORDER BY no_d_id, no_o_id FOR UPDATE")
	var lockD, lockO [DistrictsPerWarehouse]int64
	lrows, err := c.Query(ctx, t.String())
	if err != nil {
		return err
	}
	locked, err := scanPairRows(lrows, &lockD, &lockO)
	lrows.Close()
	if err != nil {
		return err
	}
	if n, err = cl.deliveryRelock(ctx, c, n, locked, &lockD, &lockO); err != nil || n == 0 {
		return err
	}
	if err := cl.deliveryRecord(n); err != nil {
		return err
	}
	t.reset().s("DELETE FROM new_order WHERE no_w_id = ").i(w).s(" AND (no_d_id, no_o_id)").deliveryPairs(my, n)
	t.s("; UPDATE orders SET o_carrier_id = ").n(st.in.CarrierID).s(" WHERE o_w_id = ").i(w).s(" AND (o_d_id, o_id)").deliveryPairs(my, n)
	t.s("; UPDATE order_line SET ol_delivery_d = ").time(st.now).s(" WHERE ol_w_id = ").i(w).s(" AND (ol_d_id, ol_o_id)").deliveryPairs(my, n)
	t.s(`; UPDATE customer JOIN (
	SELECT o_d_id AS d, o_c_id AS c, SUM(ol_amount) AS amount
	FROM orders JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
	WHERE o_w_id = `).i(w).s(" AND (o_d_id, o_id)").deliveryPairs(my, n).s(`
	GROUP BY o_d_id, o_c_id) s ON c_w_id = `).i(w).s(` AND c_d_id = s.d AND c_id = s.c
SET c_balance = c_balance + s.amount, c_delivery_cnt = c_delivery_cnt + 1`)
	// COMMIT is not in the batch: the rows each write affected are checked first (a damaged
	// database rolls back, as one statement at a time does)
	got, err := b.ExecBatch(ctx, t.String(), false, my.affected[:0])
	my.affected = got
	if err != nil {
		return err
	}
	if len(got) != 4 {
		return driver.Checkf("tpcc: delivery of warehouse %d: %d statements answered in a batch of 4", st.w, len(got))
	}
	for k, what := range [...]string{"deleted new_order", "updated orders", "", "updated customer"} {
		if what != "" && int(got[k]) != n {
			return driver.Checkf("tpcc: delivery of warehouse %d: %s %d rows for %d districts (a concurrent Delivery, or orders, lines or customers missing)", st.w, what, got[k], n)
		}
	}
	return nil
}

// Stock-Level.

func (cl *Client) stockLevelBatch(ctx context.Context, b driver.Batcher) error {
	st := &cl.sl
	w, d := int64(st.w), int64(st.d)
	t := cl.my.text.reset()
	t.s(`SELECT COUNT(DISTINCT s_i_id)
FROM district
JOIN order_line ON ol_w_id = `).i(w).s(" AND ol_d_id = ").i(d).s(` AND ol_o_id < d_next_o_id AND ol_o_id >= d_next_o_id - 20
JOIN stock ON s_w_id = `).i(w).s(` AND s_i_id = ol_i_id
WHERE d_w_id = `).i(w).s(" AND d_id = ").i(d).s(" AND s_quantity < ").n(st.in.Threshold)
	rows, err := b.QueryBatch(ctx, t.String(), true)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return driver.Checkf("tpcc: stock-level: no count")
	}
	if err := rows.Scan(&st.count); err != nil {
		return err
	}
	return readSets(rows)
}
