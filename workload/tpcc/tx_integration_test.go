package tpcc

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	_ "github.com/candor-bench/candor/driver/postgres"
	_ "github.com/candor-bench/candor/driver/sqlite"
	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/internal/dbtest"
)

// Integration tests of the five transactions on real engines: a database loaded by Load with one
// warehouse, a few hundred transactions of each type with generated inputs, their effects checked
// one by one, and the consistency conditions of clause 3.3.2 checked afterwards.

const txTestSeed = 20240601

func TestTransactionsSQLite(t *testing.T) {
	parallel(t)
	txExercise(t, sqliteTestDB(t))
}
func TestTransactionsPostgres(t *testing.T) {
	parallel(t)
	db, info := pgLoadedTestDB(t)
	txExerciseLoaded(t, db, info, NewClient)
}
func TestTransactionsMySQL(t *testing.T) {
	parallel(t)
	txExercise(t, mysqlTestDB(t))
}

// TestTransactionsDoltgresOnPostgres: Doltgres's statement forms (sql_doltgres.go), run on
// PostgreSQL (Doltgres has no package the tests can install). The load takes COPY (bulk=copy):
// Doltgres's INSERT path gives the same rows (workload/all TestBulkInsertLoadsTheSameRows) and
// takes twice as long.
func TestTransactionsDoltgresOnPostgres(t *testing.T) {
	parallel(t)
	u, err := url.Parse(dbtest.FreshPostgresURL(t, "candor_test"))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("bulk", "copy")
	u.RawQuery = q.Encode()
	txExercise(t, openAs(t, u.String(), dialectDoltgres))
}

// TestTransactionsMySQLBatches: the same with batches=on (sql_mysql_batch.go).
func TestTransactionsMySQLBatches(t *testing.T) {
	parallel(t)
	txExercise(t, mysqlBatchesTestDB(t))
}

// txEnv is a loaded database with one connection for the transactions and one for checking them.
type txEnv struct {
	t    *testing.T
	ctx  context.Context
	db   driver.DB
	pg   bool
	my   bool        // MySQL: positional ? parameters (see bind)
	conn driver.Conn // the client's
	look driver.Conn // direct queries
	cl   *Client
	// newClient makes the clients of concurrent workers (interactive or procedure mode)
	newClient func(driver.DB) *Client
	c         Constants
	r         *gen.Rand
	iso       driver.Isolation
}

// sql adapts a statement written with $n parameters to the engine (SQLite: ?n).
func (e *txEnv) sql(s string) string {
	if e.pg {
		return s
	}
	if e.my {
		s, _ = e.bind(s, nil)
		return s
	}
	return strings.ReplaceAll(s, "$", "?")
}

// bind adapts a statement with $n parameters and its arguments to the engine: on MySQL each $n
// becomes ? and the arguments are repeated in the order the parameters appear.
func (e *txEnv) bind(s string, args []any) (string, []any) {
	if !e.my {
		return e.sql(s), args
	}
	var b strings.Builder
	var out []any
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) || s[i+1] < '0' || s[i+1] > '9' {
			b.WriteByte(s[i])
			continue
		}
		n := int(s[i+1] - '0')
		i++
		if n >= 1 && n <= len(args) {
			out = append(out, args[n-1])
		}
		b.WriteByte('?')
	}
	return b.String(), out
}

// cents is the expression reading money column col as integer cents.
func (e *txEnv) cents(col string) string {
	if e.pg {
		return "(" + col + " * 100)::int8"
	}
	if e.my {
		return "CAST(" + col + " * 100 AS SIGNED)"
	}
	return col
}

