// Package workload is the contract every benchmark meets, and the list they register in. The core
// (package run: plan, window, recorder, scheduler choice, monitor, files, disclosure, report) knows
// workloads only through this contract, so a workload is one package plus one registration line
// (workload/all).
//
// The shape follows CockroachDB's pkg/workload: a small required interface (Workload) plus optional
// abilities a workload may have (Checker, and the RoundTripper of a Session), and the rule that every
// random choice derives from the options and the seed, so the same flags give the same work.
//
// A command's life with a workload:
//
//  1. the CLI binds the workload's own flags (Flags) beside the core's, then Validate reports every
//     problem at once, before anything connects;
//  2. `load`: Load fills the database (deterministic from LoadOptions.Seed, parallel, through the
//     engine's bulk path) and records that it completed; Loaded tells whether a database already
//     holds what the options describe (the one-shot skips loading then);
//  3. `run`: Open resolves the run against the loaded database and returns a Session; Start gives the
//     scheduler its work (an executor and either closed-loop terminals or an open-loop source); the
//     core runs it, measures it and builds the result's envelope; Finish adds the workload's own
//     figures, sections, verdicts and warnings;
//  4. `check` (Checker): consistency or sanity conditions after a load or a run.
package workload

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"time"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/userr"
)

// Mode is how the core schedules a session's work.
type Mode string

const (
	// ModeSpec is a closed loop paced by the workload's own timing rules (TPC-C's keying and think
	// times, clause 5.2.5). Only workloads whose Info lists it have it.
	ModeSpec Mode = "spec"
	// ModeThroughput is a closed loop without waits: each terminal submits as soon as its previous
	// operation returns. Its latencies are those of a saturated system.
	ModeThroughput Mode = "throughput"
	// ModeRate is an open loop: operations arrive at the times a pacer says, whatever the database
	// does, and latency runs from the intended arrival.
	ModeRate Mode = "rate"
)

// Command is the command a workload's flags and validation are for.
type Command string

const (
	CmdLoad Command = "load"
	CmdRun  Command = "run"
	// CmdOneShot is `candor NAME` alone: load when needed, then run. Both kinds of flags apply.
	CmdOneShot Command = "oneshot"
	CmdCheck   Command = "check"
)

// Info describes a workload for the CLI, the run and the report.
type Info struct {
	// Name is the command name and the result's "workload" (tpcc, kv, ycsb).
	Name string
	// Title is a short human title ("TPC-C (derived, not audited)") and Short a one-line description
	// for --help.
	Title, Short string
	// Disclaimer is printed with every summary and stored in result.json.
	Disclaimer string
	// Modes are the modes the workload runs in; the first is `run`'s default.
	Modes []Mode
	// Finite says the workload's runs are finite sequences (TPC-H's power and throughput tests:
	// terminals that say schedule.Done): a run ends when they do, --duration only bounds it
	// (default FiniteBound) and has no warm-up by default, and the one-shot is one run in the
	// first mode (no peak probe and open-loop comparison; no search without rate mode).
	Finite bool
	// DefaultDB is the one-shot's embedded database (sqlite:candor-NAME.db).
	DefaultDB string
	// KeyOp is the operation the progress line shows percentiles of (new_order, read, ...), and
	// ShortNames the progress line's abbreviations of the operations (same order as Ops; "" leaves an
	// operation out of the progress line).
	KeyOp      string
	ShortNames []string
	// SLOExample is an example budget for `search --slo` in help and errors.
	SLOExample string
	// Unit names one operation in the summary ("transactions", "operations").
	Unit string
	// TerminalsHelp and ConnectionsHelp say the workload's defaults of --terminals and
	// --connections in --help ("10 per warehouse in spec and rate mode, 4 in throughput mode").
	TerminalsHelp, ConnectionsHelp string
	// Parts maps the operations that are parts of another (parts.go: each statement of a
	// transaction timed on its own) to the operation they are a part of; PartNote says how a part
	// is timed, for the report ("from the statement's call to its result").
	Parts    map[string]string
	PartNote string
}

// FiniteBound is a Finite workload's default --duration: a bound on the run, which ends when its
// sequences do.
const FiniteBound = 24 * time.Hour

