package tpcc

import (
	"encoding/json"
	"fmt"

	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

var _ workload.Merger = (*Workload)(nil)

// MergeFinish is TPC-C's part of a result merged from shards (candor merge): the same finish as a
// run's, from the merged totals (the 90th-percentile verdicts from the histograms summed bucket by
// bucket) and the shards' own counters summed: New-Orders completed in the window (tpmC is their
// sum over the common window's minutes), the deferred Delivery's districts, the run-time audit's
// counters. Efficiency divides by the run's warehouses: the shards' common --warehouses (each
// shard drives its range of them), or their sum when each names its own.
func (w *Workload) MergeFinish(m *workload.Merged) error {
	in := figures{}
	sameW := true
	var sumW int
	for i, r := range m.Shards {
		if r.TPCC == nil {
			return userr.Errorf("shard %d's result has no TPC-C part: it is not a TPC-C run's", i)
		}
		var d Details
		b, _ := json.Marshal(r.Details)
		if r.Details == nil || json.Unmarshal(b, &d) != nil {
			return userr.Errorf("shard %d's result has no TPC-C counters (details.new_orders_in_window): it was saved by a candor older than merge; re-run the shards", i)
		}
		in.newOrdersInWindow += d.NewOrdersInWindow
		if d.AuditCounts != nil {
			if in.audit == nil {
				in.audit = &Audit{}
			}
			in.audit.Merge(d.AuditCounts)
		}
		if dd := r.DeliveryDeferred; dd != nil {
			in.districts += dd.Districts
			in.skipped += dd.SkippedDistricts
		}
		if i == 0 {
			in.warehouses, in.procedures, in.stockLevel, in.constants = r.Warehouses, r.Procedures, r.StockLevelIsolation, r.Constants
		} else {
			if r.Warehouses != in.warehouses {
				sameW = false
			}
			// The load's C constants (clause 2.1.6) identify the load: other ones, another load.
			if a, b := loadConstants(m.Shards[0].Constants), loadConstants(r.Constants); a != b {
				return userr.Errorf("shard %d ran on a load with C constants %s, shard %d on one with %s: the shards did not run on the same load; merge the shards of one run", shardIndex(m.Shards[0], 0), a, shardIndex(r, i), b)
			}
		}
		sumW += r.Warehouses
	}
	if !sameW {
		in.warehouses = sumW
	}
	// Every shard's home warehouses together: all W (with --partial and a shard missing, the
	// efficiency is then below what the shards given drove).
	in.home = in.warehouses
	if in.audit != nil {
		in.audit.Warehouses = in.warehouses
	}
	for _, iv := range m.Intervals {
		if NewOrder < len(iv.Completed) && iv.Completed[NewOrder] > 0 {
			in.steady = append(in.steady, ivCount{start: iv.Start, end: iv.End, n: iv.Completed[NewOrder]})
		}
	}
	if m.Totals == nil {
		return fmt.Errorf("tpcc: merged run without totals")
	}
	if len(m.Totals.Counts) < len(OpNames) {
		return fmt.Errorf("tpcc: merged totals of %d operations, want %d", len(m.Totals.Counts), len(OpNames))
	}
	finish(&m.Finished, in)
	// The setup line of the whole run, not of shard 0's part of it.
	m.Result.Setup = report.TPCCSetupLine(in.warehouses, in.procedures, m.Result.Isolation, in.stockLevel) +
		fmt.Sprintf("; %d shards merged", len(m.Shards))
	return nil
}

// loadConstants is the load's C constants of a result's "constants", as JSON ("" when absent).
func loadConstants(c any) string {
	m, ok := c.(map[string]any)
	if !ok {
		return ""
	}
	b, _ := json.Marshal(m["load"])
	return string(b)
}

// shardIndex is r's shard index, or i when r does not say.
func shardIndex(r *report.Result, i int) int {
	if r.Shard != nil {
		return r.Shard.Index
	}
	return i
}
