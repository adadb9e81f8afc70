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

// The floor applies only past the ratio: a longest/shortest ratio of exactly 1000 raises nothing,
// and the refresh functions are never raised (a 0.001 s RF1 stays in the product as it is).
func TestMetricFloorBounds(t *testing.T) {
	qi := []float64{10, 0.01}
	if _, raised := Floor(qi); raised != 0 {
		t.Fatalf("ratio 1000 raised %d, want 0", raised)
	}
	qi = []float64{10, 0.001}
	if adj, raised := Floor(qi); raised != 1 || adj[1] != 0.01 {
		t.Fatalf("ratio 10000: %v, %d raised; want [10 0.01], 1", adj, raised)
	}
	// A query of 0 s is raised by the floor like any other; a refresh function of 0 s gives no figure.
	// SF 10, queries 2 s and 8 s, refresh 0.001 s and 1000 s: (2·8·0.001·1000)^(1/4) = 16^(1/4) = 2
	if p := Power(10, []float64{2, 8}, []float64{0.001, 1000}); !near(p, 18000, 1e-9) {
		t.Fatalf("Power@10 = %v, want 3600·10/2 = 18000", p)
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
