package workload

import "testing"

// TestShardRangesCoverEveryWarehouseOnce: for every W and N, the shards' ranges
// [i·W/N+1, (i+1)·W/N] are disjoint, in order, and cover 1..W exactly (remainders included).
func TestShardRangesCoverEveryWarehouseOnce(t *testing.T) {
	for W := 1; W <= 40; W++ {
		for N := 1; N <= 12; N++ {
			next := 1
			for i := range N {
				lo, hi := Shard{Index: i, Count: N}.Range(W)
				if lo != next {
					t.Fatalf("W=%d N=%d shard %d starts at %d, want %d", W, N, i, lo, next)
				}
				if hi < lo-1 {
					t.Fatalf("W=%d N=%d shard %d: range %d..%d", W, N, i, lo, hi)
				}
				next = hi + 1
			}
			if next != W+1 {
				t.Fatalf("W=%d N=%d: the shards end at %d, want %d", W, N, next-1, W)
			}
		}
	}
	if lo, hi := (Shard{}).Range(7); lo != 1 || hi != 7 {
		t.Fatalf("unsharded range %d..%d, want 1..7", lo, hi)
	}
	// The example: W = 10 in 3 shards floors to 1..3, 4..6, 7..10.
	want := [][2]int{{1, 3}, {4, 6}, {7, 10}}
	for i, w := range want {
		if lo, hi := (Shard{Index: i, Count: 3}).Range(10); lo != w[0] || hi != w[1] {
			t.Fatalf("shard %d/3 of 10: %d..%d, want %d..%d", i, lo, hi, w[0], w[1])
		}
	}
}
