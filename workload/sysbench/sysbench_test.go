package sysbench

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/sqlexec"
)

func newTest(t testing.TB, cmd workload.Command, args ...string) *Sysbench {
	t.Helper()
	s := New().(*Sysbench)
	fs := pflag.NewFlagSet("sysbench", pflag.ContinueOnError)
	s.Flags(fs, cmd)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parsing %v: %v", args, err)
	}
	return s
}

// TestStatementTexts: the statements are sysbench 1.0.20's (oltp_common.lua's stmt_defs), with
// its ? parameters as each family writes them, so the server sees the same statements.
func TestStatementTexts(t *testing.T) {
	sysbench := map[int]string{
		OpPointSelect:    "SELECT c FROM sbtest3 WHERE id=?",
		OpSimpleRange:    "SELECT c FROM sbtest3 WHERE id BETWEEN ? AND ?",
		OpSumRange:       "SELECT SUM(k) FROM sbtest3 WHERE id BETWEEN ? AND ?",
		OpOrderRange:     "SELECT c FROM sbtest3 WHERE id BETWEEN ? AND ? ORDER BY c",
		OpDistinctRange:  "SELECT DISTINCT c FROM sbtest3 WHERE id BETWEEN ? AND ? ORDER BY c",
		OpIndexUpdate:    "UPDATE sbtest3 SET k=k+1 WHERE id=?",
		OpNonIndexUpdate: "UPDATE sbtest3 SET c=? WHERE id=?",
		OpDelete:         "DELETE FROM sbtest3 WHERE id=?",
		OpInsert:         "INSERT INTO sbtest3 (id, k, c, pad) VALUES (?, ?, ?, ?)",
	}
	o := defaults()
	my := newStatements(sqlexec.FamilyMySQL, 3, &o)
	pg := newStatements(sqlexec.FamilyPostgres, 3, &o)
	for op, want := range sysbench {
		if my.byOp[op] != want {
			t.Errorf("%s on MySQL: %q, want sysbench's %q", OpNames[op], my.byOp[op], want)
		}
		n := 0
		dollar := regexp.MustCompile(`\?`).ReplaceAllStringFunc(want, func(string) string { n++; return "$" + string(rune('0'+n)) })
		if pg.byOp[op] != dollar {
			t.Errorf("%s on PostgreSQL: %q, want %q", OpNames[op], pg.byOp[op], dollar)
		}
	}
	o.Test, o.RandomPoints, o.NumberOfRanges = "oltp_insert", 3, 2
	one := newStatements(sqlexec.FamilyPostgres, 1, &o)
	for op, want := range map[int]string{
		OpInsert:       "INSERT INTO sbtest1 (k, c, pad) VALUES ($1, $2, $3)",
		OpRandomPoints: "SELECT id, k, c, pad FROM sbtest1 WHERE k IN ($1, $2, $3)",
		OpRandomRanges: "SELECT count(k) FROM sbtest1 WHERE k BETWEEN $1 AND $2 OR k BETWEEN $3 AND $4",
	} {
		if one.byOp[op] != want {
			t.Errorf("%s: %q, want %q", OpNames[op], one.byOp[op], want)
		}
	}
	if got := newStatements(sqlexec.FamilyMySQL, 1, &o).byOp[OpInsert]; got != "INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, ?, ?, ?)" {
		t.Errorf("oltp_insert on MySQL: %q", got)
	}
	if got := createSQL(sqlexec.FamilyMySQL, 2); !strings.Contains(got, "id INTEGER NOT NULL AUTO_INCREMENT") || !strings.Contains(got, "c CHAR(120) DEFAULT '' NOT NULL") || !strings.Contains(got, "PRIMARY KEY (id)") {
		t.Errorf("MySQL DDL %q", got)
	}
}

