package pgscript

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload/sqlexec"
)

func mustCompile(t *testing.T, src string) *Program {
	t.Helper()
	p := NewProgram()
	if _, err := p.Add("a.sql", src, 1); err != nil {
		t.Fatalf("parse: %v", err)
	}
	if err := p.Check(); err != nil {
		t.Fatalf("check: %v", err)
	}
	return p
}

func sqlTexts(s *Script) []string {
	var out []string
	for _, c := range s.Commands {
		for _, st := range c.Statements {
			out = append(out, st.SQL)
		}
	}
	return out
}

func TestSplitSQL(t *testing.T) {
	src := `-- a comment line
SELECT 'a;b', "c;d", $$ e; :f $$, $tag$ ; $x$ $tag$ /* g; /* nested; */ :h */
  FROM t WHERE x = :x::int AND y = :y;
UPDATE t SET s = E'it\'s; :y' , u = (SELECT 1; ) WHERE k = :k
  AND j::text = 'z';;
SELECT 1 \; SELECT :k
`
	p := mustCompile(t, src)
	s := p.Scripts[0]
	want := []string{
		`SELECT 'a;b', "c;d", $$ e; :f $$, $tag$ ; $x$ $tag$ /* g; /* nested; */ :h */
  FROM t WHERE x = $1::int AND y = $2`,
		`UPDATE t SET s = E'it\'s; :y' , u = (SELECT 1; ) WHERE k = $1
  AND j::text = 'z'`,
		`SELECT 1`,
		`SELECT $1`,
	}
	if got := sqlTexts(s); !reflect.DeepEqual(got, want) {
		t.Fatalf("statements:\n%q\nwant\n%q", got, want)
	}
	if len(s.Commands) != 3 || len(s.Commands[2].Statements) != 2 {
		t.Fatalf("want 3 commands, the last with 2 statements: %+v", s.Commands)
	}
	if got := s.Commands[0].Statements[0].ParamNames; !reflect.DeepEqual(got, []string{"x", "y"}) {
		t.Errorf("params %v", got)
	}
	if c := s.Commands[0]; c.Pos.Line != 2 || c.Pos.Col != 1 || !strings.HasPrefix(c.Text, "SELECT 'a;b'") {
		t.Errorf("first command at %v text %q", c.Pos, c.Text)
	}
	if c := s.Commands[1]; c.Pos.Line != 4 {
		t.Errorf("second command at %v", c.Pos)
	}
}

func TestStatementWithoutSemicolonAndGset(t *testing.T) {
	p := mustCompile(t, "SELECT 1 AS one, 2 AS two \\gset p_\nSELECT :p_one\n\\aset\nselect 3 as three")
	s := p.Scripts[0]
	if len(s.Commands) != 3 {
		t.Fatalf("%d commands", len(s.Commands))
	}
	if c := s.Commands[0]; c.Store != StoreGset || c.Prefix != "p_" || c.Statements[0].SQL != "SELECT 1 AS one, 2 AS two" {
		t.Errorf("gset command %+v", c)
	}
	if c := s.Commands[1]; c.Store != StoreAset || c.Prefix != "" {
		t.Errorf("aset command %+v", c)
	}
	if c := s.Commands[2]; c.Statements[0].SQL != "select 3 as three" {
		t.Errorf("last command %+v", c)
	}
}

func TestPlaceholdersPerFamily(t *testing.T) {
	p := mustCompile(t, "SELECT * FROM t WHERE a = :a AND b = :b AND c = :a AND d = '$1';")
	st := &p.Scripts[0].Commands[0].Statements[0]
	for family, want := range map[string]string{
		sqlexec.FamilyPostgres: "SELECT * FROM t WHERE a = $1 AND b = $2 AND c = $3 AND d = '$1'",
		sqlexec.FamilyMySQL:    "SELECT * FROM t WHERE a = ? AND b = ? AND c = ? AND d = '$1'",
		sqlexec.FamilySQLite:   "SELECT * FROM t WHERE a = ?1 AND b = ?2 AND c = ?3 AND d = '$1'",
	} {
		if got := st.SQLFor(family); got != want {
			t.Errorf("%s: %q, want %q", family, got, want)
		}
	}
}

