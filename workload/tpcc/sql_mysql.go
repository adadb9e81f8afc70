package tpcc

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/candor-bench/candor/driver"
)

// MySQL and MariaDB statements: plain transactions with SELECT ... FOR UPDATE and `?` parameters,
// in the SQL that MySQL 8, MariaDB 10.x, TiDB and Dolt share (no RETURNING, no UPDATE ... FROM, no
// engine-specific syntax). Money crosses the wire as int64 cents and rates as int64
// ten-thousandths: the SQL converts from and to DECIMAL with ? * 0.01 and CAST(x * 100 AS SIGNED),
// which is exact. Every statement text is fixed (lists padded to their maximum, or one text per
// count, built once), so the client formats no SQL per transaction and each text is prepared once
// per connection.
//
// These are the statements sent without batches (the default; always on Dolt, which has none). The
// statements that do not depend on each other's answers are queued in one pipeline (driver.Pipe):
// on candor's MySQL wire they go in one write and one round trip, prepared, with their parameters;
// on a connection without pipelines (CANDOR_MYSQL_PREPARED=go-sql-driver, TLS, pipelines=off in the
// URL) each goes in a round trip of its own (driver.SeqPipe). Round trips, COMMIT included,
// pipelined and one by one: New-Order 3 and 8, Payment 2 (3 by last name) and 6 (7), Order-Status
// 1 (2) and 3 (4: its START TRANSACTION READ ONLY, which a pipeline carries in front), Delivery 4
// and 7 for all ten districts, Stock-Level 1 and 3 (read-only too; 4 on Dolt: stockLevelDolt). A
// read-write transaction sends no BEGIN: driver/mysql turns the session's autocommit off once, and
// the transaction's first statement starts it. A read-write transaction's COMMIT is never
// pipelined: the server goes on after a failed statement, and candor rolls back what ran. The
// read-only ones (Order-Status, Stock-Level) carry their COMMIT behind their last pipeline
// (carryCommit): committing a read-only transaction changes nothing, whichever statement failed.
// With batches=on in the URL, MySQL, MariaDB and TiDB send them in batches (sql_mysql_batch.go):
// 2, 2 (3), 1 (2), 4 and 1.

type mysqlTxOps struct{}

var _ txOps = mysqlTxOps{}

// mysqlState is the reusable scan state of the MySQL statements.
type mysqlState struct {
	noHeader, payDest, osDest []any
	w, i, qty, price          int64
	// Order-Status: the customer's latest order and one of its lines; null when there is none.
	oID, carrier, olItem, olSupply, olQty, olAmount sql.NullInt64
	entryD, deliveryD                               sql.NullTime
	// Delivery: the oldest undelivered order per district.
	delD, delO [DistrictsPerWarehouse]int64
	// New-Order: the text of its stock update (appendNOStockUpdate), reused.
	stmt []byte
	// Batches (sql_mysql_batch.go): the text, the rows each statement affected and those expected.
	text           sqlText
	affected, want []int64
}

// mysqlPairs is "(?, ?), (?, ?), ..." with n pairs.
func mysqlPairs(n int) string {
	return strings.TrimSuffix(strings.Repeat("(?, ?), ", n), ", ")
}

// New-Order, clause 2.4.2.2.
const (
	// ? w_id, ? d_id: D_NEXT_O_ID incremented under the district's row lock (taken first, so that
	// concurrent New-Orders of a district queue here).
	mysqlNODistrict = `UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?`
	// The order id (the district's D_NEXT_O_ID before the increment), D_TAX, W_TAX, and the
	// customer's C_DISCOUNT, C_LAST, C_CREDIT; ? d_w_id, d_id, w_id, c_w_id, c_d_id, c_id.
	mysqlNOHeader = `SELECT d_next_o_id - 1, CAST(d_tax * 10000 AS SIGNED), CAST(w_tax * 10000 AS SIGNED),
	CAST(c_discount * 10000 AS SIGNED), c_last, c_credit
FROM district, warehouse, customer
WHERE d_w_id = ? AND d_id = ? AND w_id = ? AND c_w_id = ? AND c_d_id = ? AND c_id = ?`
	// ? o_id, d_id, w_id, c_id, entry_d, ol_cnt, all_local
	mysqlNOOrder = `INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
VALUES (?, ?, ?, ?, ?, NULL, ?, ?)`
	// ? o_id, d_id, w_id
	mysqlNONewOrder = `INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)`
)