// int64s runs a one-row query of integers.
func (e *txEnv) int64s(query string, args ...any) []int64 {
	e.t.Helper()
	q, args := e.bind(query, args)
	rows, err := e.look.Query(e.ctx, q, args...)
	if err != nil {
		e.t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			e.t.Fatalf("%s: %v", query, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		e.t.Fatalf("%s: %v", query, err)
	}
	return out
}

// one runs a query returning one integer.
func (e *txEnv) one(query string, args ...any) int64 {
	e.t.Helper()
	v := e.int64s(query, args...)
	if len(v) != 1 {
		e.t.Fatalf("%s: %d rows, want 1", query, len(v))
	}
	return v[0]
}

func (e *txEnv) str(query string, args ...any) string {
	e.t.Helper()
	var s string
	q, args := e.bind(query, args)
	if err := e.look.QueryRow(e.ctx, q, args...).Scan(&s); err != nil {
		e.t.Fatalf("%s: %v", query, err)
	}
	return s
}

// byName is the customer Payment and Order-Status must choose for a last name: position ceil(n/2)
// of the matches sorted by c_first, computed here independently of the client.
func (e *txEnv) byName(w, d int, last string) int64 {
	e.t.Helper()
	ids := e.int64s("SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first", w, d, last)
	if len(ids) == 0 {
		e.t.Fatalf("no customer named %s in %d/%d", last, w, d)
	}
	return ids[(len(ids)+1)/2-1]
}

func txLoad(t testing.TB, db driver.DB) LoadInfo {
	t.Helper()
	ctx := context.Background()
	start := time.Now()
	info, err := Load(ctx, db, LoadOptions{Warehouses: 1, Loaders: 2, Seed: txTestSeed, ToolVersion: "test"})
	if err != nil {
		t.Fatalf("loading 1 warehouse: %v", err)
	}
	t.Logf("%s: loaded 1 warehouse in %v", db.Kind(), time.Since(start).Round(time.Millisecond))
	// condition 11 of clause 3.3.2 holds on the initial population only
	if err := MarkRun(ctx, db); err != nil {
		t.Fatalf("MarkRun: %v", err)
	}
	return info
}

func txExercise(t *testing.T, db driver.DB) { txExerciseWith(t, db, NewClient) }

// txExerciseWith runs the tests with the clients newClient makes (the procedure mode's too: it
// creates the procedures after the load).
func txExerciseWith(t *testing.T, db driver.DB, newClient func(driver.DB) *Client) {
	txExerciseLoaded(t, db, txLoad(t, db), newClient)
}

// txExerciseLoaded is txExerciseWith on db holding txLoad's load already (info its LoadInfo).
func txExerciseLoaded(t *testing.T, db driver.DB, info LoadInfo, newClient func(driver.DB) *Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a hang's bound, not a timing
	defer cancel()
	cl := newClient(db)
	if cl.Procedures() {
		if _, err := CreateProcedures(ctx, db); err != nil {
			t.Fatalf("creating the procedures: %v", err)
		}
	}
	conn, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	look, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer look.Close()
	e := &txEnv{t: t, ctx: ctx, db: db, pg: db.Dialect().SQLFamily() == "postgres", my: db.Dialect().Name == "mysql", conn: conn, look: look,
		cl: cl, newClient: newClient, c: RunConstants(txTestSeed, info.C), r: gen.New(gen.Derive(txTestSeed, "tx-test")),
		iso: db.DefaultIsolation()}

	t.Run("NewOrder", e.testNewOrder)
	t.Run("NewOrderStockRule", e.testNewOrderStockRule)
	t.Run("Payment", e.testPayment)
	t.Run("PaymentBadCredit", e.testPaymentBadCredit)
	t.Run("PaymentMissingCustomer", e.testPaymentMissingCustomer)
	t.Run("OrderStatus", e.testOrderStatus)
	t.Run("StockLevel", e.testStockLevel)
	if e.my && !cl.batches && !cl.Procedures() {
		// The dolt dialect's Order-Status and Stock-Level (mysqlOrderStatusDolt, stockLevelDolt),
		// their answers checked against the same references on MySQL's engine.
		t.Run("DoltPlans", func(t *testing.T) {
			saved := e.cl
			defer func() { e.cl = saved }()
			e.cl = newClient(db)
			e.cl.doltPlans = true
			e.testOrderStatus(t)
			e.testStockLevel(t)
		})
	}
	t.Run("Delivery", e.testDelivery)
	t.Run("RoundTrips", e.testRoundTrips)
	t.Run("Concurrent", func(t *testing.T) { e.testConcurrent(t, e.iso, 150) })
	// explicit transactions on PostgreSQL (read committed sends single statements alone)
	t.Run("ConcurrentRepeatableRead", func(t *testing.T) { e.testConcurrent(t, driver.IsolationRepeatableRead, 60) })
	t.Run("Check", e.testCheck)
	t.Run("DeliveryMissingOrder", e.testDeliveryMissingOrder) // last: it breaks the data
}

func (e *txEnv) testNewOrder(t *testing.T) {
	e.t = t
	const n = 300
	var next [DistrictsPerWarehouse + 1]int64
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		next[d] = e.one("SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = $1", d)
	}
	orders0 := e.one("SELECT count(*) FROM orders WHERE o_w_id = 1")
	newOrders0 := e.one("SELECT count(*) FROM new_order WHERE no_w_id = 1")
	lines0 := e.one("SELECT count(*) FROM order_line WHERE ol_w_id = 1")
	var committed, rolledBack, lines int64
	var perDistrict [DistrictsPerWarehouse + 1]int64
	var in NewOrderInput
	for i := 0; i < n; i++ {
		GenNewOrder(e.r, e.c, 1, 1, &in)
		if i%50 == 7 { // a few more rollbacks than the 1% would give
			in.Rollback = true
			in.Lines[in.OLCnt-1].ItemID = UnusedItemID
		}
		out := e.cl.NewOrder(e.ctx, e.conn, &in, e.iso)
		if out.Err != nil {
			t.Fatalf("new-order %d (%+v): %v", i, in, out.Err)
		}
		if out.RolledBack != in.Rollback {
			t.Fatalf("new-order %d: rolled back %v, input rollback %v", i, out.RolledBack, in.Rollback)
		}
		if out.RolledBack {
			rolledBack++
			// nothing of it remains: the district's next o_id did not move, and no order has it
			nextID := e.one("SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = $1", in.DID)
			if nextID != next[in.DID]+perDistrict[in.DID] {
				t.Fatalf("rolled-back new-order moved d_next_o_id to %d", nextID)
			}
			if got := e.one("SELECT count(*) FROM orders WHERE o_w_id = 1 AND o_d_id = $1 AND o_id >= $2", in.DID, nextID); got != 0 {
				t.Fatalf("rolled-back new-order left %d orders", got)
			}
			continue
		}
		if e.cl.no.oID != next[in.DID]+perDistrict[in.DID] {
			t.Fatalf("new-order got o_id %d, want %d", e.cl.no.oID, next[in.DID]+perDistrict[in.DID])
		}
		if e.cl.no.total <= 0 {
			t.Fatalf("new-order total %d", e.cl.no.total)
		}
		committed++
		perDistrict[in.DID]++
		lines += int64(in.OLCnt)
	}
	if rolledBack < 6 || committed+rolledBack != n {
		t.Fatalf("%d committed, %d rolled back of %d", committed, rolledBack, n)
	}
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		if got := e.one("SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = $1", d); got != next[d]+perDistrict[d] {
			t.Errorf("district %d: d_next_o_id %d, want %d + %d committed", d, got, next[d], perDistrict[d])
		}
	}
	if got := e.one("SELECT count(*) FROM orders WHERE o_w_id = 1"); got != orders0+committed {
		t.Errorf("orders: %d, want %d + %d", got, orders0, committed)
	}
	if got := e.one("SELECT count(*) FROM new_order WHERE no_w_id = 1"); got != newOrders0+committed {
		t.Errorf("new_order: %d, want %d + %d", got, newOrders0, committed)
	}
	if got := e.one("SELECT count(*) FROM order_line WHERE ol_w_id = 1"); got != lines0+lines {
		t.Errorf("order_line: %d, want %d + %d", got, lines0, lines)
	}
}

