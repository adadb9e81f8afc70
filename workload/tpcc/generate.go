package tpcc

import (
	"iter"
	"strconv"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/gen"
)

// Initial population, clause 4.3.3.1. The rows are a pure function of the root seed and the load's
// timestamp: every random stream is derived from the seed by name and position (table, warehouse,
// district or chunk), never shared between work units, so the same seed gives the same rows however
// many loaders run and in whatever order they take the units.
//
// Row sources reuse their values slice; the strings of one row are cut from one string built per
// row, so a row costs a handful of small allocations and no map or fmt call. Values are immutable
// (strings, int64, time.Time, exact decimals), so an engine may keep them after the next row.

// Chunk sizes of the item and stock tables: one work unit and one random stream each. Changing them
// changes the generated data of a seed.
const (
	itemChunk  = 10000
	stockChunk = 10000
)

// Initial values of clause 4.3.3.1, in cents and ten-thousandths.
const (
	initWYTD        = 300000_00 // w_ytd 300,000.00
	initDYTD        = 30000_00  // d_ytd 30,000.00
	initCreditLim   = 50000_00  // c_credit_lim 50,000.00
	initBalance     = -10_00    // c_balance -10.00
	initYTDPayment  = 10_00     // c_ytd_payment 10.00
	initHAmount     = 10_00     // h_amount 10.00
	initOLQuantity  = 5
	maxTax          = 2000 // w_tax, d_tax 0.0000..0.2000
	maxDiscount     = 5000 // c_discount 0.0000..0.5000
	initNextOID     = OrdersPerDistrict + 1
	deliveredOrders = FirstUndelivered - 1
)

// genConfig is everything generation depends on, shared read-only by all sources of a load.
type genConfig struct {
	seed  uint64
	c     Constants
	now   time.Time
	exact bool // PostgreSQL, MySQL: money and rates as exact decimals; SQLite: int64 cents, ten-thousandths

	// Values used by many rows, boxed once.
	vNow, vOE, vGC, vBC, vZero, vOne, vQty, vNull         any
	vWYTD, vDYTD, vCreditLim, vBalance, vYTDPay, vHAmount any
	vZeroMoney, vNextOID                                  any
	vLast                                                 [1000]any
}

func newGenConfig(seed uint64, now time.Time, dialect string) *genConfig {
	g := &genConfig{seed: seed, c: LoadConstants(seed), now: now, exact: dialect != dialectSQLite}
	g.vNow, g.vOE, g.vGC, g.vBC = now, "OE", "GC", "BC"
	g.vZero, g.vOne, g.vQty = int64(0), int64(1), int64(initOLQuantity)
	g.vWYTD, g.vDYTD = g.money(initWYTD), g.money(initDYTD)
	g.vCreditLim, g.vBalance, g.vYTDPay = g.money(initCreditLim), g.money(initBalance), g.money(initYTDPayment)
	g.vHAmount, g.vZeroMoney, g.vNextOID = g.money(initHAmount), g.money(0), int64(initNextOID)
	for i := range g.vLast {
		g.vLast[i] = LastName(i)
	}
	return g
}

// money is an amount in cents as the dialect stores it.
func (g *genConfig) money(cents int64) any {
	if g.exact {
		return decimal{units: cents, scale: 2}
	}
	return cents
}

// rate is a rate in ten-thousandths (0.1234 is 1234) as the dialect stores it.
func (g *genConfig) rate(v int64) any {
	if g.exact {
		return decimal{units: v, scale: 4}
	}
	return v
}

func (g *genConfig) rand(r *gen.Rand, parts ...any) {
	r.Seed(gen.Derive(g.seed, append([]any{"tpcc", "load"}, parts...)...))
}

// rowText builds the text columns of one row in one buffer and cuts them from one string.
type rowText struct {
	buf  []byte
	ends []int
	s    string
}