// mysqlNOStock reads and locks the stock rows of an order with their items: ? d_id (which
// S_DIST_xx), then MaxLines (s_w_id, s_i_id) pairs, the distinct ones padded by repeating the last.
// The rows are locked in key order (a range scan of the primary key over the sorted pairs), so
// concurrent New-Orders cannot deadlock on stock. The item is read by scalar subqueries, which
// FOR UPDATE does not lock: a join would lock the item rows too and make every New-Order of every
// warehouse queue for the popular items. An unused item has no stock row, so no row comes back.
var mysqlNOStock = func() string {
	var dist strings.Builder
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		fmt.Fprintf(&dist, " WHEN %d THEN s_dist_%s", d, twoDigits(d))
	}
	return `SELECT s_w_id, s_i_id, s_quantity, CASE ?` + dist.String() + ` END,
	(SELECT CAST(i_price * 100 AS SIGNED) FROM item WHERE i_id = s_i_id),
	(SELECT i_name FROM item WHERE i_id = s_i_id),
	(SELECT i_data LIKE '%ORIGINAL%' FROM item WHERE i_id = s_i_id) AND s_data LIKE '%ORIGINAL%'
FROM stock WHERE (s_w_id, s_i_id) IN (` + mysqlPairs(MaxLines) + `)
ORDER BY s_w_id, s_i_id FOR UPDATE`
}()

// appendNOStockUpdate writes the statement that updates the found stock rows of an order, each
// once, with the values computed in Go (S_QUANTITY after the stock rule; the S_YTD, S_ORDER_CNT,
// S_REMOTE_CNT increments), one statement for all of them: each column set by a CASE over the rows'
// keys, the rows chosen by their keys (a range scan of the primary key). It returns the statement
// and the number of rows it must update.
//
// The values are integer literals computed by candor, not parameters, and each CASE's first value
// is cast to SIGNED; there is no derived table. An earlier form joined stock with a UNION ALL of
// bound parameters, which broke on Dolt's engine: a derived table is typed by its first row, Dolt
// 2.3.1 bound the later rows' parameters wrongly (a row (1, 230) read back as (127, 230), so 8 of 10
// stock rows were left unchanged and every New-Order failed with "updated 2 stock rows, expected
// 10"), and go-mysql-server v0.20.0 clamped even literals to the TINYINT of a first row's 1. This
// form means the same on MySQL, MariaDB, TiDB and Dolt. Its text differs from order to order, so it
// goes as a plain query (no statement to prepare and cache): one round trip, as before. f is the
// form's SQL: mysqlStockForm, or Doltgres's (sql_doltgres.go).
func appendNOStockUpdate(b []byte, st *newOrderState, f *stockUpdateForm) ([]byte, int) {
	b = append(b, "UPDATE stock SET "...)
	for j, col := range mysqlNOStockSet {
		if j > 0 {
			b = append(b, ", "...)
		}
		b = append(b, col...)
		b = append(b, "CASE"...)
		first := true
		for k := 0; k < st.nRows; k++ {
			r := &st.rows[k]
			if !r.found {
				continue
			}
			b = append(b, " WHEN s_w_id = "...)
			b = strconv.AppendInt(b, int64(r.w), 10)
			b = append(b, " AND s_i_id = "...)
			b = strconv.AppendInt(b, int64(r.i), 10)
			b = append(b, " THEN "...)
			v := [...]int32{r.qty, r.ytd, r.orderCnt, r.remoteCnt}[j]
			if first {
				b = append(b, "CAST("...)
				b = strconv.AppendInt(b, int64(v), 10)
				b = append(b, f.cast...)
				first = false
			} else {
				b = strconv.AppendInt(b, int64(v), 10)
			}
		}
		b = append(b, " END"...)
	}
	b = append(b, f.where...)
	n := 0
	for k := 0; k < st.nRows; k++ {
		r := &st.rows[k]
		if !r.found {
			continue
		}
		if n > 0 {
			b = append(b, f.sep...)
		}
		b = append(b, f.open...)
		b = strconv.AppendInt(b, int64(r.w), 10)
		b = append(b, f.mid...)
		b = strconv.AppendInt(b, int64(r.i), 10)
		b = append(b, ')')
		n++
	}
	b = append(b, f.end...)
	return b, n
}

// stockUpdateForm is the SQL of appendNOStockUpdate's statement: cast closes the CAST of each
// column's first value, where opens the rows' condition, each row is open w mid i ')' after sep, and
// end closes the condition.
type stockUpdateForm struct{ cast, where, sep, open, mid, end string }

// mysqlStockForm: the rows as a list of row values, (s_w_id, s_i_id) IN ((1, 2), (1, 7)).
var mysqlStockForm = &stockUpdateForm{cast: " AS SIGNED)", where: " WHERE (s_w_id, s_i_id) IN (", sep: ", ", open: "(", mid: ", ", end: ")"}

// mysqlNOStockSet are the columns appendNOStockUpdate sets, each followed by its CASE.
var mysqlNOStockSet = [...]string{"s_quantity = ", "s_ytd = s_ytd + ", "s_order_cnt = s_order_cnt + ", "s_remote_cnt = s_remote_cnt + "}

