package tpcc

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/driver"
)

// The five transactions as MySQL/MariaDB stored procedures (--procedures), against the schema of
// schema_mysql.go: the client sends one CALL per transaction and reads one result set.
//
// Transactions. New-Order, Payment and Delivery begin and commit their own transaction inside the
// procedure (START TRANSACTION ... COMMIT), so that the CALL is the only round trip; the client
// sends no BEGIN or COMMIT (myProcConn). An error rolls the transaction back and is raised again to
// the client (the EXIT handler's ROLLBACK; RESIGNAL), so a deadlock or lock wait timeout reaches the
// client as such and the whole call is retried. Order-Status and Stock-Level end with one SELECT
// that reads everything they report, which in autocommit mode is its own read-only transaction: one
// consistent snapshot, whatever the isolation level. The transactions of New-Order, Payment and
// Delivery run at the level the client passes (p_iso: 1 read committed, 2 repeatable read, 3
// serializable), set by SET TRANSACTION ISOLATION LEVEL for that transaction only, so the session's
// own level never matters.
//
// The unused item of clause 2.4.2.3: New-Order does all its work, then ROLLBACK, and reports
// rolled_back = 1 with O_ID, C_LAST and C_CREDIT, which the terminal displays; no error is involved.
//
// Lines. MySQL procedures take no arrays: New-Order's lines come as one string of fixed-width
// records, sorted by (supply warehouse, item, line number) by the client, so that the stock rows are
// locked in key order (concurrent New-Orders cannot deadlock on them) and an item ordered twice from
// one warehouse is updated line after line (the stock rule of clause 2.4.2.2, applied by the UPDATE
// to the row's current quantity). The lines' results come back as one string of records.
//
// Errors raised on purpose (SIGNAL SQLSTATE '45000') carry the same message markers as on
// PostgreSQL (procNotFound and others; see proc_ops.go).

// myProcDist is S_DIST_<p_d> (clause 2.4.2.2).
var myProcDist = func() string {
	var b strings.Builder
	b.WriteString("CASE p_d")
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		fmt.Fprintf(&b, " WHEN %d THEN s_dist_%s", d, twoDigits(d))
	}
	b.WriteString(" END")
	return b.String()
}()

// myHandlers: a SELECT ... INTO that finds no row leaves its variables as they were (NULL), which
// the procedures test; any error rolls the transaction back and goes to the client.
const myHandlers = `
	DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
	DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;`

// myBegin starts the transaction at the level p_iso names.
const myBegin = `
	CASE p_iso
		WHEN 1 THEN SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
		WHEN 3 THEN SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;
		ELSE SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;
	END CASE;
	START TRANSACTION;`

