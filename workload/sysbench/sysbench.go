// Package sysbench is sysbench 1.0.20's OLTP workloads (src/lua/oltp_*.lua, select_random_*.lua)
// on candor's workload contract: the tables sbtest1..N (id integer primary key, k integer with a
// secondary index, c CHAR(120), pad CHAR(60)) filled as oltp_common.lua fills them, and the tests
// oltp_read_write, oltp_read_only, oltp_write_only, oltp_point_select, oltp_update_index,
// oltp_update_non_index, oltp_insert, oltp_delete, select_random_points and select_random_ranges
// with sysbench's statements, options, defaults and random distributions (rand.go).
//
// Beyond sysbench: every transaction's latency runs from its intended start, and each statement
// kind (point select, the four ranges, the two updates, delete, insert) and the commit is also
// timed on its own, as a part of the transaction (workload/parts.go), so the report shows one
// latency spectrum per statement kind beside the transaction's.
//
// Files: sysbench.go (options, flags, validation), tests.go (the tests' statement groups), rand.go
// (sysbench's distributions and strings), sql.go (statements and DDL), load.go (Load, Loaded, the
// record), session.go (Open, the run's work, its result), terminal.go (what a transaction draws),
// exec.go (the executor), check.go (Check).
package sysbench

import (
	"fmt"
	"slices"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/bulkload"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// Disclaimer is printed with every sysbench summary.
const Disclaimer = "sysbench: sysbench 1.0.20's OLTP workloads as candor runs them (latency from the intended start, statements timed apart); not sysbench itself"

// Options are sysbench's options, as resolved. The names are sysbench's (--table-size is
// sysbench's --table_size; sysbench takes both spellings).
type Options struct {
	Test      string `json:"test"`
	Tables    int    `json:"tables"`
	TableSize int    `json:"table_size"`
	RangeSize int    `json:"range_size"`
	// The statements per transaction of each group (oltp_common.lua's options).
	PointSelects    int  `json:"point_selects"`
	SimpleRanges    int  `json:"simple_ranges"`
	SumRanges       int  `json:"sum_ranges"`
	OrderRanges     int  `json:"order_ranges"`
	DistinctRanges  int  `json:"distinct_ranges"`
	IndexUpdates    int  `json:"index_updates"`
	NonIndexUpdates int  `json:"non_index_updates"`
	DeleteInserts   int  `json:"delete_inserts"`
	RangeSelects    bool `json:"range_selects"`
	SkipTrx         bool `json:"skip_trx"`
	// select_random_points' and select_random_ranges' own.
	RandomPoints   int `json:"random_points"`
	NumberOfRanges int `json:"number_of_ranges"`
	Delta          int `json:"delta"`
	// The distribution of the ids (and of the loaded k) and its parameters (sb_rand.c).
	RandType       RandType `json:"rand_type"`
	RandSpecIter   int      `json:"rand_spec_iter"`
	RandSpecPct    int      `json:"rand_spec_pct"`
	RandSpecRes    int      `json:"rand_spec_res"`
	RandParetoH    float64  `json:"rand_pareto_h"`
	RandZipfianExp float64  `json:"rand_zipfian_exp"`
	// Preset is --preset: "dolt" for Dolt's published settings (preset.go), or "".
	Preset string `json:"preset,omitempty"`
	// DoltTables: the load makes the tables of Dolt's suite (dolt.go) besides sbtest1..N.
	DoltTables bool `json:"dolt_tables,omitempty"`
}

// sysbench's defaults.
const (
	defaultTest      = "oltp_read_write"
	defaultTables    = 1
	defaultTableSize = 10000
	defaultThreads   = 1
	// maxTableSize keeps ids, and id + range size, within sysbench's uint32 draws and an INTEGER.
	maxTableSize = 1 << 30
	maxTables    = 1000
	maxPerTx     = 10000
	maxInList    = 10000
)

func defaults() Options {
	return Options{Test: defaultTest, Tables: defaultTables, TableSize: defaultTableSize, RangeSize: 100,
		PointSelects: 10, SimpleRanges: 1, SumRanges: 1, OrderRanges: 1, DistinctRanges: 1,
		IndexUpdates: 1, NonIndexUpdates: 1, DeleteInserts: 1, RangeSelects: true,
		RandomPoints: 10, NumberOfRanges: 10, Delta: 5,
		RandType: defaultRandType, RandSpecIter: defaultSpecIter, RandSpecPct: defaultSpecPct,
		RandSpecRes: defaultSpecRes, RandParetoH: defaultParetoH, RandZipfianExp: defaultZipfExp}
}

// Sysbench is the workload (workload.Workload, workload.Checker, workload.RowEstimator); its flags
// are bound to o's fields.
type Sysbench struct {
	o        Options
	randType string
	fs       *pflag.FlagSet
}

var (
	_ workload.Workload     = (*Sysbench)(nil)
	_ workload.Checker      = (*Sysbench)(nil)
	_ workload.RowEstimator = (*Sysbench)(nil)
)

// New returns the workload with sysbench's defaults.
func New() workload.Workload {
	return &Sysbench{o: defaults(), randType: string(defaultRandType)}
}

// Info describes the workload.
func (s *Sysbench) Info() workload.Info {
	parts := map[string]string{}
	for _, op := range OpNames[1:] {
		parts[op] = OpNames[OpTransaction]
	}
	// The progress line shows the transactions alone ("" leaves the parts out).
	short := make([]string, len(s.Ops()))
	short[0] = "tx"
	return workload.Info{
		Name:            "sysbench",
		Title:           "sysbench OLTP (sysbench 1.0.20's oltp_* and select_random_* tests)",
		Short:           "sysbench's OLTP tests (oltp_read_write, oltp_point_select, ...) on sbtest tables, with a latency spectrum per statement kind",
		Disclaimer:      Disclaimer,
		Modes:           []workload.Mode{workload.ModeThroughput, workload.ModeRate},
		DefaultDB:       "sqlite:candor-sysbench.db",
		KeyOp:           OpNames[OpTransaction],
		ShortNames:      short,
		SLOExample:      "transaction.p99<=20ms",
		Unit:            "transactions",
		TerminalsHelp:   "1, as sysbench's --threads; in rate mode one per connection",
		ConnectionsHelp: "one per terminal; in rate mode 1",
		Parts:           parts,
		PartNote:        "each statement from its call to its result",
	}
}

// Ops are the transaction, then its parts: each statement kind the test sends and the commit
// (usedOps; before the flags are parsed, those of the default test).
func (s *Sysbench) Ops() []string {
	o := s.resolve()
	var names []string
	for _, op := range usedOps(&o) {
		names = append(names, OpNames[op])
	}
	return names
}

// Flags binds sysbench's options: the tables for load (run takes the load's; given, they must
// agree), the test and its statements for run, the distribution for both.
func (s *Sysbench) Flags(fs *pflag.FlagSet, cmd workload.Command) {
	s.fs = fs
	o := &s.o
	if cmd == workload.CmdCheck {
		return
	}
	run := cmd == workload.CmdRun || cmd == workload.CmdOneShot
	fs.StringVar(&o.Test, "test", defaultTest, "the sysbench test: "+testNames())
	fs.IntVar(&o.Tables, "tables", defaultTables, "number of tables sbtest1..N"+asLoaded(cmd))
	fs.IntVar(&o.TableSize, "table-size", defaultTableSize, "rows per table (ids 1..N)"+asLoaded(cmd))
	fs.StringVar(&s.randType, "rand-type", string(defaultRandType), "distribution of the ids drawn (and of the loaded k): special (sysbench 1.0's default), uniform, gaussian, pareto, zipfian")
	fs.IntVar(&o.RandSpecIter, "rand-spec-iter", defaultSpecIter, "iterations of the gaussian and special distributions")
	fs.IntVar(&o.RandSpecPct, "rand-spec-pct", defaultSpecPct, "special: percent of the ids, at the range's middle, that are 'special'")
	fs.IntVar(&o.RandSpecRes, "rand-spec-res", defaultSpecRes, "special: percent of the draws that pick a 'special' id")
	fs.Float64Var(&o.RandParetoH, "rand-pareto-h", defaultParetoH, "pareto: the parameter h")
	fs.Float64Var(&o.RandZipfianExp, "rand-zipfian-exp", defaultZipfExp, "zipfian: the exponent (sysbench 1.1's; 1.0.20 has no zipfian)")
	fs.StringVar(&o.Preset, "preset", "", "dolt: Dolt's published settings (uniform ids, 10,000 rows, 1 table, 1 terminal, 2 minutes without warm-up, Dolt's tables loaded); flags given override it")
	if cmd == workload.CmdLoad || cmd == workload.CmdOneShot {
		fs.BoolVar(&o.DoltTables, "dolt-tables", false, "also load the tables of Dolt's tests (sbdolt1, sbdolt2, sbtypes); a --test of Dolt's loads those it needs")
	}
	workload.KeyFlags(fs, "test", "tables", "table-size")
	if !run {
		return
	}
	fs.IntVar(&o.RangeSize, "range-size", o.RangeSize, "ids per range select")
	fs.IntVar(&o.PointSelects, "point-selects", o.PointSelects, "point selects per transaction")
	fs.IntVar(&o.SimpleRanges, "simple-ranges", o.SimpleRanges, "simple range selects per transaction")
	fs.IntVar(&o.SumRanges, "sum-ranges", o.SumRanges, "SUM() range selects per transaction")
	fs.IntVar(&o.OrderRanges, "order-ranges", o.OrderRanges, "ORDER BY range selects per transaction")
	fs.IntVar(&o.DistinctRanges, "distinct-ranges", o.DistinctRanges, "DISTINCT range selects per transaction")
	fs.IntVar(&o.IndexUpdates, "index-updates", o.IndexUpdates, "index updates (k=k+1) per transaction")
	fs.IntVar(&o.NonIndexUpdates, "non-index-updates", o.NonIndexUpdates, "non-index updates (c) per transaction")
	fs.IntVar(&o.DeleteInserts, "delete-inserts", o.DeleteInserts, "delete/insert pairs per transaction (the same id deleted and inserted again)")
	fs.BoolVar(&o.RangeSelects, "range-selects", true, "run the range selects (--range-selects=false: none)")
	fs.BoolVar(&o.SkipTrx, "skip-trx", false, "no explicit transactions: every statement in autocommit")
	fs.IntVar(&o.RandomPoints, "random-points", o.RandomPoints, "select_random_points: k values in the IN list")
	fs.IntVar(&o.NumberOfRanges, "number-of-ranges", o.NumberOfRanges, "select_random_ranges: k ranges per select")
	fs.IntVar(&o.Delta, "delta", o.Delta, "select_random_ranges: the width of each k range")
}

func asLoaded(cmd workload.Command) string {
	switch cmd {
	case workload.CmdRun:
		return " (default: as loaded; --tables may name fewer)"
	case workload.CmdOneShot:
		return " (default: as loaded when the database holds sysbench data)"
	}
	return ""
}

// given reports whether the flag name was set on the command line.
func (s *Sysbench) given(name string) bool {
	if s.fs == nil {
		return false
	}
	f := s.fs.Lookup(name)
	return f != nil && f.Changed
}

// resolve is the options with the distribution named.
func (s *Sysbench) resolve() Options {
	o := s.o
	o.RandType = RandType(s.randType)
	if o.Preset == presetDolt {
		applyDolt(&o, s.given)
	}
	return o
}

// Validate checks the options before anything connects.
func (s *Sysbench) Validate(v workload.Validation) []string {
	o := s.resolve()
	var p []string
	add := func(format string, a ...any) { p = append(p, fmt.Sprintf(format, a...)) }
	if v.Cmd == workload.CmdCheck {
		return nil
	}
	t, ok := findTest(o.Test)
	if !ok {
		add("--test %q is not a sysbench test candor has: give one of %s", o.Test, testNames())
	}
	if o.Preset != "" && o.Preset != presetDolt {
		add("--preset %q is not a preset: give dolt (Dolt's published settings) or leave it out", o.Preset)
	}
	if o.Tables < 1 || o.Tables > maxTables {
		add("--tables %d is outside 1..%d: give the number of tables sbtest1..N", o.Tables, maxTables)
	}
	if o.TableSize < 1 || o.TableSize > maxTableSize {
		add("--table-size %d is outside 1..%d: give the rows per table", o.TableSize, maxTableSize)
	}
	if ok && t.oneTable && o.Tables > 1 && (v.Cmd == workload.CmdLoad || s.given("tables")) {
		if t.dolt {
			add("%s works on sbtest1 alone, the one table its script prepares: give --tables 1", o.Test)
		} else {
			add("%s works on sbtest1 alone, as sysbench's does (it refuses --tables > 1): give --tables 1", o.Test)
		}
	}
	if !slices.Contains(randTypes, o.RandType) {
		add("--rand-type %q is not a distribution: give special, uniform, gaussian, pareto or zipfian", o.RandType)
	}
	if o.RandSpecIter < 1 || o.RandSpecIter > maxSpecIterLimit {
		add("--rand-spec-iter %d is outside 1..%d: give the iterations of the gaussian and special distributions", o.RandSpecIter, maxSpecIterLimit)
	}
	if o.RandSpecPct < 0 || o.RandSpecPct > 100 {
		add("--rand-spec-pct %d is outside 0..100: give a percentage", o.RandSpecPct)
	}
	if o.RandSpecRes < 0 || o.RandSpecRes >= 100 {
		add("--rand-spec-res %d is outside 0..99: give a percentage below 100", o.RandSpecRes)
	}
	if !(o.RandParetoH > 0 && o.RandParetoH < 1) {
		add("--rand-pareto-h %g is outside (0, 1): give for example 0.2", o.RandParetoH)
	}
	if !(o.RandZipfianExp >= 0) {
		add("--rand-zipfian-exp %g is negative: give 0 or more, for example 0.8", o.RandZipfianExp)
	}
	if v.Cmd == workload.CmdRun || v.Cmd == workload.CmdOneShot {
		counts := []struct {
			flag string
			n    int
		}{{"point-selects", o.PointSelects}, {"simple-ranges", o.SimpleRanges}, {"sum-ranges", o.SumRanges},
			{"order-ranges", o.OrderRanges}, {"distinct-ranges", o.DistinctRanges}, {"index-updates", o.IndexUpdates},
			{"non-index-updates", o.NonIndexUpdates}, {"delete-inserts", o.DeleteInserts}}
		for _, c := range counts {
			if c.n < 0 || c.n > maxPerTx {
				add("--%s %d is outside 0..%d: give the statements per transaction", c.flag, c.n, maxPerTx)
			}
		}
		if o.RangeSize < 1 || o.RangeSize > maxTableSize {
			add("--range-size %d is outside 1..%d: give the ids per range", o.RangeSize, maxTableSize)
		}
		if o.RandomPoints < 1 || o.RandomPoints > maxInList {
			add("--random-points %d is outside 1..%d: give the k values per select", o.RandomPoints, maxInList)
		}
		if o.NumberOfRanges < 1 || o.NumberOfRanges > maxInList/2 {
			add("--number-of-ranges %d is outside 1..%d: give the k ranges per select", o.NumberOfRanges, maxInList/2)
		}
		if o.Delta < 0 || o.Delta > maxTableSize {
			add("--delta %d is outside 0..%d: give the width of each k range", o.Delta, maxTableSize)
		}
		if ok && len(p) == 0 && statementsPerTx(t, &o) == 0 {
			add("%s with these options sends no statement: give at least one of its statement counts above 0", o.Test)
		}
	}
	if problem := sqlexec.DialectProblem(v.DB, "sysbench"); problem != "" {
		p = append(p, problem)
	}
	return p
}

// ExpectedRows is the rows a load writes.
func (s *Sysbench) ExpectedRows() int64 {
	o := s.resolve()
	return int64(o.Tables+len(loadExtras(&o).names())) * int64(o.TableSize)
}

// rowBytes is a sysbench row's values: id and k (4 bytes each), c (120 characters), pad (60).
const rowBytes = 4 + 4 + 120 + 60

// EstimateLoad is the load's size (workload.LoadEstimator): every table's rows of rowBytes; in
// memory, the chunks held at once.
func (s *Sysbench) EstimateLoad(loaders int) workload.LoadEstimate {
	o := s.resolve()
	rows := workload.Product(int64(o.Tables), int64(o.TableSize))
	bytes := workload.Product(rows, rowBytes)
	extra := loadExtras(&o)
	for _, n := range extra.names() {
		rows += int64(o.TableSize)
		bytes += workload.Product(int64(o.TableSize), extraRowBytes[n])
	}
	return workload.LoadEstimate{
		Rows:       rows,
		Bytes:      bytes,
		PeakMemory: workload.Product(bulkload.ChunksHeld(loaders), min(int64(max(0, s.o.TableSize)), loadChunk), rowBytes+96),
	}
}

var _ workload.LoadEstimator = (*Sysbench)(nil)
