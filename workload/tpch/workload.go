package tpch

// Files: workload.go (options, flags, validation, Load, Loaded), metric.go (clause 5.4), session.go
// (Open, the run's streams and its result), stream.go (the streams as finite terminals), exec.go
// (the executor: queries, RF1, RF2, EXPLAIN), result.go (headline, sections, warnings), refresh.go
// (the refresh sets used, recorded on the load); load.go and schema.go (the load, package dbgen's
// rows); queries/ (the 22 queries, their parameters and reference answers).
//
// How TPC-H maps onto the contract: it is neither spec nor rate. `candor tpch run` runs in the
// closed loop without waits (mode throughput), with finite terminals: the power test is one
// terminal (RF1, the 22 queries in stream 0's order, RF2; --repeat times), each query stream of the
// throughput test is a terminal, and the refresh stream (S pairs of RF1 and RF2) another. The
// throughput test's terminals are gated (schedule.Gated) on the power test's end, so --test both
// (the standard's performance test, clause 5.3.3) is one session, one recorder and one result;
// each terminal says Done after its sequence and the run ends when all are (Summary.Exhausted).
// --duration only bounds the run. Each query and refresh function is an operation (q1..q22, rf1,
// rf2) in the recorder, so per-query histograms, report.html and compare need nothing new; the
// executor also keeps each stream's timing intervals for clause 5.4's metric.

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/bulkload"
	"github.com/candor-bench/candor/workload/sqlexec"
	"github.com/candor-bench/candor/workload/tpch/dbgen"
	"github.com/candor-bench/candor/workload/tpch/queries"
)

// Disclaimer is printed with every TPC-H summary.
const Disclaimer = "TPC-H (derived, not audited): figures measured by candor after TPC-H's rules; not comparable to published TPC-H results"

// The operations: q1..q22 are 0..21, then the refresh functions.
const (
	OpRF1  = queries.Count
	OpRF2  = queries.Count + 1
	numOps = queries.Count + 2
)

// OpNames are the recorder's operation names: q1..q22, rf1, rf2.
func OpNames() []string {
	names := make([]string, 0, numOps)
	for q := 1; q <= queries.Count; q++ {
		names = append(names, "q"+strconv.Itoa(q))
	}
	return append(names, "rf1", "rf2")
}

// opOf is query q's operation (q 1..22).
func opOf(q int) int { return q - 1 }

// Tests are what a run measures (clause 5.3.3: the performance test is a power test followed by a
// throughput test).
const (
	TestPower      = "power"
	TestThroughput = "throughput"
	TestBoth       = "both"
)

// Options are TPC-H's options as resolved.
type Options struct {
	// SF is the scale factor: load's to load; run's as loaded.
	SF float64 `json:"sf"`
	// Test is power, throughput or both.
	Test string `json:"test"`
	// Streams is the throughput test's query streams (0 on the command line: clause 5.3.4's
	// minimum for SF).
	Streams int `json:"streams"`
	// Validate runs the queries with the validation parameters (clause 2.4.x.4) and compares every
	// answer with the reference answers; it implies NoRefresh (the answers are of the data as
	// loaded).
	Validate bool `json:"validate"`
	// Repeat runs the power test this many times in a row (the spread of each query's time).
	Repeat int `json:"repeat"`
	// NoRefresh leaves out RF1 and RF2 (the metric is then not the standard's).
	NoRefresh bool `json:"no_refresh"`
	// Explain saves each query's plan (EXPLAIN in the engine's form) as plans/qN.txt.
	Explain bool `json:"explain"`
}

// TPCH is the workload (workload.Workload, workload.RowEstimator).
type TPCH struct {
	o    Options
	cmd  workload.Command
	fs   *pflag.FlagSet
	sfIn string
	// last is the session this value opened last, for the check after its run (check.go).
	last *session
}

var (
	_ workload.Workload     = (*TPCH)(nil)
	_ workload.RowEstimator = (*TPCH)(nil)
)

// New returns TPC-H with its defaults.
func New() workload.Workload {
	return &TPCH{o: Options{SF: 1, Test: TestBoth, Repeat: 1, Explain: true}}
}

// OneShotSF is the scale factor `candor tpch` alone loads.
const OneShotSF = 0.01