// myProcNewOrder is New-Order, clause 2.4.2.2. The district row is locked first (d_next_o_id read
// and incremented), then for each line in (supply warehouse, item) order: the item (a consistent
// read: an unused item has none, and the line is skipped), the stock row updated by the stock rule
// from its current quantity (which locks it), and the order line inserted. The result: rolled_back,
// o_id, w_tax, d_tax, c_discount (ten-thousandths), c_last, c_credit, the total in cents rounded half
// up, and the lines, one record each ("ol_number s_quantity i_price ol_amount brand i_name", brand B
// when i_data and s_data both contain "ORIGINAL", else G), separated by newlines.
var myProcNewOrder = `CREATE PROCEDURE candor_new_order(IN p_iso INT, IN p_w INT, IN p_d INT, IN p_c INT,
	IN p_entry DATETIME(6), IN p_all_local INT, IN p_cnt INT, IN p_lines VARCHAR(255))
BEGIN
	DECLARE v_o, v_k, v_n, v_sw, v_i, v_q, v_sq, v_missing, v_miss_n INT DEFAULT 0;
	DECLARE v_dtax, v_wtax, v_disc, v_price, v_amount, v_sum BIGINT DEFAULT 0;
	DECLARE v_last, v_credit, v_name VARCHAR(24);
	DECLARE v_dist CHAR(24);
	DECLARE v_idata, v_sdata VARCHAR(50);
	DECLARE v_lines VARCHAR(2000) DEFAULT '';
	DECLARE v_msg VARCHAR(255);` + myHandlers + myBegin + `
	UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d;
	SELECT d_next_o_id - 1, CAST(d_tax * 10000 AS SIGNED) INTO v_o, v_dtax
		FROM district WHERE d_w_id = p_w AND d_id = p_d;
	SELECT CAST(w_tax * 10000 AS SIGNED), CAST(c_discount * 10000 AS SIGNED), c_last, c_credit
		INTO v_wtax, v_disc, v_last, v_credit
		FROM warehouse, customer WHERE w_id = p_w AND c_w_id = p_w AND c_d_id = p_d AND c_id = p_c;
	IF v_o = 0 OR v_last IS NULL THEN
		SET v_msg = CONCAT('` + procNotFound + ` new-order: warehouse ', p_w, ', district ', p_d, ' or customer ', p_c, ' does not exist');
		SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_msg;
	END IF;
	INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
		VALUES (v_o, p_d, p_w, p_c, p_entry, NULL, p_cnt, p_all_local);
	INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o, p_d, p_w);
	each_line: WHILE v_k < p_cnt DO
		SET v_n = CAST(SUBSTRING(p_lines, v_k * 16 + 1, 2) AS SIGNED),
			v_sw = CAST(SUBSTRING(p_lines, v_k * 16 + 3, 6) AS SIGNED),
			v_i = CAST(SUBSTRING(p_lines, v_k * 16 + 9, 6) AS SIGNED),
			v_q = CAST(SUBSTRING(p_lines, v_k * 16 + 15, 2) AS SIGNED),
			v_k = v_k + 1, v_name = NULL, v_sdata = NULL;
		SELECT CAST(i_price * 100 AS SIGNED), i_name, i_data INTO v_price, v_name, v_idata FROM item WHERE i_id = v_i;
		IF v_name IS NULL THEN
			SET v_missing = v_missing + 1, v_miss_n = v_n;
			ITERATE each_line;
		END IF;
		-- clause 2.4.2.2: decrease by OL_QUANTITY if 10 or more remain, else add 91 after it
		UPDATE stock SET s_quantity = IF(s_quantity - v_q >= 10, s_quantity - v_q, s_quantity - v_q + 91),
			s_ytd = s_ytd + v_q, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + IF(v_sw <> p_w, 1, 0)
			WHERE s_w_id = v_sw AND s_i_id = v_i;
		SELECT s_quantity, ` + myProcDist + `, s_data INTO v_sq, v_dist, v_sdata
			FROM stock WHERE s_w_id = v_sw AND s_i_id = v_i;
		IF v_sdata IS NULL THEN
			SET v_missing = v_missing + 1, v_miss_n = 0;
			ITERATE each_line;
		END IF;
		SET v_amount = v_q * v_price, v_sum = v_sum + v_amount;
		INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
			ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
			VALUES (v_o, p_d, p_w, v_n, v_i, v_sw, NULL, v_q, v_amount * 0.01, v_dist);
		SET v_lines = CONCAT(v_lines, v_n, ' ', v_sq, ' ', v_price, ' ', v_amount, ' ',
			IF(v_idata LIKE '%ORIGINAL%' AND v_sdata LIKE '%ORIGINAL%', 'B', 'G'), ' ', v_name, CHAR(10));
	END WHILE each_line;
	IF v_missing > 0 THEN
		-- clause 2.4.2.3: only the last line may name an unused item; the work is done, then undone
		IF v_missing = 1 AND v_miss_n = p_cnt THEN
			ROLLBACK;
			SELECT 1, v_o, v_wtax, v_dtax, v_disc, v_last, v_credit, 0, '';
		ELSE
			SET v_msg = CONCAT('candor-missing-stock: new-order: ', v_missing, ' of ', p_cnt,
				' lines have no item or stock row (is the database fully loaded?)');
			SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_msg;
		END IF;
	ELSE
		COMMIT;
		-- Total = sum(OL_AMOUNT) * (1 - C_DISCOUNT) * (1 + W_TAX + D_TAX), in cents rounded half up
		SELECT 0, v_o, v_wtax, v_dtax, v_disc, v_last, v_credit,
			(v_sum * (10000 - v_disc) * (10000 + v_wtax + v_dtax) + 50000000) DIV 100000000, v_lines;
	END IF;
END`

