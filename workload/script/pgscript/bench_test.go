package pgscript

import (
	"testing"
	"time"

	"github.com/candor-bench/candor/gen"
)

type discardRunner struct{}

func (discardRunner) Exec(int, *Command, int, *Statement, []any) error { return nil }
func (discardRunner) Sleep(int, *Command, time.Duration) error         { return nil }

// BenchmarkRunTPCBLike is the interpreter's cost per transaction of tpcb-like (four \set, seven
// statements with their arguments), the database left out.
func BenchmarkRunTPCBLike(b *testing.B) {
	p := NewProgram()
	if _, err := p.AddBuiltin("tpcb-like"); err != nil {
		b.Fatal(err)
	}
	if err := p.Check(); err != nil {
		b.Fatal(err)
	}
	env := p.NewEnv(EnvOptions{Scale: 100, Rand: gen.New(1)})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := env.Run(0, discardRunner{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvalExpression is one \set with a CASE, a hash and a permute.
func BenchmarkEvalExpression(b *testing.B) {
	p := NewProgram()
	if _, err := p.Add("b.sql", "\\set v case when :scale > 5 then permute(hash(random(1, 1000)), 1000000) else 0 end\n", 1); err != nil {
		b.Fatal(err)
	}
	p.Check()
	env := p.NewEnv(EnvOptions{Scale: 100, Rand: gen.New(1)})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := env.Run(0, discardRunner{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRunAllocations keeps the interpreter allocation-light: a tpcb-like transaction allocates
// only the boxes of its integer arguments (13 of them), nothing per \set.
func TestRunAllocations(t *testing.T) {
	p := NewProgram()
	p.AddBuiltin("tpcb-like")
	p.Check()
	env := p.NewEnv(EnvOptions{Scale: 100, Rand: gen.New(1)})
	env.Run(0, discardRunner{})
	if n := testing.AllocsPerRun(200, func() { env.Run(0, discardRunner{}) }); n > 13 {
		t.Errorf("%.1f allocations per tpcb-like transaction, want at most 13", n)
	}
}