// Info describes TPC-H.
func (*TPCH) Info() workload.Info {
	// The progress line shows Q1 (the key operation) and the refresh functions: 24 rates of
	// operations that each run once per stream would only make it wide.
	short := make([]string, numOps)
	short[opOf(1)], short[OpRF1], short[OpRF2] = "q1", "rf1", "rf2"
	return workload.Info{
		Name:            "tpch",
		Title:           "TPC-H (derived, not audited)",
		Short:           "TPC-H: the 22 decision-support queries and the refresh functions, the power and throughput tests, QphH@Size",
		Disclaimer:      Disclaimer,
		Modes:           []workload.Mode{workload.ModeThroughput},
		Finite:          true,
		DefaultDB:       "sqlite:candor-tpch.db",
		KeyOp:           "q1",
		ShortNames:      short,
		SLOExample:      "q1.p99<=2s",
		Unit:            "queries",
		TerminalsHelp:   "TPC-H's streams: 1 for the power test, --streams plus the refresh stream for the throughput test (not settable)",
		ConnectionsHelp: "one per stream (not settable)",
	}
}

// Ops are q1..q22, rf1, rf2.
func (*TPCH) Ops() []string { return OpNames() }

// Flags binds TPC-H's options.
func (t *TPCH) Flags(fs *pflag.FlagSet, cmd workload.Command) {
	t.fs, t.cmd = fs, cmd
	if cmd == workload.CmdCheck {
		return
	}
	if cmd == workload.CmdLoad || cmd == workload.CmdOneShot {
		def, help := "1", "scale factor to load (clause 4.1.3.1 lists 1, 10, 30, 100, 300, 1000, ...; fractions such as 0.01 and 0.1 load too, for tests)"
		if cmd == workload.CmdOneShot {
			def, help = strconv.FormatFloat(OneShotSF, 'g', -1, 64), help+"; a database already holding TPC-H data is used at its own scale factor"
		}
		fs.StringVar(&t.sfIn, "sf", def, help)
		workload.KeyFlags(fs, "sf")
	}
	if cmd == workload.CmdRun || cmd == workload.CmdOneShot {
		def := TestBoth // the one-shot's too: the performance test the tool calls complete (clause 5.3.3)
		t.o.Test = def
		fs.StringVar(&t.o.Test, "test", def, "power (RF1, the 22 queries in stream 0's order, RF2), throughput (--streams query streams and the refresh stream) or both (the standard's performance test: power, then throughput)")
		fs.IntVar(&t.o.Streams, "streams", 0, "query streams of the throughput test (default: clause 5.3.4's minimum for the scale factor, 2 below SF 10)")
		fs.BoolVar(&t.o.Validate, "validate", false, "validation mode: the standard's validation parameters, every answer compared with the reference answers (SF 0.01 and 0.1), no refresh functions; not a compliant measurement")
		fs.IntVar(&t.o.Repeat, "repeat", 1, "run the power test this many times in a row (each query's spread over the repeats; the lowest Power@Size is reported)")
		fs.BoolVar(&t.o.NoRefresh, "no-refresh", false, "leave out the refresh functions RF1 and RF2 (not a compliant measurement)")
		defer workload.KeyFlags(fs, "sf", "test")
		fs.BoolVar(&t.o.Explain, "explain", true, "save each query's plan (the engine's EXPLAIN) as plans/qN.txt in the results directory")
	}
}

// given reports whether the flag name was set on the command line.
func (t *TPCH) given(name string) bool {
	if t.fs == nil {
		return false
	}
	f := t.fs.Lookup(name)
	return f != nil && f.Changed
}

// parseSF reads a scale factor: positive, at most 100000, and a whole multiple of 0.0001 (dbgen's
// cardinalities are SF × whole numbers).
func parseSF(s string) (float64, error) {
	sf, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(sf > 0) || sf > 100000 || math.IsInf(sf, 0) {
		return 0, fmt.Errorf("--sf %q is not a scale factor: give a positive number up to 100000, such as 0.01, 1 or 10", s)
	}
	if r := math.Round(sf * 10000); math.Abs(r-sf*10000) > 1e-6 {
		return 0, fmt.Errorf("--sf %s has more than four decimals: give for example 0.01 or 0.1", s)
	}
	return sf, nil
}

