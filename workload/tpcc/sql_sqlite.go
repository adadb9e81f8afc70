package tpcc

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/candor-bench/candor/driver"
)

// SQLite statements. SQLite runs in process with one writer at a time (BEGIN IMMEDIATE takes the
// write lock up front), so a statement costs no round trip and the transactions run statement by
// statement in the order of the standard. Money columns hold INTEGER cents and rates INTEGER
// ten-thousandths, the units the Go code uses. Integers are scanned into int64, which database/sql
// copies directly (narrower integer types go through a string conversion).

type sqliteTxOps struct{}

var _ txOps = sqliteTxOps{}

// New-Order, clause 2.4.2.2.
const (
	// ?1 w_id
	sqliteNOWarehouse = `SELECT w_tax FROM warehouse WHERE w_id = ?1`
	// ?1 w_id, ?2 d_id: D_NEXT_O_ID read and incremented in one statement.
	sqliteNODistrict = `UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ?1 AND d_id = ?2
RETURNING d_next_o_id - 1, d_tax`
	// ?1 w_id, ?2 d_id, ?3 c_id
	sqliteNOCustomer = `SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ?1 AND c_d_id = ?2 AND c_id = ?3`
	// ?1 o_id, ?2 d_id, ?3 w_id, ?4 c_id, ?5 entry_d, ?6 ol_cnt, ?7 all_local
	sqliteNOOrder = `INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
VALUES (?1, ?2, ?3, ?4, ?5, NULL, ?6, ?7)`
	sqliteNONewOrder = `INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?1, ?2, ?3)`
	// ?1 s_w_id, ?2 s_i_id, ?3 s_quantity, ?4 ytd, ?5 order_cnt, ?6 remote_cnt increments
	sqliteNOStockUpdate = `UPDATE stock SET s_quantity = ?3, s_ytd = s_ytd + ?4, s_order_cnt = s_order_cnt + ?5,
	s_remote_cnt = s_remote_cnt + ?6 WHERE s_w_id = ?1 AND s_i_id = ?2`
	// ?1 o_id, ?2 d_id, ?3 w_id, ?4 number, ?5 i_id, ?6 supply_w_id, ?7 quantity, ?8 amount, ?9 dist_info
	sqliteNOLine = `INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
	ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL, ?7, ?8, ?9)`
)

// sqliteNOStock[d-1]: one line's item and stock with S_DIST_<d>; ?1 s_w_id, ?2 s_i_id.
var sqliteNOStock = func() [DistrictsPerWarehouse]string {
	var s [DistrictsPerWarehouse]string
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		s[d-1] = `SELECT s_quantity, s_dist_` + string(rune('0'+d/10)) + string(rune('0'+d%10)) + `, i_price, i_name,
	instr(s_data, 'ORIGINAL') > 0 AND instr(i_data, 'ORIGINAL') > 0
FROM stock JOIN item ON i_id = s_i_id WHERE s_w_id = ?1 AND s_i_id = ?2`
	}
	return s
}()

func (o sqliteTxOps) newOrderRead(ctx context.Context, c driver.Conn, cl *Client) error {
	if err := o.newOrderHeader(ctx, c, cl); err != nil {
		return err
	}
	return o.newOrderStock(ctx, c, cl)
}

func (sqliteTxOps) newOrderHeader(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.no
	in := st.in
	if err := c.QueryRow(ctx, sqliteNOWarehouse, cl.argList(in.WID)...).Scan(&st.wTax); err != nil {
		return notFound(err)
	}
	if err := c.QueryRow(ctx, sqliteNODistrict, cl.argList(in.WID, in.DID)...).Scan(&st.oID, &st.dTax); err != nil {
		return notFound(err)
	}
	err := c.QueryRow(ctx, sqliteNOCustomer, cl.argList(in.WID, in.DID, in.CID)...).Scan(&st.cDiscount, &st.cLast, &st.cCredit)
	if err == driver.ErrNoRows {
		return errNotFound
	} else if err != nil {
		return err
	}
	allLocal := 0
	if in.AllLocal() {
		allLocal = 1
	}
	if _, err := c.Exec(ctx, sqliteNOOrder, cl.argList(st.oID, in.DID, in.WID, in.CID, in.EntryD, in.OLCnt, allLocal)...); err != nil {
		return err
	}
	_, err = c.Exec(ctx, sqliteNONewOrder, cl.argList(st.oID, in.DID, in.WID)...)
	return err
}

