package tpcc

import (
	"strconv"
	"strings"

	"github.com/candor-bench/candor/userr"
)

// The nine tables of clause 1.3, with the standard table and column names that other tools' checks
// also expect. The schema is data: DDL for each dialect is built from it.
//
// Types. PostgreSQL gets the exact types of clause 1.3: NUMERIC(p,s) for money and rates, integer
// for identifiers and counters, varchar/char for text, timestamp for dates. SQLite has no exact
// decimal type, so there money columns hold INTEGER cents (300,000.00 is 30000000) and rates
// (w_tax, d_tax, c_discount) INTEGER ten-thousandths (0.1234 is 1234), the same units Go code uses
// everywhere; its timestamps are declared TIMESTAMP.

// colKind is the logical type of a column.
type colKind uint8

const (
	kInt       colKind = iota // identifiers, counters, quantities
	kMoney                    // numeric(p,2) / INTEGER cents
	kRate                     // numeric(4,4) / INTEGER ten-thousandths
	kVarchar                  // variable text of at most n characters
	kChar                     // fixed text of n characters
	kTimestamp                // date and time
)

type column struct {
	name     string
	kind     colKind
	n        int // length of text, precision of money
	nullable bool
}

// table is one table of clause 1.3.
type table struct {
	name string
	cols []column
	// pk is the primary key (clause 1.3); history has none.
	pk []string
	// colNames are the column names in order, for COPY.
	colNames []string
}

// index is a secondary index.
type index struct {
	name, table string
	cols        []string
}

func intc(name string) column           { return column{name: name, kind: kInt} }
func money(name string, p int) column   { return column{name: name, kind: kMoney, n: p} }
func rate(name string) column           { return column{name: name, kind: kRate, n: 4} }
func varchar(name string, n int) column { return column{name: name, kind: kVarchar, n: n} }
func char(name string, n int) column    { return column{name: name, kind: kChar, n: n} }
func stamp(name string) column          { return column{name: name, kind: kTimestamp} }
func null(c column) column              { c.nullable = true; return c }

// address is the street/city/state/zip block shared by warehouse, district and customer.
func address(p string) []column {
	return []column{varchar(p+"_street_1", 20), varchar(p+"_street_2", 20), varchar(p+"_city", 20),
		char(p+"_state", 2), char(p+"_zip", 9)}
}