// An order naming one item twice from the home warehouse and once from a remote one: the stock rule
// is applied line by line to the same row, each row is written once, and the lines carry the right
// amounts and district info. Warehouse 2 has only the one stock row this order needs.
func (e *txEnv) testNewOrderStockRule(t *testing.T) {
	e.t = t
	const item, other, d = 4242, 777, 3
	e.one("SELECT count(*) FROM stock WHERE s_w_id = 1") // connection warm
	cols := "s_i_id, s_w_id, s_quantity, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10, s_ytd, s_order_cnt, s_remote_cnt, s_data"
	if _, err := e.look.Exec(e.ctx, e.sql("INSERT INTO stock ("+cols+") SELECT "+strings.Replace(cols, "s_w_id", "2", 1)+
		" FROM stock WHERE s_w_id = 1 AND s_i_id = $1"), other); err != nil {
		t.Fatal(err)
	}
	// quantities: first 3, then up to 9 so that the second line crosses the "10 or more" rule when
	// the stock is low; set the stock to 15 to know the outcome: 15-3 = 12 >= 10 -> 12; 12-9 = 3 < 10 -> 3+91 = 94
	if _, err := e.look.Exec(e.ctx, e.sql("UPDATE stock SET s_quantity = 15 WHERE s_w_id = 1 AND s_i_id = $1"), item); err != nil {
		t.Fatal(err)
	}
	type stockVals struct{ qty, ytd, cnt, rem int64 }
	read := func(w, i int) stockVals {
		return stockVals{
			e.one("SELECT s_quantity FROM stock WHERE s_w_id = $1 AND s_i_id = $2", w, i),
			e.one("SELECT s_ytd FROM stock WHERE s_w_id = $1 AND s_i_id = $2", w, i),
			e.one("SELECT s_order_cnt FROM stock WHERE s_w_id = $1 AND s_i_id = $2", w, i),
			e.one("SELECT s_remote_cnt FROM stock WHERE s_w_id = $1 AND s_i_id = $2", w, i)}
	}
	before, beforeRemote := read(1, item), read(2, other)
	in := NewOrderInput{WID: 1, DID: d, CID: 17, OLCnt: 3, RemoteLines: 1}
	in.Lines[0] = NewOrderLine{ItemID: item, SupplyWID: 1, Quantity: 3}
	in.Lines[1] = NewOrderLine{ItemID: other, SupplyWID: 2, Quantity: 5}
	in.Lines[2] = NewOrderLine{ItemID: item, SupplyWID: 1, Quantity: 9}
	out := e.cl.NewOrder(e.ctx, e.conn, &in, e.iso)
	if out.Err != nil || out.RolledBack {
		t.Fatalf("new-order: %+v", out)
	}
	after, afterRemote := read(1, item), read(2, other)
	if want := (stockVals{94, before.ytd + 12, before.cnt + 2, before.rem}); after != want {
		t.Errorf("stock (1, %d): %+v, want %+v", item, after, want)
	}
	wantRemote := stockVals{newQty(beforeRemote.qty, 5), beforeRemote.ytd + 5, beforeRemote.cnt + 1, beforeRemote.rem + 1}
	if afterRemote != wantRemote {
		t.Errorf("stock (2, %d): %+v, want %+v", other, afterRemote, wantRemote)
	}
	o := e.cl.no.oID
	if got := e.one("SELECT o_all_local FROM orders WHERE o_w_id = 1 AND o_d_id = $1 AND o_id = $2", d, o); got != 0 {
		t.Errorf("o_all_local %d with a remote line", got)
	}
	if got := e.one("SELECT o_ol_cnt FROM orders WHERE o_w_id = 1 AND o_d_id = $1 AND o_id = $2", d, o); got != 3 {
		t.Errorf("o_ol_cnt %d", got)
	}
	var sum int64
	for l := 1; l <= 3; l++ {
		line := in.Lines[l-1]
		price := e.one("SELECT "+e.cents("i_price")+" FROM item WHERE i_id = $1", line.ItemID)
		amount := e.one("SELECT "+e.cents("ol_amount")+" FROM order_line WHERE ol_w_id = 1 AND ol_d_id = $1 AND ol_o_id = $2 AND ol_number = $3", d, o, l)
		if amount != price*int64(line.Quantity) {
			t.Errorf("line %d: amount %d, want %d x %d", l, amount, line.Quantity, price)
		}
		sum += amount
		dist := e.str("SELECT ol_dist_info FROM order_line WHERE ol_w_id = 1 AND ol_d_id = $1 AND ol_o_id = $2 AND ol_number = $3", d, o, l)
		want := e.str("SELECT s_dist_03 FROM stock WHERE s_w_id = $1 AND s_i_id = $2", line.SupplyWID, line.ItemID)
		if dist != want {
			t.Errorf("line %d: dist_info %q, want s_dist_03 %q", l, dist, want)
		}
		if got := e.one("SELECT ol_supply_w_id FROM order_line WHERE ol_w_id = 1 AND ol_d_id = $1 AND ol_o_id = $2 AND ol_number = $3", d, o, l); got != int64(line.SupplyWID) {
			t.Errorf("line %d: supply warehouse %d", l, got)
		}
		// brand-generic (clause 2.4.2.2): "B" when item and stock data both contain ORIGINAL
		iData := e.str("SELECT i_data FROM item WHERE i_id = $1", line.ItemID)
		sData := e.str("SELECT s_data FROM stock WHERE s_w_id = $1 AND s_i_id = $2", line.SupplyWID, line.ItemID)
		wantBrand := byte('G')
		if strings.Contains(iData, "ORIGINAL") && strings.Contains(sData, "ORIGINAL") {
			wantBrand = 'B'
		}
		if got := e.cl.no.brand[l-1]; got != wantBrand {
			t.Errorf("line %d: brand %c, want %c (i_data %q, s_data %q)", l, got, wantBrand, iData, sData)
		}
	}
	st := &e.cl.no
	want := (sum*(10000-st.cDiscount)*(10000+st.wTax+st.dTax) + 50_000_000) / 100_000_000
	if st.total != want || st.total <= 0 {
		t.Errorf("total %d, want %d", st.total, want)
	}
}