func (sqliteTxOps) newOrderStock(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.no
	q := sqliteNOStock[st.in.DID-1]
	var qty int64
	for k := 0; k < st.nRows; k++ {
		r := &st.rows[k]
		err := c.QueryRow(ctx, q, cl.argList(r.w, r.i)...).Scan(&qty, &r.dist, &r.price, &r.name, &r.original)
		if err == driver.ErrNoRows {
			continue // an unused item: found stays false
		} else if err != nil {
			return err
		}
		r.qty = int32(qty)
		r.found = true
	}
	return nil
}

func (sqliteTxOps) newOrderWrite(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.no
	in := st.in
	for k := 0; k < st.nRows; k++ {
		r := &st.rows[k]
		if !r.found {
			continue
		}
		if _, err := c.Exec(ctx, sqliteNOStockUpdate, cl.argList(r.w, r.i, r.qty, r.ytd, r.orderCnt, r.remoteCnt)...); err != nil {
			return err
		}
	}
	for l := 0; l < in.OLCnt; l++ {
		if l == st.missing {
			continue
		}
		line := &in.Lines[l]
		if _, err := c.Exec(ctx, sqliteNOLine, cl.argList(st.oID, in.DID, in.WID, l+1, line.ItemID, line.SupplyWID,
			line.Quantity, st.amount[l], st.rows[st.lineRow[l]].dist)...); err != nil {
			return err
		}
	}
	return nil
}

// Payment, clause 2.5.2.2.
const (
	// ?1 w_id, ?2 amount (cents)
	sqlitePayWarehouse = `UPDATE warehouse SET w_ytd = w_ytd + ?2 WHERE w_id = ?1
RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip`
	// ?1 w_id, ?2 d_id, ?3 amount
	sqlitePayDistrict = `UPDATE district SET d_ytd = d_ytd + ?3 WHERE d_w_id = ?1 AND d_id = ?2
RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip`
	// ?1 c_w_id, ?2 c_d_id, ?3 c_last: the matching customers sorted by c_first (clause 2.5.2.2).
	sqliteByName = `SELECT c_id FROM customer WHERE c_w_id = ?1 AND c_d_id = ?2 AND c_last = ?3 ORDER BY c_first`
	// ?1 c_w_id, ?2 c_d_id, ?3 c_id, ?4 amount (cents), ?5 d_id, ?6 w_id. The amount in C_DATA is
	// written as units.cents from the integer cents.
	sqlitePayCustomer = `UPDATE customer SET c_balance = c_balance - ?4, c_ytd_payment = c_ytd_payment + ?4,
	c_payment_cnt = c_payment_cnt + 1,
	c_data = CASE WHEN c_credit = 'BC' THEN substr(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' || ?5 || ' ' || ?6 || ' ' ||
		(?4 / 100) || '.' || substr('0' || (?4 % 100), -2) || ' ' || c_data, 1, 500) ELSE c_data END
WHERE c_w_id = ?1 AND c_d_id = ?2 AND c_id = ?3
RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since,
	c_credit, c_credit_lim, c_discount, c_balance, CASE WHEN c_credit = 'BC' THEN substr(c_data, 1, 200) ELSE '' END`
	// ?1 c_id, ?2 c_d_id, ?3 c_w_id, ?4 d_id, ?5 w_id, ?6 date, ?7 amount, ?8 w_name, ?9 d_name
	sqlitePayHistory = `INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8 || '    ' || ?9)`
)