// myProcByName sets v_c to the customer of (p_c_w, p_c_d) named p_c_last at position ceil(n/2) of
// the matches sorted by c_first (clause 2.5.2.2, 2.6.2.2): LIMIT (n-1) DIV 2, 1. It stays 0 when
// none matches.
const myProcByName = `
		SELECT COUNT(*) INTO v_n FROM customer WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last;
		SET v_off = (v_n - 1) DIV 2, v_c = 0;
		SELECT c_id INTO v_c FROM customer WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_last = p_c_last
			ORDER BY c_first LIMIT v_off, 1;`

// myProcPayment is Payment, clause 2.5.2.2: warehouse, district and customer updated in that
// order, the bad-credit c_data rule, the history row; the result (the warehouse's and district's
// name and address and the customer after update, 28 columns as on PostgreSQL) is read inside the
// transaction, which commits last.
const myProcPayment = `CREATE PROCEDURE candor_payment(IN p_iso INT, IN p_w INT, IN p_d INT, IN p_c_w INT,
	IN p_c_d INT, IN p_c_id INT, IN p_c_last VARCHAR(16), IN p_amount BIGINT, IN p_date DATETIME(6))
BEGIN
	DECLARE v_c, v_n, v_off INT DEFAULT 0;
	DECLARE v_msg VARCHAR(255);` + myHandlers + myBegin + `
	UPDATE warehouse SET w_ytd = w_ytd + p_amount * 0.01 WHERE w_id = p_w;
	IF ROW_COUNT() = 0 THEN
		SET v_msg = CONCAT('` + procNotFound + ` payment: warehouse ', p_w, ' does not exist');
		SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_msg;
	END IF;
	UPDATE district SET d_ytd = d_ytd + p_amount * 0.01 WHERE d_w_id = p_w AND d_id = p_d;
	IF ROW_COUNT() = 0 THEN
		SET v_msg = CONCAT('` + procNotFound + ` payment: district ', p_d, ' of warehouse ', p_w, ' does not exist');
		SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_msg;
	END IF;
	IF p_c_last IS NULL THEN
		SET v_c = p_c_id;
	ELSE` + myProcByName + `
	END IF;
	-- bad credit: "C_ID C_D_ID C_W_ID D_ID W_ID H_AMOUNT " at the left of C_DATA, cut to 500 characters
	UPDATE customer SET c_balance = c_balance - p_amount * 0.01, c_ytd_payment = c_ytd_payment + p_amount * 0.01,
		c_payment_cnt = c_payment_cnt + 1,
		c_data = CASE WHEN c_credit = 'BC' THEN LEFT(CONCAT(c_id, ' ', c_d_id, ' ', c_w_id, ' ', p_d, ' ', p_w, ' ',
			p_amount * 0.01, ' ', c_data), 500) ELSE c_data END
		WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c;
	IF ROW_COUNT() = 0 THEN
		SET v_msg = CONCAT('` + procNotFound + ` payment: customer ', IFNULL(p_c_last, p_c_id), ' of warehouse ', p_c_w,
			' district ', p_c_d, ' does not exist');
		SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_msg;
	END IF;
	INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
		SELECT v_c, p_c_d, p_c_w, p_d, p_w, p_date, p_amount * 0.01, CONCAT(w_name, '    ', d_name)
		FROM warehouse, district WHERE w_id = p_w AND d_w_id = p_w AND d_id = p_d;
	SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip,
		d_name, d_street_1, d_street_2, d_city, d_state, d_zip,
		c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit,
		CAST(c_credit_lim * 100 AS SIGNED), CAST(c_discount * 10000 AS SIGNED), CAST(c_balance * 100 AS SIGNED),
		CASE WHEN c_credit = 'BC' THEN LEFT(c_data, 200) ELSE '' END
	FROM warehouse, district, customer
	WHERE w_id = p_w AND d_w_id = p_w AND d_id = p_d AND c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = v_c;
	COMMIT;
END`