// mysqlNOLines[n-1] inserts n order lines: ? o_id, d_id, w_id, number, i_id, supply_w_id,
// quantity, amount (cents), dist_info per line (OL_DELIVERY_D null).
var mysqlNOLines = func() (s [MaxLines]string) {
	for n := 1; n <= MaxLines; n++ {
		s[n-1] = `INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
	ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES ` +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, NULL, ?, ? * 0.01, ?), ", n), ", ")
	}
	return s
}()

func (mysqlTxOps) newOrderRead(ctx context.Context, c driver.Conn, cl *Client) error {
	if b, ok := cl.batcher(c); ok {
		return cl.newOrderReadBatch(ctx, b)
	}
	st, my := &cl.no, &cl.my
	in := st.in
	// one pipeline: the district's increment, the header read after it, the stock rows locked
	p := cl.pipe(c)
	defer p.Close()
	p.Exec(mysqlNODistrict, cl.argList(in.WID, in.DID)...)
	p.Query(mysqlNOHeader, cl.argList(in.WID, in.DID, in.WID, in.WID, in.DID, in.CID)...)
	args := append(cl.args[:0], in.DID)
	for k := 0; k < MaxLines; k++ {
		r := &st.rows[min(k, st.nRows-1)]
		args = append(args, r.w, r.i)
	}
	cl.args = args
	p.Query(mysqlNOStock, args...)
	if err := p.Send(ctx); err != nil {
		return err
	}
	if n, err := p.Affected(); err != nil {
		return err
	} else if n != 1 {
		return errNotFound
	}
	if my.noHeader == nil {
		my.noHeader = []any{&st.oID, &st.dTax, &st.wTax, &st.cDiscount, &st.cLast, &st.cCredit}
	}
	if err := oneRow(p, my.noHeader...); err != nil {
		return notFound(err)
	}
	rows, err := p.Rows()
	if err != nil {
		return err
	}
	if err := my.scanStock(rows, st); err != nil {
		return err
	}
	return p.Close()
}

// pipeByName reads the customers of a by-name query, the pipeline's next answer, into ids, ends
// the pipeline and returns the one in the middle (readByName).
func pipeByName(p driver.Pipe, ids *[]int32) (int32, error) {
	rows, err := p.Rows()
	if err != nil {
		return 0, err
	}
	id, err := readByName(rows, ids)
	if err != nil {
		return 0, err
	}
	return id, p.Close()
}

// oneRow scans the first row of the pipeline's next answer into dest (driver.ErrNoRows when it
// has none), as QueryRow does.
func oneRow(p driver.Pipe, dest ...any) error {
	rows, err := p.Rows()
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return driver.ErrNoRows
	}
	return rows.Scan(dest...)
}

// scanStock reads New-Order's stock rows (mysqlNOStock's columns, or its batch's) into the
// order's rows, setting found on each.
func (my *mysqlState) scanStock(rows driver.Rows, st *newOrderState) error {
	for rows.Next() {
		var dist, name string
		var original bool
		if err := rows.Scan(&my.w, &my.i, &my.qty, &dist, &my.price, &name, &original); err != nil {
			return err
		}
		k := st.find(int32(my.w), int32(my.i))
		if k < 0 {
			return driver.Checkf("tpcc: new-order: unexpected stock row (%d, %d)", my.w, my.i)
		}
		r := &st.rows[k]
		r.qty, r.dist, r.price, r.name, r.original, r.found = int32(my.qty), dist, my.price, name, original, true
	}
	return rows.Err()
}

func (mysqlTxOps) newOrderWrite(ctx context.Context, c driver.Conn, cl *Client) error {
	if b, ok := cl.batcher(c); ok {
		return cl.newOrderWriteBatch(ctx, b)
	}
	st := &cl.no
	in := st.in
	// one pipeline: the stock update, the order, its new_order row and its lines
	p := cl.pipe(c)
	defer p.Close()
	var found int
	cl.my.stmt, found = appendNOStockUpdate(cl.my.stmt[:0], st, mysqlStockForm)
	if found > 0 {
		// the text lives in cl.my.stmt until the pipeline is read: a pipeline sends it at once,
		// driver.SeqPipe when its answer is read, before the next New-Order builds its own
		p.Exec(unsafe.String(unsafe.SliceData(cl.my.stmt), len(cl.my.stmt)))
	}
	allLocal := 0
	if in.AllLocal() {
		allLocal = 1
	}
	p.Exec(mysqlNOOrder, cl.argList(st.oID, in.DID, in.WID, in.CID, in.EntryD, in.OLCnt, allLocal)...)
	p.Exec(mysqlNONewOrder, cl.argList(st.oID, in.DID, in.WID)...)
	lines := cl.orderLineArgs()
	if lines > 0 {
		p.Exec(mysqlNOLines[lines-1], cl.args...)
	}
	if err := p.Send(ctx); err != nil {
		return err
	}
	if found > 0 {
		if n, err := p.Affected(); err != nil {
			return err
		} else if int(n) != found {
			return driver.Checkf("tpcc: new-order updated %d stock rows, expected %d", n, found)
		}
	}
	for range 2 {
		if _, err := p.Affected(); err != nil {
			return err
		}
	}
	if lines > 0 {
		if n, err := p.Affected(); err != nil {
			return err
		} else if int(n) != lines {
			return driver.Checkf("tpcc: new-order inserted %d order lines, expected %d", n, lines)
		}
	}
	return p.Close()
}

