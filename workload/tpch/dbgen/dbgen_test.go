package dbgen

import (
	"bytes"
	"crypto/sha256"
	"slices"
	"testing"
	"time"
)

// Parts: the rows of parts 1..n concatenated are the rows of parts=1, for every table, whatever n
// (including more parts than some tables have rows).
func TestPartsConcatenate(t *testing.T) {
	const sf = 0.01
	for _, tab := range Tables() {
		whole := sha256.Sum256(tbl(t, tab, sf, 1))
		for _, parts := range []int{2, 3, 7, 64} {
			if got := sha256.Sum256(tbl(t, tab, sf, parts)); got != whole {
				t.Errorf("%s in %d parts: SHA-256 %x, in one part %x", tab, parts, got[:8], whole[:8])
			}
		}
	}
}

func TestPartsSplitRows(t *testing.T) {
	// Part 2 of 3 of customer at SF 0.01 (1,500 rows) is keys 501..1000.
	var keys []int64
	if err := Generate(Customer, 0.01, 2, 3, func(row []any) error {
		keys = append(keys, row[0].(int64))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 500 || keys[0] != 501 || keys[499] != 1000 {
		t.Fatalf("part 2 of 3: %d rows, keys %d..%d; want 500 rows, 501..1000", len(keys), keys[0], keys[len(keys)-1])
	}
}

func TestGenerateBadArgs(t *testing.T) {
	noop := func([]any) error { return nil }
	for _, c := range []struct {
		sf          float64
		part, parts int
	}{{0, 1, 1}, {-1, 1, 1}, {0.01, 0, 1}, {0.01, 2, 1}, {0.01, 1, 0}} {
		if err := Generate(Orders, c.sf, c.part, c.parts, noop); err == nil {
			t.Errorf("Generate(orders, %v, %d, %d): no error", c.sf, c.part, c.parts)
		}
	}
}

func TestColumnsMatchRows(t *testing.T) {
	for _, tab := range Tables() {
		n := 0
		if err := Generate(tab, 0.01, 1, 1, func(row []any) error {
			if len(row) != len(Columns(tab)) {
				t.Fatalf("%s: row of %d values, %d columns", tab, len(row), len(Columns(tab)))
			}
			for i, c := range Columns(tab) {
				ok := false
				switch v := row[i].(type) {
				case int64:
					// l_quantity is whole (dbgen prints it so) in a DECIMAL column.
					ok = c.Kind == KindInt || c.Name == "l_quantity"
				case Decimal:
					ok = c.Kind == KindDecimal
				case Date:
					ok = c.Kind == KindDate
				case string:
					ok = (c.Kind == KindChar || c.Kind == KindVarchar) && len(v) <= c.Len
				}
				if !ok {
					t.Fatalf("%s.%s: value %#v does not fit %v(%d)", tab, c.Name, row[i], c.Kind, c.Len)
				}
			}
			n++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDecimalDate(t *testing.T) {
	for v, want := range map[Decimal]string{0: "0.00", 5: "0.05", -5: "-0.05", 12345: "123.45", -99999: "-999.99", 100: "1.00"} {
		if got := v.String(); got != want {
			t.Errorf("Decimal(%d) = %q, want %q", int64(v), got, want)
		}
	}
	d := MakeDate(1995, time.June, 17)
	if d.String() != "1995-06-17" || !d.Time().Equal(time.Date(1995, 6, 17, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("MakeDate(1995-06-17) = %s, %v", d, d.Time())
	}
	if got := string(AppendTbl(nil, []any{int64(-3), Decimal(7), d, "x"})); got != "-3|0.07|1995-06-17|x|" {
		t.Errorf("AppendTbl = %q", got)
	}
}

// TestDateAppend checks Date's own civil-date formatting and its shared strings against
// time.Time's, every day from 1600 to 2400 and at the ends of the years it formats itself.
func TestDateAppend(t *testing.T) {
	check := func(d Date) {
		want := d.Time().Format(time.DateOnly)
		if got := string(d.Append([]byte("x"))); got != "x"+want {
			t.Fatalf("Date(%d).Append = %q, want %q", int32(d), got, "x"+want)
		}
		if got := d.String(); got != want {
			t.Fatalf("Date(%d).String = %q, want %q", int32(d), got, want)
		}
	}
	for d := MakeDate(1600, time.January, 1); d <= MakeDate(2400, time.December, 31); d++ {
		check(d)
	}
	for _, d := range []Date{MakeDate(0, time.January, 1), MakeDate(0, time.January, 1) - 1, MakeDate(9999, time.December, 31),
		MakeDate(9999, time.December, 31) + 1, MakeDate(-400, time.March, 1), 0, -1} {
		check(d)
	}
}

// orderKeys is the load's order keys at sf.
func orderKeys(t *testing.T, sf float64) map[int64]bool {
	keys := map[int64]bool{}
	if err := Generate(Orders, sf, 1, 1, func(row []any) error {
		keys[row[0].(int64)] = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return keys
}

// The refresh sets cannot be compared with an independent generator (tpchgen-cli makes no update
// sets), so they are checked by the standard's rules: SF × 1,500 orders per set (clause 2.5.2.1),
// RF1's keys in the sparse pattern's unused ranges (none a load key), each order's lines and figures
// by clause 4.2.3's rules, RF2's keys the load's, disjoint between sets, in dbgen's order.
func TestRefreshSets(t *testing.T) {
	const sf = 0.01
	load := orderKeys(t, sf)
	if RefreshRows(sf) != 15 || RefreshRows(0.1) != 150 || RefreshRows(1) != 1500 || RefreshRows(10) != 15000 {
		t.Fatalf("RefreshRows: %d %d %d %d; want 15 150 1500 15000", RefreshRows(sf), RefreshRows(0.1), RefreshRows(1), RefreshRows(10))
	}
	seenIns, seenDel := map[int64]bool{}, map[int64]bool{}
	for set := 1; set <= 4; set++ {
		del := RefreshDelete(sf, set)
		if int64(len(del)) != RefreshRows(sf) {
			t.Fatalf("set %d: %d deletes, want %d", set, len(del), RefreshRows(sf))
		}
		for i, k := range del {
			// dbgen's delete.n: the load's orders of indexes (n-1)·R+1 .. n·R.
			if want := orderKey(int64(set-1)*RefreshRows(sf)+int64(i)+1, 0); k != want {
				t.Fatalf("set %d delete %d: key %d, want %d", set, i, k, want)
			}
			if !load[k] || seenDel[k] {
				t.Fatalf("set %d: delete of key %d: in the load %v, deleted before %v", set, k, load[k], seenDel[k])
			}
			seenDel[k] = true
		}
		var orders [][]any
		lines := map[int64][][]any{}
		err := RefreshInsert(sf, set, func(tab Table, row []any) error {
			switch tab {
			case Orders:
				orders = append(orders, slices.Clone(row))
			case Lineitem:
				k := row[0].(int64)
				lines[k] = append(lines[k], slices.Clone(row))
			default:
				t.Fatalf("RF1 row of %s", tab)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(orders)) != RefreshRows(sf) {
			t.Fatalf("set %d: %d new orders, want %d", set, len(orders), RefreshRows(sf))
		}
		for _, o := range orders {
			k := o[0].(int64)
			if (k>>3)&3 != 1 || load[k] || seenIns[k] {
				t.Fatalf("set %d: new order key %d: sparse bits %d (want 1), a load key %v, inserted before %v", set, k, (k>>3)&3, load[k], seenIns[k])
			}
			seenIns[k] = true
			if c := o[1].(int64); c%3 == 0 || c < 1 || c > Rows(Customer, sf) {
				t.Fatalf("order %d: customer %d", k, c)
			}
			ls := lines[k]
			if len(ls) < 1 || len(ls) > 7 {
				t.Fatalf("order %d: %d lines", k, len(ls))
			}
			var total int64
			shipped := 0
			od := o[4].(Date)
			for i, l := range ls {
				if l[3].(int64) != int64(i+1) {
					t.Fatalf("order %d: line %d numbered %d", k, i+1, l[3])
				}
				pk, qty := l[1].(int64), l[4].(int64)
				if l[5].(Decimal) != Decimal(partPrice(pk)*qty) {
					t.Fatalf("order %d line %d: extended price %s, want %d × price of part %d", k, i+1, l[5], qty, pk)
				}
				disc, tax := int64(l[6].(Decimal)), int64(l[7].(Decimal))
				total += int64(l[5].(Decimal)) * (100 - disc) / 100 * (100 + tax) / 100
				ship, commit, receipt := l[10].(Date), l[11].(Date), l[12].(Date)
				if ship-od < 1 || ship-od > 121 || commit-od < 30 || commit-od > 90 || receipt-ship < 1 || receipt-ship > 30 {
					t.Fatalf("order %d line %d: dates %s %s %s %s", k, i+1, od, ship, commit, receipt)
				}
				if ship <= currentDate {
					shipped++
				}
			}
			if o[3].(Decimal) != Decimal(total) {
				t.Fatalf("order %d: total %s, its lines make %s", k, o[3], Decimal(total))
			}
			want := "P"
			if shipped == len(ls) {
				want = "F"
			} else if shipped == 0 {
				want = "O"
			}
			if o[2].(string) != want {
				t.Fatalf("order %d: status %s, want %s", k, o[2], want)
			}
		}
	}
	if RefreshDelete(sf, 0) != nil || RefreshInsert(sf, 0, nil) == nil {
		t.Error("set 0 accepted")
	}
}

// RF1's rows are deterministic: the same set twice gives the same text.
func TestRefreshDeterministic(t *testing.T) {
	text := func(set int) []byte {
		var b []byte
		if err := RefreshInsert(0.01, set, func(tab Table, row []any) error {
			b = append(AppendTbl(append(b, tab.Name()...), row), '\n')
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := text(2), text(2)
	if !bytes.Equal(a, b) || bytes.Equal(a, text(3)) {
		t.Fatal("RF1 set 2 differs between calls, or equals set 3")
	}
}

// BenchmarkGenerate is the generator's rate per table at SF 1 (a 1/50 slice of each table, the
// text pool made before the timer): rows/s.
func BenchmarkGenerate(b *testing.B) {
	pool()
	for _, tab := range []Table{Supplier, Customer, Part, PartSupp, Orders, Lineitem} {
		b.Run(tab.Name(), func(b *testing.B) {
			var rows int64
			for b.Loop() {
				if err := Generate(tab, 1, 1, 50, func([]any) error { rows++; return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkDateAppend is Date.Append beside time.Time's formatting, which it replaced, over the
// dates of TPC-H's data.
func BenchmarkDateAppend(b *testing.B) {
	first, n := MakeDate(1992, time.January, 1), Date(2557)
	buf := make([]byte, 0, 16)
	b.Run("Date.Append", func(b *testing.B) {
		for i := range b.N {
			buf = (first + Date(i)%n).Append(buf[:0])
		}
	})
	b.Run("time.AppendFormat", func(b *testing.B) {
		for i := range b.N {
			buf = (first + Date(i)%n).Time().AppendFormat(buf[:0], time.DateOnly)
		}
	})
}