// myProcOrderStatus is Order-Status, clause 2.6.2.2: the customer (by id, or by last name when
// p_c_last is not null), then one statement for the customer, their latest order and its lines,
// one row per line (one row with null order and line columns for a customer without orders; none
// for a customer that does not exist).
const myProcOrderStatus = `CREATE PROCEDURE candor_order_status(IN p_c_w INT, IN p_c_d INT, IN p_c_id INT, IN p_c_last VARCHAR(16))
BEGIN
	DECLARE v_c, v_n, v_off INT DEFAULT 0;
	DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
	IF p_c_last IS NULL THEN
		SET v_c = p_c_id;
	ELSE` + myProcByName + `
	END IF;
	SELECT c.c_id, CAST(c.c_balance * 100 AS SIGNED), c.c_first, c.c_middle, c.c_last,
		o.o_id, o.o_entry_d, o.o_carrier_id,
		ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity, CAST(ol.ol_amount * 100 AS SIGNED), ol.ol_delivery_d
	FROM customer c
	LEFT JOIN orders o ON o.o_w_id = c.c_w_id AND o.o_d_id = c.c_d_id
		AND o.o_id = (SELECT MAX(o_id) FROM orders WHERE o_w_id = p_c_w AND o_d_id = p_c_d AND o_c_id = v_c)
	LEFT JOIN order_line ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id
	WHERE c.c_w_id = p_c_w AND c.c_d_id = p_c_d AND c.c_id = v_c
	ORDER BY ol.ol_number;
END`

// myProcDelivery is the deferred part of Delivery, clause 2.7.4.2, for the ten districts of p_w in
// one transaction: per district the oldest new_order row (locked, then deleted; none: the district
// is skipped and counted), its order's carrier, its lines' delivery date, and the customer's balance
// and delivery count. An order, lines or customer missing behind a new_order row is an error, which
// rolls the whole Delivery back. The result: districts delivered and skipped, then the O_ID
// delivered in each district (0: skipped), which the result file records; MySQL has no arrays, so
// ten variables.
const myProcDelivery = `CREATE PROCEDURE candor_delivery(IN p_iso INT, IN p_w INT, IN p_carrier INT, IN p_now DATETIME(6))
BEGIN
	DECLARE v_d, v_o, v_c, v_delivered, v_skipped INT DEFAULT 0;
	DECLARE v_o1, v_o2, v_o3, v_o4, v_o5, v_o6, v_o7, v_o8, v_o9, v_o10 INT DEFAULT 0;
	DECLARE v_sum DECIMAL(12, 2);
	DECLARE v_msg VARCHAR(255);` + myHandlers + myBegin + `
	SET v_d = 1;
	WHILE v_d <= 10 DO
		SET v_o = NULL, v_c = NULL, v_sum = NULL;
		SELECT no_o_id INTO v_o FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d
			ORDER BY no_o_id LIMIT 1 FOR UPDATE;
		IF v_o IS NULL THEN
			SET v_skipped = v_skipped + 1;
		ELSE
			DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id = v_o;
			UPDATE orders SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o;
			SELECT o_c_id INTO v_c FROM orders WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_o;
			UPDATE order_line SET ol_delivery_d = p_now WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;
			SELECT SUM(ol_amount) INTO v_sum FROM order_line WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_o;
			IF v_c IS NULL OR v_sum IS NULL THEN
				SET v_msg = CONCAT('candor-delivery: new_order row ', p_w, '/', v_d, '/', v_o, ' has no order or no lines');
				SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_msg;
			END IF;
			UPDATE customer SET c_balance = c_balance + v_sum, c_delivery_cnt = c_delivery_cnt + 1
				WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_c;
			IF ROW_COUNT() = 0 THEN
				SET v_msg = CONCAT('candor-delivery: the customer ', v_c, ' of order ', p_w, '/', v_d, '/', v_o, ' does not exist');
				SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_msg;
			END IF;
			SET v_delivered = v_delivered + 1;
			CASE v_d
				WHEN 1 THEN SET v_o1 = v_o; WHEN 2 THEN SET v_o2 = v_o; WHEN 3 THEN SET v_o3 = v_o;
				WHEN 4 THEN SET v_o4 = v_o; WHEN 5 THEN SET v_o5 = v_o; WHEN 6 THEN SET v_o6 = v_o;
				WHEN 7 THEN SET v_o7 = v_o; WHEN 8 THEN SET v_o8 = v_o; WHEN 9 THEN SET v_o9 = v_o;
				ELSE SET v_o10 = v_o;
			END CASE;
		END IF;
		SET v_d = v_d + 1;
	END WHILE;
	COMMIT;
	SELECT v_delivered, v_skipped, v_o1, v_o2, v_o3, v_o4, v_o5, v_o6, v_o7, v_o8, v_o9, v_o10;
END`

