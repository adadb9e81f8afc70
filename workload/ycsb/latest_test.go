package ycsb

import "testing"

// TestSkewedLatestDefinition: with the insert counter at 1,000 records (last = 999), latest returns
// 999 - z for z a zipfian over 999 items, so recency k = 999 - key follows Gray's pmf over 999 items
// (chi-square over k = 0..19 and the tail, df 20, critical 45.315) and record 0 is never chosen.
// After 501 acknowledged inserts (last = 1500) the zipfian draws over 1,500 items with zetan grown
// to zeta(1500) but eta still computed for 999 items, which makes Gray's third branch start at
// 1500*2/999 = 3.003: the third-newest record (k = 2) is never chosen. YCSB's own
// SkewedLatestGenerator and AcknowledgedCounterGenerator, run on OpenJDK 17 the same way, gave for
// k = 0..4 per 10^6 draws 129981, 65159, 50679, 36173, 28278 before and 122289, 61342, 0, 36329,
// 28543 after.
func TestSkewedLatestDefinition(t *testing.T) {
	const draws, k = 1_000_000, 20
	c := NewAcknowledgedCounter(1000)
	l, err := NewSkewedLatest(c)
	if err != nil {
		t.Fatal(err)
	}
	r := newRand(6)
	draw := func(last int64) []int64 {
		rec := make([]int64, draws)
		for i := range rec {
			v := l.Next(r)
			if v < 1 || v > last {
				t.Fatalf("latest drew %d outside [1, %d]", v, last)
			}
			rec[i] = last - v
		}
		return rec
	}

	zetan := Zeta(999, ZipfianConstant)
	counts := countsWithTail(draw(999), k)
	assertChiSquare(t, "latest over 1000 records", counts,
		withTail(grayPMF(k, 999, zetan, grayEta(999, zetan, ZipfianConstant), ZipfianConstant)))

	for v := int64(1000); v <= 1500; v++ {
		if got := c.Next(nil); got != v {
			t.Fatalf("insert counter gave %d, want %d", got, v)
		}
		if err := c.Acknowledge(v); err != nil {
			t.Fatal(err)
		}
	}
	zetan = Zeta(1500, ZipfianConstant)
	p := grayPMF(k, 1500, zetan, grayEta(999, zetan, ZipfianConstant), ZipfianConstant)
	if p[2] != 0 {
		t.Fatalf("the closed form gives the third-newest record probability %v, want 0", p[2])
	}
	counts = countsWithTail(draw(1500), k)
	if counts[2] != 0 {
		t.Errorf("the third-newest record was chosen %d times after growth; YCSB never chooses it", counts[2])
	}
	// Merge the empty bucket into the tail so every bucket expects at least 5 draws.
	counts = append(counts[:2:2], counts[3:]...)
	p = append(p[:2:2], p[3:]...)
	assertChiSquare(t, "latest after 501 inserts", counts, withTail(p))
}

func TestSkewedLatestNeedsTwoRecords(t *testing.T) {
	if _, err := NewSkewedLatest(NewAcknowledgedCounter(1)); err == nil {
		t.Error("latest over 1 record accepted")
	}
	l, err := NewSkewedLatest(NewAcknowledgedCounter(2))
	if err != nil {
		t.Fatal(err)
	}
	r := newRand(7)
	for i := 0; i < 1000; i++ {
		if v := l.Next(r); v != 1 {
			t.Fatalf("latest over records 0 and 1 drew %d; YCSB always draws 1", v)
		}
	}
}