func cat(parts ...[]column) []column {
	var out []column
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// Clause 1.3.1 to 1.3.9.
var (
	tWarehouse = newTable("warehouse", cat(
		[]column{intc("w_id"), varchar("w_name", 10)}, address("w"),
		[]column{rate("w_tax"), money("w_ytd", 12)}), "w_id")
	tDistrict = newTable("district", cat(
		[]column{intc("d_id"), intc("d_w_id"), varchar("d_name", 10)}, address("d"),
		[]column{rate("d_tax"), money("d_ytd", 12), intc("d_next_o_id")}), "d_w_id", "d_id")
	tCustomer = newTable("customer", cat(
		[]column{intc("c_id"), intc("c_d_id"), intc("c_w_id"), varchar("c_first", 16), char("c_middle", 2),
			varchar("c_last", 16)}, address("c"),
		[]column{char("c_phone", 16), stamp("c_since"), char("c_credit", 2), money("c_credit_lim", 12),
			rate("c_discount"), money("c_balance", 12), money("c_ytd_payment", 12), intc("c_payment_cnt"),
			intc("c_delivery_cnt"), varchar("c_data", 500)}), "c_w_id", "c_d_id", "c_id")
	tHistory = newTable("history", []column{intc("h_c_id"), intc("h_c_d_id"), intc("h_c_w_id"), intc("h_d_id"),
		intc("h_w_id"), stamp("h_date"), money("h_amount", 6), varchar("h_data", 24)})
	tNewOrder = newTable("new_order", []column{intc("no_o_id"), intc("no_d_id"), intc("no_w_id")},
		"no_w_id", "no_d_id", "no_o_id")
	tOrders = newTable("orders", []column{intc("o_id"), intc("o_d_id"), intc("o_w_id"), intc("o_c_id"),
		stamp("o_entry_d"), null(intc("o_carrier_id")), intc("o_ol_cnt"), intc("o_all_local")},
		"o_w_id", "o_d_id", "o_id")
	tOrderLine = newTable("order_line", []column{intc("ol_o_id"), intc("ol_d_id"), intc("ol_w_id"),
		intc("ol_number"), intc("ol_i_id"), intc("ol_supply_w_id"), null(stamp("ol_delivery_d")),
		intc("ol_quantity"), money("ol_amount", 6), char("ol_dist_info", 24)},
		"ol_w_id", "ol_d_id", "ol_o_id", "ol_number")
	tItem = newTable("item", []column{intc("i_id"), intc("i_im_id"), varchar("i_name", 24), money("i_price", 5),
		varchar("i_data", 50)}, "i_id")
	tStock = newTable("stock", cat(
		[]column{intc("s_i_id"), intc("s_w_id"), intc("s_quantity")}, stockDists(),
		[]column{intc("s_ytd"), intc("s_order_cnt"), intc("s_remote_cnt"), varchar("s_data", 50)}),
		"s_w_id", "s_i_id")
)

func stockDists() []column {
	c := make([]column, DistrictsPerWarehouse)
	for i := range c {
		c[i] = char("s_dist_"+twoDigits(i+1), 24)
	}
	return c
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

func newTable(name string, cols []column, pk ...string) *table {
	t := &table{name: name, cols: cols, pk: pk}
	for _, c := range cols {
		t.colNames = append(t.colNames, c.name)
	}
	return t
}

// tables lists the nine tables, in the order they are created and dropped.
var tables = []*table{tWarehouse, tDistrict, tCustomer, tHistory, tNewOrder, tOrders, tOrderLine, tItem, tStock}

// TableNames are the nine TPC-C tables (clause 1.3).
var TableNames = func() []string {
	n := make([]string, len(tables))
	for i, t := range tables {
		n[i] = t.name
	}
	return n
}()

// secondary indexes every serious implementation adds: customers by name (Payment and
// Order-Status by last name, clause 2.5.2.2) and a customer's latest order (Order-Status, 2.6.2.2).
var indexes = []index{
	{name: "customer_name_idx", table: "customer", cols: []string{"c_w_id", "c_d_id", "c_last", "c_first"}},
	{name: "orders_customer_idx", table: "orders", cols: []string{"o_w_id", "o_d_id", "o_c_id", "o_id"}},
}

const (
	dialectPostgres = "postgres"
	dialectSQLite   = "sqlite"
)

// sqliteKeysFirst: on SQLite the tables with a key are created WITHOUT ROWID with their composite
// primary key and filled in key order, instead of rowid tables with unique indexes built after the
// load. Measured with 2 warehouses (1.1 M rows, 2 loaders, this project's 2-core machine): keys
// first 4.11 s and 3.87 s (171 MB file), keys afterwards 3.90 s and 4.67 s (179 MB): no slower, a
// smaller file, and the clustered key is what the transactions want (one B-tree descent per row
// instead of index then table).
var sqliteKeysFirst = true

func checkDialect(d string) error {
	if d != dialectPostgres && d != dialectSQLite && d != dialectMySQL {
		return userr.Errorf("the database kind %q is not supported by the TPC-C workload: use PostgreSQL, MySQL/MariaDB or SQLite", d)
	}
	return nil
}

func (c column) sqlType(dialect string) string {
	if dialect == dialectMySQL {
		return c.mysqlType() // schema_mysql.go
	}
	if dialect == dialectPostgres {
		switch c.kind {
		case kInt:
			return "integer"
		case kMoney:
			return "numeric(" + strconv.Itoa(c.n) + ",2)"
		case kRate:
			return "numeric(4,4)"
		case kVarchar:
			return "varchar(" + strconv.Itoa(c.n) + ")"
		case kChar:
			return "char(" + strconv.Itoa(c.n) + ")"
		case kTimestamp:
			return "timestamp"
		}
	}
	switch c.kind {
	case kInt, kMoney, kRate: // money in cents, rates in ten-thousandths (see the top of this file)
		return "INTEGER"
	case kVarchar:
		return "VARCHAR(" + strconv.Itoa(c.n) + ")"
	case kChar:
		return "CHAR(" + strconv.Itoa(c.n) + ")"
	}
	return "TIMESTAMP"
}

// createSQL is the CREATE TABLE statement. withKey includes the primary key (SQLite, where keys
// come first and keyed tables are WITHOUT ROWID); PostgreSQL adds keys after the data is in.
func (t *table) createSQL(dialect string, withKey bool) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE ")
	b.WriteString(t.name)
	b.WriteString(" (\n")
	for i, c := range t.cols {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("  ")
		b.WriteString(c.name)
		b.WriteByte(' ')
		b.WriteString(c.sqlType(dialect))
		if !c.nullable {
			b.WriteString(" NOT NULL")
		}
	}
	if withKey && len(t.pk) > 0 {
		b.WriteString(",\n  PRIMARY KEY (")
		b.WriteString(strings.Join(t.pk, ", "))
		b.WriteString(")")
	}
	b.WriteString("\n)")
	if withKey && len(t.pk) > 0 && dialect == dialectSQLite {
		b.WriteString(" WITHOUT ROWID")
	}
	if dialect == dialectMySQL {
		b.WriteString(mysqlTableOptions)
	}
	return b.String()
}

func (t *table) pkName() string { return t.name + "_pkey" }

// keySQL builds the primary key after the load. On PostgreSQL the unique index is built with
// CREATE UNIQUE INDEX (which only takes a SHARE lock, so several indexes of one table build at
// once) and then attached as the primary key, which is instantaneous.
func (t *table) keySQL(dialect string) []string {
	if len(t.pk) == 0 {
		return nil
	}
	if dialect == dialectMySQL {
		return []string{"ALTER TABLE " + t.name + " ADD PRIMARY KEY (" + strings.Join(t.pk, ", ") + ")"}
	}
	idx := "CREATE UNIQUE INDEX " + t.pkName() + " ON " + t.name + " (" + strings.Join(t.pk, ", ") + ")"
	if dialect == dialectPostgres {
		return []string{idx, "ALTER TABLE " + t.name + " ADD CONSTRAINT " + t.pkName() + " PRIMARY KEY USING INDEX " + t.pkName()}
	}
	return []string{idx}
}

func (x index) sql() string {
	return "CREATE INDEX " + x.name + " ON " + x.table + " (" + strings.Join(x.cols, ", ") + ")"
}

// keysFirst reports whether a dialect creates its keys with the tables.
func keysFirst(dialect string) bool {
	return dialect == dialectSQLite && sqliteKeysFirst || dialect == dialectMySQL && mysqlKeysFirst
}

// SchemaSQL returns the statements that create the TPC-C schema of a dialect ("postgres",
// "mysql" or "sqlite") as a load leaves it: tables, primary keys and secondary indexes.
func SchemaSQL(dialect string) ([]string, error) {
	if err := checkDialect(dialect); err != nil {
		return nil, err
	}
	first := keysFirst(dialect)
	var out []string
	for _, t := range tables {
		out = append(out, t.createSQL(dialect, first))
	}
	if !first {
		for _, t := range tables {
			out = append(out, t.keySQL(dialect)...)
		}
	}
	for _, x := range indexes {
		out = append(out, x.sql())
	}
	return out, nil
}
