package tpcc

import (
	"strconv"
	"strings"
)

// The consistency conditions of clause 3.3.2, one set-based query each over all warehouses and
// districts (aggregates, outer and anti joins; never a query per warehouse or row). Each query
// returns the offending rows only; money is compared in the database's own exact type (NUMERIC on
// PostgreSQL, integer cents on SQLite) and converted to cents only for display.

// outKind says how a result column is shown.
type outKind uint8

const (
	oInt   outKind = iota // an integer, or null
	oMoney                // cents, shown as 12.34
	oSet                  // 0/1: a nullable column's state, shown as null / set
)

type outCol struct {
	label string
	expr  string // may use MONEY(expr) for money columns shown in cents
	kind  outKind
}

type condition struct {
	n    int
	name string
	full bool // expensive at scale: only in full mode
	// cols are the offending row's columns; the first keys identify it (and order the report).
	cols []outCol
	keys int
	// from is the rest of the query after the select list (FROM ... WHERE ... GROUP BY ...).
	from string
}

// deliveredAmounts is each customer's sum of ol_amount over delivered order lines (conditions 10
// and 12).
const deliveredAmounts = `(SELECT o.o_w_id AS w, o.o_d_id AS d, o.o_c_id AS c, sum(ol.ol_amount) AS s
    FROM orders o JOIN order_line ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id
    WHERE ol.ol_delivery_d IS NOT NULL GROUP BY o.o_w_id, o.o_d_id, o.o_c_id)`