func newQty(q, ol int64) int64 {
	if q-ol >= 10 {
		return q - ol
	}
	return q - ol + 91
}

func (e *txEnv) testPayment(t *testing.T) {
	e.t = t
	const n = 300
	wytd0 := e.one("SELECT " + e.cents("w_ytd") + " FROM warehouse WHERE w_id = 1")
	dytd0 := e.one("SELECT " + e.cents("sum(d_ytd)") + " FROM district WHERE d_w_id = 1")
	hist0 := e.one("SELECT count(*) FROM history")
	var in PaymentInput
	var total int64
	byName := 0
	for i := 0; i < n; i++ {
		GenPayment(e.r, e.c, 1, 1, &in)
		cid := int64(in.CID)
		if in.ByName {
			cid = e.byName(in.CWID, in.CDID, in.CLast)
			byName++
		}
		q := "SELECT %s FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3"
		bal := strings.Replace(q, "%s", e.cents("c_balance"), 1)
		ytd := strings.Replace(q, "%s", e.cents("c_ytd_payment"), 1)
		cnt := strings.Replace(q, "%s", "c_payment_cnt", 1)
		b0, y0, c0 := e.one(bal, in.CWID, in.CDID, cid), e.one(ytd, in.CWID, in.CDID, cid), e.one(cnt, in.CWID, in.CDID, cid)
		out := e.cl.Payment(e.ctx, e.conn, &in, e.iso)
		if out.Err != nil || out.RolledBack {
			t.Fatalf("payment %d (%+v): %+v", i, in, out)
		}
		if int64(e.cl.pay.c.id) != cid {
			t.Fatalf("payment %d chose customer %d, want %d (by name %v)", i, e.cl.pay.c.id, cid, in.ByName)
		}
		b1, y1, c1 := e.one(bal, in.CWID, in.CDID, cid), e.one(ytd, in.CWID, in.CDID, cid), e.one(cnt, in.CWID, in.CDID, cid)
		if b1 != b0-in.AmountCents || y1 != y0+in.AmountCents || c1 != c0+1 {
			t.Fatalf("payment %d of %d cents: balance %d -> %d, ytd %d -> %d, count %d -> %d", i, in.AmountCents, b0, b1, y0, y1, c0, c1)
		}
		if e.cl.pay.c.balance != b1 {
			t.Fatalf("payment returned balance %d, table has %d", e.cl.pay.c.balance, b1)
		}
		total += in.AmountCents
	}
	if byName == 0 || byName == n {
		t.Fatalf("%d of %d payments by name", byName, n)
	}
	if got := e.one("SELECT " + e.cents("w_ytd") + " FROM warehouse WHERE w_id = 1"); got != wytd0+total {
		t.Errorf("w_ytd %d, want %d + %d", got, wytd0, total)
	}
	if got := e.one("SELECT " + e.cents("sum(d_ytd)") + " FROM district WHERE d_w_id = 1"); got != dytd0+total {
		t.Errorf("sum(d_ytd) %d, want %d + %d", got, dytd0, total)
	}
	if got := e.one("SELECT count(*) FROM history"); got != hist0+n {
		t.Errorf("history rows %d, want %d + %d", got, hist0, n)
	}
	wName := e.str("SELECT w_name FROM warehouse WHERE w_id = 1")
	dName := e.str("SELECT d_name FROM district WHERE d_w_id = 1 AND d_id = $1", in.DID)
	if got := e.str("SELECT h_data FROM history WHERE h_c_w_id = $1 AND h_c_d_id = $2 AND h_c_id = $3 AND h_amount = "+map[bool]string{true: "$4 * 0.01", false: "$4"}[e.pg || e.my]+" AND h_d_id = $5",
		in.CWID, in.CDID, e.cl.pay.c.id, in.AmountCents, in.DID); got != wName+"    "+dName {
		t.Errorf("h_data %q, want %q", got, wName+"    "+dName)
	}
}

// Clause 2.5.2.2: a bad-credit customer's c_data gets the payment at its left and stays within 500
// characters; a good-credit customer's does not change.
func (e *txEnv) testPaymentBadCredit(t *testing.T) {
	e.t = t
	for _, credit := range []string{"BC", "GC"} {
		cid := e.one("SELECT min(c_id) FROM customer WHERE c_w_id = 1 AND c_d_id = 4 AND c_credit = $1", credit)
		data0 := e.str("SELECT c_data FROM customer WHERE c_w_id = 1 AND c_d_id = 4 AND c_id = $1", cid)
		in := PaymentInput{WID: 1, DID: 6, CWID: 1, CDID: 4, CID: int(cid), AmountCents: 123405}
		if out := e.cl.Payment(e.ctx, e.conn, &in, e.iso); out.Err != nil {
			t.Fatal(out.Err)
		}
		data1 := e.str("SELECT c_data FROM customer WHERE c_w_id = 1 AND c_d_id = 4 AND c_id = $1", cid)
		if credit == "GC" {
			if data1 != data0 || e.cl.pay.c.data != "" {
				t.Errorf("good credit: c_data changed or returned")
			}
			continue
		}
		prefix := itoa(cid) + " 4 1 6 1 1234.05 "
		want := prefix + data0
		if len(want) > 500 {
			want = want[:500]
		}
		if data1 != want {
			t.Errorf("bad credit c_data:\n got %q\nwant %q", data1, want)
		}
		if e.cl.pay.c.data != want[:min(200, len(want))] {
			t.Errorf("returned c_data %q", e.cl.pay.c.data)
		}
		if e.cl.pay.c.credit != "BC" {
			t.Errorf("returned credit %q", e.cl.pay.c.credit)
		}
	}
}

