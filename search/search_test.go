package search

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/userr"
)

var types = []string{"new_order", "payment", "order_status", "delivery", "stock_level"}

func TestParseSLO(t *testing.T) {
	good := []struct {
		in   string
		want SLO
	}{
		{"new_order.p99<=50ms", SLO{Type: "new_order", Kind: "response", Pct: "p99", Limit: 50 * time.Millisecond}},
		{" payment.p99.9 <= 1.5s ", SLO{Type: "payment", Kind: "response", Pct: "p99.9", Limit: 1500 * time.Millisecond}},
		{"stock_level.max<800us", SLO{Type: "stock_level", Kind: "response", Pct: "max", Limit: 800 * time.Microsecond, Strict: true}},
		{"delivery.service.p50<=2ms", SLO{Type: "delivery", Kind: "service", Pct: "p50", Limit: 2 * time.Millisecond}},
		{"order_status.response.p99.99<=1s", SLO{Type: "order_status", Kind: "response", Pct: "p99.99", Limit: time.Second}},
	}
	for _, g := range good {
		s, err := ParseSLO(g.in, types)
		if err != nil {
			t.Fatalf("%q: %v", g.in, err)
		}
		g.want.Text = g.in
		if s != g.want {
			t.Errorf("%q = %+v, want %+v", g.in, s, g.want)
		}
	}
	bad := []string{"", "new_order.p99", "new_order<=50ms", "neworder.p99<=50ms", "new_order.p98<=50ms",
		"new_order.p99<=50", "new_order.p99<=-5ms", "new_order.p99<=0s", "new_order.p99>=50ms", ".p99<=5ms", "new_order.<=5ms",
		"new_order.latency.p99<=5ms"}
	for _, b := range bad {
		_, err := ParseSLO(b, types)
		if err == nil {
			t.Errorf("%q parsed", b)
			continue
		}
		if !userr.Is(err) || !strings.Contains(err.Error(), "new_order.p99<=50ms") {
			t.Errorf("%q: %v: want a user error quoting the expected form", b, err)
		}
	}
	if _, err := ParseSLOs(nil, types); err == nil {
		t.Error("no budgets accepted")
	}
	if _, err := ParseSLOs([]string{"new_order.p99<=5ms", "x", "y"}, types); err == nil || strings.Count(err.Error(), "--slo \"") != 2 {
		t.Errorf("two bad budgets: %v, want both reported", err)
	}
}

func TestSLOJudge(t *testing.T) {
	p := measure.Percentiles{P50: 1, P90: 2, P95: 3, P99: 50, P999: 60, P9999: 70, Max: 80}
	cases := []struct {
		slo string
		val float64
		met bool
	}{
		{"new_order.p99<=50ms", 50, true},
		{"new_order.p99<50ms", 50, false},
		{"new_order.p50<=1ms", 1, true},
		{"new_order.p99.9<=59ms", 60, false},
		{"new_order.p99.99<=1s", 70, true},
		{"new_order.max<=0.08s", 80, true},
		{"new_order.p95<=2.5ms", 3, false},
		{"new_order.p90<=2000us", 2, true},
	}
	for _, c := range cases {
		s, err := ParseSLO(c.slo, types)
		if err != nil {
			t.Fatal(err)
		}
		v := s.ValueMs(p)
		if v != c.val || s.Met(v) != c.met {
			t.Errorf("%s: value %g met %v; want %g %v", c.slo, v, s.Met(v), c.val, c.met)
		}
	}
}

// A fake database that meets the budget up to a capacity: the search steps up, bisects, and
// answers within the precision below the capacity.
func TestFindBisects(t *testing.T) {
	cases := []struct {
		capacity float64
		cfg      Config
		steps    []Step
		max      float64
	}{
		{837, Config{Start: 50, Factor: 2, Precision: 0.05, MaxProbes: 20, MinRate: 1},
			[]Step{{50, true}, {100, true}, {200, true}, {400, true}, {800, true}, {1600, false},
				{1200, false}, {1000, false}, {900, false}, {850, false}, {825, true}},
			825},
		// The first rate already fails: step down, then bisect.
		{30, Config{Start: 100, Factor: 2, Precision: 0.1, MaxProbes: 20, MinRate: 1},
			[]Step{{100, false}, {50, false}, {25, true}, {37.5, false}, {31.2, false}, {28.1, true}, {29.6, true}},
			29.6},
		// Never fails within the probes: a lower bound only.
		{1e9, Config{Start: 10, Factor: 2, Precision: 0.05, MaxProbes: 4, MinRate: 1},
			[]Step{{10, true}, {20, true}, {40, true}, {80, true}}, 80},
		// Nothing passes down to the minimum rate.
		{0.5, Config{Start: 8, Factor: 2, Precision: 0.05, MaxProbes: 20, MinRate: 1},
			[]Step{{8, false}, {4, false}, {2, false}, {1, false}}, 0},
	}
	for i, c := range cases {
		res, err := Find(c.cfg, func(r float64) (bool, error) { return r <= c.capacity, nil })
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Steps) != len(c.steps) {
			t.Fatalf("case %d: steps %v, want %v", i, res.Steps, c.steps)
		}
		for k := range res.Steps {
			if math.Abs(res.Steps[k].Rate-c.steps[k].Rate) > 1e-9 || res.Steps[k].Pass != c.steps[k].Pass {
				t.Fatalf("case %d: steps %v, want %v", i, res.Steps, c.steps)
			}
		}
		if res.MaxRate != c.max {
			t.Errorf("case %d: max rate %g, want %g", i, res.MaxRate, c.max)
		}
	}
	res, _ := Find(Config{Start: 50, Factor: 2, Precision: 0.05, MaxProbes: 20, MinRate: 1}, func(r float64) (bool, error) { return r <= 837, nil })
	if !res.Converged || res.FailRate != 850 || (res.FailRate-res.MaxRate)/res.MaxRate > 0.05 {
		t.Errorf("result %+v: want converged between 825 and 850", res)
	}
}

func TestFindStopsOnError(t *testing.T) {
	boom := errors.New("interrupted")
	n := 0
	res, err := Find(Defaults, func(r float64) (bool, error) {
		n++
		if n == 3 {
			return false, boom
		}
		return true, nil
	})
	if !errors.Is(err, boom) || len(res.Steps) != 2 || res.MaxRate != 100 {
		t.Fatalf("err %v, result %+v: want the error and the two probes before it", err, res)
	}
}

func TestMidpoint(t *testing.T) {
	cases := []struct{ lo, hi, want float64 }{
		{800, 1600, 1200}, {800, 850, 825}, {25, 37.5, 31.2}, {1000, 1001, 1000.5}, {99.9, 100.1, 100},
	}
	for _, c := range cases {
		if got := midpoint(c.lo, c.hi); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("midpoint(%g, %g) = %g, want %g", c.lo, c.hi, got, c.want)
		}
	}
}
