package tpcc

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
)

func exec(t testing.TB, db driver.DB, sql string, args ...any) int64 {
	t.Helper()
	c, err := db.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := c.Exec(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func count(t testing.TB, db driver.DB, table string) int64 {
	t.Helper()
	c, err := db.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var n int64
	if err := c.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func checkAll(t *testing.T, db driver.DB, full bool) []CheckResult {
	t.Helper()
	rs, err := Check(context.Background(), db, CheckOptions{Full: full})
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if len(rs) != 12 {
		t.Fatalf("Check returned %d results, want 12", len(rs))
	}
	for i, r := range rs {
		if r.Condition != i+1 {
			t.Errorf("result %d is condition %d", i, r.Condition)
		}
		t.Logf("condition %2d %-55s ok=%v skipped=%v %v %s", r.Condition, r.Name, r.OK, r.Skipped, r.Duration.Round(time.Millisecond), r.Reason)
	}
	return rs
}

// TestLoadAndCheck loads 2 warehouses into each engine, checks every condition, refuses a second
// load without Drop, and sees a corrupted warehouse in conditions 1 and 8.
func TestLoadAndCheck(t *testing.T) {
	parallel(t)
	for _, e := range testDBs {
		t.Run(e.name, func(t *testing.T) {
			parallel(t)
			db := e.open(t)
			ctx := context.Background()
			var rows atomic.Int64
			start := time.Now()
			info, err := Load(ctx, db, LoadOptions{Warehouses: 2, Loaders: 2, Seed: 42, ToolVersion: "test",
				Progress: func(n int64) { rows.Add(n) }})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			el := time.Since(start)
			t.Logf("%s: loaded 2 warehouses, %d rows in %v (%.0f rows/s)", e.name, rows.Load(), el.Round(time.Millisecond), float64(rows.Load())/el.Seconds())
			var total int64
			for _, tb := range TableNames {
				total += count(t, db, tb)
			}
			if total != rows.Load() {
				t.Errorf("Progress reported %d rows, the tables hold %d", rows.Load(), total)
			}
			if n := count(t, db, "stock"); n != 200000 {
				t.Errorf("stock has %d rows", n)
			}

			li, err := ReadLoadInfo(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			if !li.Completed || li.Warehouses != 2 || li.Seed != 42 || li.Loaders != 2 || li.ToolVersion != "test" ||
				li.C != LoadConstants(42) || li.Runs != 0 || !li.StartedAt.Equal(info.StartedAt) || li.CompletedAt.Before(li.StartedAt) {
				t.Errorf("ReadLoadInfo = %+v, Load returned %+v", li, info)
			}

			start = time.Now()
			for _, r := range checkAll(t, db, true) {
				if r.Skipped || !r.OK {
					t.Errorf("condition %d: skipped=%v ok=%v %v", r.Condition, r.Skipped, r.OK, r.Violations)
				}
			}
			t.Logf("%s: check --full took %v", e.name, time.Since(start).Round(time.Millisecond))

			checkCorruptions(t, db)

			// A second load without Drop is refused and changes nothing.
			_, err = Load(ctx, db, LoadOptions{Warehouses: 1, Loaders: 1, Seed: 1})
			if !userr.Is(err) || !strings.Contains(err.Error(), "already holds TPC-C data (2 warehouses") || !strings.Contains(err.Error(), "--drop") {
				t.Errorf("Load without Drop over existing data: %v", err)
			}
			if li2, err := ReadLoadInfo(ctx, db); err != nil || li2 != li {
				t.Errorf("after the refused load: %+v, %v; want %+v", li2, err, li)
			}

			// A corrupted warehouse breaks conditions 1 and 8, and the report names it.
			exec(t, db, "UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 2")
			rs := checkAll(t, db, false)
			ytd := "300001.00"
			if e.name == "sqlite" { // money is integer cents there: + 1 is one cent
				ytd = "300000.01"
			}
			want := map[int]string{1: "w_id=2 w_ytd=" + ytd + " sum(d_ytd)=300000.00", 8: "w_id=2 w_ytd=" + ytd + " sum(h_amount)=300000.00"}
			for _, r := range rs {
				bad := r.Condition == 1 || r.Condition == 8
				skip := r.Condition >= 5 && r.Condition <= 7 || r.Condition == 10 || r.Condition == 12
				if r.Skipped != skip || !skip && r.OK == bad {
					t.Errorf("condition %d after corrupting w_ytd: ok=%v skipped=%v", r.Condition, r.OK, r.Skipped)
				}
				if bad && (len(r.Violations) != 1 || r.Count != 1 || r.Violations[0] != want[r.Condition]) {
					t.Errorf("condition %d reports %d rows %q, want %q", r.Condition, r.Count, r.Violations, want[r.Condition])
				}
			}
			v := Violations(rs)
			if len(v) != 2 || v[0].Condition != 1 || v[1].Condition != 8 {
				t.Errorf("Violations = %+v", v)
			}
			t.Logf("violations: %+v", v)

			// After a run, condition 11 no longer applies.
			if err := MarkRun(ctx, db); err != nil {
				t.Fatal(err)
			}
			if li, _ := ReadLoadInfo(ctx, db); li.Runs != 1 {
				t.Errorf("Runs = %d after MarkRun", li.Runs)
			}
			rs = checkAll(t, db, false)
			if !rs[10].Skipped || rs[10].Reason == "" {
				t.Errorf("condition 11 after a run: %+v", rs[10])
			}

			// Drop replaces the data.
			info, err = Load(ctx, db, LoadOptions{Warehouses: 1, Loaders: 3, Seed: 7, Drop: true, ToolVersion: "test"})
			if err != nil {
				t.Fatalf("Load with Drop: %v", err)
			}
			if n := count(t, db, "warehouse"); n != 1 || info.Warehouses != 1 {
				t.Errorf("after the load with Drop: %d warehouses", n)
			}
			// The quick conditions: the full ones passed on the first load, by the same code.
			for _, r := range checkAll(t, db, false) {
				if !r.Skipped && !r.OK {
					t.Errorf("condition %d after reload: %v", r.Condition, r.Violations)
				}
			}
		})
	}
}

// TestLoadInterrupted: a load cancelled half way leaves completed_at null, which ReadLoadInfo
// reports and Check refuses.
func TestLoadInterrupted(t *testing.T) {
	parallel(t)
	for _, e := range testDBs {
		t.Run(e.name, func(t *testing.T) {
			parallel(t)
			db := e.open(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var rows atomic.Int64
			_, err := Load(ctx, db, LoadOptions{Warehouses: 2, Loaders: 2, Seed: 5, Progress: func(n int64) {
				if rows.Add(n) > 150000 {
					cancel()
				}
			}})
			if err == nil || !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted Load returned %v", err)
			}
			t.Logf("interrupted after %d rows: %v", rows.Load(), err)
			li, err := ReadLoadInfo(context.Background(), db)
			if err != nil {
				t.Fatal(err)
			}
			if li.Completed || !li.CompletedAt.IsZero() || li.Warehouses != 2 {
				t.Errorf("after an interrupted load: %+v", li)
			}
			_, err = Check(context.Background(), db, CheckOptions{})
			if !userr.Is(err) || !strings.Contains(err.Error(), "did not complete") {
				t.Errorf("Check of an interrupted load: %v", err)
			}
			// And a new load without Drop says what is there.
			_, err = Load(context.Background(), db, LoadOptions{Warehouses: 1, Loaders: 1})
			if !userr.Is(err) || !strings.Contains(err.Error(), "incomplete load") {
				t.Errorf("Load over an interrupted load: %v", err)
			}
		})
	}
}

func TestLoadBadOptions(t *testing.T) {
	db := sqliteTestDB(t)
	for _, o := range []LoadOptions{{Warehouses: 0, Loaders: 1}, {Warehouses: 1, Loaders: 0}, {Warehouses: -3, Loaders: 2}} {
		if _, err := Load(context.Background(), db, o); !userr.Is(err) {
			t.Errorf("Load(%+v) = %v, want a user error", o, err)
		}
	}
	// Nothing was created.
	_, err := ReadLoadInfo(context.Background(), db)
	if !userr.Is(err) || !strings.Contains(err.Error(), "has no candor TPC-C data") || !strings.Contains(err.Error(), "candor tpcc load --db") {
		t.Errorf("ReadLoadInfo of an empty database: %v", err)
	}
	if _, err := Check(context.Background(), db, CheckOptions{}); !userr.Is(err) {
		t.Errorf("Check of an empty database: %v", err)
	}
	if err := MarkRun(context.Background(), db); !userr.Is(err) {
		t.Errorf("MarkRun on an empty database: %v", err)
	}
}

// tableHashes hashes each table's rows in key order (all columns), as the engine returns them.
func tableHashes(t *testing.T, db driver.DB) map[string]uint64 {
	t.Helper()
	ctx := context.Background()
	c, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	out := map[string]uint64{}
	for _, tb := range tables {
		rows, err := c.Query(ctx, "SELECT * FROM "+tb.name+" ORDER BY "+strings.Join(tb.colNames, ", "))
		if err != nil {
			t.Fatal(err)
		}
		h := fnv.New64a()
		vals := make([]any, len(tb.cols))
		dest := make([]any, len(vals))
		for i := range vals {
			dest[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				switch x := v.(type) {
				case int64, string, time.Time, nil:
					hashValue(h, x)
				default:
					fmt.Fprintf(h, "%T:%v|", v, v)
				}
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		out[tb.name] = h.Sum64()
	}
	return out
}

// TestLoadDeterministic: the same seed and timestamp give the same table contents with 1 loader
// and with 3.
func TestLoadDeterministic(t *testing.T) {
	parallel(t)
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	var hashes []map[string]uint64
	for _, loaders := range []int{1, 3} {
		db := sqliteTestDB(t)
		if _, err := Load(context.Background(), db, LoadOptions{Warehouses: 1, Loaders: loaders, Seed: 99, Now: now}); err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, tableHashes(t, db))
	}
	for _, tb := range TableNames {
		if hashes[0][tb] != hashes[1][tb] {
			t.Errorf("%s differs between 1 and 3 loaders", tb)
		}
	}
}

// checkCorruptions breaks the data in several places at once (disjoint keys), expects exactly the
// conditions those changes break to fail, each naming the broken rows, then repairs everything
// and expects all conditions to hold again.
func checkCorruptions(t *testing.T, db driver.DB) {
	t.Helper()
	type want struct {
		cond   int
		prefix string // the start of the offending row the condition must report
	}
	corruptions := []struct {
		what         string
		break_, undo string
		want         []want
	}{
		{"d_ytd of one district + 1",
			"UPDATE district SET d_ytd = d_ytd + 1 WHERE d_w_id = 1 AND d_id = 3",
			"UPDATE district SET d_ytd = d_ytd - 1 WHERE d_w_id = 1 AND d_id = 3",
			[]want{{1, "w_id=1 "}, {9, "d_w_id=1 d_id=3 "}}},
		{"d_next_o_id + 1",
			"UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 2 AND d_id = 4",
			"UPDATE district SET d_next_o_id = d_next_o_id - 1 WHERE d_w_id = 2 AND d_id = 4",
			[]want{{2, "d_w_id=2 d_id=4 d_next_o_id=3002 max(o_id)=3000 max(no_o_id)=3000"}}},
		{"the newest new order gone",
			"DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 2 AND no_o_id = 3000",
			"INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (3000, 2, 1)",
			[]want{{2, "d_w_id=1 d_id=2 d_next_o_id=3001 max(o_id)=3000 max(no_o_id)=2999"},
				{5, "w_id=1 d_id=2 o_id=3000 order=present o_carrier_id=null new_order=none"},
				{11, "d_w_id=1 d_id=2 count(orders)=3000 count(new_order)=899"}}},
		{"a new order in the middle gone",
			"DELETE FROM new_order WHERE no_w_id = 2 AND no_d_id = 2 AND no_o_id = 2500",
			"INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (2500, 2, 2)",
			[]want{{3, "no_w_id=2 no_d_id=2 max(no_o_id)=3000 min(no_o_id)=2101 count=899"},
				{5, "w_id=2 d_id=2 o_id=2500 order=present o_carrier_id=null new_order=none"},
				{11, "d_w_id=2 d_id=2 count(orders)=3000 count(new_order)=899"}}},
		{"o_ol_cnt + 1",
			"UPDATE orders SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 5",
			"UPDATE orders SET o_ol_cnt = o_ol_cnt - 1 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 5",
			[]want{{4, "d_w_id=1 d_id=1 "}, {6, "w_id=1 d_id=1 o_id=5 "}}},
		{"an undelivered order line gone",
			"DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 4 AND ol_o_id = 2900 AND ol_number = 1",
			"INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES (2900, 4, 1, 1, 1, 1, 5, 1, 'xxxxxxxxxxxxxxxxxxxxxxxx')",
			[]want{{4, "d_w_id=1 d_id=4 "}, {6, "w_id=1 d_id=4 o_id=2900 "}}},
		{"a carrier on an undelivered order",
			"UPDATE orders SET o_carrier_id = 3 WHERE o_w_id = 2 AND o_d_id = 6 AND o_id = 2500",
			"UPDATE orders SET o_carrier_id = NULL WHERE o_w_id = 2 AND o_d_id = 6 AND o_id = 2500",
			// One row per line of the order in condition 7, shown after the one below (key order).
			[]want{{5, "w_id=2 d_id=6 o_id=2500 order=present o_carrier_id=3 new_order=present"},
				{7, "w_id=2 d_id=6 o_id=2500 ol_number=1 o_carrier_id=3 ol_delivery_d=none"}}},
		{"a delivered line without a date",
			"UPDATE order_line SET ol_delivery_d = NULL WHERE ol_w_id = 2 AND ol_d_id = 1 AND ol_o_id = 10 AND ol_number = 1",
			"UPDATE order_line SET ol_delivery_d = (SELECT o_entry_d FROM orders WHERE o_w_id = 2 AND o_d_id = 1 AND o_id = 10) WHERE ol_w_id = 2 AND ol_d_id = 1 AND ol_o_id = 10 AND ol_number = 1",
			[]want{{7, "w_id=2 d_id=1 o_id=10 ol_number=1 "}}},
		{"c_balance + 1",
			"UPDATE customer SET c_balance = c_balance + 1 WHERE c_w_id = 1 AND c_d_id = 6 AND c_id = 7",
			"UPDATE customer SET c_balance = c_balance - 1 WHERE c_w_id = 1 AND c_d_id = 6 AND c_id = 7",
			[]want{{10, "c_w_id=1 c_d_id=6 c_id=7 "}, {12, "c_w_id=1 c_d_id=6 c_id=7 "}}},
		{"h_amount + 1",
			"UPDATE history SET h_amount = h_amount + 1 WHERE h_c_w_id = 1 AND h_c_d_id = 7 AND h_c_id = 9",
			"UPDATE history SET h_amount = h_amount - 1 WHERE h_c_w_id = 1 AND h_c_d_id = 7 AND h_c_id = 9",
			[]want{{8, "w_id=1 "}, {9, "d_w_id=1 d_id=7 "}, {10, "c_w_id=1 c_d_id=7 c_id=9 "}}},
		{"a delivered amount + 1",
			"UPDATE order_line SET ol_amount = ol_amount + 1 WHERE ol_w_id = 2 AND ol_d_id = 5 AND ol_o_id = 11 AND ol_number = 2",
			"UPDATE order_line SET ol_amount = ol_amount - 1 WHERE ol_w_id = 2 AND ol_d_id = 5 AND ol_o_id = 11 AND ol_number = 2",
			[]want{{10, "c_w_id=2 c_d_id=5 "}, {12, "c_w_id=2 c_d_id=5 "}}},
	}
	expect := map[int][]string{}
	for _, c := range corruptions {
		if n := exec(t, db, c.break_); n != 1 {
			t.Fatalf("%s: %s changed %d rows", c.what, c.break_, n)
		}
		for _, w := range c.want {
			expect[w.cond] = append(expect[w.cond], w.prefix)
		}
	}
	for _, r := range checkAll(t, db, true) {
		prefixes := expect[r.Condition]
		if r.OK != (len(prefixes) == 0) {
			t.Errorf("condition %d: ok=%v, want %v (%q)", r.Condition, r.OK, len(prefixes) == 0, r.Violations)
			continue
		}
		if r.Count < int64(len(prefixes)) || len(r.Violations) != min(int(r.Count), maxShown) {
			t.Errorf("condition %d: %d offending rows, %d shown, want at least %d", r.Condition, r.Count, len(r.Violations), len(prefixes))
		}
	next:
		for _, p := range prefixes {
			for _, v := range r.Violations {
				if strings.HasPrefix(v, p) {
					continue next
				}
			}
			t.Errorf("condition %d does not report %q: %q", r.Condition, p, r.Violations)
		}
	}
	for _, c := range corruptions {
		if n := exec(t, db, c.undo); n != 1 {
			t.Fatalf("%s: %s changed %d rows", c.what, c.undo, n)
		}
	}
	for _, r := range checkAll(t, db, true) {
		if !r.OK {
			t.Errorf("condition %d after the repairs: %q", r.Condition, r.Violations)
		}
	}
}
