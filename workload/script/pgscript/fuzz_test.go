package pgscript

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/userr"
)

// nullRunner accepts every statement and sleep, and answers \gset and \aset with one row whose
// columns are the statement's parameter names.
type nullRunner struct {
	env *Env
	n   int
}

func (r *nullRunner) Exec(cmd int, c *Command, stmt int, st *Statement, args []any) error {
	r.n++
	if len(args) != len(st.Params) {
		panic("arguments do not match parameters")
	}
	if c.Store != StoreNone {
		return r.env.StoreResult(c, stmt, st.ParamNames, 1, args)
	}
	return nil
}

func (r *nullRunner) Sleep(cmd int, c *Command, d time.Duration) error { r.n++; return nil }

// FuzzParse: any text either compiles or fails with a user error pointing at a place; a compiled
// script runs to its end (or an evaluation error with a place) without panicking, and every
// statement's parameters are numbered $1..$n in order.
func FuzzParse(f *testing.F) {
	for _, b := range Builtins {
		f.Add(b.Script)
	}
	f.Add("\\if :x > 1\nSELECT :x;\n\\elif :x < 0\n\\sleep :x ms\n\\else\nSELECT 1 \\gset p_\n\\endif\n")
	f.Add("SELECT 'a:b', $$ :c $$, \"d\" \\; SELECT :e::int /* :f */ -- :g\n\\aset\n")
	f.Add("\\sample v testdata/sample.txt\nSELECT :v;\n") // candor's \sample, its file beside the package
	f.Fuzz(func(t *testing.T, src string) {
		defer func(old int64) { harmonicLimit = old }(harmonicLimit)
		harmonicLimit = 10000
		p := NewProgram()
		s, err := p.Add("f.sql", src, 1)
		if err != nil {
			var pe *Error
			if !userr.Is(err) || !errors.As(err, &pe) || pe.Pos.Line < 1 || pe.Pos.Col < 1 {
				t.Fatalf("error without a place: %v", err)
			}
			return
		}
		for _, c := range s.Commands {
			at := offsetOf(src, c.Pos)
			if at < 0 || at >= len(src) || c.Kind == SQL && isSpace(src[at]) || c.Kind != SQL && src[at] != '\\' {
				t.Fatalf("command %s at %v: not where its text starts", c.Kind, c.Pos)
			}
			for _, st := range c.Statements {
				for i := range st.Params {
					if !strings.Contains(st.SQL, "$"+itoa(i+1)) {
						t.Fatalf("statement %q lacks $%d", st.SQL, i+1)
					}
				}
			}
		}
		p.Define("x=3")
		if err := p.Check(); err != nil {
			return
		}
		env := p.NewEnv(EnvOptions{Rand: gen.New(1), Scale: 1})
		if err := env.Run(0, &nullRunner{env: env}); err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("evaluation error without a place: %v", err)
			}
		}
	})
}

// offsetOf is the byte offset of a line and column in src, -1 if there is none.
func offsetOf(src string, p Pos) int {
	line, col := 1, 1
	for i := 0; i < len(src); i++ {
		if line == p.Line && col == p.Col {
			return i
		}
		if src[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return -1
}

func itoa(i int) string { return Int(int64(i)).String() }

// FuzzEval: an expression either fails to compile, or evaluates without panicking to the same
// value twice from the same seed; an integer result's text form reads back as the same integer.
func FuzzEval(f *testing.F) {
	for _, e := range []string{
		"1 + 2 * 3", "-9223372036854775808 / -1", "abs(-5.5) + :d", "case when :i > 0 then :i else -:i end",
		"hash(:i) # hash_fnv1a(:i, 7)", "permute(:i, 1000, 3)", "random_zipfian(1, 100, 0.5)",
		"random_gaussian(1, 10, 2.5) + random_exponential(1, 10, 3)", "greatest(:i, :d, 3) is null",
		"int(:d) << 3 >> 1 | ~:i & 7", "not (:i isnull) or :b", "pow(2, 0.5) <> sqrt(2)", "ln(:d) * exp(1) / pi()",
		"least(1) = 1 and 2 notnull", "double(:i) % 3",
	} {
		f.Add(e, int64(42), 2.5)
	}
	f.Fuzz(func(t *testing.T, expr string, i int64, d float64) {
		defer func(old int64) { harmonicLimit = old }(harmonicLimit)
		harmonicLimit = 10000
		if strings.ContainsAny(expr, "\n\\") {
			return
		}
		p := NewProgram()
		if _, err := p.Add("e.sql", "\\set v "+expr+"\n", 1); err != nil {
			return
		}
		p.Define("i=" + Int(i).String())
		p.Define("d=" + Double(d).String())
		p.Define("b=true")
		if err := p.Check(); err != nil {
			return
		}
		run := func() (Value, error) {
			env := p.NewEnv(EnvOptions{Rand: gen.New(9)})
			err := env.Run(0, &nullRunner{env: env})
			v, _ := env.Value("v")
			return v, err
		}
		v1, err1 := run()
		v2, err2 := run()
		if (err1 == nil) != (err2 == nil) || err1 == nil && !same(v1, v2) {
			t.Fatalf("%q: %v %v then %v %v", expr, v1, err1, v2, err2)
		}
		if err1 == nil && v1.Kind() == KindInt {
			back, err := parseText("v", v1.String())
			if err != nil || back != v1 {
				t.Fatalf("%q: %v reads back as %v %v", expr, v1, back, err)
			}
		}
	})
}

func same(a, b Value) bool {
	if a.kind == KindDouble && b.kind == KindDouble && a.f != a.f && b.f != b.f {
		return true // NaN
	}
	return a == b
}

// FuzzCommandLine: the command line's specs (-f FILE@W and -b NAME@W through ParseWeight, -D
// name=value through Define) either parse, with a weight in pgbench's range and the name the text
// before the last '@', or fail with a user error; nothing panics.
func FuzzCommandLine(f *testing.F) {
	for _, s := range []string{"a.sql@5", "tpcb-like", "select-only@0", "a@b@3", "x@", "x@+5", "x@ 5", "x@-1",
		"x@2147483648", "scale=10", "n=", "=v", "1x=2", "a_b=c=d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		name, w, err := ParseWeight(spec)
		switch {
		case err != nil && !userr.Is(err):
			t.Fatalf("ParseWeight(%q): %v is not a user error", spec, err)
		case err == nil && (w < 0 || w > math.MaxInt32):
			t.Fatalf("ParseWeight(%q): weight %d out of range", spec, w)
		case err == nil && strings.Contains(spec, "@") && name != spec[:strings.LastIndexByte(spec, '@')]:
			t.Fatalf("ParseWeight(%q): name %q is not the text before the last @", spec, name)
		case err == nil && !strings.Contains(spec, "@") && (name != spec || w != 1):
			t.Fatalf("ParseWeight(%q) = %q, %d: want the spec itself, weight 1", spec, name, w)
		}
		if err := NewProgram().Define(spec); err != nil && !userr.Is(err) {
			t.Fatalf("Define(%q): %v is not a user error", spec, err)
		}
	})
}
