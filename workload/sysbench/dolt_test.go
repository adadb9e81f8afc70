package sysbench

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// TestDoltStatementTexts: Dolt's tests send the statements of DoltHub's sysbench-lua-scripts
// (covering_index_scan.lua ... table_scan.lua, types_table_scan.lua, and their _postgres
// variants), with the tables' names candor gives them (sbtest1 of dolt_common.lua is sbdolt1, its
// sbtest2 sbdolt2, types_common.lua's sbtest1 sbtypes).
func TestDoltStatementTexts(t *testing.T) {
	scripts := map[int]string{ // the scripts' texts, verbatim
		OpCoveringIndexScan: "SELECT count(id) FROM sbtest1 WHERE big_int_col > 0",
		OpGroupbyScan:       "SELECT year_col, count(year_col), max(big_int_col), avg(small_int_col) FROM sbtest1 WHERE big_int_col > 0 GROUP BY set_col ORDER BY year_col",
		OpIndexJoin:         "select a.id, a.small_int_col, b.id, b.int_col from sbtest1 a, sbtest2 b where a.id = b.int_col limit 500",
		OpIndexJoinScan:     "select a.id, a.small_int_col from sbtest1 a, sbtest1 b where a.id = b.id limit 500",
		OpIndexScan:         "SELECT * FROM sbtest1 WHERE big_int_col > 0",
		OpTableScan:         "SELECT * FROM sbtest1 WHERE small_int_col > 0",
		OpTypesTableScan:    "SELECT * FROM sbtest1 WHERE small_int_col > 0",
	}
	rename := func(op int, q string) string {
		if op == OpTypesTableScan {
			return strings.ReplaceAll(q, "sbtest1", "sbtypes")
		}
		return strings.ReplaceAll(strings.ReplaceAll(q, "sbtest1", "sbdolt1"), "sbtest2", "sbdolt2")
	}
	for _, fam := range []string{sqlexec.FamilyMySQL, sqlexec.FamilyPostgres, sqlexec.FamilySQLite} {
		s := newStatements(fam, 1, &Options{Test: "table_scan", RandomPoints: 1, NumberOfRanges: 1})
		for op, q := range scripts {
			if op == OpGroupbyScan && fam != sqlexec.FamilyMySQL { // groupby_scan_postgres.lua
				q = strings.Replace(q, "GROUP BY set_col", "GROUP BY year_col, set_col", 1)
			}
			if got, want := s.byOp[op], rename(op, q); got != want {
				t.Errorf("%s %s:\n got %s\nwant %s", fam, OpNames[op], got, want)
			}
		}
	}
	// types_delete_insert.lua and oltp_delete_insert.lua send their values in the text.
	if got := string(appendTypesDelete(nil, 42)); got != "DELETE FROM sbtypes WHERE id = 42" {
		t.Errorf("types delete: %s", got)
	}
	if got := string(appendTypesInsert(nil, 42, typesRest(false))); !strings.HasPrefix(got, "INSERT INTO sbtypes VALUES (42,") || !strings.HasSuffix(got, ")") {
		t.Errorf("types insert: %s", got)
	}
	if got := string(appendDelete(nil, 7)); got != "DELETE FROM sbtest1 WHERE id = 7" {
		t.Errorf("delete: %s", got)
	}
	if got := string(appendInsert(nil, 7, 9, "1-2", "3")); got != "INSERT INTO sbtest1 (id, k, c, pad) VALUES (7, 9, '1-2', '3')" {
		t.Errorf("insert: %s", got)
	}
}