// Workload is one benchmark configured by its own options. The registry makes a fresh value for each
// command (New), so a value holds one command's options; its flags are bound to its fields.
type Workload interface {
	Info() Info
	// Ops are the operations the recorder measures, in its index order: the types a terminal or an
	// arrival source returns (schedule.Terminal.Next) first, then any the workload records itself
	// (TPC-C's deferred Delivery).
	Ops() []string
	// Flags binds the workload's own options for cmd on fs (the core binds --db, --mode, --duration
	// and the other flags every workload shares).
	Flags(fs *pflag.FlagSet, cmd Command)
	// Validate checks the options before anything connects and returns every problem (one
	// sentence each, naming the flag and what to do), or none. v holds the command and the core's
	// flags the options may depend on.
	Validate(v Validation) []string
	// Load fills db with the workload's initial data.
	Load(ctx context.Context, db driver.DB, o LoadOptions) (LoadResult, error)
	// Loaded reports whether db already holds a complete load matching the options: false when there
	// is no data; a user error naming the fix for a half-finished or different load. For the
	// one-shot it may complete what the options add to an existing load (TPC-C's procedures).
	Loaded(ctx context.Context, db driver.DB) (bool, error)
	// Open resolves a run against db (which must hold a complete load) and prepares a session.
	Open(ctx context.Context, db driver.DB, c SessionConfig) (Session, error)
}

// Validation is what Validate may check the workload's options against, before anything connects.
type Validation struct {
	Cmd Command
	// Mode, Terminals and Connections are the run's as given (0: default); zero for a load.
	Mode                   Mode
	Terminals, Connections int
	// DB is the first database URL (never printed: redact it with driver.Redact), and Endpoints the
	// number of --db given. The engine may be known from the URL alone (driver.URLDialect).
	DB        string
	Endpoints int
	// Shard is the load's or run's part of a sharded one (shard.go); zero when not sharded.
	Shard Shard
}

// LoadOptions are the core's part of a load.
type LoadOptions struct {
	Loaders int
	Seed    uint64
	// Drop replaces the workload's existing tables; without it, Load refuses to touch them.
	Drop        bool
	ToolVersion string
	// Progress receives the rows written as they go (from any goroutine); may be nil.
	Progress func(rows int64)
	// Note prints one line for the user (stderr), e.g. what was created after the rows.
	Note func(line string)
	// Shard is this process's part of a sharded load (shard.go); only a Sharder is given one.
	Shard Shard
	// ShardWait bounds how long a shard of a load waits for the others (shard 0 for the schema,
	// shard 0 for every other part before it builds the keys).
	ShardWait time.Duration
}

// LoadResult is what a load did, for the closing line.
type LoadResult struct {
	// Rows is the rows written, and ExpectedRows what Load expected to write (for the progress bar
	// Describe is computed before; here for the record).
	Rows int64
	// BulkPath is how the rows went in, when the engine had a choice (MySQL: LOAD DATA LOCAL or
	// multi-row INSERT).
	BulkPath string
	// Summary is the workload's own words on what was loaded ("1 warehouse", "100,000 records").
	Summary string
	// Facts are further facts for the closing line ("load C constants: c_last 157, ...").
	Facts string
}

// RowEstimator is an optional ability: the rows a load will write, for the progress bar.
type RowEstimator interface {
	ExpectedRows() int64
}

// LoadEstimate is what a load will write and hold, stated before it drops or writes anything, so
// that the core can refuse a load that cannot finish (run/loadsafety.go, docs/load-safety.md). Each
// figure saturates at math.MaxInt64 (Product) rather than overflow.
type LoadEstimate struct {
	// Rows is the rows the load writes.
	Rows int64
	// Bytes is a lower bound of the bytes the loaded data takes on disk (its values, without the
	// engine's overhead, keys and indexes).
	Bytes int64
	// PeakMemory is the most bytes the load's generators hold at once (chunks made ahead and being
	// copied), for loaders connections.
	PeakMemory int64
}

// LoadEstimator is an optional ability every loadable workload has: its load's size for the
// given number of loaders, from its options alone (nothing connected).
type LoadEstimator interface {
	EstimateLoad(loaders int) LoadEstimate
}

// Product is a·b·..., saturating at math.MaxInt64 (and 0 for a negative factor): load estimates of
// absurd options stay absurd instead of wrapping around.
func Product(f ...int64) int64 {
	p := int64(1)
	for _, x := range f {
		if x <= 0 {
			return 0
		}
		if p > math.MaxInt64/x {
			return math.MaxInt64
		}
		p *= x
	}
	return p
}

// Sum is a+b+..., saturating at math.MaxInt64.
func Sum(f ...int64) int64 {
	var s int64
	for _, x := range f {
		if x > math.MaxInt64-s {
			return math.MaxInt64
		}
		s += max(0, x)
	}
	return s
}