// Validate checks the options before anything connects.
func (t *TPCH) Validate(v workload.Validation) []string {
	var p []string
	add := func(format string, a ...any) { p = append(p, fmt.Sprintf(format, a...)) }
	if v.Cmd == workload.CmdCheck {
		return nil
	}
	if v.DB != "" {
		if prob := sqlexec.DialectProblem(v.DB, "tpch"); prob != "" {
			add("%s", prob)
		}
	}
	if v.Shard.Sharded() {
		// Clause 5.3: the power test is one stream and the throughput test S streams run together
		// against one database; split over processes they would be neither.
		add("--shard %s: TPC-H's tests are one sequence of streams on one database and cannot be split over driver processes; drop --shard (and --shards)", v.Shard)
	}
	if v.Cmd == workload.CmdLoad || v.Cmd == workload.CmdOneShot {
		sf, err := parseSF(t.sfIn)
		if err != nil {
			add("%s", err.Error())
		}
		t.o.SF = sf
	}
	if v.Cmd == workload.CmdLoad {
		return p
	}
	switch t.o.Test {
	case TestPower, TestThroughput, TestBoth:
	default:
		add("--test %q is not a TPC-H test: give power, throughput or both", t.o.Test)
	}
	if t.given("streams") && t.o.Streams < 1 {
		add("--streams %d: give at least 1 query stream (or leave it out for clause 5.3.4's minimum)", t.o.Streams)
	}
	if t.o.Repeat < 1 || t.o.Repeat > 1000 {
		add("--repeat %d is outside 1..1000: give how many power tests to run in a row", t.o.Repeat)
	}
	if t.o.Validate && t.o.Test != TestPower {
		add("--validate compares the answers of one query stream with the reference answers: give --test power with it")
	}
	if v.Terminals != 0 || v.Connections != 0 {
		add("TPC-H's terminals and connections are its streams (one each): leave out --terminals and --connections, and give --streams for the throughput test")
	}
	if v.Endpoints > 1 {
		add("tpch runs against one database endpoint: give --db once")
	}
	return p
}

// ExpectedRows is the rows a load writes (dbgen's cardinalities; Lineitem's estimated).
func (t *TPCH) ExpectedRows() int64 {
	var n int64
	for _, tb := range dbgen.Tables() {
		n += dbgen.Rows(tb, t.o.SF)
	}
	return n
}

// Load loads the eight tables at --sf (load.go).
func (t *TPCH) Load(ctx context.Context, db driver.DB, o workload.LoadOptions) (workload.LoadResult, error) {
	if _, _, err := sqlexec.Dialect(db, "tpch"); err != nil {
		return workload.LoadResult{}, err
	}
	return loadData(ctx, db, o, t.o.SF)
}

// Loaded reports whether db holds a complete TPC-H load; for the one-shot, an --sf given that
// differs from the load's is a user error naming the fix.
func (t *TPCH) Loaded(ctx context.Context, db driver.DB) (bool, error) {
	sf, ok, err := loadedSF(ctx, db)
	if err != nil || !ok {
		return false, err
	}
	if t.given("sf") && sf != t.o.SF {
		return false, userr.Errorf("the TPC-H data at %s was loaded at SF %g, not --sf %g: drop --sf to use it, or reload with candor tpch load --drop --sf %g --db %s",
			db.Redacted(), sf, t.o.SF, t.o.SF, db.Redacted())
	}
	t.o.SF = sf
	return true, nil
}

// Load estimates (workload.LoadEstimator).
const (
	// sfBytes is a lower bound of the bytes one scale factor takes on disk: dbgen's .tbl text of SF
	// 1 is 1.07 GB, and the engines store it in more.
	sfBytes = 900e6
	// textPoolBytes is dbgen's comment pool, which the load holds throughout (dbgen.Prepare).
	textPoolBytes = 300 << 20
	// chunkRowBytes bounds a generated row in memory: its values as []any, the strings beside them.
	chunkRowBytes = 512
)

// EstimateLoad is the load's size (workload.LoadEstimator): the eight tables' rows, sfBytes per
// scale factor on disk, and in memory the text pool and the chunks held at once.
func (t *TPCH) EstimateLoad(loaders int) workload.LoadEstimate {
	b := int64(math.MaxInt64)
	if f := t.o.SF * sfBytes; f < math.MaxInt64/2 {
		b = int64(max(0, f))
	}
	return workload.LoadEstimate{
		Rows:       t.ExpectedRows(),
		Bytes:      b,
		PeakMemory: workload.Sum(textPoolBytes, workload.Product(bulkload.ChunksHeld(loaders), chunkRows, chunkRowBytes)),
	}
}

var _ workload.LoadEstimator = (*TPCH)(nil)
