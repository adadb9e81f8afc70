package pgscript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/gen"
)

func TestSampleRoundTrip(t *testing.T) {
	vals := []SampleValue{{Text: "plain"}, {Null: true}, {Text: `a\b`}, {Text: "two\nlines\tand\rcr"}, {Text: ""}, {Text: `\N`}}
	var b []byte
	for _, v := range vals {
		b = AppendSample(b, v)
	}
	got, err := ParseSamples("x", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(vals) {
		t.Fatalf("%d values back, want %d: %q", len(got), len(vals), b)
	}
	for i := range vals {
		if got[i] != vals[i] {
			t.Errorf("value %d: %+v back, want %+v", i, got[i], vals[i])
		}
	}
}

func TestSampleErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("empty.txt", "")
	write("bad.txt", "ok\nbad\\q\n")
	write("good.txt", "7\n")
	script := write("s.sql", "")
	for _, c := range []struct{ src, want string }{
		{"\\sample x missing.txt\n", "cannot read sample file"},
		{"\\sample x empty.txt\n", "holds no value"},
		{"\\sample x bad.txt\n", "bad.txt:2: unknown escape \\q"},
		{"\\sample x\n", "missing argument"},
		{"\\sample x good.txt y\n", "too many arguments"},
		{"\\sample 1x good.txt\n", "invalid variable name"},
		{"\\sample x " + dir + "\n", "not a regular file"},
	} {
		_, err := NewProgram().Add(script, c.src, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.src, err, c.want)
		}
	}
}

// TestSampleDraws: \sample binds each of its file's values as text (NULL as nil), drawn uniformly.
func TestSampleDraws(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "v.txt"), []byte("10\n20\n\\N\nx y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := NewProgram()
	if _, err := p.Add(filepath.Join(dir, "s.sql"), "\\sample v v.txt\nSELECT :v;\n", 1); err != nil {
		t.Fatal(err)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	env := p.NewEnv(EnvOptions{Rand: gen.New(7)})
	seen := map[any]int{}
	r := &recordRunner{f: func(args []any) { seen[args[0]]++ }}
	const n = 4000
	for i := 0; i < n; i++ {
		if err := env.Run(0, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []any{"10", "20", nil, "x y"} {
		if c := seen[want]; c < n/4-200 || c > n/4+200 {
			t.Errorf("value %v drawn %d times of %d, want about %d", want, c, n, n/4)
		}
	}
	if len(seen) != 4 {
		t.Errorf("values drawn: %v, want the file's 4", seen)
	}
}

type recordRunner struct{ f func([]any) }

func (r *recordRunner) Exec(cmd int, c *Command, stmt int, st *Statement, args []any) error {
	r.f(args)
	return nil
}
func (r *recordRunner) Sleep(int, *Command, time.Duration) error { return nil }
