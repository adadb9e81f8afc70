package tpcc

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/gmsstandin"
)

// TestTransactionsDoltStandin runs the five transactions of the MySQL family's dolt dialect against
// go-mysql-server, Dolt's SQL engine, started in-process (internal/gmsstandin): the statements must
// parse, bind and do what they should on the engine Dolt runs. Its in-memory tables scan on every
// key lookup, so a full warehouse (600,000 rows) cannot be loaded there in a test's time: the
// population is a slice of the generated one (every district and warehouse row, 3 customers per
// district with their orders, and the items and stock of standinItems), enough for each
// transaction with chosen inputs. Item ids above 127 and stock quantities that wrap are there on
// purpose: a derived table typed by its first row once left most stock rows of every New-Order
// unchanged on Dolt ("new-order updated 2 stock rows, expected 10").
func TestTransactionsDoltStandin(t *testing.T) {
	parallel(t)
	ctx := context.Background()
	db, err := driver.Open(ctx, gmsstandin.FreshDoltURL(t, "candor_tpcc"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := db.Dialect().Name; got != "dolt" {
		t.Fatalf("the stand-in's URL opened dialect %q, want dolt", got)
	}
	c, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	standinLoad(t, ctx, c, db.Dialect().SQLFamily())
	one := func(q string, args ...any) int64 {
		t.Helper()
		var n int64
		if err := c.QueryRow(ctx, q, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}

	cl := NewClient(db)
	tc, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	iso := driver.IsolationDefault

	// New-Order: ten lines of ten distinct items, ids above 127 among them; each stock row must be
	// updated once (s_order_cnt 0 -> 1) and the order must have its ten lines.
	in := NewOrderInput{WID: 1, DID: 3, CID: 2, OLCnt: 10, EntryD: time.Now().UTC().Truncate(time.Second)}
	for k := range 10 {
		in.Lines[k] = NewOrderLine{ItemID: standinItems[k], SupplyWID: 1, Quantity: 1 + k%10}
	}
	next := one("SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 3")
	if o := cl.NewOrder(ctx, tc, &in, iso); o.Err != nil || o.RolledBack {
		t.Fatalf("New-Order: %+v", o)
	}
	if n := one("SELECT COUNT(*) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 3 AND ol_o_id = ?", next); n != 10 {
		t.Errorf("New-Order wrote %d order lines, want 10", n)
	}
	if n := one("SELECT COUNT(*) FROM stock WHERE s_w_id = 1 AND s_order_cnt = 1"); n != 10 {
		t.Errorf("New-Order updated %d stock rows once, want 10", n)
	}
	if n := one("SELECT SUM(s_ytd) FROM stock WHERE s_w_id = 1"); n != 55 {
		t.Errorf("stock's s_ytd sums to %d after one order of 55 units, want 55", n)
	}
	// A New-Order whose last item is unused rolls back and leaves nothing.
	in.Lines[9].ItemID, in.Rollback = UnusedItemID, true
	if o := cl.NewOrder(ctx, tc, &in, iso); o.Err != nil || !o.RolledBack {
		t.Errorf("New-Order with an unused item: %+v, want a rollback", o)
	}
	if n := one("SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 3"); n != next+1 {
		t.Errorf("d_next_o_id %d after one New-Order and one rolled back, want %d", n, next+1)
	}

	// Payment by id and by last name (the first 1,000 customers' names are LastName(c_id - 1)).
	for _, p := range []PaymentInput{
		{WID: 1, DID: 3, CWID: 1, CDID: 3, CID: 2, AmountCents: 12345},
		{WID: 1, DID: 4, CWID: 1, CDID: 4, ByName: true, CLast: LastName(0), AmountCents: 500},
	} {
		if o := cl.Payment(ctx, tc, &p, iso); o.Err != nil {
			t.Errorf("Payment %+v: %v", p, o.Err)
		}
	}
	if w, d := one("SELECT CAST(w_ytd * 100 AS SIGNED) FROM warehouse WHERE w_id = 1"),
		one("SELECT CAST(SUM(d_ytd) * 100 AS SIGNED) FROM district WHERE d_w_id = 1"); w != d {
		t.Errorf("after two Payments W_YTD %d cents, sum(D_YTD) %d (condition 1)", w, d)
	}
	if n := one("SELECT COUNT(*) FROM history WHERE CAST(h_amount * 100 AS SIGNED) = 12345 AND h_c_id = 2 AND h_d_id = 3"); n != 1 {
		t.Errorf("Payment's history row: %d, want 1", n)
	}

	// Order-Status by id and by name: the customer's latest order (the New-Order above for
	// customer 2 of district 3).
	for k, os := range []OrderStatusInput{{WID: 1, DID: 3, CID: 2}, {WID: 1, DID: 5, ByName: true, CLast: LastName(1)}} {
		if o := cl.OrderStatus(ctx, tc, &os, iso); o.Err != nil {
			t.Errorf("Order-Status %+v: %v", os, o.Err)
		} else if k == 0 && (cl.os.oID != next || cl.os.nLines != 10) {
			t.Errorf("Order-Status of customer 2 in district 3: order %d with %d lines, want the New-Order above, %d with 10", cl.os.oID, cl.os.nLines, next)
		}
	}

	// Delivery: the oldest undelivered order of each district gets its carrier, its lines a date,
	// and its new_order row goes.
	before := one("SELECT COUNT(*) FROM new_order")
	carried := one("SELECT COUNT(*) FROM orders WHERE o_carrier_id = 7")
	o, res := cl.Delivery(ctx, tc, 1, &DeliveryInput{CarrierID: 7}, iso)
	if o.Err != nil {
		t.Fatalf("Delivery: %v", o.Err)
	}
	if after := one("SELECT COUNT(*) FROM new_order"); int(before-after) != res.Delivered || res.Delivered == 0 {
		t.Errorf("Delivery delivered %d districts, new_order went from %d to %d rows", res.Delivered, before, after)
	}
	if n := one("SELECT COUNT(*) FROM orders WHERE o_carrier_id = 7") - carried; int(n) != res.Delivered {
		t.Errorf("%d more orders have the carrier, want %d", n, res.Delivered)
	}
	if n := one("SELECT COUNT(*) FROM customer WHERE c_delivery_cnt = 1"); int(n) != res.Delivered {
		t.Errorf("%d customers have had a delivery, want %d", n, res.Delivered)
	}

	// Stock-Level: the New-Order above left every one of its items with 91..100 - quantity in
	// stock or more; a threshold above that counts them all, one below none.
	for _, c := range []struct{ threshold, want int }{{101, 10}, {1, 0}} {
		o, n := cl.StockLevel(ctx, tc, 1, 3, &StockLevelInput{Threshold: c.threshold}, iso)
		if o.Err != nil || n < c.want || c.want == 0 && n != 0 {
			t.Errorf("Stock-Level threshold %d: %d items (%v), want %d", c.threshold, n, o.Err, c.want)
		}
	}
}

// standinItems are the items (and their stock in warehouse 1) of the stand-in's population: small
// and large ids, so that a statement typed by its first row's values would show it.
var standinItems = []int{5, 17, 128, 230, 4000, 4001, 5000, 7000, 12000, 99999}

// standinLoad creates the schema and copies a slice of the generated population of one warehouse
// (see TestTransactionsDoltStandin) through the bulk path the load uses.
func standinLoad(t *testing.T, ctx context.Context, c driver.Conn, dialect string) {
	t.Helper()
	for _, tb := range tables {
		if _, err := c.Exec(ctx, tb.createSQL(dialect, keysFirst(dialect))); err != nil {
			t.Fatalf("creating %s: %v", tb.name, err)
		}
	}
	item := map[int64]bool{}
	for _, i := range standinItems {
		item[int64(i)] = true
	}
	g := newGenConfig(1, time.Now().UTC().Truncate(time.Second), dialect)
	orders := map[[2]int64]bool{} // (d, o) of the kept orders
	keep := map[string]func(col func(string) int64) bool{
		"item":      func(col func(string) int64) bool { return item[col("i_id")] },
		"stock":     func(col func(string) int64) bool { return item[col("s_i_id")] },
		"warehouse": func(func(string) int64) bool { return true },
		"district":  func(func(string) int64) bool { return true },
		"customer":  func(col func(string) int64) bool { return col("c_id") <= 3 },
		"history":   func(col func(string) int64) bool { return col("h_c_id") <= 3 },
		"orders": func(col func(string) int64) bool {
			if col("o_c_id") > 3 {
				return false
			}
			orders[[2]int64{col("o_d_id"), col("o_id")}] = true
			return true
		},
		"new_order":  func(col func(string) int64) bool { return orders[[2]int64{col("no_d_id"), col("no_o_id")}] },
		"order_line": func(col func(string) int64) bool { return orders[[2]int64{col("ol_d_id"), col("ol_o_id")}] },
	}
	units := []unit{{kind: uWarehouse, w: 1}}
	for p := 0; p*itemChunk < Items; p++ {
		units = append(units, unit{kind: uItem, part: p}, unit{kind: uStock, w: 1, part: p})
	}
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		units = append(units, unit{kind: uCustomer, w: 1, part: d}, unit{kind: uOrders, w: 1, part: d})
	}
	for _, u := range units {
		for _, s := range u.steps(g) {
			f := keep[s.t.name]
			if f == nil {
				t.Fatalf("no filter for table %s", s.t.name)
			}
			if _, err := c.CopyFrom(ctx, s.t.name, s.t.colNames, &filtered{RowSource: s.src, t: s.t, keep: f}); err != nil {
				t.Fatalf("copying %s into %s: %v", u, s.t.name, err)
			}
		}
	}
}

// filtered passes on the rows of a generated source that keep accepts.
type filtered struct {
	driver.RowSource
	t    *table
	keep func(col func(string) int64) bool
	vals []any
}

func (f *filtered) Next() bool {
	for f.RowSource.Next() {
		vals, err := f.RowSource.Values()
		if err != nil {
			return true // Values reports it
		}
		f.vals = vals
		if f.keep(f.col) {
			return true
		}
	}
	return false
}

func (f *filtered) Values() ([]any, error) { return f.RowSource.Values() }

// col is an integer column of the current row.
func (f *filtered) col(name string) int64 {
	for i, n := range f.t.colNames {
		if n == name {
			switch v := f.vals[i].(type) {
			case int64:
				return v
			case int32:
				return int64(v)
			case int:
				return int64(v)
			}
			panic(fmt.Sprintf("%s.%s is a %T", f.t.name, name, f.vals[i]))
		}
	}
	panic("no column " + name + " in " + f.t.name)
}