// orderLineArgs puts the parameters of a New-Order's order lines in cl.args, nine a line (o_id,
// d_id, w_id, number, i_id, supply_w_id, quantity, amount in cents, dist_info; the unused item's
// left out), and returns the number of lines.
func (cl *Client) orderLineArgs() int {
	st := &cl.no
	in := st.in
	args := cl.args[:0]
	lines := 0
	for l := 0; l < in.OLCnt; l++ {
		if l == st.missing {
			continue
		}
		line := &in.Lines[l]
		args = append(args, st.oID, in.DID, in.WID, l+1, line.ItemID, line.SupplyWID, line.Quantity,
			st.amount[l], st.rows[st.lineRow[l]].dist)
		lines++
	}
	cl.args = args
	return lines
}

// Payment, clause 2.5.2.2: the rows are locked in the order warehouse, district, customer.
const (
	// ? amount (cents), w_id
	mysqlPayWarehouse = `UPDATE warehouse SET w_ytd = w_ytd + ? * 0.01 WHERE w_id = ?`
	// ? amount, w_id, d_id
	mysqlPayDistrict = `UPDATE district SET d_ytd = d_ytd + ? * 0.01 WHERE d_w_id = ? AND d_id = ?`
	// ? c_w_id, c_d_id, c_last: the matching customers sorted by c_first (clause 2.5.2.2).
	mysqlByName = `SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first`
	// ? amount, amount, d_id, w_id, amount, c_w_id, c_d_id, c_id. For bad credit, "C_ID C_D_ID C_W_ID
	// D_ID W_ID H_AMOUNT " goes in front of C_DATA, cut to 500 characters.
	mysqlPayCustomer = `UPDATE customer SET c_balance = c_balance - ? * 0.01, c_ytd_payment = c_ytd_payment + ? * 0.01,
	c_payment_cnt = c_payment_cnt + 1,
	c_data = CASE WHEN c_credit = 'BC' THEN LEFT(CONCAT(c_id, ' ', c_d_id, ' ', c_w_id, ' ', ?, ' ', ?, ' ', ? * 0.01, ' ', c_data), 500)
		ELSE c_data END
WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?`
	// What Payment shows, read after the updates; ? w_id, w_id, d_id, c_w_id, c_d_id, c_id.
	mysqlPayRead = `SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip,
	d_name, d_street_1, d_street_2, d_city, d_state, d_zip,
	c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit,
	CAST(c_credit_lim * 100 AS SIGNED), CAST(c_discount * 10000 AS SIGNED), CAST(c_balance * 100 AS SIGNED),
	CASE WHEN c_credit = 'BC' THEN LEFT(c_data, 200) ELSE '' END
FROM warehouse, district, customer
WHERE w_id = ? AND d_w_id = ? AND d_id = ? AND c_w_id = ? AND c_d_id = ? AND c_id = ?`
	// ? c_id, c_d_id, c_w_id, d_id, w_id, date, amount, then w_id, w_id, d_id: H_DATA is W_NAME and
	// D_NAME read in the same statement (so it does not wait for the read).
	mysqlPayHistory = `INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
SELECT ?, ?, ?, ?, ?, ?, ? * 0.01, CONCAT(w_name, '    ', d_name) FROM warehouse, district
WHERE w_id = ? AND d_w_id = ? AND d_id = ?`
)

