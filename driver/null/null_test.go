package null

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/userr"
)

func TestParseURL(t *testing.T) {
	for _, c := range []struct {
		url  string
		want Service
		seed uint64
	}{
		{"null:", Service{Kind: None}, 1},
		{"null://", Service{Kind: None}, 1},
		{"NULL:?service=none", Service{Kind: None}, 1},
		{"null:?service=fixed:1ms", Service{Kind: Fixed, A: time.Millisecond}, 1},
		{"null:?service=exp:2ms&seed=7", Service{Kind: Exp, A: 2 * time.Millisecond}, 7},
		{"null:?service=EXP:250us", Service{Kind: Exp, A: 250 * time.Microsecond}, 1},
		{"null:?service=uniform:1ms..3ms", Service{Kind: Uniform, A: time.Millisecond, B: 3 * time.Millisecond}, 1},
		{"null:?service=uniform:1ms..1ms", Service{Kind: Uniform, A: time.Millisecond, B: time.Millisecond}, 1},
	} {
		o, err := ParseURL(c.url)
		if err != nil {
			t.Errorf("%s: %v", c.url, err)
			continue
		}
		if o.Service != c.want || o.Seed != c.seed {
			t.Errorf("%s: got %+v seed %d, want %+v seed %d", c.url, o.Service, o.Seed, c.want, c.seed)
		}
	}
}

func TestParseURLErrors(t *testing.T) {
	for _, c := range []struct{ url, says string }{
		{"null:?service=gamma:1ms", `"gamma" is not a distribution`},
		{"null:?service=fixed", "names no distribution"},
		{"null:?service=fixed:1", "is not a duration"},
		{"null:?service=fixed:-1ms", "outside"},
		{"null:?service=exp:2h", "outside"},
		{"null:?service=uniform:3ms..1ms", "low end 3ms is above the high end 1ms"},
		{"null:?service=uniform:1ms", "uniform:LOW..HIGH"},
		{"null:?service=fixed:1ms&service=fixed:2ms", "2 times"},
		{"null:?seed=x", "not a whole number"},
		{"null:?speed=1", `"speed", which it does not know`},
		{"null://host/db", "names a place"},
		{"null:somewhere", "names a place"},
		{"null:?%zz", "malformed query"},
		{"postgres://x/y", "not a null engine URL"},
	} {
		_, err := ParseURL(c.url)
		if err == nil {
			t.Errorf("%s: no error, want one saying %q", c.url, c.says)
			continue
		}
		if !userr.Is(err) {
			t.Errorf("%s: %v is not a user error (exit status 2)", c.url, err)
		}
		if !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %q does not say %q", c.url, err, c.says)
		}
	}
}

// Through driver.Open, as the CLI opens it: a bad URL is a user error before anything runs.
func TestOpen(t *testing.T) {
	ctx := context.Background()
	if _, err := driver.Open(ctx, "null:?service=fixed:x"); err == nil || !userr.Is(err) {
		t.Fatalf("a bad service time opened: %v", err)
	}
	db, err := driver.Open(ctx, "null:?service=exp:2ms")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !Is(db) || db.Kind() != Name || db.Dialect().SQLFamily() != driver.FamilyPostgres {
		t.Fatalf("opened %T kind %s family %s", db, db.Kind(), db.Dialect().SQLFamily())
	}
	if d, ok := driver.URLDialect("null:"); !ok || d.Name != Name {
		t.Fatalf("URLDialect(null:) = %+v, %v", d, ok)
	}
	c, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := driver.Simulated(c); !ok {
		t.Fatal("a null connection is not a driver.Simulator")
	}
	// Statements fail loudly rather than return invented rows.
	if _, err := c.Exec(ctx, "UPDATE t SET x = 1"); !errors.Is(err, ErrNoStatements) {
		t.Fatalf("Exec: %v", err)
	}
	var n int
	if err := c.QueryRow(ctx, "SELECT 1").Scan(&n); !errors.Is(err, ErrNoStatements) {
		t.Fatalf("QueryRow: %v", err)
	}
	v, _ := db.Version(ctx)
	if !strings.Contains(v, "exp:2ms") {
		t.Fatalf("version %q does not state the service time", v)
	}
}

