package pgscript

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// failRunner refuses SQL and sleeps: the scripts these tests run are meta-commands only.
type failRunner struct{ t *testing.T }

func (r failRunner) Exec(cmd int, c *Command, stmt int, st *Statement, args []any) error {
	r.t.Fatalf("unexpected SQL %q", st.SQL)
	return nil
}
func (r failRunner) Sleep(cmd int, c *Command, d time.Duration) error {
	r.t.Fatalf("unexpected sleep %v", d)
	return nil
}

// TestVectorsMatchPgbench runs testdata/vectors.sql (hashes, permute, operators, coercions,
// formatting) and compares every debug() line with what pgbench 15 printed for the same script
// (testdata/vectors.pgbench15.out, from `pgbench -n -t 1 -f vectors.sql -D x=41 -D y=yes -D z=1.50`).
func TestVectorsMatchPgbench(t *testing.T) {
	src, err := os.ReadFile("testdata/vectors.sql")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/vectors.pgbench15.out")
	if err != nil {
		t.Fatal(err)
	}
	p := NewProgram()
	if _, err := p.Add("vectors.sql", string(src), 1); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"x=41", "y=yes", "z=1.50"} {
		if err := p.Define(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	env := p.NewEnv(EnvOptions{Debug: &out})
	if err := env.Run(0, failRunner{t}); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	exp := strings.Split(strings.TrimSpace(string(want)), "\n")
	if len(got) != len(exp) {
		t.Fatalf("%d debug lines, pgbench printed %d", len(got), len(exp))
	}
	for i := range exp {
		if got[i] != exp[i] {
			t.Errorf("line %d: got %q, pgbench printed %q", i+1, got[i], exp[i])
		}
	}
}