func (mysqlTxOps) payment(ctx context.Context, c driver.Conn, cl *Client) error {
	if b, ok := cl.batcher(c); ok {
		return cl.paymentBatch(ctx, b)
	}
	st := &cl.pay
	in := st.in
	// one pipeline, or two by last name: the warehouse's and district's updates (and the customers of
	// that name), then the customer's update, the history row and the read
	p := cl.pipe(c)
	defer func() { p.Close() }()
	p.Exec(mysqlPayWarehouse, cl.argList(in.AmountCents, in.WID)...)
	p.Exec(mysqlPayDistrict, cl.argList(in.AmountCents, in.WID, in.DID)...)
	// one returns the rows the next answer affected: errNotFound unless one
	one := func() error {
		if n, err := p.Affected(); err != nil {
			return err
		} else if n != 1 {
			return errNotFound
		}
		return nil
	}
	cID := int32(in.CID)
	if in.ByName {
		p.Query(mysqlByName, cl.argList(in.CWID, in.CDID, in.CLast)...)
		if err := p.Send(ctx); err != nil {
			return err
		}
		for range 2 {
			if err := one(); err != nil {
				return err
			}
		}
		var err error
		if cID, err = pipeByName(p, &st.ids); err != nil {
			return err
		}
		p = cl.pipe(c)
	}
	p.Exec(mysqlPayCustomer, cl.argList(in.AmountCents, in.AmountCents, in.DID, in.WID, in.AmountCents,
		in.CWID, in.CDID, cID)...)
	p.Exec(mysqlPayHistory, cl.argList(cID, in.CDID, in.CWID, in.DID, in.WID, in.Date, in.AmountCents, in.WID, in.WID, in.DID)...)
	p.Query(mysqlPayRead, cl.argList(in.WID, in.WID, in.DID, in.CWID, in.CDID, cID)...)
	if err := p.Send(ctx); err != nil {
		return err
	}
	steps := 2
	if !in.ByName {
		steps = 4 // the warehouse's and district's updates came in this pipeline
	}
	for range steps {
		if err := one(); err != nil {
			return err
		}
	}
	if err := oneRow(p, cl.payDest()...); err != nil {
		return notFound(err)
	}
	st.c.id = cID
	return p.Close()
}

// Order-Status, clause 2.6.2.2, in one statement: the customer, their latest order (the highest
// o_id, through the orders (o_w_id, o_d_id, o_c_id, o_id) index) and its lines, one row per line
// (one row with null order and line columns for a customer without orders). ? w_id, d_id, c_id,
// w_id, d_id, c_id.
const mysqlOrderStatus = `SELECT CAST(c.c_balance * 100 AS SIGNED), c.c_first, c.c_middle, c.c_last,
	o.o_id, o.o_entry_d, o.o_carrier_id,
	ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity, CAST(ol.ol_amount * 100 AS SIGNED), ol.ol_delivery_d
FROM customer c
LEFT JOIN orders o ON o.o_w_id = c.c_w_id AND o.o_d_id = c.c_d_id
	AND o.o_id = (SELECT MAX(o_id) FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ?)
LEFT JOIN order_line ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id
WHERE c.c_w_id = ? AND c.c_d_id = ? AND c.c_id = ?
ORDER BY ol.ol_number`

// mysqlOrderStatusDolt is mysqlOrderStatus for Dolt's planner, with the same parameters and
// columns: the latest order is a derived table (ORDER BY o_id DESC LIMIT 1 over the customer's
// index), which Dolt 2.3.1 reads by the index, where it runs mysqlOrderStatus's join condition
// with MAX(o_id) against a full scan of orders (EXPLAIN PLAN: "Table orders"), which grows with
// the run. MySQL and MariaDB plan both forms by the indexes.
const mysqlOrderStatusDolt = `SELECT CAST(c.c_balance * 100 AS SIGNED), c.c_first, c.c_middle, c.c_last,
	o.o_id, o.o_entry_d, o.o_carrier_id,
	ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity, CAST(ol.ol_amount * 100 AS SIGNED), ol.ol_delivery_d
FROM customer c
LEFT JOIN (SELECT o_w_id, o_d_id, o_id, o_entry_d, o_carrier_id FROM orders
	WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1) o ON TRUE
LEFT JOIN order_line ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id
WHERE c.c_w_id = ? AND c.c_d_id = ? AND c.c_id = ?
ORDER BY ol.ol_number`

func (mysqlTxOps) orderStatus(ctx context.Context, c driver.Conn, cl *Client) error {
	if b, ok := cl.batcher(c); ok {
		return cl.orderStatusBatch(ctx, b)
	}
	st, my := &cl.os, &cl.my
	in := st.in
	cID := int32(in.CID)
	// pipelines of one statement: the first carries the transaction's START TRANSACTION READ ONLY
	p := cl.pipe(c)
	defer func() { p.Close() }()
	if in.ByName {
		p.Query(mysqlByName, cl.argList(in.WID, in.DID, in.CLast)...)
		if err := p.Send(ctx); err != nil {
			return err
		}
		var err error
		if cID, err = pipeByName(p, &st.ids); err != nil {
			return err
		}
		p = cl.pipe(c)
	}
	st.cID = cID
	carryCommit(c) // read-only: COMMIT goes behind the last pipeline
	q := mysqlOrderStatus
	if cl.doltPlans {
		q = mysqlOrderStatusDolt
	}
	p.Query(q, cl.argList(in.WID, in.DID, cID, in.WID, in.DID, cID)...)
	if err := p.Send(ctx); err != nil {
		return err
	}
	rows, err := p.Rows()
	if err != nil {
		return err
	}
	if err := my.scanOrderStatusRows(rows, st); err != nil {
		return err
	}
	return p.Close()
}

