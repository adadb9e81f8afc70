package capture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/workload/script/pgscript"
)

type argsRunner struct{ got [][]any }

func (r *argsRunner) Exec(cmd int, c *pgscript.Command, stmt int, st *pgscript.Statement, args []any) error {
	r.got = append(r.got, append([]any(nil), args...))
	return nil
}
func (r *argsRunner) Sleep(int, *pgscript.Command, time.Duration) error { return nil }

// TestWrite: the written scripts compile as candor scripts and bind what capture.json says: a key's
// range, a sample file's values, a LIMIT's constant, NULL for a parameter not inferred; run.sh
// carries the weights and the rate.
func TestWrite(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	text := "SELECT a FROM t WHERE k = $1 AND name = $2 AND lower(x) = $3 LIMIT $4"
	st := &Statement{ID: "7", Text: text, sql: text, Calls: 300, MeanMS: 0.5, Share: 1, RatePerSec: 30,
		analysis: Analyze(text, false),
		Params: []ParamOut{
			{N: 1, Var: "p1", Inferred: true, Table: "t", Column: "k", Method: "random(1, 50)"},
			{N: 2, Var: "p2", Inferred: true, Table: "t", Column: "name", Method: "sample samples/t.name.txt", SampleFile: "samples/t.name.txt", Values: 2},
			{N: 3, Var: "p3", Method: "not inferred", Note: "no column found"},
			{N: 4, Var: "p4", Inferred: true, Method: "constant 10"},
		}}
	r := &Result{Format: 1, Source: "pg_stat_statements", Started: t0, Ended: t0.Add(10 * time.Second), Cover: 0.95,
		TotalCalls: 300, RatePerSec: 30, CoveredShare: 1, Statements: []*Statement{st},
		samples: map[string][]pgscript.SampleValue{"samples/t.name.txt": {{Text: "ann"}, {Text: "o'brien\tx"}}}}
	dir := t.TempDir()
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	if st.File != "01-select-t.sql" {
		t.Errorf("file %s", st.File)
	}
	sh, err := os.ReadFile(filepath.Join(dir, "run.sh"))
	if err != nil || !strings.Contains(string(sh), "-f 01-select-t.sql@300 --mode rate --rate 30 --connections 4") {
		t.Errorf("run.sh: %s (%v)", sh, err)
	}
	if _, err := ReadResult(filepath.Join(dir, "capture.json")); err != nil {
		t.Error(err)
	}
	p := pgscript.NewProgram()
	if _, err := p.AddFile(filepath.Join(dir, st.File)); err != nil {
		t.Fatal(err)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	env := p.NewEnv(pgscript.EnvOptions{Rand: gen.New(3)})
	run := &argsRunner{}
	for i := 0; i < 200; i++ {
		if err := env.Run(0, run); err != nil {
			t.Fatal(err)
		}
	}
	names := map[any]bool{}
	for _, a := range run.got {
		k, ok := a[0].(int64)
		if !ok || k < 1 || k > 50 {
			t.Fatalf("$1 = %v, want an integer in 1..50", a[0])
		}
		names[a[1]] = true
		if a[2] != nil || a[3] != int64(10) {
			t.Fatalf("$3, $4 = %v, %v; want NULL (not inferred) and 10", a[2], a[3])
		}
	}
	if !names["ann"] || !names["o'brien\tx"] || len(names) != 2 {
		t.Errorf("$2 drew %v, want the sample's two values", names)
	}
	b, _ := os.ReadFile(filepath.Join(dir, st.File))
	if !strings.Contains(string(b), "-- TODO: write a generator for $3") {
		t.Errorf("the script does not ask for $3's generator:\n%s", b)
	}
}