// Simulate waits the drawn service time, and returns at once with ctx's error when ctx ends.
func TestSimulate(t *testing.T) {
	db, _ := driver.Open(context.Background(), "null:?service=fixed:20ms")
	c, _ := db.Connect(context.Background())
	sim, _ := driver.Simulated(c)
	start := time.Now()
	if err := sim.Simulate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 20*time.Millisecond {
		t.Fatalf("fixed:20ms completed after %s", el)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	db2, _ := driver.Open(context.Background(), "null:?service=fixed:10s")
	c2, _ := db2.Connect(context.Background())
	sim2, _ := driver.Simulated(c2)
	start = time.Now()
	if err := sim2.Simulate(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a cancelled wait returned %v", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("a cancelled wait took %s", el)
	}
}

// The drawn service times follow the stated distribution: their mean within 2% of the stated one
// (for 200,000 draws the standard error of an exponential's mean is 0.22%, of a uniform's on
// [1, 3] ms 0.13%), the exponential's standard deviation equal to its mean, the uniform's bounds
// kept and its standard deviation (B-A)/sqrt(12).
func TestDrawMatchesDistribution(t *testing.T) {
	const n = 200_000
	for _, c := range []struct {
		spec       string
		mean, sd   float64 // ms
		lo, hi     float64 // ms; hi 0: unbounded
		checkRange bool
	}{
		{"fixed:1ms", 1, 0, 1, 1, true},
		{"exp:2ms", 2, 2, 0, 0, false},
		{"uniform:1ms..3ms", 2, 2 / math.Sqrt(12), 1, 3, true},
	} {
		s, err := ParseService(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		r := gen.New(gen.Derive(42, "null-test", c.spec))
		var sum, sq float64
		lo, hi := math.Inf(1), math.Inf(-1)
		for range n {
			v := float64(s.Draw(r)) / float64(time.Millisecond)
			sum += v
			sq += v * v
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		mean := sum / n
		sd := math.Sqrt(sq/n - mean*mean)
		if math.Abs(mean-c.mean) > 0.02*c.mean {
			t.Errorf("%s: mean %.4f ms, want %.4f ms within 2%%", c.spec, mean, c.mean)
		}
		if c.sd == 0 && sd > 1e-9 || c.sd > 0 && math.Abs(sd-c.sd) > 0.03*c.sd {
			t.Errorf("%s: standard deviation %.4f ms, want %.4f ms within 3%%", c.spec, sd, c.sd)
		}
		if c.checkRange && (lo < c.lo-1e-6 || hi > c.hi+1e-6) {
			t.Errorf("%s: drew %.4f..%.4f ms, outside %.4f..%.4f", c.spec, lo, hi, c.lo, c.hi)
		}
		if s.Mean() != time.Duration(c.mean*float64(time.Millisecond)) {
			t.Errorf("%s: Mean() = %s", c.spec, s.Mean())
		}
	}
}

// Each connection draws from its own stream, derived from the URL's seed: the same seed gives the
// same service times, another seed others.
func TestDrawsAreSeeded(t *testing.T) {
	draws := func(url string) []time.Duration {
		db, _ := driver.Open(context.Background(), url)
		var out []time.Duration
		for range 2 {
			c, _ := db.Connect(context.Background())
			nc := c.(*Conn)
			for range 3 {
				out = append(out, nc.s.Draw(nc.r))
			}
		}
		return out
	}
	a, b, o := draws("null:?service=exp:1ms&seed=3"), draws("null:?service=exp:1ms&seed=3"), draws("null:?service=exp:1ms&seed=4")
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("seed 3 drew %v, then %v", a, b)
		}
	}
	if a[0] == a[3] || a[0] == o[0] {
		t.Fatalf("connections or seeds share a stream: %v, seed 4: %v", a, o)
	}
}

func FuzzParseNullURL(f *testing.F) {
	for _, s := range []string{"null:", "null:?service=exp:2ms", "null:?service=uniform:1ms..3ms&seed=9",
		"null:?service=fixed:", "null://h", "null:?service=uniform:..", "null:?service=exp:1e300s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		o, err := ParseURL(raw)
		if err != nil {
			if !userr.Is(err) {
				t.Fatalf("%q: %v is not a user error", raw, err)
			}
			return
		}
		s := o.Service
		if s.A < 0 || s.B < 0 || s.A > maxService || s.B > maxService || s.Kind == Uniform && s.A > s.B {
			t.Fatalf("%q parsed to an impossible distribution %+v", raw, s)
		}
		// What parses prints back to the same distribution.
		again, err := ParseService(s.String())
		if err != nil || again != s {
			t.Fatalf("%q: %+v prints as %q, which parses to %+v, %v", raw, s, s.String(), again, err)
		}
		r := gen.New(1)
		for range 10 {
			if d := s.Draw(r); d < 0 || s.Kind != Exp && d > max(s.A, s.B) {
				t.Fatalf("%q: drew %s from %+v", raw, d, s)
			}
		}
	})
}
