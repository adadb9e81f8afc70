package workload

import (
	"context"
	"fmt"

	"github.com/candor-bench/candor/driver"
)

// Shard is one of Count processes that split a load or a run (`--shard i/N`):
// Index is 0-based. The zero value is "not sharded".
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Sharded reports whether s splits the work (Count > 0).
func (s Shard) Sharded() bool { return s.Count > 0 }

// String is "i/N".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Range is the part of 1..n that shard s owns: [s.Index·n/s.Count + 1, (s.Index+1)·n/s.Count]
// (floored divisions), so the shards' ranges are disjoint and cover 1..n exactly, whatever the
// remainder: with n = 10 and 3 shards, 1..3, 4..6, 7..10. A shard may own nothing (lo > hi) when
// n < Count. Without sharding it is 1..n.
func (s Shard) Range(n int) (lo, hi int) {
	if !s.Sharded() {
		return 1, n
	}
	return s.Index*n/s.Count + 1, (s.Index + 1) * n / s.Count
}

// Chunks is the part of a table of rows rows, cut into chunks of size rows each, that shard s
// loads: the chunks [first, first+n) (split by Range; all of them unsharded), holding held rows.
// So a shard writes the same chunks, row for row, as an unsharded load's.
func (s Shard) Chunks(rows, size int64) (first, n, held int64) {
	all := (rows + size - 1) / size
	first, n = 0, all
	if s.Sharded() {
		lo, hi := s.Range(int(all))
		first, n = int64(lo-1), int64(max(0, hi-lo+1))
	}
	return first, n, max(0, min(rows, (first+n)*size)-first*size)
}

// Sharder is an optional ability of a workload whose load splits by shard: Load honours
// LoadOptions.Shard (writing only that shard's part, the shared parts by shard 0), and
// MissingShards tells which parts of a load split over count shards are not complete yet (all of
// them when the database holds no load; none when it holds a complete load, sharded or not).
// A workload without it loads everything in shard 0; the other shards wait for that load
// (run.ShardLoad).
type Sharder interface {
	MissingShards(ctx context.Context, db driver.DB, count int) ([]int, error)
	// ShardRows is the rows shard s's part of the load writes (the progress bar's whole).
	ShardRows(s Shard) int64
}
