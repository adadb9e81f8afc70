package ycsb

import (
	"math"
	"testing"
)

func TestFieldLengthConstant(t *testing.T) {
	g, err := NewFieldLengthGenerator(DistConstant, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	if v := g.Next(newRand(12)); v != 100 {
		t.Errorf("constant field length %d, want fieldlength 100", v)
	}
}

// TestFieldLengthUniform: lengths uniform in [minfieldlength, fieldlength] = [1, 100] (chi-square
// over the 100 lengths, df 99, critical 148.230).
func TestFieldLengthUniform(t *testing.T) {
	g, err := NewFieldLengthGenerator(DistUniform, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	counts := drawCounts(t, g, newRand(13), 1, 100, 500_000)
	p := make([]float64, 100)
	for i := range p {
		p[i] = 0.01
	}
	assertChiSquare(t, "uniform field length", counts, p)
}

// TestFieldLengthZipfian: a zipfian over [1, 100] favours short values: length 1 gets 1/zeta(100) =
// 18.9% and length 2 gets 2^-0.99/zeta(100), Zipf's exact shares (chi-square over 1, 2 and the rest,
// df 2, critical 13.816).
func TestFieldLengthZipfian(t *testing.T) {
	g, err := NewFieldLengthGenerator(DistZipfian, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	counts := drawCounts(t, g, newRand(14), 1, 100, 500_000)
	zetan := Zeta(100, ZipfianConstant)
	p0, p1 := 1/zetan, math.Pow(2, -ZipfianConstant)/zetan
	var rest int64
	for _, c := range counts[2:] {
		rest += c
	}
	assertChiSquare(t, "zipfian field length 1, 2, rest", []int64{counts[0], counts[1], rest}, []float64{p0, p1, 1 - p0 - p1})
}

func TestFieldLengthRefused(t *testing.T) {
	for _, d := range []Distribution{DistHistogram, "gaussian", DistLatest} {
		if _, err := NewFieldLengthGenerator(d, 1, 100); err == nil {
			t.Errorf("field length distribution %q accepted", d)
		}
	}
}

// TestScanLengthWorkloadE: workload E's scans are uniform in [1, 100] (minscanlength 1,
// maxscanlength 100; chi-square df 99, critical 148.230); zipfian scans favour length 1.
func TestScanLengthWorkloadE(t *testing.T) {
	g, err := NewScanLengthGenerator(DistUniform, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	counts := drawCounts(t, g, newRand(15), 1, 100, 500_000)
	p := make([]float64, 100)
	for i := range p {
		p[i] = 0.01
	}
	assertChiSquare(t, "uniform scan length", counts, p)

	z, err := NewScanLengthGenerator(DistZipfian, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	zc := drawCounts(t, z, newRand(16), 1, 100, 100_000)
	if share, want := float64(zc[0])/100_000, 1/Zeta(100, ZipfianConstant); math.Abs(share-want) > 5*math.Sqrt(want*(1-want)/100_000) {
		t.Errorf("zipfian scan length 1 share %.4f, want %.4f", share, want)
	}
	if _, err := NewScanLengthGenerator(DistConstant, 1, 100); err == nil {
		t.Error("constant scan length accepted (YCSB allows uniform and zipfian)")
	}
}

// drawCounts draws n values that must lie in [lo, hi] and counts each.
func drawCounts(t *testing.T, g NumberGenerator, r Source, lo, hi int64, n int) []int64 {
	t.Helper()
	counts := make([]int64, hi-lo+1)
	for i := 0; i < n; i++ {
		v := g.Next(r)
		if v < lo || v > hi {
			t.Fatalf("draw %d outside [%d, %d]", v, lo, hi)
		}
		counts[v-lo]++
	}
	return counts
}