// A Payment whose customer does not exist fails as a whole: the warehouse and district totals and
// the history stay as they were (on PostgreSQL at read committed this is one statement sent alone).
func (e *txEnv) testPaymentMissingCustomer(t *testing.T) {
	e.t = t
	wytd := "SELECT " + e.cents("w_ytd") + " FROM warehouse WHERE w_id = 1"
	dytd := "SELECT " + e.cents("d_ytd") + " FROM district WHERE d_w_id = 1 AND d_id = 2"
	w0, d0, h0 := e.one(wytd), e.one(dytd), e.one("SELECT count(*) FROM history")
	for _, in := range []PaymentInput{
		{WID: 1, DID: 2, CWID: 1, CDID: 2, CID: CustomersPerDistrict + 1, AmountCents: 5000},
		{WID: 1, DID: 2, CWID: 1, CDID: 2, ByName: true, CLast: "NOSUCHNAME", AmountCents: 5000},
	} {
		out := e.cl.Payment(e.ctx, e.conn, &in, e.iso)
		if !errors.Is(out.Err, errNotFound) {
			t.Errorf("payment to a missing customer (%+v): %+v", in, out)
		}
	}
	if w1, d1, h1 := e.one(wytd), e.one(dytd), e.one("SELECT count(*) FROM history"); w1 != w0 || d1 != d0 || h1 != h0 {
		t.Errorf("a failed payment left changes: w_ytd %d -> %d, d_ytd %d -> %d, history %d -> %d", w0, w1, d0, d1, h0, h1)
	}
	if e.cl.pg && (e.cl.rcConn != e.conn || !e.cl.rcOK) {
		t.Errorf("at read committed the single-statement path was not taken")
	}
	// and the connection is usable afterwards
	in := PaymentInput{WID: 1, DID: 2, CWID: 1, CDID: 2, CID: 1, AmountCents: 100}
	if out := e.cl.Payment(e.ctx, e.conn, &in, e.iso); out.Err != nil {
		t.Errorf("payment after a failed one: %v", out.Err)
	}
}

func itoa(v int64) string {
	s := ""
	for {
		s = string(rune('0'+v%10)) + s
		v /= 10
		if v == 0 {
			return s
		}
	}
}

func (e *txEnv) testOrderStatus(t *testing.T) {
	e.t = t
	var in OrderStatusInput
	for i := 0; i < 200; i++ {
		GenOrderStatus(e.r, e.c, 1, 1, &in)
		cid := int64(in.CID)
		if in.ByName {
			cid = e.byName(1, in.DID, in.CLast)
		}
		out := e.cl.OrderStatus(e.ctx, e.conn, &in, e.iso)
		if out.Err != nil {
			t.Fatalf("order-status %+v: %v", in, out.Err)
		}
		st := &e.cl.os
		if int64(st.cID) != cid {
			t.Fatalf("order-status chose customer %d, want %d", st.cID, cid)
		}
		want := e.one("SELECT max(o_id) FROM orders WHERE o_w_id = 1 AND o_d_id = $1 AND o_c_id = $2", in.DID, cid)
		if st.oID != want {
			t.Fatalf("order-status of %d/%d: order %d, want %d", in.DID, cid, st.oID, want)
		}
		if cnt := e.one("SELECT o_ol_cnt FROM orders WHERE o_w_id = 1 AND o_d_id = $1 AND o_id = $2", in.DID, want); int64(st.nLines) != cnt {
			t.Fatalf("order %d: %d lines read, o_ol_cnt %d", want, st.nLines, cnt)
		}
		carrier := e.one("SELECT coalesce(o_carrier_id, 0) FROM orders WHERE o_w_id = 1 AND o_d_id = $1 AND o_id = $2", in.DID, want)
		if int64(st.carrierID) != carrier {
			t.Fatalf("carrier %d, want %d", st.carrierID, carrier)
		}
		for l := 0; l < st.nLines; l++ {
			ln := st.lines[l]
			if ln.delivered != (carrier != 0) || ln.itemID < 1 || ln.quantity < 1 || ln.delivered && ln.deliveryD.IsZero() {
				t.Fatalf("order %d line %d: %+v (carrier %d)", want, l+1, ln, carrier)
			}
		}
		if bal := e.one("SELECT "+e.cents("c_balance")+" FROM customer WHERE c_w_id = 1 AND c_d_id = $1 AND c_id = $2", in.DID, cid); bal != st.balance {
			t.Fatalf("balance %d, want %d", st.balance, bal)
		}
	}
}

func (e *txEnv) testStockLevel(t *testing.T) {
	e.t = t
	const ref = `SELECT count(*) FROM (SELECT DISTINCT ol_i_id FROM order_line
		WHERE ol_w_id = 1 AND ol_d_id = $1
		AND ol_o_id >= (SELECT d_next_o_id - 20 FROM district WHERE d_w_id = 1 AND d_id = $1)
		AND ol_o_id < (SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = $1)) x
		WHERE (SELECT s_quantity FROM stock WHERE s_w_id = 1 AND s_i_id = x.ol_i_id) < $2`
	var in StockLevelInput
	nonZero := 0
	for i := 0; i < 200; i++ {
		GenStockLevel(e.r, e.c, 1, 1, &in)
		d := 1 + i%DistrictsPerWarehouse
		out, n := e.cl.StockLevel(e.ctx, e.conn, 1, d, &in, driver.IsolationReadCommitted)
		if out.Err != nil {
			t.Fatal(out.Err)
		}
		if want := e.one(ref, d, in.Threshold); int64(n) != want {
			t.Fatalf("stock-level %d/%d below %d: %d, want %d", 1, d, in.Threshold, n, want)
		}
		if n > 0 {
			nonZero++
		}
	}
	if nonZero == 0 {
		t.Errorf("every stock-level counted 0 items")
	}
}

