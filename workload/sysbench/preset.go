package sysbench

import (
	"slices"
	"time"

	"github.com/candor-bench/candor/workload"
)

// presetDolt is --preset dolt: the settings of Dolt's published sysbench comparisons. DoltHub's
// benchmark runner (dolthub/dolt, go/performance/utils/benchmark_runner) runs sysbench with
// --rand-type=uniform and --db-ps-mode=disable and otherwise sysbench's and the scripts' defaults:
// one thread, one table of 10,000 rows (--table-size, the scripts' table_size); its published
// latency page runs each test for 2 minutes, with no warm-up (a sysbench run has none), and
// reports each test's median latency. candor cannot send sysbench's statements as text
// (--db-ps-mode=disable): it binds their parameters, as sysbench's default prepared statements
// do; Dolt's own tests' statements carry no parameters (the scans) or their values in the text
// (types_delete_insert, oltp_delete_insert), as the scripts send them.
const presetDolt = "dolt"

// Dolt's settings.
const (
	doltDuration  = 2 * time.Minute
	doltTerminals = 1
)

// applyDolt sets Dolt's settings on o where the flags were not given.
func applyDolt(o *Options, given func(string) bool) {
	if !given("rand-type") {
		o.RandType = Uniform
	}
	if !given("table-size") {
		o.TableSize = defaultTableSize
	}
	if !given("tables") {
		o.Tables = 1
	}
	o.DoltTables = true
}

var _ workload.RunDefaulter = (*Sysbench)(nil)

// RunDefaults are the run's duration, warm-up and terminals the preset sets (workload.RunDefaulter).
func (s *Sysbench) RunDefaults() (duration, warmup time.Duration, terminals int, ok bool) {
	if s.o.Preset != presetDolt {
		return 0, 0, 0, false
	}
	return doltDuration, 0, doltTerminals, true
}

// loadExtras are the tables of Dolt's suite a load of o makes: all with --dolt-tables (or the
// preset), else those its --test runs on.
func loadExtras(o *Options) extraTables {
	if o.DoltTables {
		return tablesAll
	}
	t, _ := findTest(o.Test)
	return t.tables
}

// extraRowBytes are the extra tables' rows' values, roughly, for the load's estimate.
var extraRowBytes = map[string]int64{"sbdolt1": 140, "sbdolt2": 20, "sbtypes": 260}

// doltReads and doltWrites are Dolt's suite as DoltHub's MySQL-versus-Dolt job lists it (dolthub/dolt,
// .github/scripts/performance-benchmarking/get-mysql-dolt-job-json.sh: readTests, writeTests), in
// its order.
var (
	doltReads = []string{"oltp_read_only", "oltp_point_select", "select_random_points", "select_random_ranges",
		"covering_index_scan", "index_scan", "table_scan", "groupby_scan", "index_join_scan", "types_table_scan", "index_join"}
	doltWrites = []string{"oltp_read_write", "oltp_update_index", "oltp_update_non_index", "oltp_insert",
		"oltp_write_only", "oltp_delete_insert", "types_delete_insert"}
)

// Suites are the named lists of tests compare-engines runs: dolt (Dolt's suite, its reads then
// its writes) and sysbench (sysbench 1.0.20's ten).
func Suites() map[string][]string {
	var core []string
	for _, t := range tests {
		if !t.dolt {
			core = append(core, t.name)
		}
	}
	return map[string][]string{"dolt": append(append([]string{}, doltReads...), doltWrites...), "sysbench": core}
}

// Group is a test's group in Dolt's tables: reads or writes ("" for a test outside Dolt's suite).
func Group(test string) string {
	switch {
	case slices.Contains(doltReads, test):
		return "reads"
	case slices.Contains(doltWrites, test):
		return "writes"
	}
	return ""
}

// LoadArgs are the load flags tests need: --dolt-tables when one runs on Dolt's tables.
func LoadArgs(names []string) []string {
	for _, n := range names {
		if t, ok := findTest(n); ok && t.tables != 0 {
			return []string{"--dolt-tables"}
		}
	}
	return nil
}