// TestDoltTestsShapes: each of Dolt's tests sends the statements its script's event() sends, in
// autocommit, recorded as parts; the tables it needs.
func TestDoltTestsShapes(t *testing.T) {
	cases := []struct {
		test  string
		ops   []string
		n     int
		table extraTables
	}{
		{"covering_index_scan", []string{"transaction", "covering_index_scan"}, 1, tablesDolt},
		{"groupby_scan", []string{"transaction", "groupby_scan"}, 1, tablesDolt},
		{"index_join", []string{"transaction", "index_join"}, 1, tablesDolt},
		{"index_join_scan", []string{"transaction", "index_join_scan"}, 1, tablesDolt},
		{"index_scan", []string{"transaction", "index_scan"}, 1, tablesDolt},
		{"table_scan", []string{"transaction", "table_scan"}, 1, tablesDolt},
		{"types_table_scan", []string{"transaction", "types_table_scan"}, 1, tablesTypes},
		{"types_delete_insert", []string{"transaction", "types_delete", "types_insert"}, 2, tablesTypes},
		{"oltp_delete_insert", []string{"transaction", "delete", "insert"}, 2, 0},
	}
	for _, c := range cases {
		s := newTest(t, workload.CmdRun, "--test", c.test)
		if p := s.Validate(workload.Validation{Cmd: workload.CmdRun, Mode: workload.ModeThroughput}); len(p) > 0 {
			t.Fatal(p)
		}
		if got := s.Ops(); strings.Join(got, ",") != strings.Join(c.ops, ",") {
			t.Errorf("%s: ops %v, want %v", c.test, got, c.ops)
		}
		tt, _ := findTest(c.test)
		if n := statementsPerTx(tt, &s.o); n != c.n || tt.trx || tt.tables != c.table || !tt.dolt {
			t.Errorf("%s: %d statements, trx %v, tables %v", c.test, n, tt.trx, tt.tables)
		}
	}
	// A draw: oltp_delete_insert deletes an id of the table and inserts it again with a new k, c
	// and pad, on sbtest1 without drawing a table; types_delete_insert deletes and inserts one id.
	o := defaults()
	o.Test, o.TableSize, o.Tables = "oltp_delete_insert", 100, 3
	tt, _ := findTest(o.Test)
	term := &terminal{p: &plan{o: &o, steps: tt.steps(&o), d: newDist(&o), threads: 1, oneTable: true}, r: gen.New(5)}
	for range 50 {
		term.draw(&term.in)
		d, i := term.in.stmts[0], term.in.stmts[1]
		if len(term.in.stmts) != 2 || d.op != OpDelete || i.op != OpInsert || d.table != 1 || i.table != 1 || d.id != i.id || d.id < 1 || d.id > 100 || i.k < 1 || i.k > 100 || len(i.c) != 119 || len(i.pad) != 59 {
			t.Fatalf("oltp_delete_insert drew %+v", term.in.stmts)
		}
	}
	o.Test = "types_delete_insert"
	tt, _ = findTest(o.Test)
	term.p.steps = tt.steps(&o)
	term.draw(&term.in)
	if st := term.in.stmts; len(st) != 2 || st[0].op != OpTypesDelete || st[1].op != OpTypesInsert || st[0].id != st[1].id {
		t.Fatalf("types_delete_insert drew %+v", st)
	}
}

// TestDoltRows: the rows the load inserts are the scripts' rows: the values of each column in the
// script's range, as many as the columns named, the same for every run; every row of sbtypes the
// same but its id.
func TestDoltRows(t *testing.T) {
	value := regexp.MustCompile(`'[^']*'|ST_GeomFromText\('Point\(\d \d\)'\)|[-0-9.e+]+`)
	split := func(row string) []string {
		if row[0] != '(' || row[len(row)-1] != ')' {
			t.Fatalf("row %q is not parenthesised", row)
		}
		return value.FindAllString(row[1:len(row)-1], -1)
	}
	num := func(v string) float64 {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		return f
	}
	for _, pg := range []bool{false, true} {
		w := &luaRow{r: newLuaRand(0), pg: pg}
		cols := strings.Split(doltColumns, ", ")
		var first string
		for id := 1; id <= 2000; id++ {
			w.b = w.b[:0]
			w.doltRow(id)
			if id == 1 {
				first = string(w.b)
			}
			v := split(string(w.b))
			if len(v) != len(cols) {
				t.Fatalf("pg %v: row %s has %d values for %d columns", pg, w.b, len(v), len(cols))
			}
			lo, hi := -128.0, 255.0
			if pg {
				hi = 127
			}
			if x := num(v[2]); x < lo || x > hi || x != float64(int(x)) { // unsigned_tiny_int_col
				t.Fatalf("pg %v: unsigned_tiny_int_col %s", pg, v[2])
			}
			if x := num(v[3]); x < -32768 || x > 32767 { // small_int_col
				t.Fatalf("small_int_col %s", v[3])
			}
			if x := num(v[11]); x < 0 || x >= 1 { // decimal_col: math.random()
				t.Fatalf("decimal_col %s", v[11])
			}
			if x := num(v[9]); x < -4611686018427387904 || x > 4611686018427387904 { // big_int_col
				t.Fatalf("big_int_col %s", v[9])
			}
			if !regexp.MustCompile(`^'2020-0[1-9]-(1\d|2[0-8])'$`).MatchString(v[19]) || !regexp.MustCompile(`^'0[1-9]:[1-5]\d:00'$`).MatchString(v[20]) {
				t.Fatalf("date, time %s %s", v[19], v[20])
			}
			if y := num(v[23]); y < 1901 || y > 2155 {
				t.Fatalf("year_col %s", v[23])
			}
			if pg != strings.HasPrefix(v[14], "'") { // bit_col: quoted on PostgreSQL
				t.Fatalf("pg %v: bit_col %s", pg, v[14])
			}
		}
		again := &luaRow{r: newLuaRand(0), pg: pg}
		again.doltRow(1)
		if string(again.b) != first {
			t.Errorf("a second load's first row %s, the first's %s", again.b, first)
		}
		w = &luaRow{r: newLuaRand(0), pg: pg}
		for id := 1; id <= 2000; id++ {
			w.b = w.b[:0]
			w.dolt2Row(id)
			v := split(string(w.b))
			if len(v) != 5 || num(v[1]) < 0 || num(v[1]) > 10000 {
				t.Fatalf("sbdolt2 row %s", w.b)
			}
		}
		rest := typesRest(pg)
		if rest != typesRest(pg) {
			t.Error("the types row differs between calls")
		}
		if v := split("(1" + rest); len(v) != len(strings.Split(typesColumns(pg), ", ")) {
			t.Errorf("pg %v: the types row has %d values for the columns %s", pg, len(v), typesColumns(pg))
		}
	}
}

