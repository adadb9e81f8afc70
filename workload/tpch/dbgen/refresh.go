package dbgen

import "fmt"

// The refresh sets (clause 2.5 and 4.2.3; dbgen -U). Each set holds SF × 1,500 orders (clause
// 2.5.2.1: RF1 inserts SF × 1,500 new orders with their lineitems; RF2 deletes SF × 1,500 old ones):
//
//   - RF1 of set n: dbgen (driver.c, with -U) moves every stream past the initial load's orders
//     (set_state(ORDER, scale, 100, 101)) and past the earlier sets' rows (sd_order/sd_line), then
//     generates rows with order indexes (n-1)·R+1 .. n·R, R the set's rows, keyed mk_sparse(index, 1)
//     (build.c: seq 1 + upd_num/1000, so 1 for the first 999 sets): keys in the unused gaps of the
//     sparse pattern (bits 3-4 equal to 01), never colliding with the load's keys (bits 3-4 00).
//   - RF2 of set n: the load's orders of the same indexes, keys mk_sparse(index, 0) (print.c,
//     pr_drange: seq num/1000 = 0).
//
// One difference from dbgen, deliberate: dbgen computes R as (1,500,000 × SF')/10,000 × UPD_PCT in
// integers with the SF scaled into the table bases below SF 1, which truncates at SF 0.01 to 10
// orders a set instead of the standard's 15; here R is SF × 1,500 (clause 2.5.2.1) at every SF,
// equal to dbgen's from SF 0.1 on.

// RefreshRows is the orders in each refresh set at scale factor sf: SF × 1,500 (clause 2.5.2.1),
// at least 1.
func RefreshRows(sf float64) int64 {
	return max(1, int64(float64(ordersBase)*sf/1000+1e-9))
}

// maxRefreshSets is how many sets the key pattern holds: dbgen's sequence bits stay 1 for sets
// below 1,000, and RF2's keys must be the load's (n·R ≤ the load's orders).
func maxRefreshSets(sf float64) int {
	return int(min(999, scaled(ordersBase, sf)/RefreshRows(sf)))
}

func checkSet(sf float64, set int) error {
	if err := checkArgs(Orders, sf, 1, 1); err != nil {
		return err
	}
	if m := maxRefreshSets(sf); set < 1 || set > m {
		return fmt.Errorf("dbgen: refresh set %d at SF %v: sets are numbered 1 to %d", set, sf, m)
	}
	return nil
}

func refreshInsert(sf float64, set int, emit func(t Table, row []any) error) error {
	if err := checkSet(sf, set); err != nil {
		return err
	}
	r := RefreshRows(sf)
	first := int64(set-1) * r
	g := newOrderGen(sf, scaled(ordersBase, sf)+first, true)
	orow := make([]any, len(columns[Orders]))
	lrow := make([]any, len(columns[Lineitem]))
	for i := range r {
		g.make(first+i+1, 1)
		if err := g.emit(Orders, orow, func(row []any) error { return emit(Orders, row) }); err != nil {
			return err
		}
		if err := g.emit(Lineitem, lrow, func(row []any) error { return emit(Lineitem, row) }); err != nil {
			return err
		}
		g.rowFinished()
	}
	return nil
}

func refreshDelete(sf float64, set int) []int64 {
	if checkSet(sf, set) != nil {
		return nil
	}
	r := RefreshRows(sf)
	keys := make([]int64, r)
	for i := range r {
		keys[i] = orderKey(int64(set-1)*r+i+1, 0)
	}
	return keys
}