// Delivery, clause 2.7.4.2, all ten districts in one transaction of set-based statements. The
// oldest undelivered order of each district is read first (a plain read, one index dive per
// district: a locking read with GROUP BY would lock every new_order row of the warehouse), then
// those new_order rows are read again, locking them (a locking read sees the latest committed
// rows). A district whose row is gone was delivered meanwhile by a concurrent Delivery of the same
// warehouse (candor runs one at a time per warehouse, but the transaction must stay correct): its
// now oldest order is found and locked by a locking read of that district alone, or the district is
// skipped if it has none. The locked orders are then delivered. The pair lists hold
// DistrictsPerWarehouse (d_id, o_id) pairs, the districts delivered padded by repeating the last
// one, so each statement has one text.
const (
	// ? w_id
	mysqlDelOldest = `SELECT no_d_id, MIN(no_o_id) FROM new_order WHERE no_w_id = ? GROUP BY no_d_id ORDER BY no_d_id`
	// ? w_id, d_id
	mysqlDelOldestLocked = `SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1 FOR UPDATE`
)

var (
	// ? w_id, pairs
	mysqlDelLock = `SELECT no_d_id, no_o_id FROM new_order WHERE no_w_id = ? AND (no_d_id, no_o_id) IN (` + mysqlPairs(DistrictsPerWarehouse) + `)
ORDER BY no_d_id, no_o_id FOR UPDATE`
	// ? w_id, pairs
	mysqlDelNewOrder = `DELETE FROM new_order WHERE no_w_id = ? AND (no_d_id, no_o_id) IN (` + mysqlPairs(DistrictsPerWarehouse) + `)`
	// ? carrier, w_id, pairs
	mysqlDelOrders = `UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND (o_d_id, o_id) IN (` + mysqlPairs(DistrictsPerWarehouse) + `)`
	// ? delivery date, w_id, pairs
	mysqlDelLines = `UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND (ol_d_id, ol_o_id) IN (` + mysqlPairs(DistrictsPerWarehouse) + `)`
	// ? w_id, pairs, w_id: each order's customer gets the sum of its lines' amounts.
	mysqlDelCustomers = `UPDATE customer JOIN (
	SELECT o_d_id AS d, o_c_id AS c, SUM(ol_amount) AS amount
	FROM orders JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
	WHERE o_w_id = ? AND (o_d_id, o_id) IN (` + mysqlPairs(DistrictsPerWarehouse) + `)
	GROUP BY o_d_id, o_c_id) s ON c_w_id = ? AND c_d_id = s.d AND c_id = s.c
SET c_balance = c_balance + s.amount, c_delivery_cnt = c_delivery_cnt + 1`
)

func (mysqlTxOps) delivery(ctx context.Context, c driver.Conn, cl *Client) error {
	if b, ok := cl.batcher(c); ok {
		return cl.deliveryBatch(ctx, c, b)
	}
	st, my := &cl.del, &cl.my
	n, err := pipePairs(ctx, cl.pipe(c), mysqlDelOldest, &my.delD, &my.delO, cl.argList(st.w)...)
	if err != nil {
		return err
	}
	if n == 0 {
		st.res.Skipped = DistrictsPerWarehouse // clause 2.7.4.2: skipped districts
		return nil
	}
	// pairs appends the (d_id, o_id) pairs, padded to DistrictsPerWarehouse.
	pairs := func(args []any) []any {
		for k := 0; k < DistrictsPerWarehouse; k++ {
			j := min(k, n-1)
			args = append(args, my.delD[j], my.delO[j])
		}
		return args
	}
	cl.args = pairs(append(cl.args[:0], st.w))
	var lockD, lockO [DistrictsPerWarehouse]int64
	locked, err := pipePairs(ctx, cl.pipe(c), mysqlDelLock, &lockD, &lockO, cl.args...)
	if err != nil {
		return err
	}
	if n, err = cl.deliveryRelock(ctx, c, n, locked, &lockD, &lockO); err != nil || n == 0 {
		return err
	}
	if err := cl.deliveryRecord(n); err != nil {
		return err
	}
	// one pipeline: the new_order rows deleted, the orders, lines and customers updated
	p := cl.pipe(c)
	defer p.Close()
	p.Exec(mysqlDelNewOrder, pairs(append(cl.args[:0], st.w))...)
	p.Exec(mysqlDelOrders, pairs(append(cl.args[:0], st.in.CarrierID, st.w))...)
	p.Exec(mysqlDelLines, pairs(append(cl.args[:0], st.now, st.w))...)
	cl.args = append(pairs(append(cl.args[:0], st.w)), st.w)
	p.Exec(mysqlDelCustomers, cl.args...)
	if err := p.Send(ctx); err != nil {
		return err
	}
	for _, what := range [...]string{"deleted new_order", "updated orders", "", "updated customer"} {
		got, err := p.Affected()
		if err != nil {
			return err
		}
		if what != "" && int(got) != n {
			return driver.Checkf("tpcc: delivery of warehouse %d: %s %d rows for %d districts (a concurrent Delivery, or orders, lines or customers missing)", st.w, what, got, n)
		}
	}
	return p.Close()
}