// TestLuaRand: math.random's shapes: [0, 1), integers in [lo, hi] over the whole range, the
// same sequence for the same seed and another for another.
func TestLuaRand(t *testing.T) {
	a, b, c := newLuaRand(0), newLuaRand(0), newLuaRand(1)
	var seen [3]bool
	same := true
	for range 10000 {
		x := a.between(1, 3)
		if x != b.between(1, 3) {
			t.Fatal("the same seed gave another sequence")
		}
		if x < 1 || x > 3 || x != float64(int(x)) {
			t.Fatalf("math.random(1, 3) = %v", x)
		}
		seen[int(x)-1] = true
		if f := a.float(); f < 0 || f >= 1 {
			t.Fatalf("math.random() = %v", f)
		}
		b.float()
		if c.between(1, 3) != x {
			same = false
		}
		c.float()
	}
	if seen != [3]bool{true, true, true} || same {
		t.Errorf("values seen %v; seed 1's sequence the same as seed 0's: %v", seen, same)
	}
	if got := string(luaNum(nil, 1234567890123456789)); got != "1.2345678901235e+18" {
		t.Errorf("%%.14g: %s", got)
	}
}

// TestPresetDolt: --preset dolt sets Dolt's settings where flags are not given, and the run's
// duration, warm-up and terminals; without it candor's defaults stay; another name is refused.
func TestPresetDolt(t *testing.T) {
	s := newTest(t, workload.CmdLoad, "--preset", "dolt")
	o := s.resolve()
	if o.RandType != Uniform || o.TableSize != 10000 || o.Tables != 1 || !o.DoltTables || loadExtras(&o) != tablesAll {
		t.Errorf("--preset dolt resolved to %+v", o)
	}
	if d, w, n, ok := newTest(t, workload.CmdRun, "--preset", "dolt").RunDefaults(); !ok || d != doltDuration || w != 0 || n != 1 {
		t.Errorf("RunDefaults: %v %v %d %v", d, w, n, ok)
	}
	if o := newTest(t, workload.CmdLoad, "--preset", "dolt", "--rand-type", "special", "--table-size", "500").resolve(); o.RandType != Special || o.TableSize != 500 {
		t.Errorf("flags given did not override the preset: %+v", o)
	}
	if o := newTest(t, workload.CmdLoad).resolve(); o.RandType != defaultRandType || o.DoltTables {
		t.Errorf("without the preset: %+v", o)
	}
	if _, _, _, ok := newTest(t, workload.CmdRun).RunDefaults(); ok {
		t.Error("RunDefaults without a preset")
	}
	if p := newTest(t, workload.CmdRun, "--preset", "mysql").Validate(workload.Validation{Cmd: workload.CmdRun}); len(p) != 1 || !strings.Contains(p[0], "give dolt") {
		t.Errorf("--preset mysql: %v", p)
	}
	// compare-engines' suites: Dolt's 18 tests, its reads then its writes, each known to candor.
	dolt := Suites()["dolt"]
	if len(dolt) != 18 || len(Suites()["sysbench"]) != 10 || Group("index_join") != "reads" || Group("types_delete_insert") != "writes" || Group("oltp_delete") != "" {
		t.Errorf("suites %v", Suites())
	}
	for _, n := range dolt {
		if _, ok := findTest(n); !ok {
			t.Errorf("Dolt's suite names %s, which candor has not", n)
		}
	}
	if a := LoadArgs([]string{"oltp_point_select"}); a != nil {
		t.Errorf("LoadArgs of sysbench's tests: %v", a)
	}
	if a := LoadArgs([]string{"oltp_point_select", "types_table_scan"}); len(a) != 1 || a[0] != "--dolt-tables" {
		t.Errorf("LoadArgs of a Dolt test: %v", a)
	}
}