// TestErrors checks that problems point at file, line and column, with pgbench's wording where
// pgbench has one.
func TestErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"SELECT 1;\n\\set a 1 +\n", "a.sql:2:11: syntax error: unexpected end of expression in command \"set\""},
		{"\\set a foo(1)\n", "a.sql:1:8: unexpected function name (foo) in command \"set\""},
		{"\\set a abs(1, 2)\n", "a.sql:1:8: unexpected number of arguments (abs)"},
		{"\\set a least()\n", "a.sql:1:8: at least one argument expected (least)"},
		{"\\set a 1 < 2 < 3\n", "a.sql:1:14: syntax error"},
		{"\\set a 99999999999999999999\n", "a.sql:1:8: bigint constant overflow (99999999999999999999)"},
		{"\\set a 1e400\n", "a.sql:1:8: double constant overflow (1e400)"},
		{"\\set a 9223372036854775808\n", "a.sql:1:8: syntax error"},
		{"\\set a 1 $ 2\n", "a.sql:1:10: unexpected character \"$\""},
		{"\\set a case when true then 1\n", "a.sql:1:29: syntax error"},
		{"\\set a hash(1,2,3)\n", "unexpected number of arguments (hash)"},
		{"\\set a permute(1)\n", "unexpected number of arguments (permute)"},
		{"\\set\n", "a.sql:1:1: missing argument in command \"set\""},
		{"\\set 1x 3\n", "a.sql:1:6: invalid variable name \"1x\""},
		{"\\sleep\n", "a.sql:1:1: missing argument in command \"sleep\""},
		{"\\sleep 1 2 3\n", "a.sql:1:12: too many arguments"},
		{"\\sleep 10 parsecs\n", "a.sql:1:11: unrecognized time unit, must be us, ms or s (parsecs)"},
		{"\\sleep 10parsecs\n", "a.sql:1:10: unrecognized time unit, must be us, ms or s (parsecs)"},
		{"\\sleep abc\n", "a.sql:1:8: invalid sleep time, must be an integer (abc)"},
		{"\\else\n", "a.sql:1:1: \\else without matching \\if"},
		{"\\endif\n", "a.sql:1:1: \\endif without matching \\if"},
		{"\\if true\n\\else\n\\elif false\n\\endif\n", "a.sql:3:1: \\elif after \\else"},
		{"\\if true\n\\else\n\\else\n\\endif\n", "a.sql:3:1: \\else after \\else"},
		{"\\elif true\n", "a.sql:1:1: \\elif without matching \\if"},
		{"SELECT 1;\n  \\if true\n\\if false\n\\endif\n", "a.sql:2:3: \\if without matching \\endif"},
		{"\\else x\n", "a.sql:1:7: unexpected argument"},
		{"\\gset\n", "a.sql:1:1: \\gset must follow an SQL command"},
		{"SELECT 1 \\gset\n\\aset\n", "a.sql:2:1: \\aset must follow an SQL command"},
		{"SELECT 1 \\gset a b\n", "a.sql:1:18: too many arguments"},
		{"\\shell echo\n", "a.sql:1:1: \\shell is not supported"},
		{"\\setshell x echo 1\n", "a.sql:1:1: \\setshell is not supported"},
		{"\\startpipeline\n", "a.sql:1:1: \\startpipeline is not supported"},
		{"\\foo\n", "a.sql:1:1: invalid command \"\\foo\""},
		{"SELECT 'abc\n", "a.sql:1:8: unterminated string literal"},
		{"SELECT $x$ abc\n", "a.sql:1:8: unterminated dollar-quoted string"},
		{"SELECT /* abc\n", "a.sql:1:8: unterminated /* comment"},
		{"SELECT :'name';\n", "a.sql:1:8: psql's :'name' form is not a pgbench variable"},
		{"-- nothing\n", "a.sql:1:1: empty command list for script"},
		{"\\set x 1\nSELECT 'id-:x';\n", "a.sql:2:12: variable :x inside a string literal"},
		{"\\set a 1 +\\\n  \n", "a.sql:2:3: syntax error"},
	}
	for _, c := range cases {
		p := NewProgram()
		_, err := p.Add("a.sql", c.src, 1)
		if err == nil {
			err = p.Check()
		}
		if err == nil {
			t.Errorf("%q: no error, want %q", c.src, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %q\nwant %q", c.src, err, c.want)
		}
		if !userr.Is(err) {
			t.Errorf("%q: not a user error", c.src)
		}
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("%q: no *Error with a position", c.src)
		}
	}
}