func (sqliteTxOps) payment(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.pay
	in := st.in
	w, d, cu := &st.wAddr, &st.dAddr, &st.c
	if err := c.QueryRow(ctx, sqlitePayWarehouse, cl.argList(in.WID, in.AmountCents)...).
		Scan(&st.wName, &w.street1, &w.street2, &w.city, &w.state, &w.zip); err != nil {
		return notFound(err)
	}
	if err := c.QueryRow(ctx, sqlitePayDistrict, cl.argList(in.WID, in.DID, in.AmountCents)...).
		Scan(&st.dName, &d.street1, &d.street2, &d.city, &d.state, &d.zip); err != nil {
		return notFound(err)
	}
	cID := int32(in.CID)
	if in.ByName {
		var err error
		if cID, err = customerByName(ctx, c, sqliteByName, &st.ids, in.CWID, in.CDID, in.CLast); err != nil {
			return err
		}
	}
	err := c.QueryRow(ctx, sqlitePayCustomer, cl.argList(in.CWID, in.CDID, cID, in.AmountCents, in.DID, in.WID)...).Scan(
		&cu.first, &cu.middle, &cu.last, &cu.addr.street1, &cu.addr.street2, &cu.addr.city, &cu.addr.state,
		&cu.addr.zip, &cu.phone, &cu.since, &cu.credit, &cu.creditLim, &cu.discount, &cu.balance, &cu.data)
	if err == driver.ErrNoRows {
		return errNotFound
	} else if err != nil {
		return err
	}
	cu.id = cID
	_, err = c.Exec(ctx, sqlitePayHistory, cl.argList(cID, in.CDID, in.CWID, in.DID, in.WID, in.Date, in.AmountCents, st.wName, st.dName)...)
	return err
}

// Order-Status, clause 2.6.2.2.
const (
	// ?1 w_id, ?2 d_id, ?3 c_id
	sqliteOSCustomer = `SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ?1 AND c_d_id = ?2 AND c_id = ?3`
	// the customer's latest order through the orders (o_w_id, o_d_id, o_c_id, o_id) index
	sqliteOSOrder = `SELECT o_id, o_entry_d, coalesce(o_carrier_id, 0) FROM orders
WHERE o_w_id = ?1 AND o_d_id = ?2 AND o_c_id = ?3 ORDER BY o_id DESC LIMIT 1`
	// ?1 w_id, ?2 d_id, ?3 o_id
	sqliteOSLines = `SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
WHERE ol_w_id = ?1 AND ol_d_id = ?2 AND ol_o_id = ?3 ORDER BY ol_number`
)