// myProcStockLevel is Stock-Level, clause 2.8.2.2, in one statement.
const myProcStockLevel = `CREATE PROCEDURE candor_stock_level(IN p_w INT, IN p_d INT, IN p_threshold INT)
BEGIN
	SELECT COUNT(DISTINCT s_i_id)
	FROM district
	JOIN order_line ON ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < d_next_o_id AND ol_o_id >= d_next_o_id - 20
	JOIN stock ON s_w_id = p_w AND s_i_id = ol_i_id
	WHERE d_w_id = p_w AND d_id = p_d AND s_quantity < p_threshold;
END`

// myProcedures are the statements that (re)create the procedures: MySQL has no CREATE OR REPLACE
// PROCEDURE, so each is dropped first.
var myProcedures = func() []string {
	var out []string
	for _, p := range []struct{ name, create string }{
		{"candor_new_order", myProcNewOrder}, {"candor_payment", myProcPayment},
		{"candor_order_status", myProcOrderStatus}, {"candor_delivery", myProcDelivery},
		{"candor_stock_level", myProcStockLevel},
	} {
		out = append(out, "DROP PROCEDURE IF EXISTS "+p.name, p.create)
	}
	return out
}()

// The calls.
const (
	myCallNewOrder    = `CALL candor_new_order(?, ?, ?, ?, ?, ?, ?, ?)`
	myCallPayment     = `CALL candor_payment(?, ?, ?, ?, ?, ?, ?, ?, ?)`
	myCallOrderStatus = `CALL candor_order_status(?, ?, ?, ?)`
	myCallDelivery    = `CALL candor_delivery(?, ?, ?, ?)`
	myCallStockLevel  = `CALL candor_stock_level(?, ?, ?)`
)

// myProcState is the MySQL procedure mode's reusable state.
type myProcState struct {
	lines      []byte // New-Order's input records
	out        string // New-Order's output records
	rolledBack int64
	noDest     []any
	osDest     []any
	iso        int64 // the level of the transaction being run, as p_iso (myProcConnFor)
	wrapped    myProcConn
}

// myProcConn is a connection whose Begin, Commit and Rollback do nothing: the procedures begin
// and end their transactions themselves.
type myProcConn struct{ driver.Conn }

func (*myProcConn) Begin(context.Context, driver.TxOptions) error { return nil }
func (*myProcConn) Commit(context.Context) error                  { return nil }
func (*myProcConn) Rollback(context.Context) error                { return nil }

// myProcConnFor returns c wrapped as a myProcConn and notes the transaction's isolation level
// (the database's default when unset), which the call passes on as p_iso.
func myProcConnFor(_ context.Context, cl *Client, c driver.Conn, iso driver.Isolation) driver.Conn {
	my := &cl.proc.my
	if iso == driver.IsolationDefault {
		iso = cl.db.DefaultIsolation()
	}
	switch iso {
	case driver.IsolationReadCommitted:
		my.iso = 1
	case driver.IsolationSerializable:
		my.iso = 3
	default:
		my.iso = 2
	}
	my.wrapped.Conn = c
	return &my.wrapped
}

// myProcOps is the client half of the procedure mode on MySQL and MariaDB.
type myProcOps struct{ noProcNewOrderParts }

var _ procOps = myProcOps{}

// appendPadded appends v in decimal, left-padded with zeros to width digits.
func appendPadded(b []byte, v int64, width int) []byte {
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], v, 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

func (myProcOps) newOrder(ctx context.Context, c driver.Conn, cl *Client) error {
	st, my := &cl.no, &cl.proc.my
	in := st.in
	// the lines sorted by (supply warehouse, item), each key's lines in line order
	b := my.lines[:0]
	for k := 0; k < st.nRows; k++ {
		for l := 0; l < in.OLCnt; l++ {
			if int(st.lineRow[l]) != k {
				continue
			}
			line := &in.Lines[l]
			b = appendPadded(b, int64(l+1), 2)
			b = appendPadded(b, int64(line.SupplyWID), 6)
			b = appendPadded(b, int64(line.ItemID), 6)
			b = appendPadded(b, int64(line.Quantity), 2)
		}
	}
	my.lines = b
	allLocal := 0
	if in.AllLocal() {
		allLocal = 1
	}
	if my.noDest == nil {
		my.noDest = []any{&my.rolledBack, &st.oID, &st.wTax, &st.dTax, &st.cDiscount, &st.cLast, &st.cCredit, &st.total, &my.out}
	}
	err := c.QueryRow(ctx, myCallNewOrder, cl.argList(my.iso, in.WID, in.DID, in.CID, in.EntryD, allLocal, in.OLCnt, string(b))...).Scan(my.noDest...)
	if err != nil {
		return procError(err, cl)
	}
	if my.rolledBack != 0 {
		st.missing = in.OLCnt - 1
		return driver.ErrRollback
	}
	return my.scanLines(st)
}