func TestLiteralColonsAreText(t *testing.T) {
	// 'key:value' names no variable the program sets: text, as pgbench's default mode leaves it.
	p := mustCompile(t, "SELECT 'key:value', '12:30', x::text, a[1:2] FROM t WHERE c = ':::';")
	st := p.Scripts[0].Commands[0].Statements[0]
	if st.SQL != "SELECT 'key:value', '12:30', x::text, a[1:2] FROM t WHERE c = ':::'" || len(st.Params) != 0 {
		t.Errorf("%q %v", st.SQL, st.Params)
	}
}

func TestParseWeight(t *testing.T) {
	for spec, want := range map[string][2]any{"a.sql": {"a.sql", 1}, "a@b.sql@5": {"a@b.sql", 5}, "x@0": {"x", 0}} {
		n, w, err := ParseWeight(spec)
		if err != nil || n != want[0] || w != want[1] {
			t.Errorf("%q: %q %d %v", spec, n, w, err)
		}
	}
	for _, spec := range []string{"a@", "a@x", "a@-1", "a@2147483648", "a@1.5", "a@ 1"} {
		if _, _, err := ParseWeight(spec); err == nil || !userr.Is(err) {
			t.Errorf("%q: %v", spec, err)
		}
	}
	p := NewProgram()
	p.Add("a.sql", "SELECT 1;", 0)
	if err := p.Check(); err == nil || !strings.Contains(err.Error(), "total script weight must not be zero") {
		t.Errorf("zero weight: %v", err)
	}
}