func (sqliteTxOps) orderStatus(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.os
	in := st.in
	cID := int32(in.CID)
	if in.ByName {
		var err error
		if cID, err = customerByName(ctx, c, sqliteByName, &st.ids, in.WID, in.DID, in.CLast); err != nil {
			return err
		}
	}
	st.cID = cID
	err := c.QueryRow(ctx, sqliteOSCustomer, cl.argList(in.WID, in.DID, cID)...).Scan(&st.balance, &st.first, &st.middle, &st.last)
	if err == driver.ErrNoRows {
		return errNotFound
	} else if err != nil {
		return err
	}
	var carrier int64
	err = c.QueryRow(ctx, sqliteOSOrder, cl.argList(in.WID, in.DID, cID)...).Scan(&st.oID, &st.entryD, &carrier)
	if err == driver.ErrNoRows {
		return nil // a customer without orders
	} else if err != nil {
		return err
	}
	st.carrierID = int32(carrier)
	rows, err := c.Query(ctx, sqliteOSLines, cl.argList(in.WID, in.DID, st.oID)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var item, supply, qty int64
	var delivery sql.NullTime
	for rows.Next() {
		l, err := st.addLine()
		if err != nil {
			return err
		}
		if err := rows.Scan(&item, &supply, &qty, &l.amount, &delivery); err != nil {
			return err
		}
		l.itemID, l.supplyWID, l.quantity = int32(item), int32(supply), int32(qty)
		l.delivered, l.deliveryD = delivery.Valid, delivery.Time
	}
	return rows.Err()
}

// Delivery, clause 2.7.4.2, district by district in one transaction.
const (
	// ?1 w_id, ?2 d_id: the oldest undelivered order
	sqliteDelOldest = `SELECT no_o_id FROM new_order WHERE no_w_id = ?1 AND no_d_id = ?2 ORDER BY no_o_id LIMIT 1`
	// ?1 w_id, ?2 d_id, ?3 o_id
	sqliteDelNewOrder = `DELETE FROM new_order WHERE no_w_id = ?1 AND no_d_id = ?2 AND no_o_id = ?3`
	// ?1 w_id, ?2 d_id, ?3 o_id, ?4 carrier
	sqliteDelOrder = `UPDATE orders SET o_carrier_id = ?4 WHERE o_w_id = ?1 AND o_d_id = ?2 AND o_id = ?3 RETURNING o_c_id`
	// ?1 w_id, ?2 d_id, ?3 o_id, ?4 delivery date
	sqliteDelLines = `UPDATE order_line SET ol_delivery_d = ?4 WHERE ol_w_id = ?1 AND ol_d_id = ?2 AND ol_o_id = ?3
RETURNING ol_amount`
	// ?1 w_id, ?2 d_id, ?3 c_id, ?4 amount
	sqliteDelCustomer = `UPDATE customer SET c_balance = c_balance + ?4, c_delivery_cnt = c_delivery_cnt + 1
WHERE c_w_id = ?1 AND c_d_id = ?2 AND c_id = ?3`
)

func (sqliteTxOps) delivery(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.del
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		var oID, cID int64
		err := c.QueryRow(ctx, sqliteDelOldest, cl.argList(st.w, d)...).Scan(&oID)
		if err == driver.ErrNoRows {
			st.res.Skipped++ // clause 2.7.4.2: no undelivered order in this district
			continue
		} else if err != nil {
			return err
		}
		n, err := c.Exec(ctx, sqliteDelNewOrder, cl.argList(st.w, d, oID)...)
		if err != nil {
			return err
		}
		if n != 1 {
			return driver.Checkf("tpcc: delivery deleted %d new_order rows for order %d of district %d/%d", n, oID, st.w, d)
		}
		if err := c.QueryRow(ctx, sqliteDelOrder, cl.argList(st.w, d, oID, st.in.CarrierID)...).Scan(&cID); err != nil {
			return fmt.Errorf("tpcc: delivery of order %d of district %d/%d: %w", oID, st.w, d, err)
		}
		sum, lines, err := sumRows(ctx, c, sqliteDelLines, cl.argList(st.w, d, oID, st.now)...)
		if err != nil {
			return err
		}
		if lines == 0 {
			return driver.Checkf("tpcc: delivery of order %d of district %d/%d: the order has no lines", oID, st.w, d)
		}
		n, err = c.Exec(ctx, sqliteDelCustomer, cl.argList(st.w, d, cID, sum)...)
		if err != nil {
			return err
		}
		if n != 1 {
			return driver.Checkf("tpcc: delivery of order %d of district %d/%d: its customer %d does not exist", oID, st.w, d, cID)
		}
		st.res.Delivered++
		st.res.OIDs[d-1] = int32(oID)
	}
	return nil
}

// notFound turns "no row" into errNotFound.
func notFound(err error) error {
	if err == driver.ErrNoRows {
		return errNotFound
	}
	return err
}

// sumRows runs a statement returning one integer column and adds up its rows; n is their number.
func sumRows(ctx context.Context, c driver.Conn, sql string, args ...any) (sum int64, n int, err error) {
	rows, err := c.Query(ctx, sql, args...)
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	var v int64
	for rows.Next() {
		if err := rows.Scan(&v); err != nil {
			return 0, 0, err
		}
		sum += v
		n++
	}
	return sum, n, rows.Err()
}

// Stock-Level, clause 2.8.2.2, in one statement; ?1 w_id, ?2 d_id, ?3 threshold.
const sqliteStockLevel = `SELECT count(DISTINCT s_i_id)
FROM district
JOIN order_line ON ol_w_id = ?1 AND ol_d_id = ?2 AND ol_o_id < d_next_o_id AND ol_o_id >= d_next_o_id - 20
JOIN stock ON s_w_id = ?1 AND s_i_id = ol_i_id
WHERE d_w_id = ?1 AND d_id = ?2 AND s_quantity < ?3`

func (sqliteTxOps) stockLevel(ctx context.Context, c driver.Conn, cl *Client) error {
	st := &cl.sl
	return c.QueryRow(ctx, sqliteStockLevel, cl.argList(st.w, st.d, st.in.Threshold)...).Scan(&st.count)
}