func (t *rowText) reset()  { t.buf, t.ends = t.buf[:0], t.ends[:0] }
func (t *rowText) cut()    { t.ends = append(t.ends, len(t.buf)) }
func (t *rowText) finish() { t.s = string(t.buf) }

// field returns the i-th text column of the row (after finish).
func (t *rowText) field(i int) string {
	start := 0
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.s[start:t.ends[i]]
}

const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// appendAddress appends street 1, street 2, city (random a-strings of 10..20), state (2 random
// letters) and zip (4 random digits and "11111"), clause 4.3.2.7, as five columns.
func appendAddress(t *rowText, r *gen.Rand) {
	t.buf = r.AppendAString(t.buf, 10, 20)
	t.cut()
	t.buf = r.AppendAString(t.buf, 10, 20)
	t.cut()
	t.buf = r.AppendAString(t.buf, 10, 20)
	t.cut()
	t.buf = append(t.buf, letters[r.IntRange(0, 25)], letters[r.IntRange(0, 25)])
	t.cut()
	t.buf = r.AppendNString(t.buf, 4, 4)
	t.buf = append(t.buf, "11111"...)
	t.cut()
}

// appendData appends a random a-string of 26..50 characters, 10% of them (a 1-in-10 draw) with
// "ORIGINAL" at a random position (clause 4.3.3.1, i_data and s_data).
func appendData(t *rowText, r *gen.Rand) {
	start := len(t.buf)
	t.buf = r.AppendAString(t.buf, 26, 50)
	if r.Chance(1, 10) {
		n := len(t.buf) - start
		p := start + r.IntRange(0, n-8)
		copy(t.buf[p:], "ORIGINAL")
	}
	t.cut()
}

// source is a driver.RowSource over n rows produced by fill.
type source struct {
	vals []any
	n    int
	fill func()
}

func (s *source) Next() bool {
	if s.n <= 0 {
		return false
	}
	s.n--
	s.fill()
	return true
}
func (s *source) Values() ([]any, error) { return s.vals, nil }
func (s *source) Err() error             { return nil }

var _ driver.RowSource = (*source)(nil)

// itemSource generates items first..last (clause 4.3.3.1, ITEM).
func itemSource(g *genConfig, part int) driver.RowSource {
	var r gen.Rand
	g.rand(&r, "item", part)
	id := part*itemChunk + 1
	var t rowText
	s := &source{vals: make([]any, len(tItem.cols)), n: min(itemChunk, Items-part*itemChunk)}
	s.fill = func() {
		v := s.vals
		imID := r.IntRange(1, 10000)
		t.reset()
		t.buf = r.AppendAString(t.buf, 14, 24)
		t.cut()
		price := r.IntRange(100, 10000) // 1.00..100.00
		appendData(&t, &r)
		t.finish()
		v[0], v[1], v[2], v[3], v[4] = int64(id), int64(imID), t.field(0), g.money(int64(price)), t.field(1)
		id++
	}
	return s
}

// warehouseSource generates the row of warehouse w (clause 4.3.3.1, WAREHOUSE).
func warehouseSource(g *genConfig, w int) driver.RowSource {
	var r gen.Rand
	g.rand(&r, "warehouse", w)
	var t rowText
	s := &source{vals: make([]any, len(tWarehouse.cols)), n: 1}
	s.fill = func() {
		t.reset()
		t.buf = r.AppendAString(t.buf, 6, 10)
		t.cut()
		appendAddress(&t, &r)
		t.finish()
		v := s.vals
		v[0] = int64(w)
		for i := 0; i < 6; i++ {
			v[1+i] = t.field(i)
		}
		v[7], v[8] = g.rate(int64(r.IntRange(0, maxTax))), g.vWYTD
	}
	return s
}