// TestTests: each test's statements per transaction with sysbench's defaults, and the operations
// a run records.
func TestTests(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		stmts int
		ops   []string
	}{
		{nil, 18, []string{"transaction", "point_select", "simple_range", "sum_range", "order_range", "distinct_range", "index_update", "non_index_update", "delete", "insert", "commit"}},
		{[]string{"--skip-trx"}, 18, []string{"transaction", "point_select", "simple_range", "sum_range", "order_range", "distinct_range", "index_update", "non_index_update", "delete", "insert"}},
		{[]string{"--range-selects=false", "--point-selects", "3"}, 7, []string{"transaction", "point_select", "index_update", "non_index_update", "delete", "insert", "commit"}},
		{[]string{"--test", "oltp_read_only"}, 14, []string{"transaction", "point_select", "simple_range", "sum_range", "order_range", "distinct_range", "commit"}},
		{[]string{"--test", "oltp_write_only", "--delete-inserts", "2"}, 6, []string{"transaction", "index_update", "non_index_update", "delete", "insert", "commit"}},
		{[]string{"--test", "oltp_point_select", "--point-selects", "7"}, 1, []string{"transaction", "point_select"}},
		{[]string{"--test", "oltp_update_index", "--index-updates", "3"}, 3, []string{"transaction", "index_update"}},
		{[]string{"--test", "oltp_update_non_index"}, 1, []string{"transaction", "non_index_update"}},
		{[]string{"--test", "oltp_delete"}, 1, []string{"transaction", "delete"}},
		{[]string{"--test", "oltp_insert"}, 1, []string{"transaction", "insert"}},
		{[]string{"--test", "select_random_points"}, 1, []string{"transaction", "random_points"}},
		{[]string{"--test", "select_random_ranges"}, 1, []string{"transaction", "random_ranges"}},
	} {
		s := newTest(t, workload.CmdRun, tc.args...)
		if p := s.Validate(workload.Validation{Cmd: workload.CmdRun}); len(p) > 0 {
			t.Fatalf("%v: %v", tc.args, p)
		}
		o := s.resolve()
		tt, _ := findTest(o.Test)
		if n := statementsPerTx(tt, &o); n != tc.stmts {
			t.Errorf("%v: %d statements per transaction, want %d", tc.args, n, tc.stmts)
		}
		if ops := s.Ops(); !slices.Equal(ops, tc.ops) {
			t.Errorf("%v: operations %v, want %v", tc.args, ops, tc.ops)
		}
		// What a terminal draws matches the count, in sysbench's order.
		term := &terminal{p: &plan{o: &o, steps: tt.steps(&o), d: newDist(&o), threads: 1}, r: gen.New(1)}
		term.Next()
		if len(term.in.stmts) != tc.stmts {
			t.Errorf("%v: a transaction drew %d statements, want %d", tc.args, len(term.in.stmts), tc.stmts)
		}
	}
	// Parts: every operation but the transaction is a part of it.
	in := New().Info()
	for _, op := range OpNames[1:] {
		if in.Parts[op] != "transaction" {
			t.Errorf("%s is not a part of transaction", op)
		}
	}
	if in.IsPart("transaction") {
		t.Errorf("the transaction is a part")
	}
}

// TestDeleteInsertSameID: each delete/insert pair re-inserts the id it deletes, on the group's table.
func TestDeleteInsertSameID(t *testing.T) {
	o := defaults()
	o.Tables, o.DeleteInserts = 8, 3
	tt, _ := findTest("oltp_write_only")
	term := &terminal{p: &plan{o: &o, steps: tt.steps(&o), d: newDist(&o), threads: 1}, r: gen.New(3)}
	for range 50 {
		term.Next()
		st := term.in.stmts
		if len(st) != 8 {
			t.Fatalf("%d statements", len(st))
		}
		for i := 2; i < 8; i += 2 {
			d, ins := st[i], st[i+1]
			if d.op != OpDelete || ins.op != OpInsert || d.id != ins.id || d.table != ins.table || d.table != st[2].table {
				t.Fatalf("pair %d: %+v then %+v", i, d, ins)
			}
			if len(ins.c) != 119 || len(ins.pad) != 59 || ins.k < 1 || ins.k > int64(o.TableSize) {
				t.Fatalf("inserted row %+v", ins)
			}
		}
	}
}

var digits = regexp.MustCompile(`^[0-9]{11}(-[0-9]{11})*$`)

func TestDigitGroups(t *testing.T) {
	r := gen.New(9)
	var seen [10]int
	for range 200 {
		c := string(appendDigits(nil, r, cGroups))
		p := string(appendDigits(nil, r, padGroups))
		if len(c) != 119 || len(p) != 59 || !digits.MatchString(c) || !digits.MatchString(p) {
			t.Fatalf("c %q, pad %q", c, p)
		}
		for _, ch := range c {
			if ch != '-' {
				seen[ch-'0']++
			}
		}
	}
	for d, n := range seen {
		if n < 1700 || n > 2300 { // 22,000 digits, 2,200 each expected
			t.Errorf("digit %d drawn %d times of 22,000", d, n)
		}
	}
}