// SessionConfig is the core's part of a run, resolved and validated.
type SessionConfig struct {
	Mode Mode
	// Terminals and Connections are as the user gave them; 0 asks the workload for its default
	// (Setup says what it chose).
	Terminals, Connections int
	// Seed is the run's effective seed (for a shard, derived from the root seed and its index);
	// RootSeed the sharded run's root seed (0 when not sharded): see GivenLoadSeed.
	Seed      uint64
	RootSeed  uint64
	Isolation driver.Isolation
	// Shard is this process's part of a sharded run (shard.go): the workload drives only its part
	// (TPC-C: the terminals of its warehouses), the core has already divided the rate.
	Shard Shard
	// Endpoints are further endpoints of the same database (--db given more than once); the
	// workload spreads its terminals over db and these, or refuses them.
	Endpoints []driver.DB
	// EndpointURLs are every endpoint's redacted URL, db's first.
	EndpointURLs []string
	// Warmup, Measure and Grace are the run's window.
	Warmup, Measure, Grace time.Duration
	// Out is the results directory ("" for none), for files of the workload's own (TPC-C's
	// deliveries.csv), which it creates with Create.
	Out string
	// Note prints one line for the user (stderr).
	Note func(line string)
	// Create makes a file of the workload's own in the results directory Out (nil without one;
	// it is nil then too). The run makes the directory on the first call: call it only once the
	// session's connections are open, so a run that cannot connect leaves the directory as it was.
	// The file says at once on stderr when a write to it fails.
	Create func(name string) (io.WriteCloser, error)
}

// GivenLoadSeed is the seed of a load taken as given (the null engine's, loadstate.Given): the
// root seed of a sharded run, so that every shard imagines the same load, else Seed.
func (c SessionConfig) GivenLoadSeed() uint64 {
	if c.Shard.Sharded() && c.RootSeed != 0 {
		return c.RootSeed
	}
	return c.Seed
}

// Setup is what a session will run with, once the workload has filled its defaults.
type Setup struct {
	Terminals, Connections int
	// Describe is the workload's part of the run's opening line ("1 warehouse, interactive
	// statements"; "kv95, 1,000 keys, batch 1").
	Describe string
	// Options is the workload's resolved options, stored in result.json's plan under "options".
	Options any
	// KeyOp, when set, is the operation this run's short views show instead of Info.KeyOp: a mix
	// without the usual one (YCSB's workload e scans and inserts, it never reads).
	KeyOp string
}

// Session is one run of a workload, between Open and Close.
type Session interface {
	Setup() Setup
	// Start builds the run's work. The core then runs it with the scheduler the mode calls for and
	// calls Work.Drain once the scheduler has returned.
	Start(ctx context.Context, env Env) (*Work, error)
	// Finish adds the workload's own part of the result: its headline figures, sections, verdicts,
	// warnings and details (and, for TPC-C, the keys of result format 1). f.Result already holds the
	// envelope: operations, window, database, driver, rate.
	Finish(f *Finished)
	// Close releases what Open and Start took (connections, files); safe to call more than once.
	Close() error
}

// Env is what the core gives Start.
type Env struct {
	// Rec is the run's recorder, with one operation per Ops() entry. Workers record into
	// Rec.Stripe(slot) and the open loop's drops into Rec.Stripe(Workers); work the workload records
	// itself (a deferred part) uses stripes from Workers+1 on.
	Rec *measure.Recorder
	// Abort ends the run early with a cause (the database is lost): it ends as partial, with
	// the cause as its reason.
	Abort context.CancelCauseFunc
	// Outages is the run's record of the database's outages and the window it tolerates
	// (outage.go); Start's context carries it too, for workload/sqlexec.
	Outages *Outages
	// Hurry is closed when the user asks to stop waiting (a second Ctrl-C): Work.Drain returns at
	// once, counting what it still waits for as incomplete.
	Hurry <-chan struct{}
}

// Work is what the scheduler runs.
type Work struct {
	Exec    schedule.Executor
	Workers int
	// Terminals are the closed loop's terminals (spec and throughput modes).
	Terminals []schedule.Terminal
	// Source draws the open loop's arrivals (rate mode); the core paces them.
	Source schedule.Source
	// TerminalGroup and WorkerGroup bind terminals (or arrivals, by Source.Draw's group) to workers
	// (several endpoints); nil for one group. See schedule.Config.
	TerminalGroup, WorkerGroup []int
	// OnTick, when set, runs every interval before the core's own use of it.
	OnTick func(iv *measure.Interval)
	// Drain, when set, runs after the scheduler has returned and before the final tick: work the
	// workload handed on (TPC-C's deferred Delivery) is waited for, up to grace or longer when the
	// workload's rules say so, but never longer than grace once the run was interrupted (the
	// context given to Start is cancelled), and not at all once Env.Hurry is closed.
	Drain func(grace time.Duration)
}

