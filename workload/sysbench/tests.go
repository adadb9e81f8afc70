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
	// Dolt's tests (dolt.go): each event one statement, or types_delete_insert's pair.
	OpCoveringIndexScan
	OpGroupbyScan
	OpIndexJoin
	OpIndexJoinScan
	OpIndexScan
	OpTableScan
	OpTypesTableScan
	OpTypesDelete
	OpTypesInsert
	OpCommit
	numOps
)

// OpNames are the recorder's operation names.
var OpNames = []string{"transaction", "point_select", "simple_range", "sum_range", "order_range",
	"distinct_range", "index_update", "non_index_update", "delete", "insert", "random_points",
	"random_ranges", "covering_index_scan", "groupby_scan", "index_join", "index_join_scan", "index_scan",
	"table_scan", "types_table_scan", "types_delete", "types_insert", "commit"}

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
	// oneTable: sysbench refuses --tables > 1 (select_random_*), or the script has one table of
	// its own (Dolt's oltp_delete_insert).
	oneTable bool
	steps    func(o *Options) []step
	// dolt: the test is Dolt's (DoltHub's sysbench-lua-scripts), not sysbench's; tables the extra
	// tables it runs on (dolt.go: tablesDolt, tablesTypes); literal: its statements carry their
	// values in the text (the script's con:query), not as parameters; readOnly: it only reads.
	dolt     bool
	tables   extraTables
	literal  bool
	readOnly bool
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
	// Dolt's suite (DoltHub's sysbench-lua-scripts; dolt.go has their tables and statements).
	doltScan("covering_index_scan", "a count over the big_int_col index", OpCoveringIndexScan, tablesDolt),
	doltScan("groupby_scan", "a GROUP BY over the rows of big_int_col > 0", OpGroupbyScan, tablesDolt),
	doltScan("index_join", "a join of 500 rows on sbdolt2.int_col = sbdolt1.id", OpIndexJoin, tablesDolt),
	doltScan("index_join_scan", "a self-join of 500 rows on the primary key", OpIndexJoinScan, tablesDolt),
	doltScan("index_scan", "every column of the rows of big_int_col > 0", OpIndexScan, tablesDolt),
	doltScan("table_scan", "every column of the rows of small_int_col > 0 (no index)", OpTableScan, tablesDolt),
	doltScan("types_table_scan", "table_scan on the table of every common type", OpTypesTableScan, tablesTypes),
	{name: "types_delete_insert", description: "a delete by id and the same row inserted again, in the table of every common type",
		dolt: true, tables: tablesTypes, literal: true,
		steps: func(*Options) []step { return []step{{OpTypesDelete, 1}} }},
	{name: "oltp_delete_insert", description: "a delete by id and a new row of that id inserted, in autocommit",
		dolt: true, oneTable: true, literal: true,
		steps: func(*Options) []step { return []step{{OpDelete, 1}} }},
}

// doltScan is one of Dolt's read tests: one statement without parameters per event.
func doltScan(name, description string, op int, tables extraTables) test {
	return test{name: name, description: description, dolt: true, tables: tables, readOnly: true,
		steps: func(*Options) []step { return []step{{op, 1}} }}
}

// pairs reports whether a step of op sends a second statement per count: a delete/insert pair
// (every test's delete but oltp_delete's), or types_delete_insert's.
func pairs(t test, op int) bool {
	return (op == OpDelete && t.name != "oltp_delete") || op == OpTypesDelete
}

// pairOf is the second statement of a pair.
func pairOf(op int) int {
	if op == OpTypesDelete {
		return OpTypesInsert
	}
	return OpInsert
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
		if pairs(t, s.op) {
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
		if pairs(t, s.op) {
			used[pairOf(s.op)] = true
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
