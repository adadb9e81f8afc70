package measure

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestNonEmptyBuckets: the fast path gives exactly the histogram's Distribution, non-empty bars only,
// from 1 µs to the highest trackable value.
func TestNonEmptyBuckets(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	h := NewHistogram()
	for range 20000 {
		record(h, 1+int64(rng.ExpFloat64()*50000))
	}
	record(h, 1)
	record(h, HighestMicros)
	var want []Bucket
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			want = append(want, Bucket{Value: b.To, Count: b.Count})
		}
	}
	got := NonEmptyBuckets(h)
	if !slices.Equal(got, want) {
		t.Fatalf("NonEmptyBuckets differs from Distribution: %d vs %d buckets", len(got), len(want))
	}
	if got[0].Value != 1 || got[len(got)-1].Value < HighestMicros {
		t.Fatalf("first bucket %+v, last %+v", got[0], got[len(got)-1])
	}
	if NonEmptyBuckets(NewHistogram()) != nil || NonEmptyBuckets(nil) != nil {
		t.Fatal("an empty histogram has no buckets")
	}
}