// deliveryRelock takes the oldest orders of the n districts of my.delD, my.delO of which the
// locking read found only locked (lockD, lockO): a district whose order a concurrent Delivery took
// meanwhile gets its now oldest order, read and locked alone, or none. It returns the districts
// left to deliver, in my.delD, my.delO; with none, all are recorded as skipped.
func (cl *Client) deliveryRelock(ctx context.Context, c driver.Conn, n, locked int, lockD, lockO *[DistrictsPerWarehouse]int64) (int, error) {
	st, my := &cl.del, &cl.my
	if locked >= n {
		return n, nil
	}
	m := 0
	for k := 0; k < n; k++ {
		if m < locked && lockD[m] == my.delD[k] {
			my.delO[k] = lockO[m]
			m++
			continue
		}
		err := c.QueryRow(ctx, mysqlDelOldestLocked, cl.argList(st.w, my.delD[k])...).Scan(&my.delO[k])
		if err == driver.ErrNoRows {
			my.delO[k] = 0 // none left: skipped
		} else if err != nil {
			return 0, err
		}
	}
	kept := 0
	for k := 0; k < n; k++ {
		if my.delO[k] != 0 {
			my.delD[kept], my.delO[kept] = my.delD[k], my.delO[k]
			kept++
		}
	}
	if kept == 0 {
		st.res.Skipped = DistrictsPerWarehouse
	}
	return kept, nil
}

// deliveryRecord records the n districts delivered and the O_ID of each, for the result file.
func (cl *Client) deliveryRecord(n int) error {
	st, my := &cl.del, &cl.my
	st.res.Delivered, st.res.Skipped = n, DistrictsPerWarehouse-n // clause 2.7.4.2: skipped districts
	for k := 0; k < n; k++ {
		d := my.delD[k]
		if d < 1 || d > DistrictsPerWarehouse {
			return driver.Checkf("tpcc: delivery of warehouse %d: a new_order row of district %d", st.w, d)
		}
		st.res.OIDs[d-1] = int32(my.delO[k])
	}
	return nil
}

// pipePairs reads the (d_id, o_id) rows of a query, at most DistrictsPerWarehouse, into d and o: a
// pipeline of one statement, which carries a pending Begin's statements in front.
func pipePairs(ctx context.Context, p driver.Pipe, query string, d, o *[DistrictsPerWarehouse]int64, args ...any) (int, error) {
	defer p.Close()
	p.Query(query, args...)
	if err := p.Send(ctx); err != nil {
		return 0, err
	}
	rows, err := p.Rows()
	if err != nil {
		return 0, err
	}
	n, err := scanPairRows(rows, d, o)
	if err != nil {
		return 0, err
	}
	return n, p.Close()
}

// scanPairRows reads (d_id, o_id) rows, at most DistrictsPerWarehouse, into d and o.
func scanPairRows(rows driver.Rows, d, o *[DistrictsPerWarehouse]int64) (int, error) {
	n := 0
	for rows.Next() {
		if n == DistrictsPerWarehouse {
			return 0, driver.Checkf("tpcc: delivery: more than %d districts with new orders", DistrictsPerWarehouse)
		}
		if err := rows.Scan(&d[n], &o[n]); err != nil {
			return 0, err
		}
		n++
	}
	return n, rows.Err()
}

// Stock-Level, clause 2.8.2.2, in one statement; ? w_id, d_id, w_id, w_id, d_id, threshold.
const mysqlStockLevel = `SELECT COUNT(DISTINCT s_i_id)
FROM district
JOIN order_line ON ol_w_id = ? AND ol_d_id = ? AND ol_o_id < d_next_o_id AND ol_o_id >= d_next_o_id - 20
JOIN stock ON s_w_id = ? AND s_i_id = ol_i_id
WHERE d_w_id = ? AND d_id = ? AND s_quantity < ?`

