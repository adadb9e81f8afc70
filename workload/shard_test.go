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

// TestShardChunks: the shards' chunks of a table follow each other, and their rows add up to the
// table's, whatever the last chunk's remainder; unsharded it is every chunk.
func TestShardChunks(t *testing.T) {
	for _, rows := range []int64{0, 1, 9999, 10000, 10001, 25000, 123457} {
		for _, size := range []int64{1, 7, 10000} {
			for N := 1; N <= 5; N++ {
				var next, sum int64
				for i := range N {
					first, n, held := Shard{Index: i, Count: N}.Chunks(rows, size)
					if first != next || n < 0 || held < 0 || held > n*size {
						t.Fatalf("%d rows by %d, shard %d/%d: chunks [%d, +%d) holding %d, want from %d", rows, size, i, N, first, n, held, next)
					}
					next, sum = first+n, sum+held
				}
				if all := (rows + size - 1) / size; next != all || sum != rows {
					t.Fatalf("%d rows by %d in %d shards: %d chunks, %d rows; want %d chunks, %d rows", rows, size, N, next, sum, all, rows)
				}
			}
			if first, n, held := (Shard{}).Chunks(rows, size); first != 0 || n != (rows+size-1)/size || held != rows {
				t.Fatalf("%d rows by %d unsharded: [%d, +%d) holding %d", rows, size, first, n, held)
			}
		}
	}
	// 25,000 rows by 10,000 in 3 shards: one chunk each, the last one's 5,000 rows.
	for i, want := range []int64{10000, 10000, 5000} {
		if _, _, held := (Shard{Index: i, Count: 3}).Chunks(25000, 10000); held != want {
			t.Fatalf("shard %d/3 of 25,000 rows: %d rows, want %d", i, held, want)
		}
	}
}