func TestBuiltins(t *testing.T) {
	p := NewProgram()
	for _, spec := range []string{"tpcb-like@5", "simple@2", "select-only"} {
		if _, err := p.AddBuiltin(spec); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.AddBuiltin("s"); err == nil || !strings.Contains(err.Error(), "ambiguous builtin name: 2 builtin scripts found for prefix \"s\"") {
		t.Errorf("ambiguous: %v", err)
	}
	if _, err := p.AddBuiltin("nope"); err == nil || !userr.Is(err) {
		t.Errorf("unknown: %v", err)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	if got := []int{p.Scripts[0].SQLCount(), p.Scripts[1].SQLCount(), p.Scripts[2].SQLCount()}; !reflect.DeepEqual(got, []int{7, 5, 1}) {
		t.Errorf("SQL commands per built-in: %v", got)
	}
	env := p.NewEnv(EnvOptions{Scale: 10, ClientID: 3})
	rec := &recorder{}
	if err := env.Run(0, rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.sql) != 7 || rec.sql[1] != "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2" {
		t.Fatalf("tpcb-like ran %q", rec.sql)
	}
	aid := rec.args[1][1].(int64)
	delta := rec.args[1][0].(int64)
	if aid < 1 || aid > 1000000 || delta < -5000 || delta > 5000 {
		t.Errorf("aid %d delta %d", aid, delta)
	}
	if tid := rec.args[5][0].(int64); tid < 1 || tid > 100 {
		t.Errorf("tid %d", tid)
	}
}

type recorder struct {
	sql    []string
	args   [][]any
	sleeps []time.Duration
	store  func(c *Command, stmt int) error
}

func (r *recorder) Exec(cmd int, c *Command, stmt int, st *Statement, args []any) error {
	r.sql = append(r.sql, st.SQL)
	r.args = append(r.args, append([]any(nil), args...))
	if r.store != nil {
		return r.store(c, stmt)
	}
	return nil
}

func (r *recorder) Sleep(cmd int, c *Command, d time.Duration) error {
	r.sleeps = append(r.sleeps, d)
	return nil
}

func TestConditionals(t *testing.T) {
	src := `\if :v = 1
SELECT 'one';
\elif :v = 2
SELECT 'two';
  \if true
  SELECT 'two-nested';
  \endif
\elif :v = 3
SELECT 'three';
\else
SELECT 'other';
\endif
SELECT 'after';
`
	for v, want := range map[string][]string{
		"1": {"SELECT 'one'", "SELECT 'after'"},
		"2": {"SELECT 'two'", "SELECT 'two-nested'", "SELECT 'after'"},
		"3": {"SELECT 'three'", "SELECT 'after'"},
		"4": {"SELECT 'other'", "SELECT 'after'"},
	} {
		p := NewProgram()
		if _, err := p.Add("a.sql", src, 1); err != nil {
			t.Fatal(err)
		}
		p.Define("v=" + v)
		if err := p.Check(); err != nil {
			t.Fatal(err)
		}
		rec := &recorder{}
		if err := p.NewEnv(EnvOptions{}).Run(0, rec); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rec.sql, want) {
			t.Errorf("v=%s ran %q, want %q", v, rec.sql, want)
		}
	}
}

func TestSleep(t *testing.T) {
	p := NewProgram()
	p.Add("a.sql", "\\sleep 2\n\\sleep 10 ms\n\\sleep 7us\n\\set d 3\n\\sleep :d ms\n\\set e 1.9\n\\sleep :e s\n\\sleep -1\n", 1)
	p.Define("x=abc")
	p.Add("b.sql", "\\sleep :x\n", 1)
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	env := p.NewEnv(EnvOptions{})
	if err := env.Run(0, rec); err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{2 * time.Second, 10 * time.Millisecond, 7 * time.Microsecond, 3 * time.Millisecond, time.Second}
	if !reflect.DeepEqual(rec.sleeps, want) {
		t.Errorf("sleeps %v, want %v", rec.sleeps, want)
	}
	if err := env.Run(1, rec); err == nil || !strings.Contains(err.Error(), `a.sql`) && !strings.Contains(err.Error(), `invalid sleep time "abc" for variable "x"`) {
		t.Errorf("sleep :x with x=abc: %v", err)
	}
}

func TestGsetAndAsetStore(t *testing.T) {
	p := mustCompile(t, "SELECT 1 AS a \\gset p_\n\\set b :p_a + 1\nSELECT 2 AS c \\; SELECT 3 AS d \\aset\n\\set e :c + :d + :b\n")
	env := p.NewEnv(EnvOptions{})
	rec := &recorder{}
	rec.store = func(c *Command, stmt int) error {
		switch c.Store {
		case StoreGset:
			return env.StoreResult(c, stmt, []string{"a"}, 1, []any{int64(41)})
		case StoreAset:
			return env.StoreResult(c, stmt, []string{[]string{"c", "d"}[stmt]}, 2, []any{[]byte{'1', '0' + byte(stmt)}})
		}
		return nil
	}
	if err := env.Run(0, rec); err != nil {
		t.Fatal(err)
	}
	if v, ok := env.Value("e"); !ok || v != Int(10+11+42) {
		t.Errorf("e = %v %v", v, ok)
	}
	c := &p.Scripts[0].Commands[0]
	if err := env.StoreResult(c, 0, []string{"a"}, 0, nil); err == nil || !strings.Contains(err.Error(), "a.sql:1:1: \\gset: expected one row, got 0") {
		t.Errorf("gset of no row: %v", err)
	}
}

func TestBuiltinVariablesAndDefines(t *testing.T) {
	p := mustCompile(t, "\\set a :client_id + :scale + :random_seed\n\\set h hash(5)\n\\set g hash(5, :default_seed)\n")
	env := p.NewEnv(EnvOptions{ClientID: 2, Scale: 30, RandomSeed: 100, DefaultSeed: 77})
	if err := env.Run(0, failRunner{t}); err != nil {
		t.Fatal(err)
	}
	if v, _ := env.Value("a"); v != Int(132) {
		t.Errorf("a = %v", v)
	}
	h, _ := env.Value("h")
	g, _ := env.Value("g")
	if h != g || h != Int(hashMurmur2(5, 77)) {
		t.Errorf("hash(5) = %v, hash(5, :default_seed) = %v", h, g)
	}
	p.Define("scale=7")
	p.Define("default_seed=1")
	env = p.NewEnv(EnvOptions{ClientID: 2, Scale: 30, RandomSeed: 100, DefaultSeed: 77})
	env.Run(0, failRunner{t})
	if v, _ := env.Value("a"); v != Int(109) {
		t.Errorf("-D scale=7: a = %v", v)
	}
	if v, _ := env.Value("h"); v != Int(hashMurmur2(5, 1)) {
		t.Errorf("-D default_seed=1: h = %v", v)
	}
	if err := p.Define("novalue"); err == nil || !userr.Is(err) {
		t.Errorf("-D without =: %v", err)
	}
}

// TestEvalErrors checks the evaluation errors pgbench 15 prints for the same expressions.
func TestEvalErrors(t *testing.T) {
	cases := map[string]string{
		"1 / 0":                       "division by zero",
		"1 % 0":                       "division by zero",
		"9223372036854775807 + 1":     "bigint add out of range",
		"-9223372036854775807 - 2":    "bigint sub out of range",
		"9223372036854775807 * 2":     "bigint mul out of range",
		"(-9223372036854775808) / -1": "bigint div out of range",
		"int(1e30)":                   "double to int overflow for 1000000000000000019884624838656.000000",
		"random(5, 1)":                "empty range given to random",
		"random(-9223372036854775808, 9223372036854775807)": "random range is too large",
		"random_gaussian(1, 10, 1.5)":                       "gaussian parameter must be at least 2.000000 (not 1.500000)",
		"random_exponential(1, 10, 0)":                      "exponential parameter must be greater than zero (not 0.000000)",
		"random_zipfian(1, 10, 1.0)":                        "zipfian parameter must be in range [1.001, 1000]",
		"random_zipfian(1, 10, 2000)":                       "zipfian parameter must be in range [1.001, 1000]",
		"permute(1, 0)":                                     "permute size parameter must be greater than zero",
		"true + 1":                                          "cannot coerce boolean to int",
		"not 1":                                             "cannot coerce int to boolean",
		"1 and true":                                        "cannot coerce int to boolean",
		":undefinedvar":                                     `undefined variable "undefinedvar"`,
		"int(true)":                                         "cannot coerce boolean to int",
		":s + 1":                                            `malformed variable "s" value: "abc"`,
		":big":                                              `value "99999999999999999999" is out of range for type bigint`,
	}
	for expr, want := range cases {
		p := NewProgram()
		if _, err := p.Add("e.sql", "\n\\set a "+expr+"\n", 1); err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		p.Define("s=abc")
		p.Define("big=99999999999999999999")
		err := p.NewEnv(EnvOptions{}).Run(0, failRunner{t})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "e.sql:2:1: \\set a: ") {
			t.Errorf("%s: %v, want %q", expr, err, want)
		}
	}
}

func TestRandomParametersRefuseNaN(t *testing.T) {
	for _, e := range []string{"random_gaussian(1, 10, sqrt(-1))", "random_exponential(1, 10, sqrt(-1))", "random_zipfian(1, 10, sqrt(-1))"} {
		p := NewProgram()
		p.Add("n.sql", "\\set v "+e+"\n", 1)
		if err := p.NewEnv(EnvOptions{}).Run(0, failRunner{t}); err == nil || !strings.Contains(err.Error(), "(not NaN)") {
			t.Errorf("%s: %v", e, err)
		}
	}
}