// districtSource generates the ten districts of warehouse w (clause 4.3.3.1, DISTRICT).
func districtSource(g *genConfig, w int) driver.RowSource {
	var r gen.Rand
	g.rand(&r, "district", w)
	var t rowText
	d := 1
	s := &source{vals: make([]any, len(tDistrict.cols)), n: DistrictsPerWarehouse}
	s.fill = func() {
		t.reset()
		t.buf = r.AppendAString(t.buf, 6, 10)
		t.cut()
		appendAddress(&t, &r)
		t.finish()
		v := s.vals
		v[0], v[1] = int64(d), int64(w)
		for i := 0; i < 6; i++ {
			v[2+i] = t.field(i)
		}
		v[8], v[9], v[10] = g.rate(int64(r.IntRange(0, maxTax))), g.vDYTD, g.vNextOID
		d++
	}
	return s
}

// stockSource generates chunk part of warehouse w's stock (clause 4.3.3.1, STOCK).
func stockSource(g *genConfig, w, part int) driver.RowSource {
	var r gen.Rand
	g.rand(&r, "stock", w, part)
	var t rowText
	id := part*stockChunk + 1
	vw := any(int64(w))
	s := &source{vals: make([]any, len(tStock.cols)), n: min(stockChunk, StockPerWarehouse-part*stockChunk)}
	s.fill = func() {
		qty := r.IntRange(10, 100)
		t.reset()
		for i := 0; i < DistrictsPerWarehouse; i++ {
			t.buf = r.AppendAStringN(t.buf, 24)
			t.cut()
		}
		appendData(&t, &r)
		t.finish()
		v := s.vals
		v[0], v[1], v[2] = int64(id), vw, int64(qty)
		for i := 0; i < DistrictsPerWarehouse; i++ {
			v[3+i] = t.field(i)
		}
		v[13], v[14], v[15], v[16] = g.vZero, g.vZero, g.vZero, t.field(10)
		id++
	}
	return s
}

// customerSource generates the 3,000 customers of district (w, d) (clause 4.3.3.1, CUSTOMER).
func customerSource(g *genConfig, w, d int) driver.RowSource {
	var r gen.Rand
	g.rand(&r, "customer", w, d)
	var t rowText
	id := 1
	vw, vd := any(int64(w)), any(int64(d))
	s := &source{vals: make([]any, len(tCustomer.cols)), n: CustomersPerDistrict}
	s.fill = func() {
		v := s.vals
		t.reset()
		t.buf = r.AppendAString(t.buf, 8, 16) // c_first
		t.cut()
		appendAddress(&t, &r)
		t.buf = r.AppendNString(t.buf, 16, 16) // c_phone
		t.cut()
		// c_last (clause 4.3.2.3): customers 1..1000 get the numbers 0..999 in order, the others
		// NURand(255, 0, 999) with the load's C.
		last := id - 1
		if id > 1000 {
			last = g.c.LastNameNumber(&r)
		}
		credit := g.vGC
		if r.Chance(1, 10) { // 10% "BC": exactly a 1-in-10 draw
			credit = g.vBC
		}
		discount := r.IntRange(0, maxDiscount)
		t.buf = r.AppendAString(t.buf, 300, 500) // c_data
		t.cut()
		t.finish()
		v[0], v[1], v[2], v[3], v[4], v[5] = int64(id), vd, vw, t.field(0), g.vOE, g.vLast[last]
		for i := 0; i < 5; i++ {
			v[6+i] = t.field(1 + i)
		}
		v[11], v[12], v[13], v[14], v[15] = t.field(6), g.vNow, credit, g.vCreditLim, g.rate(int64(discount))
		v[16], v[17], v[18], v[19], v[20] = g.vBalance, g.vYTDPay, g.vOne, g.vZero, t.field(7)
		id++
	}
	return s
}

