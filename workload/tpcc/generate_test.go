package tpcc

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
)

var testNow = time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC)

// forEachRow generates the initial population of W warehouses in memory and calls fn with every
// row, table by table as the units give them.
func forEachRow(t testing.TB, g *genConfig, us []unit, fn func(u unit, tb *table, row []any)) {
	t.Helper()
	for _, u := range us {
		for _, s := range u.steps(g) {
			for s.src.Next() {
				row, err := s.src.Values()
				if err != nil {
					t.Fatal(err)
				}
				if len(row) != len(s.t.cols) {
					t.Fatalf("%s: %d values for %d columns", s.t.name, len(row), len(s.t.cols))
				}
				fn(u, s.t, row)
			}
			if err := s.src.Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// hashValue feeds one generated value to a hash, tagged by type.
func hashValue(h interface{ Write([]byte) (int, error) }, v any) {
	var b [9]byte
	switch x := v.(type) {
	case nil:
		b[0] = 0
		h.Write(b[:1])
	case int64:
		b[0] = 1
		binary.LittleEndian.PutUint64(b[1:], uint64(x))
		h.Write(b[:])
	case string:
		b[0] = 2
		h.Write(b[:1])
		h.Write([]byte(x))
		h.Write([]byte{0})
	case time.Time:
		b[0] = 3
		binary.LittleEndian.PutUint64(b[1:], uint64(x.UnixNano()))
		h.Write(b[:])
	case decimal:
		b[0] = 4
		binary.LittleEndian.PutUint64(b[1:], uint64(x.units))
		h.Write(b[:])
		h.Write([]byte{byte(x.scale)})
	default:
		panic("unexpected value type")
	}
}

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// rowChecker collects the failures of one pass over the generated rows.
type rowChecker struct {
	t     *testing.T
	fails int
}

func (c *rowChecker) failf(format string, args ...any) {
	c.t.Helper()
	if c.fails++; c.fails <= 20 {
		c.t.Errorf(format, args...)
	}
}

func (c *rowChecker) intIn(tb, col string, v any, lo, hi int64) int64 {
	c.t.Helper()
	x, ok := v.(int64)
	if !ok || x < lo || x > hi {
		c.failf("%s.%s = %v (%T), want an int64 in %d..%d", tb, col, v, v, lo, hi)
	}
	return x
}

func (c *rowChecker) eq(tb, col string, v, want any) {
	c.t.Helper()
	if v != want {
		c.failf("%s.%s = %v (%T), want %v (%T)", tb, col, v, v, want, want)
	}
}

func (c *rowChecker) astr(tb, col string, v any, lo, hi int) string {
	c.t.Helper()
	s, ok := v.(string)
	if !ok || len(s) < lo || len(s) > hi || !isAlnum(s) {
		c.failf("%s.%s = %q, want an a-string of %d..%d characters", tb, col, v, lo, hi)
	}
	return s
}

func (c *rowChecker) address(tb string, row []any, at int) {
	c.t.Helper()
	c.astr(tb, "street_1", row[at], 10, 20)
	c.astr(tb, "street_2", row[at+1], 10, 20)
	c.astr(tb, "city", row[at+2], 10, 20)
	if s, _ := row[at+3].(string); len(s) != 2 || strings.Trim(s, letters) != "" {
		c.failf("%s.state = %q, want 2 letters", tb, row[at+3])
	}
	if s, _ := row[at+4].(string); len(s) != 9 || !isDigits(s[:4]) || s[4:] != "11111" {
		c.failf("%s.zip = %q, want 4 digits and 11111", tb, row[at+4])
	}
}

// TestGenerateRules checks the initial population of 2 warehouses against clause 4.3.3.1.
func TestGenerateRules(t *testing.T) {
	parallel(t)
	const W = 2
	g := newGenConfig(42, testNow, dialectSQLite)
	c := &rowChecker{t: t}
	counts := map[string]int{}
	var bc, itemOrig, stockOrig, origAtStart, origElsewhere int
	lastOLCnt := map[[3]int64]int64{}
	olPerOrder := map[[3]int64]int64{}
	customers := map[[2]int64][]bool{} // o_c_id seen, per district
	newOrders := map[[2]int64]int{}
	var nextItem int64 = 1
	original := func(s string) {
		if i := strings.Index(s, "ORIGINAL"); i == 0 {
			origAtStart++
		} else if i > 0 {
			origElsewhere++
		}
	}
	forEachRow(t, g, slices.Collect(loadUnits(W)), func(u unit, tb *table, r []any) {
		counts[tb.name]++
		switch tb {
		case tItem:
			c.eq("item", "i_id", r[0], nextItem)
			nextItem++
			c.intIn("item", "i_im_id", r[1], 1, 10000)
			c.astr("item", "i_name", r[2], 14, 24)
			c.intIn("item", "i_price", r[3], 100, 10000)
			s, _ := r[4].(string)
			if len(s) < 26 || len(s) > 50 {
				c.failf("i_data %q has %d characters, want 26..50", s, len(s))
			}
			if strings.Contains(s, "ORIGINAL") {
				itemOrig++
				original(s)
			}
		case tWarehouse:
			c.intIn("warehouse", "w_id", r[0], 1, W)
			c.astr("warehouse", "w_name", r[1], 6, 10)
			c.address("warehouse", r, 2)
			c.intIn("warehouse", "w_tax", r[7], 0, 2000)
			c.eq("warehouse", "w_ytd", r[8], int64(300000_00))
		case tDistrict:
			c.intIn("district", "d_id", r[0], 1, 10)
			c.eq("district", "d_w_id", r[1], int64(u.w))
			c.astr("district", "d_name", r[2], 6, 10)
			c.address("district", r, 3)
			c.intIn("district", "d_tax", r[8], 0, 2000)
			c.eq("district", "d_ytd", r[9], int64(30000_00))
			c.eq("district", "d_next_o_id", r[10], int64(3001))
		case tStock:
			c.eq("stock", "s_w_id", r[1], int64(u.w))
			c.intIn("stock", "s_quantity", r[2], 10, 100)
			for i := 0; i < 10; i++ {
				c.astr("stock", "s_dist", r[3+i], 24, 24)
			}
			c.eq("stock", "s_ytd", r[13], int64(0))
			c.eq("stock", "s_order_cnt", r[14], int64(0))
			c.eq("stock", "s_remote_cnt", r[15], int64(0))
			s, _ := r[16].(string)
			if len(s) < 26 || len(s) > 50 {
				c.failf("s_data %q has %d characters, want 26..50", s, len(s))
			}
			if strings.Contains(s, "ORIGINAL") {
				stockOrig++
				original(s)
			}
		case tCustomer:
			id := c.intIn("customer", "c_id", r[0], 1, 3000)
			c.eq("customer", "c_d_id", r[1], int64(u.part))
			c.eq("customer", "c_w_id", r[2], int64(u.w))
			c.astr("customer", "c_first", r[3], 8, 16)
			c.eq("customer", "c_middle", r[4], "OE")
			last, _ := r[5].(string)
			if id <= 1000 && last != LastName(int(id)-1) {
				c.failf("customer %d has c_last %q, want %q (numbers 0..999 in order)", id, last, LastName(int(id)-1))
			}
			if len(last) < 9 || len(last) > 15 {
				c.failf("c_last %q is not three syllables", last)
			}
			c.address("customer", r, 6)
			if s, _ := r[11].(string); len(s) != 16 || !isDigits(s) {
				c.failf("c_phone = %q, want 16 digits", r[11])
			}
			c.eq("customer", "c_since", r[12], any(testNow))
			switch r[13] {
			case "BC":
				bc++
			case "GC":
			default:
				c.failf("c_credit = %v", r[13])
			}
			c.eq("customer", "c_credit_lim", r[14], int64(50000_00))
			c.intIn("customer", "c_discount", r[15], 0, 5000)
			c.eq("customer", "c_balance", r[16], int64(-10_00))
			c.eq("customer", "c_ytd_payment", r[17], int64(10_00))
			c.eq("customer", "c_payment_cnt", r[18], int64(1))
			c.eq("customer", "c_delivery_cnt", r[19], int64(0))
			c.astr("customer", "c_data", r[20], 300, 500)
		case tHistory:
			c.intIn("history", "h_c_id", r[0], 1, 3000)
			c.eq("history", "h_c_d_id", r[1], int64(u.part))
			c.eq("history", "h_d_id", r[3], int64(u.part))
			c.eq("history", "h_c_w_id", r[2], int64(u.w))
			c.eq("history", "h_w_id", r[4], int64(u.w))
			c.eq("history", "h_date", r[5], any(testNow))
			c.eq("history", "h_amount", r[6], int64(10_00))
			c.astr("history", "h_data", r[7], 12, 24)
		case tOrders:
			o := c.intIn("orders", "o_id", r[0], 1, 3000)
			key := [2]int64{int64(u.w), int64(u.part)}
			if customers[key] == nil {
				customers[key] = make([]bool, 3001)
			}
			cid := c.intIn("orders", "o_c_id", r[3], 1, 3000)
			if customers[key][cid] {
				c.failf("district %v: o_c_id %d appears twice", key, cid)
			}
			customers[key][cid] = true
			c.eq("orders", "o_entry_d", r[4], any(testNow))
			if o < 2101 {
				c.intIn("orders", "o_carrier_id", r[5], 1, 10)
			} else {
				c.eq("orders", "o_carrier_id", r[5], nil)
			}
			lastOLCnt[[3]int64{int64(u.w), int64(u.part), o}] = c.intIn("orders", "o_ol_cnt", r[6], 5, 15)
			c.eq("orders", "o_all_local", r[7], int64(1))
		case tNewOrder:
			c.intIn("new_order", "no_o_id", r[0], 2101, 3000)
			newOrders[[2]int64{int64(u.w), int64(u.part)}]++
		case tOrderLine:
			o, _ := r[0].(int64)
			key := [3]int64{int64(u.w), int64(u.part), o}
			olPerOrder[key]++
			c.eq("order_line", "ol_number", r[3], olPerOrder[key])
			c.intIn("order_line", "ol_i_id", r[4], 1, 100000)
			c.eq("order_line", "ol_supply_w_id", r[5], int64(u.w))
			c.eq("order_line", "ol_quantity", r[7], int64(5))
			if o < 2101 {
				c.eq("order_line", "ol_delivery_d", r[6], any(testNow))
				c.eq("order_line", "ol_amount", r[8], int64(0))
			} else {
				c.eq("order_line", "ol_delivery_d", r[6], nil)
				c.intIn("order_line", "ol_amount", r[8], 1, 999999)
			}
			c.astr("order_line", "ol_dist_info", r[9], 24, 24)
		}
	})

	want := map[string]int{"item": 100000, "warehouse": W, "district": 10 * W, "stock": 100000 * W,
		"customer": 30000 * W, "history": 30000 * W, "orders": 30000 * W, "new_order": 9000 * W}
	for tb, n := range want {
		if counts[tb] != n {
			t.Errorf("%s has %d rows, want %d", tb, counts[tb], n)
		}
	}
	var lines int64
	for k, n := range lastOLCnt {
		lines += n
		if olPerOrder[k] != n {
			t.Errorf("order %v has %d lines, o_ol_cnt %d", k, olPerOrder[k], n)
		}
	}
	if int64(counts["order_line"]) != lines {
		t.Errorf("order_line has %d rows, sum(o_ol_cnt) is %d", counts["order_line"], lines)
	}
	if avg := float64(lines) / float64(30000*W); avg < 9.9 || avg > 10.1 {
		t.Errorf("average o_ol_cnt %.3f, want about 10", avg)
	}
	for k, seen := range customers {
		for id := 1; id <= 3000; id++ {
			if !seen[id] {
				t.Errorf("district %v: no order for customer %d (o_c_id is not a permutation)", k, id)
				break
			}
		}
	}
	for k, n := range newOrders {
		if n != 900 {
			t.Errorf("district %v has %d new orders, want 900", k, n)
		}
	}
	share := func(name string, n, of int) {
		p := float64(n) / float64(of)
		// Binomial standard deviation at 10%: sqrt(0.09/n), under 0.13% here; 0.6% is > 4 sigma.
		if math.Abs(p-0.10) > 0.006 {
			t.Errorf("%s: %.2f%%, want 10%% (a 1-in-10 draw)", name, 100*p)
		}
		t.Logf("%s: %.3f%% of %d", name, 100*p, of)
	}
	share("BC credit", bc, 30000*W)
	share("ORIGINAL in i_data", itemOrig, 100000)
	share("ORIGINAL in s_data", stockOrig, 100000*W)
	if origAtStart == 0 || origElsewhere < 10*origAtStart {
		t.Errorf("ORIGINAL at the start %d times, elsewhere %d times: want random positions", origAtStart, origElsewhere)
	}
}

// TestLastNamesNURand: customers 1001..3000 get NURand(255, 0, 999) with the load's C, which makes
// some names far more common than others (uniform would give each about 2 per district).
func TestLastNamesNURand(t *testing.T) {
	g := newGenConfig(7, testNow, dialectSQLite)
	freq := map[string]int{}
	forEachRow(t, g, []unit{{kind: uCustomer, w: 1, part: 1}}, func(u unit, tb *table, r []any) {
		if tb == tCustomer && r[0].(int64) > 1000 {
			freq[r[5].(string)]++
		}
	})
	top := 0
	for _, n := range freq {
		top = max(top, n)
	}
	if len(freq) > 900 || top < 8 {
		t.Errorf("2000 NURand last names: %d distinct, the most common %d times; want a skewed distribution", len(freq), top)
	}
}

// TestGeneratePostgresValues: PostgreSQL gets exact decimals (cents with scale 2, rates with 4).
func TestGeneratePostgresValues(t *testing.T) {
	g := newGenConfig(42, testNow, dialectPostgres)
	forEachRow(t, g, []unit{{kind: uWarehouse, w: 1}}, func(u unit, tb *table, r []any) {
		if tb == tWarehouse {
			tax, ok := r[7].(decimal)
			if !ok || tax.scale != 4 || tax.units < 0 || tax.units > 2000 {
				t.Errorf("w_tax = %#v, want a decimal of scale 4 in 0..0.2000", r[7])
			}
			if r[8] != (decimal{units: 300000_00, scale: 2}) {
				t.Errorf("w_ytd = %#v, want 300000.00", r[8])
			}
			n, err := r[8].(decimal).NumericValue()
			if err != nil || n.Int.Int64() != 300000_00 || n.Exp != -2 {
				t.Errorf("w_ytd encodes as %v %d (%v)", n.Int, n.Exp, err)
			}
		}
	})
	for _, c := range []struct {
		v     int64
		scale int
		want  string
	}{{-1000, 2, "-10.00"}, {5, 2, "0.05"}, {1234, 4, "0.1234"}, {0, 2, "0.00"}, {30000000, 2, "300000.00"}} {
		if got := formatScaled(c.v, c.scale); got != c.want {
			t.Errorf("formatScaled(%d, %d) = %q, want %q", c.v, c.scale, got, c.want)
		}
		// The text the MySQL bulk path writes is the same.
		if got, err := (decimal{units: c.v, scale: int32(c.scale)}).AppendText([]byte("x")); err != nil || string(got) != "x"+c.want {
			t.Errorf("decimal{%d, %d}.AppendText = %q, %v; want %q", c.v, c.scale, got, err, "x"+c.want)
		}
	}
}

// unitHashes hashes each unit's rows.
func unitHashes(t testing.TB, g *genConfig, us []unit) map[unit]uint64 {
	out := map[unit]uint64{}
	for _, u := range us {
		h := fnv.New64a()
		forEachRow(t, g, []unit{u}, func(_ unit, tb *table, r []any) {
			h.Write([]byte(tb.name))
			for _, v := range r {
				hashValue(h, v)
			}
		})
		out[u] = h.Sum64()
	}
	return out
}

// TestGenerateDeterministic: a unit's rows depend on the seed, the timestamp and the unit only, not
// on the order units are generated in; the data of a seed is pinned by a known hash.
func TestGenerateDeterministic(t *testing.T) {
	parallel(t)
	us := slices.Collect(loadUnits(1))
	g := newGenConfig(42, testNow, dialectSQLite)
	a := unitHashes(t, g, us)
	rev := make([]unit, len(us))
	for i, u := range us {
		rev[len(us)-1-i] = u
	}
	b := unitHashes(t, newGenConfig(42, testNow, dialectSQLite), rev)
	for _, u := range us {
		if a[u] != b[u] {
			t.Errorf("%s: rows differ between two generations", u)
		}
	}
	c := unitHashes(t, newGenConfig(43, testNow, dialectSQLite), us)
	same := 0
	for _, u := range us {
		if a[u] == c[u] {
			same++
		}
	}
	if same > 0 {
		t.Errorf("%d units are identical for seeds 42 and 43", same)
	}
	// Changing generation changes the data of every existing seed: do it on purpose only, and
	// update this hash then.
	all := fnv.New64a()
	for _, u := range us {
		binary.Write(all, binary.LittleEndian, a[u])
	}
	const want = uint64(0x143ef972ec6ad57b)
	if got := all.Sum64(); got != want {
		t.Errorf("the data of seed 42 hashes to %#x, want %#x", got, want)
	}
}

// BenchmarkGenerate measures generation speed per table (rows/s, one core), values as PostgreSQL
// gets them.
func BenchmarkGenerate(b *testing.B) {
	g := newGenConfig(1, testNow, dialectPostgres)
	for _, c := range []struct {
		name string
		u    unit
		step int
	}{
		{"item", unit{kind: uItem}, 0},
		{"warehouse", unit{kind: uWarehouse, w: 1}, 0},
		{"district", unit{kind: uWarehouse, w: 1}, 1},
		{"stock", unit{kind: uStock, w: 1}, 0},
		{"customer", unit{kind: uCustomer, w: 1, part: 1}, 0},
		{"history", unit{kind: uCustomer, w: 1, part: 1}, 1},
		{"orders", unit{kind: uOrders, w: 1, part: 1}, 0},
		{"new_order", unit{kind: uOrders, w: 1, part: 1}, 1},
		{"order_line", unit{kind: uOrders, w: 1, part: 1}, 2},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			rows := 0
			for b.Loop() {
				b.StopTimer()
				steps := c.u.steps(g)
				for i := 0; i < c.step; i++ { // order_line needs the orders first
					drain(steps[i].src)
				}
				b.StartTimer()
				rows += drain(steps[c.step].src)
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "ns/row")
		})
	}
}

func drain(src driver.RowSource) int {
	n := 0
	for src.Next() {
		src.Values()
		n++
	}
	return n
}

// TestLoadUnitsLazy: the units are made as they are taken (the fault pass's load of a billion
// warehouses built ~22 per warehouse up front and ran out of memory), unitCount counts them, and
// taking the first few of a huge load allocates next to nothing.
func TestLoadUnitsLazy(t *testing.T) {
	for _, W := range []int{1, 3} {
		if got := int64(len(slices.Collect(loadUnits(W)))); got != unitCount(W) {
			t.Errorf("W=%d: %d units, unitCount says %d", W, got, unitCount(W))
		}
	}
	allocs := testing.AllocsPerRun(3, func() {
		n := 0
		for range loadUnits(1_000_000_000) {
			if n++; n == 1000 {
				break
			}
		}
	})
	if allocs > 10 {
		t.Errorf("taking 1000 units of a billion-warehouse load made %.0f allocations", allocs)
	}
}
