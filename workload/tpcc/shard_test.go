package tpcc

import (
	"testing"

	"github.com/candor-bench/candor/workload"
)

// TestShardTerminals: shard i of N drives only the terminals of its warehouses (spec: one per
// district of each, clause 4.2.2), the shards' terminals are disjoint and together are the
// unsharded run's, while remote warehouses (New-Order supply, Payment customer) are drawn from all
// W, outside the shard's range too.
func TestShardTerminals(t *testing.T) {
	const W, N = 7, 3
	c := Constants{CLast: 100, CID: 200, OLIID: 300}
	seen := map[[2]int]int{}
	remoteOutside := false
	for i := range N {
		s := workload.Shard{Index: i, Count: N}
		lo, hi := s.Range(W)
		n := TerminalsPerWarehouse * (hi - lo + 1)
		for _, tm := range newTerminalsOf(n, W, lo, hi, ModeSpec, uint64(i), c) {
			hw, hd := tm.home()
			if hw < lo || hw > hi || tm.run.W != W {
				t.Fatalf("shard %s: a terminal of warehouse %d (W %d), outside %d..%d", s, hw, tm.run.W, lo, hi)
			}
			k := [2]int{hw, hd}
			if j, dup := seen[k]; dup {
				t.Fatalf("warehouse %d district %d has terminals in shards %d and %d", hw, hd, j, i)
			}
			seen[k] = i
			for range 200 {
				var in txInputs
				op, _ := tm.Next()
				tm.draw(op, &in)
				tm.Think(op)
				switch op {
				case NewOrder:
					for _, l := range in.no.Lines[:in.no.OLCnt] {
						remoteOutside = remoteOutside || l.SupplyWID < lo || l.SupplyWID > hi
					}
				case Payment:
					remoteOutside = remoteOutside || in.pay.CWID < lo || in.pay.CWID > hi
				}
			}
		}
		// Throughput mode: any terminal count, spread over the shard's warehouses only.
		for _, tm := range newTerminalsOf(5, W, lo, hi, ModeThroughput, 1, c) {
			if hw, _ := tm.home(); hw < lo || hw > hi {
				t.Fatalf("shard %s in throughput mode: a terminal of warehouse %d", s, hw)
			}
		}
	}
	if len(seen) != W*DistrictsPerWarehouse {
		t.Fatalf("the shards' spec terminals cover %d districts, want %d", len(seen), W*DistrictsPerWarehouse)
	}
	if !remoteOutside {
		t.Fatal("no remote warehouse outside a shard's range was drawn: remote warehouses must come from all W")
	}
}

// TestShardRows: the shards' parts add up to the whole load's rows (ITEM once, in shard 0).
func TestShardRows(t *testing.T) {
	for _, c := range []struct{ W, N int }{{1, 1}, {3, 3}, {10, 3}, {2, 5}} {
		w := &Workload{Options: Options{Warehouses: c.W}}
		var sum int64
		for i := range c.N {
			sum += w.ShardRows(workload.Shard{Index: i, Count: c.N})
		}
		if sum != ExpectedRows(c.W) {
			t.Errorf("W=%d in %d shards: the parts hold %d rows, the whole load %d", c.W, c.N, sum, ExpectedRows(c.W))
		}
	}
}