// Stock-Level for Dolt's planner, clause 2.8.2.2 as two statements: D_NEXT_O_ID first, then the
// count over the order lines of its last 20 orders, their range bound as parameters. Dolt 2.3.1
// plans mysqlStockLevel's join as a scan of the district's every order line joined to district
// afterwards (its range on ol_o_id is not used: EXPLAIN PLAN shows the filter [NULL, inf)), about
// 30,000 rows and growing, where the two statements read 20 orders' lines by the key. One round
// trip more; Dolt gets none of the pipelines or batches that would carry it.
const (
	// ? w_id, d_id
	mysqlSLNextOrder = `SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?`
	// ? w_id, w_id, d_id, d_next_o_id, d_next_o_id - 20, threshold
	mysqlSLCount = `SELECT COUNT(DISTINCT s_i_id)
FROM order_line JOIN stock ON s_w_id = ? AND s_i_id = ol_i_id
WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_quantity < ?`
)

func (mysqlTxOps) stockLevel(ctx context.Context, c driver.Conn, cl *Client) error {
	if b, ok := cl.batcher(c); ok {
		return cl.stockLevelBatch(ctx, b)
	}
	st := &cl.sl
	if cl.doltPlans {
		return cl.stockLevelDolt(ctx, c)
	}
	// a pipeline of one statement: it carries the transaction's START TRANSACTION READ ONLY in
	// front and, read-only, its COMMIT behind
	p := cl.pipe(c)
	defer p.Close()
	carryCommit(c)
	p.Query(mysqlStockLevel, cl.argList(st.w, st.d, st.w, st.w, st.d, st.in.Threshold)...)
	if err := p.Send(ctx); err != nil {
		return err
	}
	if err := oneRow(p, &st.count); err != nil {
		return err
	}
	return p.Close()
}

// stockLevelDolt is Stock-Level in two statements (mysqlSLNextOrder, mysqlSLCount), in one
// read-only transaction: the first carries its START TRANSACTION READ ONLY, the second its COMMIT.
func (cl *Client) stockLevelDolt(ctx context.Context, c driver.Conn) error {
	st := &cl.sl
	p := cl.pipe(c)
	defer func() { p.Close() }()
	p.Query(mysqlSLNextOrder, cl.argList(st.w, st.d)...)
	if err := p.Send(ctx); err != nil {
		return err
	}
	var next int64
	if err := oneRow(p, &next); err != nil {
		return notFound(err)
	}
	if err := p.Close(); err != nil {
		return err
	}
	p = cl.pipe(c)
	carryCommit(c)
	p.Query(mysqlSLCount, cl.argList(st.w, st.w, st.d, next, next-stockLevelOrders, st.in.Threshold)...)
	if err := p.Send(ctx); err != nil {
		return err
	}
	if err := oneRow(p, &st.count); err != nil {
		return err
	}
	return p.Close()
}

// payDest is where Payment's read is scanned (built once).
func (cl *Client) payDest() []any {
	st, my := &cl.pay, &cl.my
	if my.payDest == nil {
		w, d, cu := &st.wAddr, &st.dAddr, &st.c
		my.payDest = []any{&st.wName, &w.street1, &w.street2, &w.city, &w.state, &w.zip,
			&st.dName, &d.street1, &d.street2, &d.city, &d.state, &d.zip,
			&cu.first, &cu.middle, &cu.last, &cu.addr.street1, &cu.addr.street2, &cu.addr.city, &cu.addr.state,
			&cu.addr.zip, &cu.phone, &cu.since, &cu.credit, &cu.creditLim, &cu.discount, &cu.balance, &cu.data}
	}
	return my.payDest
}

// scanOrderStatusRows is scanOrderStatus of the interactive statement's rows (one by one or in a
// batch), into my's destinations.
func (my *mysqlState) scanOrderStatusRows(rows driver.Rows, st *orderStatusState) error {
	if my.osDest == nil {
		my.osDest = []any{&st.balance, &st.first, &st.middle, &st.last, &my.oID, &my.entryD, &my.carrier,
			&my.olItem, &my.olSupply, &my.olQty, &my.olAmount, &my.deliveryD}
	}
	return my.scanOrderStatus(rows, my.osDest, st)
}

// scanOrderStatus reads Order-Status rows (interactive statement or procedure: the customer, then
// its latest order joined to each of its lines) scanned into dest, which points into my and st. No
// row at all means no such customer (errNotFound).
func (my *mysqlState) scanOrderStatus(rows driver.Rows, dest []any, st *orderStatusState) error {
	found := false
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		found = true
		if !my.oID.Valid {
			continue // a customer without orders
		}
		st.oID, st.entryD, st.carrierID = my.oID.Int64, my.entryD.Time, int32(my.carrier.Int64)
		if !my.olItem.Valid {
			continue // an order without lines (a corrupt database; check finds it)
		}
		l, err := st.addLine()
		if err != nil {
			return err
		}
		l.itemID, l.supplyWID, l.quantity = int32(my.olItem.Int64), int32(my.olSupply.Int64), int32(my.olQty.Int64)
		l.amount, l.delivered, l.deliveryD = my.olAmount.Int64, my.deliveryD.Valid, my.deliveryD.Time
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if !found {
		return errNotFound
	}
	return nil
}