var conditions = []condition{
	{n: 1, name: "W_YTD = sum(D_YTD)", // 3.3.2.1
		cols: []outCol{{"w_id", "w.w_id", oInt}, {"w_ytd", "MONEY(w.w_ytd)", oMoney}, {"sum(d_ytd)", "MONEY(coalesce(d.s, 0))", oMoney}},
		keys: 1,
		from: `FROM warehouse w LEFT JOIN (SELECT d_w_id, sum(d_ytd) AS s FROM district GROUP BY d_w_id) d ON d.d_w_id = w.w_id
  WHERE w.w_ytd <> coalesce(d.s, 0)`},
	{n: 2, name: "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", // 3.3.2.2
		cols: []outCol{{"d_w_id", "d.d_w_id", oInt}, {"d_id", "d.d_id", oInt}, {"d_next_o_id", "d.d_next_o_id", oInt},
			{"max(o_id)", "o.mx", oInt}, {"max(no_o_id)", "n.mx", oInt}},
		keys: 2,
		// The condition does not apply to new_order for a district without new orders.
		from: `FROM district d
  LEFT JOIN (SELECT o_w_id, o_d_id, max(o_id) AS mx FROM orders GROUP BY o_w_id, o_d_id) o ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
  LEFT JOIN (SELECT no_w_id, no_d_id, max(no_o_id) AS mx FROM new_order GROUP BY no_w_id, no_d_id) n ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
  WHERE o.mx IS NULL OR d.d_next_o_id - 1 <> o.mx OR (n.mx IS NOT NULL AND n.mx <> o.mx)`},
	{n: 3, name: "max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW_ORDER)", // 3.3.2.3
		cols: []outCol{{"no_w_id", "no_w_id", oInt}, {"no_d_id", "no_d_id", oInt}, {"max(no_o_id)", "max(no_o_id)", oInt},
			{"min(no_o_id)", "min(no_o_id)", oInt}, {"count", "count(*)", oInt}},
		keys: 2,
		from: `FROM new_order GROUP BY no_w_id, no_d_id HAVING max(no_o_id) - min(no_o_id) + 1 <> count(*)`},
	{n: 4, name: "sum(O_OL_CNT) = count(ORDER_LINE)", // 3.3.2.4
		cols: []outCol{{"d_w_id", "d.d_w_id", oInt}, {"d_id", "d.d_id", oInt}, {"sum(o_ol_cnt)", "coalesce(o.s, 0)", oInt},
			{"count(order_line)", "coalesce(l.c, 0)", oInt}},
		keys: 2,
		from: `FROM district d
  LEFT JOIN (SELECT o_w_id, o_d_id, sum(o_ol_cnt) AS s FROM orders GROUP BY o_w_id, o_d_id) o ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
  LEFT JOIN (SELECT ol_w_id, ol_d_id, count(*) AS c FROM order_line GROUP BY ol_w_id, ol_d_id) l ON l.ol_w_id = d.d_w_id AND l.ol_d_id = d.d_id
  WHERE coalesce(o.s, 0) <> coalesce(l.c, 0)`},
	{n: 5, name: "O_CARRIER_ID is null iff a NEW_ORDER row exists", full: true, // 3.3.2.5
		cols: []outCol{{"w_id", "coalesce(o.o_w_id, n.no_w_id)", oInt}, {"d_id", "coalesce(o.o_d_id, n.no_d_id)", oInt},
			{"o_id", "coalesce(o.o_id, n.no_o_id)", oInt}, {"order", "CASE WHEN o.o_id IS NULL THEN 0 ELSE 1 END", oSet},
			{"o_carrier_id", "o.o_carrier_id", oInt}, {"new_order", "CASE WHEN n.no_o_id IS NULL THEN 0 ELSE 1 END", oSet}},
		keys: 3,
		from: `FROM orders o FULL JOIN new_order n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id
  WHERE o.o_id IS NULL OR (o.o_carrier_id IS NULL AND n.no_o_id IS NULL) OR (o.o_carrier_id IS NOT NULL AND n.no_o_id IS NOT NULL)`},
	{n: 6, name: "O_OL_CNT = count of the order's ORDER_LINE rows", full: true, // 3.3.2.6
		// Lines grouped per order joined to their order, plus orders without lines: both halves
		// use the primary keys (a FULL JOIN against the aggregate makes SQLite loop).
		cols: []outCol{{"w_id", "l.ol_w_id", oInt}, {"d_id", "l.ol_d_id", oInt}, {"o_id", "l.ol_o_id", oInt},
			{"o_ol_cnt", "o.o_ol_cnt", oInt}, {"count(order_line)", "l.c", oInt}},
		keys: 3,
		from: `FROM (SELECT ol_w_id, ol_d_id, ol_o_id, count(*) AS c FROM order_line GROUP BY ol_w_id, ol_d_id, ol_o_id) l
    LEFT JOIN orders o ON o.o_w_id = l.ol_w_id AND o.o_d_id = l.ol_d_id AND o.o_id = l.ol_o_id
  WHERE o.o_id IS NULL OR o.o_ol_cnt <> l.c
  UNION ALL
  SELECT o.o_w_id, o.o_d_id, o.o_id, o.o_ol_cnt, 0 FROM orders o
  WHERE NOT EXISTS (SELECT 1 FROM order_line ol WHERE ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id)`},
	{n: 7, name: "OL_DELIVERY_D is null iff O_CARRIER_ID is null", full: true, // 3.3.2.7
		cols: []outCol{{"w_id", "o.o_w_id", oInt}, {"d_id", "o.o_d_id", oInt}, {"o_id", "o.o_id", oInt}, {"ol_number", "ol.ol_number", oInt},
			{"o_carrier_id", "o.o_carrier_id", oInt}, {"ol_delivery_d", "CASE WHEN ol.ol_delivery_d IS NULL THEN 0 ELSE 1 END", oSet}},
		keys: 4,
		from: `FROM orders o JOIN order_line ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id
  WHERE (o.o_carrier_id IS NULL AND ol.ol_delivery_d IS NOT NULL) OR (o.o_carrier_id IS NOT NULL AND ol.ol_delivery_d IS NULL)`},
	{n: 8, name: "W_YTD = sum(H_AMOUNT)", // 3.3.2.8
		cols: []outCol{{"w_id", "w.w_id", oInt}, {"w_ytd", "MONEY(w.w_ytd)", oMoney}, {"sum(h_amount)", "MONEY(coalesce(h.s, 0))", oMoney}},
		keys: 1,
		from: `FROM warehouse w LEFT JOIN (SELECT h_w_id, sum(h_amount) AS s FROM history GROUP BY h_w_id) h ON h.h_w_id = w.w_id
  WHERE w.w_ytd <> coalesce(h.s, 0)`},
	{n: 9, name: "D_YTD = sum(H_AMOUNT)", // 3.3.2.9
		cols: []outCol{{"d_w_id", "d.d_w_id", oInt}, {"d_id", "d.d_id", oInt}, {"d_ytd", "MONEY(d.d_ytd)", oMoney},
			{"sum(h_amount)", "MONEY(coalesce(h.s, 0))", oMoney}},
		keys: 2,
		from: `FROM district d LEFT JOIN (SELECT h_w_id, h_d_id, sum(h_amount) AS s FROM history GROUP BY h_w_id, h_d_id) h
    ON h.h_w_id = d.d_w_id AND h.h_d_id = d.d_id
  WHERE d.d_ytd <> coalesce(h.s, 0)`},
	{n: 10, name: "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT)", full: true, // 3.3.2.10
		cols: []outCol{{"c_w_id", "c.c_w_id", oInt}, {"c_d_id", "c.c_d_id", oInt}, {"c_id", "c.c_id", oInt},
			{"c_balance", "MONEY(c.c_balance)", oMoney}, {"sum(ol_amount)", "MONEY(coalesce(ol.s, 0))", oMoney},
			{"sum(h_amount)", "MONEY(coalesce(h.s, 0))", oMoney}},
		keys: 3,
		from: `FROM customer c
  LEFT JOIN ` + deliveredAmounts + ` ol ON ol.w = c.c_w_id AND ol.d = c.c_d_id AND ol.c = c.c_id
  LEFT JOIN (SELECT h_c_w_id AS w, h_c_d_id AS d, h_c_id AS c, sum(h_amount) AS s FROM history GROUP BY h_c_w_id, h_c_d_id, h_c_id) h
    ON h.w = c.c_w_id AND h.d = c.c_d_id AND h.c = c.c_id
  WHERE c.c_balance <> coalesce(ol.s, 0) - coalesce(h.s, 0)`},
	{n: 11, name: "count(ORDER) - count(NEW_ORDER) = 2100", // 3.3.2.11
		cols: []outCol{{"d_w_id", "d.d_w_id", oInt}, {"d_id", "d.d_id", oInt}, {"count(orders)", "coalesce(o.c, 0)", oInt},
			{"count(new_order)", "coalesce(n.c, 0)", oInt}},
		keys: 2,
		from: `FROM district d
  LEFT JOIN (SELECT o_w_id, o_d_id, count(*) AS c FROM orders GROUP BY o_w_id, o_d_id) o ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
  LEFT JOIN (SELECT no_w_id, no_d_id, count(*) AS c FROM new_order GROUP BY no_w_id, no_d_id) n ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
  WHERE coalesce(o.c, 0) - coalesce(n.c, 0) <> ` + "2100"},
	{n: 12, name: "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT)", full: true, // 3.3.2.12
		cols: []outCol{{"c_w_id", "c.c_w_id", oInt}, {"c_d_id", "c.c_d_id", oInt}, {"c_id", "c.c_id", oInt},
			{"c_balance", "MONEY(c.c_balance)", oMoney}, {"c_ytd_payment", "MONEY(c.c_ytd_payment)", oMoney},
			{"sum(ol_amount)", "MONEY(coalesce(ol.s, 0))", oMoney}},
		keys: 3,
		from: `FROM customer c
  LEFT JOIN ` + deliveredAmounts + ` ol ON ol.w = c.c_w_id AND ol.d = c.c_d_id AND ol.c = c.c_id
  WHERE c.c_balance + c.c_ytd_payment <> coalesce(ol.s, 0)`},
}

