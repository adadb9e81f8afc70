package tpch

import (
	"math"
	"testing"
)

func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// A worked example of clause 5.4 by hand, SF 1:
//
//	power test: Q1 takes 1000 s, the other 21 queries 0.5 s each, RF1 and RF2 1 s each.
//	Clause 5.4.1.4: 1000/0.5 = 2000 > 1000, so every query below 1000/1000 = 1 s counts as 1 s.
//	∏ = 1000 · 1^21 · 1 · 1 = 1000; 1000^(1/24) = 10^(3/24) = 10^0.125 = 1.333521...
//	Power@1 = 3600 · 1 / 1.333521 = 2699.619
//	(without the floor: (1000 · 0.5^21)^(1/24) = 0.72711..., Power@1 would be 4951.12)
//	throughput test: S = 2 streams in Ts = 3960 s: Throughput@1 = 2·22·3600/3960 · 1 = 40
//	QphH@1 = sqrt(2699.619 · 40) = 328.610
func TestMetricWorkedExample(t *testing.T) {
	qi := make([]float64, 22)
	for i := range qi {
		qi[i] = 0.5
	}
	qi[0] = 1000
	ri := []float64{1, 1}
	adj, raised := Floor(qi)
	if raised != 21 || adj[1] != 1 || adj[0] != 1000 || qi[1] != 0.5 {
		t.Fatalf("Floor: %d raised, adjusted %v (input %v); want 21 raised to 1 s, the input untouched", raised, adj[:3], qi[:3])
	}
	p := Power(1, qi, ri)
	if !near(p, 2699.619, 1e-6) {
		t.Fatalf("Power@1 = %.4f, want 2699.619 (3600/10^0.125)", p)
	}
	tp := Throughput(1, 2, 3960)
	if tp != 40 {
		t.Fatalf("Throughput@1 = %v, want 40", tp)
	}
	if q := QphH(p, tp); !near(q, 328.610, 1e-5) {
		t.Fatalf("QphH@1 = %.4f, want 328.610", q)
	}
}

// Clause 5.3.7.5: each interval reported rounded to the nearest 0.1 s, 23.74 as 23.7 and 23.75 as
// 23.8 (the clause's own examples), below 0.05 s as 0.1 s so that none is zero.
func TestInterval(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{
		{23.74, 23.7}, {23.75, 23.8}, {23.7499, 23.7}, {0.0001, 0.1}, {0.049, 0.1}, {0.05, 0.1},
		{0.149, 0.1}, {0.15, 0.2}, {0.96, 1}, {1, 1}, {1000.04, 1000}, {3599.95, 3600}, {0, 0}, {-1, 0},
	} {
		if got := Interval(c.in); got != c.want {
			t.Errorf("Interval(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// The floor applies only past the ratio, on the intervals as clause 5.3.7.5 reports them (so at
// least 0.1 s: the floor matters only past a longest of 100 s), and max/1000 is itself rounded as
// an interval (clause 5.4.1.4); the refresh functions are never raised.
func TestMetricFloorBounds(t *testing.T) {
	if _, raised := Floor([]float64{100, 0.1}); raised != 0 {
		t.Fatalf("ratio 1000 raised %d, want 0", raised)
	}
	// 10 s and 1 ms: the 1 ms counts as 0.1 s (clause 5.3.7.5), a ratio of 100, nothing raised.
	if adj, raised := Floor([]float64{10, 0.001}); raised != 0 || adj[1] != 0.1 || adj[0] != 10 {
		t.Fatalf("10 s and 1 ms: %v, %d raised; want [10 0.1], 0", adj, raised)
	}
	// 150 s: max/1000 = 0.15 s, an interval of 0.2 s; 0.12 s reported as 0.1 s is raised to it.
	if adj, raised := Floor([]float64{150, 0.12, 0.2, 3.04}); raised != 1 || adj[1] != 0.2 || adj[2] != 0.2 || adj[3] != 3 {
		t.Fatalf("longest 150 s: %v, %d raised; want [150 0.2 0.2 3], 1", adj, raised)
	}
	// 120 s: max/1000 = 0.12 s is reported as 0.1 s, so a 0.1 s query stays and is not counted.
	if adj, raised := Floor([]float64{120.04, 0.1}); raised != 0 || adj[0] != 120 || adj[1] != 0.1 {
		t.Fatalf("longest 120 s: %v, %d raised; want [120 0.1], 0", adj, raised)
	}
	// The refresh functions are rounded too but never floored; a measured 0 gives no figure.
	// SF 10, queries 1.6 s and 10 s, refresh 0.04 s (reported 0.1 s) and 10 s:
	// (1.6·10·0.1·10)^(1/4) = 16^(1/4) = 2, Power@10 = 3600·10/2 = 18000.
	if p := Power(10, []float64{1.6, 10}, []float64{0.04, 10}); !near(p, 18000, 1e-9) {
		t.Fatalf("Power@10 = %v, want 3600·10/2 = 18000", p)
	}
	// Intervals measured a little off the tenth count as the tenth: the same figure.
	if p := Power(10, []float64{1.6321, 9.96}, []float64{0.0001, 10.049}); !near(p, 18000, 1e-9) {
		t.Fatalf("Power@10 of unrounded intervals = %v, want 18000 (each rounded to 0.1 s first)", p)
	}
	if Power(1, []float64{0, 0}, nil) != 0 || Power(1, []float64{1}, []float64{0}) != 0 || Throughput(1, 2, 0) != 0 || QphH(0, 5) != 0 {
		t.Fatal("a zero interval must give no figure (0)")
	}
}

// Clause 5.3.4's minimum streams, and the scale factors clause 4.1.3.1 lists.
func TestMinStreams(t *testing.T) {
	for _, c := range []struct {
		sf   float64
		want int
	}{{0.01, 2}, {1, 2}, {3, 3}, {10, 3}, {30, 4}, {100, 5}, {300, 6}, {1000, 7}, {3000, 8}, {10000, 9}, {30000, 10}, {100000, 11}, {1e6, 11}} {
		if got := MinStreams(c.sf); got != c.want {
			t.Errorf("MinStreams(%v) = %d, want %d", c.sf, got, c.want)
		}
	}
	for _, sf := range []float64{1, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000} {
		if !StandardSF(sf) {
			t.Errorf("SF %v is the standard's", sf)
		}
	}
	for _, sf := range []float64{0.01, 0.1, 3, 50} {
		if StandardSF(sf) {
			t.Errorf("SF %v is not the standard's", sf)
		}
	}
}