// Deliveries until every district is empty: each takes the oldest order of each district, they
// deliver exactly the undelivered orders, and an empty district is skipped and counted.
func (e *txEnv) testDelivery(t *testing.T) {
	e.t = t
	pending := e.one("SELECT count(*) FROM new_order WHERE no_w_id = 1")
	oldest := e.int64s("SELECT min(no_o_id) FROM new_order WHERE no_w_id = 1 GROUP BY no_d_id ORDER BY no_d_id")
	var in DeliveryInput
	GenDelivery(e.r, e.c, 1, 1, &in)
	out, res := e.cl.Delivery(e.ctx, e.conn, 1, &in, e.iso)
	want := DeliveryResult{Delivered: 10}
	for d := range want.OIDs { // the O_ID delivered in each district, for the result file
		want.OIDs[d] = int32(oldest[d])
	}
	if out.Err != nil || res != want {
		t.Fatalf("first delivery: %+v %+v, want %+v", out, res, want)
	}
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		o := oldest[d-1]
		if c := e.one("SELECT o_carrier_id FROM orders WHERE o_w_id = 1 AND o_d_id = $1 AND o_id = $2", d, o); c != int64(in.CarrierID) {
			t.Errorf("district %d order %d: carrier %d, want %d", d, o, c, in.CarrierID)
		}
		if n := e.one("SELECT count(*) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = $1 AND ol_o_id = $2 AND ol_delivery_d IS NULL", d, o); n != 0 {
			t.Errorf("district %d order %d: %d lines undelivered", d, o, n)
		}
		if n := e.one("SELECT count(*) FROM new_order WHERE no_w_id = 1 AND no_d_id = $1 AND no_o_id <= $2", d, o); n != 0 {
			t.Errorf("district %d: new_order rows up to %d remain", d, o)
		}
	}
	// Then Delivery after Delivery until every district is empty: each names, per district, the
	// oldest order still undelivered (the one after the order it named before) or none, and the
	// carrier each order got is read back at the end, in one query per district.
	delivered := int64(res.Delivered)
	carrier := make([]map[int64]int64, DistrictsPerWarehouse) // per district: o_id -> carrier
	last := make([]int64, DistrictsPerWarehouse)              // per district: the last o_id delivered
	for d := range carrier {
		carrier[d] = map[int64]int64{oldest[d]: int64(in.CarrierID)}
		last[d] = oldest[d]
	}
	for i := 0; ; i++ {
		if i > 2000 {
			t.Fatalf("still delivering after %d deliveries", i)
		}
		GenDelivery(e.r, e.c, 1, 1, &in)
		out, res := e.cl.Delivery(e.ctx, e.conn, 1, &in, e.iso)
		if out.Err != nil {
			t.Fatal(out.Err)
		}
		if res.Delivered+res.Skipped != DistrictsPerWarehouse {
			t.Fatalf("delivery result %+v", res)
		}
		for d, o := range res.OIDs {
			if o == 0 {
				continue
			}
			if int64(o) != last[d]+1 {
				t.Fatalf("district %d: delivery %d took order %d after %d, not the oldest undelivered", d+1, i+2, o, last[d])
			}
			last[d] = int64(o)
			carrier[d][int64(o)] = int64(in.CarrierID)
		}
		delivered += int64(res.Delivered)
		if res.Skipped == DistrictsPerWarehouse {
			break
		}
	}
	if delivered != pending {
		t.Errorf("delivered %d orders, %d were pending", delivered, pending)
	}
	if n := e.one("SELECT count(*) FROM new_order"); n != 0 {
		t.Errorf("%d new_order rows left", n)
	}
	for d := range carrier {
		ids := e.int64s("SELECT o_id FROM orders WHERE o_w_id = 1 AND o_d_id = $1 AND o_id >= $2 ORDER BY o_id", d+1, oldest[d])
		cs := e.int64s("SELECT o_carrier_id FROM orders WHERE o_w_id = 1 AND o_d_id = $1 AND o_id >= $2 ORDER BY o_id", d+1, oldest[d])
		if len(ids) != len(carrier[d]) || len(cs) != len(ids) {
			t.Fatalf("district %d: %d orders from %d on, %d delivered", d+1, len(ids), oldest[d], len(carrier[d]))
		}
		for k, o := range ids {
			if want, ok := carrier[d][o]; !ok || cs[k] != want {
				t.Fatalf("district %d order %d: carrier %d, want %d (delivered: %v)", d+1, o, cs[k], want, ok)
			}
		}
		if n := e.one("SELECT count(*) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = $1 AND ol_o_id >= $2 AND ol_delivery_d IS NULL", d+1, oldest[d]); n != 0 {
			t.Errorf("district %d: %d lines of delivered orders undelivered", d+1, n)
		}
	}
	// one new order in district 5: the next delivery takes it and skips the nine others
	var no NewOrderInput
	GenNewOrder(e.r, e.c, 1, 1, &no)
	no.DID, no.Rollback = 5, false
	for l := 0; l < no.OLCnt; l++ {
		if no.Lines[l].ItemID == UnusedItemID {
			no.Lines[l].ItemID = 1
		}
	}
	if out := e.cl.NewOrder(e.ctx, e.conn, &no, e.iso); out.Err != nil || out.RolledBack {
		t.Fatalf("new-order: %+v", out)
	}
	oID := e.one("SELECT max(o_id) FROM orders WHERE o_w_id = 1 AND o_d_id = 5")
	out, res = e.cl.Delivery(e.ctx, e.conn, 1, &in, e.iso)
	want = DeliveryResult{Delivered: 1, Skipped: 9}
	want.OIDs[4] = int32(oID)
	if out.Err != nil || res != want {
		t.Fatalf("delivery after one new order: %+v %+v, want %+v", out, res, want)
	}
}