// maxShown is how many offending rows a check reports.
const maxShown = 10

// sql is the condition's query for a dialect and engine (Dialect.Name): the offending rows, the
// first maxShown in key order, each with the total number of offending rows in front.
func (c *condition) sql(dialect, engine string) string {
	var b strings.Builder
	b.WriteString("SELECT count(*) OVER (), q.* FROM (SELECT ")
	for i, col := range c.cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(moneyExpr(dialect, col.expr))
		b.WriteString(" AS c")
		b.WriteByte(byte('a' + i))
	}
	b.WriteString("\n  ")
	from := c.from
	if f, ok := mysqlCheckFrom[c.n]; ok && (dialect == dialectMySQL || engine == dialectDoltgres) {
		from = f // check_mysql.go
	}
	b.WriteString(from)
	b.WriteString(") q ORDER BY ")
	for i := 0; i < c.keys; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte(byte('2' + i))
	}
	b.WriteString(" LIMIT ")
	b.WriteString(strconv.Itoa(maxShown))
	if engine == dialectDoltgres {
		return doltgresCheckSQL(b.String()) // sql_doltgres.go
	}
	return b.String()
}

// moneyExpr replaces MONEY(x) by x in cents as an integer: (x * 100)::int8 on PostgreSQL, x itself
// on SQLite, where money already is integer cents.
func moneyExpr(dialect, expr string) string {
	const m = "MONEY("
	if !strings.HasPrefix(expr, m) {
		return expr
	}
	inner := expr[len(m) : len(expr)-1]
	if dialect == dialectPostgres {
		return "((" + inner + ") * 100)::int8"
	}
	if dialect == dialectMySQL {
		return "CAST((" + inner + ") * 100 AS SIGNED)"
	}
	return inner
}
