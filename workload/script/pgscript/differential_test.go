package pgscript

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestDifferentialPgbench replays 400 generated expressions (operators, precedence, NULLs,
// coercions, hashes, permute, CASE, IS) whose results pgbench 15 printed, one run each:
// `\set v debug(EXPR)` with -D i=42 -D d=2.5 -D b=true. testdata/differential.pgbench15.tsv holds
// the expression and pgbench's debug value, or its error.
func TestDifferentialPgbench(t *testing.T) {
	data, err := os.ReadFile("testdata/differential.pgbench15.tsv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) < 400 {
		t.Fatalf("%d cases", len(lines))
	}
	for _, line := range lines {
		expr, want, _ := strings.Cut(line, "\t")
		p := NewProgram()
		_, perr := p.Add("one.sql", "\\set v debug("+expr+")\n", 1)
		if strings.HasPrefix(want, "one.sql:1:") {
			if perr == nil {
				t.Errorf("%s: compiled, pgbench said %q", expr, want)
			}
			continue
		}
		if perr != nil {
			t.Errorf("%s: %v, pgbench printed %q", expr, perr, want)
			continue
		}
		for _, d := range []string{"i=42", "d=2.5", "b=true"} {
			p.Define(d)
		}
		var out bytes.Buffer
		env := p.NewEnv(EnvOptions{Debug: &out})
		rerr := env.Run(0, failRunner{t})
		// pgbench's first line: the first debug() value, or the error when none came before it
		first, _, _ := strings.Cut(out.String(), "\n")
		first = strings.TrimPrefix(first, "debug(script=0,command=1): ")
		switch {
		case rerr != nil && strings.Contains(rerr.Error(), "cannot coerce boolean to int or double"):
			// abs() of a boolean: pgbench reads the double of its value union (an unspecified
			// number); candor refuses it
		case first != "":
			if first != want {
				t.Errorf("%s: first debug value %q, pgbench printed %q", expr, first, want)
			}
		case rerr != nil:
			if !strings.Contains(rerr.Error(), want) {
				t.Errorf("%s: %v, pgbench printed %q", expr, rerr, want)
			}
		default:
			t.Errorf("%s: no value, pgbench printed %q", expr, want)
		}
	}
}