// Four workers run the deck's mix at once on one warehouse, all of them delivering it too: no error
// but serialization failures that outlast MaxRetries (possible at repeatable read, where every
// Payment updates the one warehouse row; at most 5% of them), and the database stays consistent
// (checked by testCheck).
func (e *txEnv) testConcurrent(t *testing.T, iso driver.Isolation, perWorker int) {
	e.t = t
	const workers = 4
	var wg sync.WaitGroup
	errs := make(chan error, workers*perWorker)
	var retryable atomic.Int64
	var mu sync.Mutex
	var total Audit
	for k := 0; k < workers; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			conn, err := e.db.Connect(e.ctx)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close()
			cl := e.newClient(e.db)
			r := gen.New(gen.Derive(txTestSeed, "concurrent", string(iso), k))
			var deck Deck
			var a Audit
			var no NewOrderInput
			var pay PaymentInput
			var os OrderStatusInput
			var dl DeliveryInput
			var sl StockLevelInput
			for i := 0; i < perWorker; i++ {
				var out Outcome
				switch op := deck.Next(r); op {
				case NewOrder:
					GenNewOrder(r, e.c, 1, 1, &no)
					out = cl.NewOrder(e.ctx, conn, &no, iso)
					a.AddNewOrder(&no)
				case Payment:
					GenPayment(r, e.c, 1, 1, &pay)
					out = cl.Payment(e.ctx, conn, &pay, iso)
					a.AddPayment(&pay)
				case OrderStatus:
					GenOrderStatus(r, e.c, 1, 1, &os)
					out = cl.OrderStatus(e.ctx, conn, &os, iso)
					a.AddOrderStatus(&os)
				case Delivery:
					GenDelivery(r, e.c, 1, 1, &dl)
					var res DeliveryResult
					out, res = cl.Delivery(e.ctx, conn, 1, &dl, iso)
					a.AddDelivery(res.Skipped)
				case StockLevel:
					GenStockLevel(r, e.c, 1, 1, &sl)
					out, _ = cl.StockLevel(e.ctx, conn, 1, 1+k, &sl, iso)
					a.AddStockLevel()
				}
				if out.Err != nil {
					if e.db.Classify(out.Err) == driver.ErrRetry && out.Retries == MaxRetries {
						retryable.Add(1)
						continue
					}
					errs <- out.Err
					return
				}
			}
			mu.Lock()
			total.Merge(&a)
			mu.Unlock()
		}(k)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if total.Transactions() != int64(workers*perWorker) {
		t.Errorf("%d transactions counted, want %d", total.Transactions(), workers*perWorker)
	}
	if n := retryable.Load(); n > int64(workers*perWorker/20) {
		t.Errorf("%d of %d transactions failed after %d retries", n, workers*perWorker, MaxRetries)
	} else if n > 0 {
		t.Logf("%d of %d transactions failed after %d retries (%s)", n, workers*perWorker, MaxRetries, iso)
	}
}

// A Delivery that meets a new_order row without its lines, its customer or its order fails as a
// whole: no district is delivered, whichever engine (on PostgreSQL at read committed it is one
// statement sent alone). Each case breaks the oldest order of one district; after it, that order's
// new_order row is removed so that the next case meets only its own breakage.
func (e *txEnv) testDeliveryMissingOrder(t *testing.T) {
	e.t = t
	var no NewOrderInput
	for d := 1; d <= DistrictsPerWarehouse; d++ { // one undelivered order per district
		GenNewOrder(e.r, e.c, 1, 1, &no)
		no.DID, no.Rollback = d, false
		for l := 0; l < no.OLCnt; l++ {
			if no.Lines[l].ItemID == UnusedItemID {
				no.Lines[l].ItemID = 1
			}
		}
		if out := e.cl.NewOrder(e.ctx, e.conn, &no, e.iso); out.Err != nil || out.RolledBack {
			t.Fatalf("new-order: %+v", out)
		}
	}
	oldest := func(d int) string {
		return "(SELECT min(no_o_id) FROM new_order WHERE no_w_id = 1 AND no_d_id = " + itoa(int64(d)) + ")"
	}
	for _, c := range []struct {
		what string
		d    int
		sql  string // breaks district d's oldest order
	}{
		{"no lines", 3, "DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 3 AND ol_o_id = " + oldest(3)},
		{"no customer", 5, "DELETE FROM customer WHERE c_w_id = 1 AND c_d_id = 5 AND c_id = " +
			"(SELECT o_c_id FROM orders WHERE o_w_id = 1 AND o_d_id = 5 AND o_id = " + oldest(5) + ")"},
		{"no order", 7, "DELETE FROM orders WHERE o_w_id = 1 AND o_d_id = 7 AND o_id = " + oldest(7)},
	} {
		state := func() [4]int64 {
			return [4]int64{
				e.one("SELECT count(*) FROM new_order WHERE no_w_id = 1"),
				e.one("SELECT count(*) FROM orders WHERE o_w_id = 1 AND o_carrier_id IS NOT NULL"),
				e.one("SELECT count(*) FROM order_line WHERE ol_w_id = 1 AND ol_delivery_d IS NOT NULL"),
				e.one("SELECT sum(c_delivery_cnt) FROM customer WHERE c_w_id = 1"),
			}
		}
		if n, err := e.look.Exec(e.ctx, c.sql); err != nil || n == 0 {
			t.Fatalf("%s: breaking district %d: %d rows, %v", c.what, c.d, n, err)
		}
		before := state()
		in := DeliveryInput{CarrierID: 4}
		out, res := e.cl.Delivery(e.ctx, e.conn, 1, &in, e.iso)
		if out.Err == nil {
			t.Fatalf("%s: delivery over a broken order succeeded: %+v", c.what, res)
		}
		t.Logf("%s: the expected error: %v", c.what, out.Err)
		if after := state(); after != before {
			t.Errorf("%s: the failed delivery changed (pending, carried, lines delivered, customer deliveries) from %v to %v", c.what, before, after)
		}
		if _, err := e.look.Exec(e.ctx, "DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = "+itoa(int64(c.d))+" AND no_o_id = "+
			"(SELECT o FROM (SELECT min(no_o_id) AS o FROM new_order WHERE no_w_id = 1 AND no_d_id = "+itoa(int64(c.d))+") x)"); err != nil {
			t.Fatal(err)
		}
	}
}