// TestDistributions: sb_rand.c's distributions stay in [a, b] and have their shapes.
func TestDistributions(t *testing.T) {
	const a, b, n = 1, 10000, 200000
	for _, rt := range randTypes {
		o := defaults()
		o.RandType = rt
		d := newDist(&o)
		r := gen.New(uint64(len(rt)))
		counts := make([]int, b+1)
		var sum float64
		for range n {
			v := d.draw(r, a, b)
			if v < a || v > b {
				t.Fatalf("%s drew %d outside [%d, %d]", rt, v, a, b)
			}
			counts[v]++
			sum += float64(v)
		}
		mean := sum / n
		share := func(lo, hi int) float64 {
			s := 0
			for v := lo; v <= hi; v++ {
				s += counts[v]
			}
			return float64(s) / n
		}
		switch rt {
		case Special:
			// 75% of the draws fall on the 1% of the range at its middle (plus the Gaussian's share there).
			if s := share(4950, 5051); s < 0.75 || s > 0.80 {
				t.Errorf("special: %.3f of the draws on the middle 1%%, want about 0.76", s)
			}
		case Uniform:
			if s := share(1, 1000); math.Abs(s-0.1) > 0.005 {
				t.Errorf("uniform: %.3f of the draws in the first tenth", s)
			}
		case Gaussian:
			if math.Abs(mean-5000) > 50 || share(1, 2500) > 0.01 {
				t.Errorf("gaussian: mean %.0f, %.4f in the first quarter", mean, share(1, 2500))
			}
		case Pareto:
			// h 0.2: 80% of the draws on the first 20% of the range.
			if s := share(1, 2000); math.Abs(s-0.8) > 0.01 {
				t.Errorf("pareto: %.3f of the draws in the first fifth, want 0.8", s)
			}
		case Zipfian:
			// P(k) proportional to k^-0.8: P(1)/P(2) = 2^0.8.
			if r := float64(counts[1]) / float64(counts[2]); math.Abs(r-math.Pow(2, 0.8)) > 0.15 {
				t.Errorf("zipfian: P(1)/P(2) = %.2f, want %.2f", r, math.Pow(2, 0.8))
			}
		}
	}
}

// TestRandomPointsSlice: select_random_points draws k in its thread's slice of the table.
func TestRandomPointsSlice(t *testing.T) {
	o := defaults()
	o.Test, o.TableSize, o.RandType = "select_random_points", 1000, Uniform
	tt, _ := findTest(o.Test)
	p := &plan{o: &o, steps: tt.steps(&o), d: newDist(&o), threads: 4}
	term := &terminal{p: p, r: gen.New(2), tid: 2}
	for range 100 {
		term.Next()
		for _, a := range term.in.stmts[0].args {
			if v := a.(int64); v < 500 || v > 750 {
				t.Fatalf("thread 2 of 4 drew k %d outside [500, 750]", v)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		cmd  workload.Command
		args []string
		want string
	}{
		{workload.CmdRun, []string{"--test", "oltp_foo"}, `--test "oltp_foo" is not a sysbench test`},
		{workload.CmdLoad, []string{"--tables", "0"}, "--tables 0 is outside"},
		{workload.CmdLoad, []string{"--table-size", "-1"}, "--table-size -1 is outside"},
		{workload.CmdLoad, []string{"--test", "select_random_points", "--tables", "2"}, "give --tables 1"},
		{workload.CmdRun, []string{"--rand-type", "zipf"}, `--rand-type "zipf" is not a distribution`},
		{workload.CmdRun, []string{"--rand-spec-res", "100"}, "--rand-spec-res 100 is outside 0..99"},
		{workload.CmdRun, []string{"--rand-pareto-h", "1"}, "--rand-pareto-h 1 is outside (0, 1)"},
		{workload.CmdRun, []string{"--point-selects", "-2"}, "--point-selects -2 is outside"},
		{workload.CmdRun, []string{"--range-size", "0"}, "--range-size 0 is outside"},
		{workload.CmdRun, []string{"--test", "oltp_read_only", "--point-selects", "0", "--range-selects=false"}, "sends no statement"},
	} {
		p := newTest(t, tc.cmd, tc.args...).Validate(workload.Validation{Cmd: tc.cmd})
		if len(p) == 0 || !strings.Contains(strings.Join(p, "; "), tc.want) {
			t.Errorf("%v: %v, want a problem saying %q", tc.args, p, tc.want)
		}
	}
	if p := newTest(t, workload.CmdOneShot).Validate(workload.Validation{Cmd: workload.CmdOneShot}); len(p) > 0 {
		t.Errorf("defaults: %v", p)
	}
}