// Finished is a run's outcome, for Session.Finish.
type Finished struct {
	Result  *report.Result
	Totals  *measure.Totals
	Summary schedule.Summary
	Mode    Mode
	// Minutes is the measured window's length in minutes (0 when nothing was measured).
	Minutes float64
}

// Completed is the operations of the first n types (Ops order) completed in the measured window,
// by type, and their total; zeros without totals.
func (f *Finished) Completed(n int) (counts []int64, total int64) {
	counts = make([]int64, n)
	if f.Totals == nil {
		return counts, 0
	}
	for op := range min(n, len(f.Totals.Counts)) {
		counts[op] = f.Totals.Counts[op].Completed
		total += counts[op]
	}
	return counts, total
}

// PerSecond is n operations over the measured window, per second; 0 when nothing was measured.
func (f *Finished) PerSecond(n int64) float64 {
	secs := f.Minutes * 60
	if secs <= 0 {
		return 0
	}
	return float64(n) / secs
}

// Checker is an optional ability: consistency conditions on the database after a load or a run.
// full also runs the expensive ones.
type Checker interface {
	Check(ctx context.Context, db driver.DB, full bool) ([]report.Check, error)
}

// RunDefaulter is an optional ability: a workload whose options (a preset, such as sysbench's
// --preset dolt) set the run's duration, warm-up and terminals where their flags are not given
// (ok false: none).
type RunDefaulter interface {
	RunDefaults() (duration, warmup time.Duration, terminals int, ok bool)
}

// RoundTripper is an optional ability of a Session: the round trips to the database of every
// connection of the run, and the operations to divide them by, when the engine counts them.
type RoundTripper interface {
	RoundTrips() (trips, ops int64, counted bool)
}

// Merger is an optional ability of a Workload: its own part of a result merged from the results of
// several shards of one run (candor merge). m.Result already holds the merged envelope (every
// operation's figures from the histograms summed bucket by bucket, the counts summed, the rates
// summed over the common window); MergeFinish adds what Session.Finish adds to a single run
// (headline, sections, verdicts, warnings, details), computed by the same code from the merged
// totals and the shards' own counters, never from their percentiles. A workload without it gets the
// envelope alone.
type Merger interface {
	MergeFinish(m *Merged) error
}

// Merged is a merged run's outcome, for Merger.MergeFinish.
type Merged struct {
	Finished
	// Shards are the shards' own results, in shard order; Details their "details" as result.json
	// holds them (Shards' Details are decoded generically, large integers as float64), read by
	// ShardDetails.
	Shards  []*report.Result
	Details []json.RawMessage
	// Intervals are the merged run's intervals inside the common window: their bounds and the
	// operations completed in each, by op (the Response histograms' counts).
	Intervals []MergedInterval
}

// MergedInterval is one interval of a merged run.
type MergedInterval struct {
	Start, End time.Time
	Completed  []int64
}

// ShardDetails decodes every shard's "details" (a result.json's workload part) into a T, in shard
// order, for a Merger that sums the shards' own counters. A shard without details, or with details
// of another shape, is a user error naming it.
func ShardDetails[T any](m *Merged, workloadName string) ([]T, error) {
	out := make([]T, len(m.Shards))
	for i, r := range m.Shards {
		idx := i
		if r.Shard != nil {
			idx = r.Shard.Index
		}
		var b []byte
		var err error
		if i < len(m.Details) && len(m.Details[i]) > 0 {
			b = m.Details[i]
		} else if r.Details != nil {
			b, err = json.Marshal(r.Details)
		}
		if err == nil && (len(b) == 0 || string(b) == "null") {
			return nil, userr.Errorf("shard %d's result has no %s details: it was saved by another workload or an older candor; re-run the shards", idx, workloadName)
		}
		if err == nil {
			err = json.Unmarshal(b, &out[i])
		}
		if err != nil {
			return nil, userr.Errorf("shard %d's %s details do not read (%v): re-run the shards", idx, workloadName, err)
		}
	}
	return out, nil
}