func (e *txEnv) testCheck(t *testing.T) {
	e.t = t
	results, err := Check(e.ctx, e.db, CheckOptions{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		switch {
		case r.Condition == 11:
			if !r.Skipped {
				t.Errorf("condition 11 was checked after a run (OK %v)", r.OK)
			}
		case r.Skipped:
			t.Errorf("condition %d (%s) skipped: %s", r.Condition, r.Name, r.Reason)
		case !r.OK:
			t.Errorf("condition %d (%s) violated (%d rows): %v", r.Condition, r.Name, r.Count, r.Violations)
		}
	}
	for _, r := range results {
		t.Logf("condition %d %s: %v", r.Condition, r.Name, r.Duration.Round(time.Millisecond))
	}
	if len(results) != 12 {
		t.Errorf("%d conditions checked, want 12", len(results))
	}
}

// testRoundTrips: the round trips each transaction takes on the MySQL family, batched (the
// engine's batches, sql_mysql_batch.go) and one by one (sql_mysql.go, as on Dolt), as the code and
// docs/databases.md state them; the transactions' effects are checked by the other tests.
func (e *txEnv) testRoundTrips(t *testing.T) {
	e.t = t
	if e.db.Dialect().SQLFamily() != driver.FamilyMySQL || e.cl.Procedures() {
		return // the MySQL family's interactive transactions only: nothing to count on the others
	}
	_, pipes := e.conn.(driver.Pipeliner)
	if pipes && e.conn.(driver.Pipeliner).Pipe() == nil {
		pipes = false
	}
	for _, mode := range []string{"batched", "pipelined", "one by one"} {
		if mode == "batched" && !e.db.Dialect().Batches || mode == "pipelined" && !pipes {
			continue
		}
		t.Logf("round trips %s", mode)
		batched := mode == "batched"
		cl := e.newClient(e.db)
		cl.batches = batched
		cl.noPipes = mode == "one by one"
		want := map[string]int64{"new_order": 8, "payment": 6, "payment_by_name": 7, "order_status": 3,
			"order_status_by_name": 4, "delivery": 7, "stock_level": 3}
		switch mode {
		case "batched":
			want = map[string]int64{"new_order": 2, "payment": 2, "payment_by_name": 3, "order_status": 1,
				"order_status_by_name": 2, "delivery": 4, "stock_level": 1}
		case "pipelined":
			want = map[string]int64{"new_order": 3, "payment": 2, "payment_by_name": 3, "order_status": 1,
				"order_status_by_name": 2, "delivery": 4, "stock_level": 1}
		}
		trips := func(name string, run func() Outcome) {
			t.Helper()
			n0, ok := driver.RoundTrips(e.conn)
			if !ok {
				t.Fatalf("%T counts no round trips", e.conn)
			}
			if out := run(); out.Err != nil || out.RolledBack || out.Retries != 0 {
				t.Fatalf("%s, %s: %+v", mode, name, out)
			}
			n1, _ := driver.RoundTrips(e.conn)
			if n1-n0 != want[name] {
				t.Errorf("%s: %s took %d round trips, want %d", mode, name, n1-n0, want[name])
			}
		}
		var no NewOrderInput
		for GenNewOrder(e.r, e.c, 1, 1, &no); no.Rollback; GenNewOrder(e.r, e.c, 1, 1, &no) {
		}
		// the session's first read-write transaction turns its autocommit off (driver/mysql's
		// Begin): a statement more, once per session, not counted here
		if out := cl.NewOrder(e.ctx, e.conn, &no, e.iso); out.Err != nil || out.RolledBack {
			t.Fatalf("%s, the session's first New-Order: %+v", mode, out)
		}
		trips("new_order", func() Outcome { return cl.NewOrder(e.ctx, e.conn, &no, e.iso) })
		pay := PaymentInput{WID: 1, DID: 3, CWID: 1, CDID: 3, CID: 7, AmountCents: 1234, Date: time.Now()}
		trips("payment", func() Outcome { return cl.Payment(e.ctx, e.conn, &pay, e.iso) })
		pay.ByName, pay.CLast = true, LastName(e.c.LastNameNumber(e.r)%1000)
		for e.one("SELECT count(*) FROM customer WHERE c_w_id = 1 AND c_d_id = 3 AND c_last = $1", pay.CLast) == 0 {
			pay.CLast = LastName(e.c.LastNameNumber(e.r) % 1000)
		}
		trips("payment_by_name", func() Outcome { return cl.Payment(e.ctx, e.conn, &pay, e.iso) })
		os := OrderStatusInput{WID: 1, DID: 3, CID: 7}
		trips("order_status", func() Outcome { return cl.OrderStatus(e.ctx, e.conn, &os, e.iso) })
		os.ByName, os.CLast = true, pay.CLast
		trips("order_status_by_name", func() Outcome { return cl.OrderStatus(e.ctx, e.conn, &os, e.iso) })
		// every district has an undelivered order (the Delivery test before may have taken them all)
		for d := 1; d <= DistrictsPerWarehouse; d++ {
			if e.one("SELECT count(*) FROM new_order WHERE no_w_id = 1 AND no_d_id = $1", d) == 0 {
				no.DID = d
				if out := cl.NewOrder(e.ctx, e.conn, &no, e.iso); out.Err != nil || out.RolledBack {
					t.Fatalf("a New-Order for district %d: %+v", d, out)
				}
			}
		}
		trips("delivery", func() Outcome {
			out, res := cl.Delivery(e.ctx, e.conn, 1, &DeliveryInput{CarrierID: 3}, e.iso)
			if res.Delivered != DistrictsPerWarehouse {
				t.Errorf("delivered %d districts", res.Delivered)
			}
			return out
		})
		trips("stock_level", func() Outcome {
			out, _ := cl.StockLevel(e.ctx, e.conn, 1, 3, &StockLevelInput{Threshold: 15}, e.iso)
			return out
		})
	}
}