// historySource generates one history row per customer of district (w, d) (clause 4.3.3.1, HISTORY).
func historySource(g *genConfig, w, d int) driver.RowSource {
	var r gen.Rand
	g.rand(&r, "history", w, d)
	var t rowText
	id := 1
	vw, vd := any(int64(w)), any(int64(d))
	s := &source{vals: make([]any, len(tHistory.cols)), n: CustomersPerDistrict}
	s.fill = func() {
		t.reset()
		t.buf = r.AppendAString(t.buf, 12, 24)
		t.cut()
		t.finish()
		v := s.vals
		v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7] = int64(id), vd, vw, vd, vw, g.vNow, g.vHAmount, t.field(0)
		id++
	}
	return s
}

// orderSet holds what order_line needs from the orders of one district: each order's line count.
type orderSet struct {
	olCnt [OrdersPerDistrict]uint8
}

// ordersSource generates the 3,000 orders of district (w, d) (clause 4.3.3.1, ORDER) and records
// their line counts in set.
func ordersSource(g *genConfig, w, d int, set *orderSet) driver.RowSource {
	var r gen.Rand
	g.rand(&r, "orders", w, d)
	// o_c_id is a random permutation of 1..3000.
	var perm [CustomersPerDistrict]int32
	for i := range perm {
		perm[i] = int32(i + 1)
	}
	gen.Shuffle(&r, perm[:])
	o := 1
	vw, vd := any(int64(w)), any(int64(d))
	s := &source{vals: make([]any, len(tOrders.cols)), n: OrdersPerDistrict}
	s.fill = func() {
		v := s.vals
		carrier := g.vNull // o_carrier_id null for o_id >= 2101
		if o < FirstUndelivered {
			carrier = int64(r.IntRange(1, 10))
		}
		cnt := r.IntRange(5, 15)
		set.olCnt[o-1] = uint8(cnt)
		v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7] = int64(o), vd, vw, int64(perm[o-1]), g.vNow, carrier, int64(cnt), g.vOne
		o++
	}
	return s
}

// newOrderSource generates the new_order rows of district (w, d): orders 2101..3000.
func newOrderSource(g *genConfig, w, d int) driver.RowSource {
	o := FirstUndelivered
	vw, vd := any(int64(w)), any(int64(d))
	s := &source{vals: make([]any, len(tNewOrder.cols)), n: OrdersPerDistrict - FirstUndelivered + 1}
	s.fill = func() {
		s.vals[0], s.vals[1], s.vals[2] = int64(o), vd, vw
		o++
	}
	return s
}

// orderLineSource generates the order lines of district (w, d) (clause 4.3.3.1, ORDER-LINE), after
// ordersSource has filled set.
type orderLineSource struct {
	g      *genConfig
	set    *orderSet
	r      gen.Rand
	t      rowText
	o, n   int // current order and line number
	vw, vd any
	vals   []any
}

func newOrderLineSource(g *genConfig, w, d int, set *orderSet) *orderLineSource {
	s := &orderLineSource{g: g, set: set, o: 1, vw: int64(w), vd: int64(d), vals: make([]any, len(tOrderLine.cols))}
	g.rand(&s.r, "order_line", w, d)
	return s
}

func (s *orderLineSource) Next() bool {
	if s.o > OrdersPerDistrict {
		return false
	}
	s.n++
	g, r, v := s.g, &s.r, s.vals
	item := r.IntRange(1, Items)
	s.t.reset()
	s.t.buf = r.AppendAStringN(s.t.buf, 24)
	s.t.cut()
	s.t.finish()
	v[0], v[1], v[2], v[3], v[4], v[5] = int64(s.o), s.vd, s.vw, int64(s.n), int64(item), s.vw
	if s.o < FirstUndelivered {
		// Delivered: ol_delivery_d = o_entry_d, amount 0.00.
		v[6], v[8] = g.vNow, g.vZeroMoney
	} else {
		v[6], v[8] = g.vNull, g.money(int64(r.IntRange(1, 999999))) // 0.01..9,999.99
	}
	v[7], v[9] = g.vQty, s.t.field(0)
	if s.n >= int(s.set.olCnt[s.o-1]) {
		s.o, s.n = s.o+1, 0
	}
	return true
}
func (s *orderLineSource) Values() ([]any, error) { return s.vals, nil }
func (s *orderLineSource) Err() error             { return nil }

