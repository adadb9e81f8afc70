package ycsb

import (
	"math"
	"testing"
)

// TestHotspotDefinition: over [0, 999] with hotsetfraction 0.2 and hotopnfraction 0.8 (YCSB's
// defaults) the hot set is [0, 200). Of 10^6 draws the hot share must be 0.8 within 5 standard
// deviations of a binomial (5 * sqrt(0.8*0.2/10^6) = 0.002), and the draws must be uniform inside
// the hot set (chi-square over 200 keys, df 199, critical 266.386) and inside the cold set (800 keys,
// df 799, critical 928.252).
func TestHotspotDefinition(t *testing.T) {
	const draws = 1_000_000
	h, err := NewHotspot(0, 999, 0.2, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	if first, hot, cold := h.HotSet(); first != 0 || hot != 200 || cold != 800 {
		t.Fatalf("hot set starts at %d with %d items, cold %d; want 0, 200, 800", first, hot, cold)
	}
	r := newRand(8)
	counts := make([]int64, 1000)
	for i := 0; i < draws; i++ {
		v := h.Next(r)
		if v < 0 || v > 999 {
			t.Fatalf("draw %d outside [0, 999]", v)
		}
		counts[v]++
	}
	var hotN int64
	for _, c := range counts[:200] {
		hotN += c
	}
	share := float64(hotN) / draws
	if tol := 5 * math.Sqrt(0.8*0.2/draws); math.Abs(share-0.8) > tol {
		t.Errorf("hot share %.5f, want 0.8 +- %.4f", share, tol)
	}
	uniform := func(n int) []float64 {
		p := make([]float64, n)
		for i := range p {
			p[i] = 1 / float64(n)
		}
		return p
	}
	assertChiSquare(t, "hot set uniform", counts[:200], uniform(200))
	assertChiSquare(t, "cold set uniform", counts[200:], uniform(800))
}

// TestHotspotSetSizes: the hot set has int(n * hotsetfraction) items, truncated as YCSB's (int) cast
// does, and starts at the lower bound.
func TestHotspotSetSizes(t *testing.T) {
	cases := []struct {
		lb, ub          int64
		frac            float64
		wantHot, wantCd int64
	}{
		{0, 9, 0.25, 2, 8},      // 10 * 0.25 = 2.5 -> 2
		{100, 199, 0.2, 20, 80}, // offset bounds
		{0, 999, 0.999, 999, 1}, // 999.0 -> 999
		{0, 2, 1.0 / 3, 1, 2},   // 3 * 0.333... = 1.0 (rounded) -> 1
		{0, 99, 0.07, 7, 93},    // 100 * 0.07 = 7.000000000000001 -> 7
		{0, 99, 0.29, 28, 72},   // 100 * 0.29 = 28.999999999999996 -> 28, as in Java
		{10, 10 + 1e6 - 1, 0.2, 200_000, 800_000},
	}
	for _, c := range cases {
		h, err := NewHotspot(c.lb, c.ub, c.frac, 0.5)
		if err != nil {
			t.Fatalf("NewHotspot(%d, %d, %v): %v", c.lb, c.ub, c.frac, err)
		}
		if first, hot, cold := h.HotSet(); first != c.lb || hot != c.wantHot || cold != c.wantCd {
			t.Errorf("NewHotspot(%d, %d, %v): hot set at %d of %d, cold %d; want %d, %d", c.lb, c.ub, c.frac, first, hot, cold, c.wantHot, c.wantCd)
		}
	}
}

func TestHotspotErrors(t *testing.T) {
	for _, c := range []struct {
		lb, ub       int64
		hotset, opns float64
	}{
		{0, 9, -0.1, 0.8}, // YCSB: prints and uses 0
		{0, 9, 0.2, 1.5},  // YCSB: prints and uses 0
		{9, 0, 0.2, 0.8},  // YCSB: swaps
		{0, 3, 0.2, 0.8},  // hot set int(4*0.2) = 0 items but 80% of draws: YCSB divides by zero
		{0, 9, 1, 0.8},    // cold set empty but 20% of draws
	} {
		if _, err := NewHotspot(c.lb, c.ub, c.hotset, c.opns); err == nil {
			t.Errorf("NewHotspot(%d, %d, %v, %v) accepted", c.lb, c.ub, c.hotset, c.opns)
		}
	}
	// Empty sets that no draw reaches are fine.
	if _, err := NewHotspot(0, 9, 1, 1); err != nil {
		t.Errorf("all-hot hotspot refused: %v", err)
	}
	if _, err := NewHotspot(0, 9, 0, 0); err != nil {
		t.Errorf("all-cold hotspot refused: %v", err)
	}
}
