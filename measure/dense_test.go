package measure

import (
	"math/rand/v2"
	"testing"
)

// TestDenseIndexMatchesHdr: the dense arrays index values as HdrHistogram's counts array does for
// the one geometry: every bucket's lowest and highest value map to that bucket's index (the highest
// taken from hdr's own Distribution, geometryValues) and lie in one hdr bucket, and values drawn
// from every magnitude land in the bucket hdr puts them in.
func TestDenseIndexMatchesHdr(t *testing.T) {
	h := NewHistogram()
	high := geometryValues()
	if got := denseIndex(HighestMicros); got != len(high)-1 {
		t.Fatalf("denseIndex(HighestMicros) = %d, want the last of hdr's %d buckets", got, len(high))
	}
	for i, hv := range high {
		lv := denseValue(i)
		if denseIndex(lv) != i || denseIndex(hv) != i {
			t.Fatalf("bucket %d (%d..%d): denseIndex gives %d and %d", i, lv, hv, denseIndex(lv), denseIndex(hv))
		}
		if !h.ValuesAreEquivalent(lv, hv) {
			t.Fatalf("bucket %d: hdr puts %d and %d in different buckets", i, lv, hv)
		}
		if i > 0 && !(lv > high[i-1]) {
			t.Fatalf("bucket %d starts at %d, not above the previous bucket's highest %d", i, lv, high[i-1])
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		v := rng.Int64N(HighestMicros+1) >> rng.IntN(40)
		if hv := high[denseIndex(v)]; !h.ValuesAreEquivalent(v, hv) || v > hv {
			t.Fatalf("value %d: dense bucket ends at %d, which hdr does not share with it", v, hv)
		}
	}
}

// TestDenseAddTo: a dense array added into a histogram gives the same histogram as recording the
// values into it directly, bucket by bucket; reset clears it.
func TestDenseAddTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	d := newDense()
	want, got, got2 := NewHistogram(), NewHistogram(), NewHistogram()
	for range 3 {
		for range 5000 {
			v := 1 + int64(rng.ExpFloat64()*20000)
			if rng.IntN(100) == 0 {
				v = HighestMicros + 5
			}
			d.record(v)
			record(want, v)
		}
		if d1, d2 := d.addTo(got, got2); d1 != 0 || d2 != 0 {
			t.Fatalf("dropped %d and %d values", d1, d2)
		}
		d.reset()
		for i, c := range d.counts {
			if c != 0 {
				t.Fatalf("after reset index %d holds %d", i, c)
			}
		}
		if !got.Equals(want) || !got2.Equals(want) {
			t.Fatalf("added: count %d/%d max %d/%d p99 %d/%d, want count %d max %d p99 %d", got.TotalCount(), got2.TotalCount(),
				got.Max(), got2.Max(), got.ValueAtQuantile(99), got2.ValueAtQuantile(99), want.TotalCount(), want.Max(), want.ValueAtQuantile(99))
		}
	}
}

// BenchmarkDenseAddTo: adding a stripe's dense array of a thousand latencies (1 ms to 1 s) into an
// interval's histogram, beside hdr's Merge of a histogram holding the same values.
func BenchmarkDenseAddTo(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	d, src := newDense(), NewHistogram()
	for range 1000 {
		v := 1000 + int64(rng.ExpFloat64()*20000)
		d.record(v)
		record(src, v)
	}
	dst := NewHistogram()
	b.Run("dense", func(b *testing.B) {
		for b.Loop() {
			d.addTo(dst, nil)
		}
	})
	b.Run("hdr-merge", func(b *testing.B) {
		for b.Loop() {
			dst.Merge(src)
		}
	})
}
