package sysbench

import "strings"

// The operations: the transaction (sysbench's event: one call of the test's event()), then one
// part per statement kind (workload/parts.go), each timed from its call to its result, and the
// commit.
const (
	OpTransaction = iota
	OpPointSelect
	OpSimpleRange
	OpSumRange
	OpOrderRange
	OpDistinctRange
	OpIndexUpdate
	OpNonIndexUpdate
	OpDelete
	OpInsert
	OpRandomPoints
	OpRandomRanges
	OpCommit
	numOps
)

// OpNames are the recorder's operation names.
var OpNames = []string{"transaction", "point_select", "simple_range", "sum_range", "order_range",
	"distinct_range", "index_update", "non_index_update", "delete", "insert", "random_points",
	"random_ranges", "commit"}

// step is one group of a test's event: count statements of kind op, on one table drawn uniformly
// for the group (oltp_common.lua draws get_table_num() once per execute_* call).
type step struct {
	op    int
	count int
}

// test is one of sysbench's OLTP scripts: whether it wraps its event in BEGIN/COMMIT (unless
// --skip-trx), and the statement groups of the event in order.
type test struct {
	name        string
	description string
	trx         bool
	// oneTable: sysbench refuses --tables > 1 (select_random_*).
	oneTable bool
	steps    func(o *Options) []step
}

// readSteps are oltp_read_only's (and oltp_read_write's first) groups: execute_point_selects, then
// the four ranges unless --range-selects=off.
func readSteps(o *Options) []step {
	s := []step{{OpPointSelect, o.PointSelects}}
	if o.RangeSelects {
		s = append(s, step{OpSimpleRange, o.SimpleRanges}, step{OpSumRange, o.SumRanges},
			step{OpOrderRange, o.OrderRanges}, step{OpDistinctRange, o.DistinctRanges})
	}
	return s
}

// writeSteps are oltp_write_only's groups: index updates, non-index updates, then each
// delete/insert pair (execute_delete_inserts: DELETE an id, INSERT it again).
func writeSteps(o *Options) []step {
	return []step{{OpIndexUpdate, o.IndexUpdates}, {OpNonIndexUpdate, o.NonIndexUpdates}, {OpDelete, o.DeleteInserts}}
}

// tests are sysbench 1.0.20's OLTP scripts (src/lua/*.lua).
var tests = []test{
	{name: "oltp_read_write", description: "point selects, 4 kinds of range, 2 updates, a delete and an insert in a transaction",
		trx: true, steps: func(o *Options) []step { return append(readSteps(o), writeSteps(o)...) }},
	{name: "oltp_read_only", description: "point selects and 4 kinds of range in a transaction", trx: true, steps: readSteps},
	{name: "oltp_write_only", description: "2 updates, a delete and an insert in a transaction", trx: true, steps: writeSteps},
	// oltp_point_select sets point_selects to 1 whatever is given.
	{name: "oltp_point_select", description: "one point select",
		steps: func(*Options) []step { return []step{{OpPointSelect, 1}} }},
	{name: "oltp_update_index", description: "index updates (k=k+1)",
		steps: func(o *Options) []step { return []step{{OpIndexUpdate, o.IndexUpdates}} }},
	{name: "oltp_update_non_index", description: "non-index updates (c)",
		steps: func(o *Options) []step { return []step{{OpNonIndexUpdate, o.NonIndexUpdates}} }},
	{name: "oltp_delete", description: "one delete by id",
		steps: func(*Options) []step { return []step{{OpDelete, 1}} }},
	{name: "oltp_insert", description: "one insert of a new row",
		steps: func(*Options) []step { return []step{{OpInsert, 1}} }},
	{name: "select_random_points", description: "one select of --random-points k values", oneTable: true,
		steps: func(*Options) []step { return []step{{OpRandomPoints, 1}} }},
	{name: "select_random_ranges", description: "one count over --number-of-ranges k ranges", oneTable: true,
		steps: func(*Options) []step { return []step{{OpRandomRanges, 1}} }},
}

func findTest(name string) (test, bool) {
	for _, t := range tests {
		if t.name == name {
			return t, true
		}
	}
	return test{}, false
}

func testNames() string {
	var s []string
	for _, t := range tests {
		s = append(s, t.name)
	}
	return strings.Join(s, ", ")
}

// statementsPerTx is the statements one transaction of test t sends (a delete/insert pair counts
// two), BEGIN and COMMIT left out.
func statementsPerTx(t test, o *Options) int {
	n := 0
	for _, s := range t.steps(o) {
		n += s.count
		if s.op == OpDelete && t.name != "oltp_delete" {
			n += s.count // and its insert
		}
	}
	return n
}

// usedOps are the operations (the transaction, then its parts in OpNames order) a run of the
// options records: the statement kinds its test sends, and the commit when it has transactions.
// Unknown tests (refused by Validate) record every operation.
func usedOps(o *Options) []int {
	t, ok := findTest(o.Test)
	if !ok {
		all := make([]int, numOps)
		for i := range all {
			all[i] = i
		}
		return all
	}
	var used [numOps]bool
	used[OpTransaction] = true
	for _, s := range t.steps(o) {
		if s.count == 0 {
			continue
		}
		used[s.op] = true
		if s.op == OpDelete && t.name != "oltp_delete" {
			used[OpInsert] = true
		}
	}
	used[OpCommit] = t.trx && !o.SkipTrx
	var ops []int
	for op, u := range used {
		if u {
			ops = append(ops, op)
		}
	}
	return ops
}