// unitKind is the kind of a work unit of the load.
type unitKind uint8

const (
	uItem      unitKind = iota // one chunk of the item table
	uWarehouse                 // a warehouse row and its ten districts
	uStock                     // one chunk of a warehouse's stock
	uCustomer                  // a district's customers and their history
	uOrders                    // a district's orders, new orders and order lines
)

// unit is one piece of work of a load, done in one transaction. Its rows depend only on the seed
// and the unit, never on which loader does it.
type unit struct {
	kind unitKind
	w    int
	part int // chunk or district
}

// step is one bulk copy of a unit.
type step struct {
	t   *table
	src driver.RowSource
}

// loadUnits yields the work of loading W warehouses in key order of every table (a single-writer
// engine writes them in this order, so each B-tree only grows at its right end). The units are
// made as they are taken, never listed up front: the memory of a load does not grow with W.
func loadUnits(warehouses int) iter.Seq[unit] { return loadUnitsOf(true, 1, warehouses) }

// loadUnitsOf yields the units of ITEM (when items) and of warehouses lo..hi: a shard's part of a
// sharded load (shard.go).
func loadUnitsOf(items bool, lo, hi int) iter.Seq[unit] {
	return func(yield func(unit) bool) {
		for p := 0; items && p*itemChunk < Items; p++ {
			if !yield(unit{kind: uItem, part: p}) {
				return
			}
		}
		for w := lo; w <= hi; w++ {
			if !yield(unit{kind: uWarehouse, w: w}) {
				return
			}
			for p := 0; p*stockChunk < StockPerWarehouse; p++ {
				if !yield(unit{kind: uStock, w: w, part: p}) {
					return
				}
			}
			for _, k := range []unitKind{uCustomer, uOrders} {
				for d := 1; d <= DistrictsPerWarehouse; d++ {
					if !yield(unit{kind: k, w: w, part: d}) {
						return
					}
				}
			}
		}
	}
}

// unitCount is the number of units loadUnits yields.
func unitCount(warehouses int) int64 {
	chunks := func(n, size int) int64 { return int64((n + size - 1) / size) }
	return chunks(Items, itemChunk) + int64(warehouses)*(1+chunks(StockPerWarehouse, stockChunk)+2*DistrictsPerWarehouse)
}

func (u unit) String() string {
	switch u.kind {
	case uItem:
		return "item chunk " + strconv.Itoa(u.part+1)
	case uWarehouse:
		return "warehouse " + strconv.Itoa(u.w)
	case uStock:
		return "stock chunk " + strconv.Itoa(u.part+1) + " of warehouse " + strconv.Itoa(u.w)
	case uCustomer:
		return "customers of warehouse " + strconv.Itoa(u.w) + " district " + strconv.Itoa(u.part)
	}
	return "orders of warehouse " + strconv.Itoa(u.w) + " district " + strconv.Itoa(u.part)
}

// steps returns the unit's bulk copies, to be run in order (order_line reads what orders recorded).
func (u unit) steps(g *genConfig) []step {
	switch u.kind {
	case uItem:
		return []step{{tItem, itemSource(g, u.part)}}
	case uWarehouse:
		return []step{{tWarehouse, warehouseSource(g, u.w)}, {tDistrict, districtSource(g, u.w)}}
	case uStock:
		return []step{{tStock, stockSource(g, u.w, u.part)}}
	case uCustomer:
		return []step{{tCustomer, customerSource(g, u.w, u.part)}, {tHistory, historySource(g, u.w, u.part)}}
	}
	set := new(orderSet)
	return []step{
		{tOrders, ordersSource(g, u.w, u.part, set)},
		{tNewOrder, newOrderSource(g, u.w, u.part)},
		{tOrderLine, newOrderLineSource(g, u.w, u.part, set)},
	}
}