// scanLines reads New-Order's output records into the New-Order state: every line exactly once.
func (my *myProcState) scanLines(st *newOrderState) error {
	in := st.in
	s := my.out
	var seen uint16
	lines := 0
	for len(s) > 0 {
		rec := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			rec, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		var f [5]string
		for j := range f {
			i := strings.IndexByte(rec, ' ')
			if i < 0 {
				return driver.Checkf("tpcc: new-order: malformed line record %q from the procedure", rec)
			}
			f[j], rec = rec[:i], rec[i+1:]
		}
		n, err1 := strconv.Atoi(f[0])
		qty, err2 := strconv.ParseInt(f[1], 10, 32)
		price, err3 := strconv.ParseInt(f[2], 10, 64)
		amount, err4 := strconv.ParseInt(f[3], 10, 64)
		l := n - 1
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || l < 0 || l >= in.OLCnt || seen&(1<<l) != 0 || len(f[4]) != 1 {
			return driver.Checkf("tpcc: new-order: malformed or repeated line record %q from the procedure", f)
		}
		seen |= 1 << l
		lines++
		r := &st.rows[st.lineRow[l]]
		r.found, r.qty, r.price, r.name, r.original = true, int32(qty), price, rec, f[4][0] == 'B'
		st.amount[l], st.brand[l] = amount, f[4][0]
	}
	if lines != in.OLCnt {
		return driver.Checkf("tpcc: new-order: the procedure returned %d of %d lines", lines, in.OLCnt)
	}
	return nil
}

func (myProcOps) payment(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.pay
	in := st.in
	var cID, cLast any = in.CID, nil
	if in.ByName {
		cID, cLast = 0, in.CLast
	}
	err := c.QueryRow(ctx, myCallPayment, cl.argList(cl.proc.my.iso, in.WID, in.DID, in.CWID, in.CDID, cID, cLast, in.AmountCents, in.Date)...).Scan(cl.proc.paymentDest(st)...)
	if err == driver.ErrNoRows {
		return errNotFound
	}
	return procError(err, cl)
}

func (myProcOps) orderStatus(ctx context.Context, c driver.Conn, cl *Client) error {
	st, my, pm := &cl.os, &cl.my, &cl.proc.my
	in := st.in
	var cID, cLast any = in.CID, nil
	if in.ByName {
		cID, cLast = 0, in.CLast
	}
	rows, err := c.Query(ctx, myCallOrderStatus, cl.argList(in.WID, in.DID, cID, cLast)...)
	if err != nil {
		return procError(err, cl)
	}
	defer rows.Close()
	if pm.osDest == nil {
		pm.osDest = []any{&st.cID, &st.balance, &st.first, &st.middle, &st.last, &my.oID, &my.entryD, &my.carrier,
			&my.olItem, &my.olSupply, &my.olQty, &my.olAmount, &my.deliveryD}
	}
	if err := my.scanOrderStatus(rows, pm.osDest, st); err != nil && err != errNotFound {
		return procError(err, cl)
	} else if err != nil {
		return err
	}
	return nil
}

func (myProcOps) delivery(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.del
	if err := c.QueryRow(ctx, myCallDelivery, cl.argList(cl.proc.my.iso, st.w, st.in.CarrierID, st.now)...).Scan(st.scanDest()...); err != nil {
		return procError(err, cl)
	}
	return st.setRow()
}

func (myProcOps) stockLevel(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.sl
	if err := c.QueryRow(ctx, myCallStockLevel, cl.argList(st.w, st.d, st.in.Threshold)...).Scan(&st.count); err != nil {
		return procError(err, cl)
	}
	return nil
}
