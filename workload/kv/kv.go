// Package kv is CockroachDB's key-value workload (pkg/workload/kv) on candor's workload contract:
// one table kv(k BIGINT PRIMARY KEY, v bytes), and four operations on it, each one SQL statement of
// --batch keys: point reads (SELECT ... WHERE k IN), writes (multi-row upserts), bounded range
// scans (count of the --span-limit rows from a key on) and deletes. The mix is given by percentages
// (or a --preset such as kv95); keys come from CockroachDB's sequence-based generators (keys.go),
// values are random bytes. Every random choice is drawn from a stream derived from the seed, one
// per terminal.
//
// Files: kv.go (options, flags, validation), keys.go (key generators), sql.go (statements per SQL
// family), load.go (Load, Loaded, the record in candor_workloads), session.go (Open, the run's work
// and its result), terminal.go (terminals and the open loop's source), exec.go (the executor),
// check.go (Check).
package kv

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// Disclaimer is printed with every kv summary.
const Disclaimer = "kv: CockroachDB's key-value workload as candor runs it; operation counts and latencies only"

// The operations, in the recorder's order (Ops). All four are always there, so that results of
// different mixes compare; an operation with a zero share has count 0.
const (
	OpRead = iota
	OpWrite
	OpScan
	OpDelete
	numOps
)

// OpNames are the recorder's operation names.
var OpNames = []string{"read", "write", "scan", "delete"}

// Options are kv's own options, as resolved (presets applied, defaults filled).
type Options struct {
	// Preset is the named mix the percentages started from ("" for none).
	Preset string `json:"preset,omitempty"`
	// ReadPercent, SpanPercent and DelPercent are the shares of point reads, scans and deletes;
	// WritePercent is the rest.
	ReadPercent  int `json:"read_percent"`
	SpanPercent  int `json:"span_percent"`
	DelPercent   int `json:"del_percent"`
	WritePercent int `json:"write_percent"`
	// SpanLimit is the rows a scan counts (0: the whole table, as CockroachDB's default).
	SpanLimit int `json:"span_limit"`
	// Batch is the keys per statement.
	Batch         int `json:"batch"`
	MinBlockBytes int `json:"min_block_bytes"`
	MaxBlockBytes int `json:"max_block_bytes"`
	// Distribution of the keys (keys.go), with the zipfian's parameters.
	Distribution Distribution `json:"distribution"`
	ZipfianS     float64      `json:"zipfian_s,omitempty"`
	ZipfianV     float64      `json:"zipfian_v,omitempty"`
	// CycleLength wraps the key sequence (math.MaxInt64: never).
	CycleLength int64 `json:"cycle_length"`
	// InsertCount is the rows loaded before the workload (load: to load; run: as loaded).
	InsertCount int64 `json:"insert_count"`
}

// A preset is a named mix: the percentages it sets. Explicit --read-percent, --span-percent and
// --del-percent override its values.
type preset struct {
	name            string
	read, span, del int
	description     string
}

// presets are the mixes of CockroachDB's kv roachtests, all with uniform keys.
var presets = []preset{
	{name: "kv0", description: "writes only"},
	{name: "kv50", read: 50, description: "50% reads, 50% writes"},
	{name: "kv95", read: 95, description: "95% reads, 5% writes"},
	{name: "kv100", read: 100, description: "reads only"},
}

func findPreset(name string) (preset, bool) {
	for _, p := range presets {
		if p.name == name {
			return p, true
		}
	}
	return preset{}, false
}

func presetNames() string {
	var s []string
	for _, p := range presets {
		s = append(s, p.name)
	}
	return strings.Join(s, ", ")
}

// Defaults, CockroachDB's except the preset (CockroachDB's --read-percent defaults to 0, kv0).
const (
	defaultPreset = "kv95"
	defaultBatch  = 1
	defaultBlock  = 1
	// maxBatch keeps a write statement within every engine's limit of parameters: two per key, and
	// SQLite takes at most 32,766.
	maxBatch = 16383
)

// KV is the kv workload (workload.Workload, workload.Checker, workload.RowEstimator). Its flags are
// bound to flags; resolve turns them into Options.
type KV struct {
	flags struct {
		preset              string
		read, span, del     int
		spanLimit, batch    int
		minBlock, maxBlock  int
		sequential, zipfian bool
		zipfS, zipfV        float64
		cycle, insertCount  int64
	}
	fs *pflag.FlagSet // to tell the flags given from the defaulted ones
}

var (
	_ workload.Workload     = (*KV)(nil)
	_ workload.Checker      = (*KV)(nil)
	_ workload.RowEstimator = (*KV)(nil)
)

// New returns kv with CockroachDB's defaults (and the kv95 preset).
func New() workload.Workload { return newKV() }

func newKV() *KV {
	k := &KV{}
	f := &k.flags
	f.preset, f.batch, f.minBlock, f.maxBlock = defaultPreset, defaultBatch, defaultBlock, defaultBlock
	f.zipfS, f.zipfV, f.cycle = defaultZipfS, defaultZipfV, math.MaxInt64
	return k
}

// Info describes kv.
func (*KV) Info() workload.Info {
	return workload.Info{
		Name:            "kv",
		Title:           "kv (CockroachDB's key-value workload)",
		Short:           "CockroachDB's key-value workload: point reads, upserts, scans and deletes of --batch keys",
		Disclaimer:      Disclaimer,
		Modes:           []workload.Mode{workload.ModeThroughput, workload.ModeRate},
		DefaultDB:       "sqlite:candor-kv.db",
		KeyOp:           "read",
		ShortNames:      []string{"rd", "wr", "sc", "del"},
		SLOExample:      "read.p99<=2ms",
		Unit:            "operations",
		TerminalsHelp:   "2 per CPU (GOMAXPROCS), as CockroachDB's --concurrency; in rate mode one per connection",
		ConnectionsHelp: "one per terminal; in rate mode 2 per CPU",
	}
}

// Ops are read, write, scan and delete.
func (*KV) Ops() []string { return slices.Clone(OpNames) }

// Flags binds kv's options: the mix for run (and the one-shot), what to load for load (and the
// one-shot), the keys and values for both. `run` takes the key distribution, cycle length and
// block sizes it is not given from the load.
func (k *KV) Flags(fs *pflag.FlagSet, cmd workload.Command) {
	k.fs = fs
	f := &k.flags
	run := cmd == workload.CmdRun || cmd == workload.CmdOneShot
	load := cmd == workload.CmdLoad || cmd == workload.CmdOneShot
	if run {
		fs.StringVar(&f.preset, "preset", defaultPreset, "named mix: "+presetHelp()+
			"; it sets --read-percent (and --span-percent and --del-percent to 0), and each of those three given explicitly overrides the preset's value")
		fs.IntVar(&f.read, "read-percent", 0, "percent (0-100) of operations that are point reads of --batch written keys (default: the preset's)")
		fs.IntVar(&f.span, "span-percent", 0, "percent (0-100) of operations that are scans counting --span-limit rows from a written key (default: the preset's, 0)")
		fs.IntVar(&f.del, "del-percent", 0, "percent (0-100) of operations that delete --batch written keys (default: the preset's, 0)")
		fs.IntVar(&f.spanLimit, "span-limit", 0, "rows each scan counts, from a written key on in key order; 0 counts the whole table (CockroachDB's default)")
		fs.IntVar(&f.batch, "batch", defaultBatch, "keys per statement (reads, writes and deletes)")
		workload.KeyFlags(fs, "preset")
	}
	if cmd == workload.CmdCheck {
		return
	}
	blockHelp := ""
	switch cmd {
	case workload.CmdRun:
		blockHelp = " (default: as loaded)"
	case workload.CmdOneShot:
		blockHelp = " (default: as loaded when the database holds kv data)"
	}
	fs.IntVar(&f.minBlock, "min-block-bytes", defaultBlock, "least bytes of a written value"+blockHelp)
	fs.IntVar(&f.maxBlock, "max-block-bytes", defaultBlock, "most bytes of a written value; each value's length is uniform between the two"+blockHelp)
	keysHelp := blockHelp
	fs.BoolVar(&f.sequential, "sequential", false, "keys in sequence 0, 1, 2, ... instead of hashed (uniform over BIGINT)"+keysHelp)
	fs.BoolVar(&f.zipfian, "zipfian", false, "Zipf-distributed keys (P(k) proportional to (v+k)^-s over [0, 2^63)) instead of hashed"+keysHelp)
	fs.Float64Var(&f.zipfS, "zipfian-s", defaultZipfS, "the Zipf exponent s (> 1): higher concentrates the keys on fewer")
	fs.Float64Var(&f.zipfV, "zipfian-v", defaultZipfV, "the Zipf offset v (>= 1): higher flattens the head")
	fs.Int64Var(&f.cycle, "cycle-length", math.MaxInt64, "number of distinct keys the writes cycle through (the key sequence wraps)"+keysHelp)
	if load {
		help := "rows to load before the workload: the keys of the first N writes, which reads find from the start"
		def := int64(0) // CockroachDB's default
		if cmd == workload.CmdOneShot {
			// The one-shot measures kv95's reads from the first second: they need keys to find.
			def = OneShotInsertCount
			help += " (default: as loaded when the database holds kv data, else 10000)"
		}
		fs.Int64Var(&f.insertCount, "insert-count", def, help)
	} else if cmd == workload.CmdRun {
		// The null engine (driver/null) holds no data: its runs take the keys as given.
		fs.Int64Var(&f.insertCount, "insert-count", 0, "on the null engine (--db null:) only, which holds no data: the keys a load would have written (default 0)")
	}
}

// OneShotInsertCount is the rows `candor kv` alone loads into a fresh database, so that kv95's reads
// find keys from the start (CockroachDB's `workload kv` loads none by default).
const OneShotInsertCount = 10000

func presetHelp() string {
	var s []string
	for _, p := range presets {
		s = append(s, p.name+" ("+p.description+")")
	}
	return strings.Join(s, ", ")
}

// given reports whether the flag name was set on the command line.
func (k *KV) given(name string) bool {
	if k.fs == nil {
		return false
	}
	f := k.fs.Lookup(name)
	return f != nil && f.Changed
}

// resolve turns the flags into Options: the preset's percentages where no percentage was given,
// the distribution named, the write share computed. It does not validate.
func (k *KV) resolve() Options {
	f := &k.flags
	o := Options{Preset: f.preset, ReadPercent: f.read, SpanPercent: f.span, DelPercent: f.del,
		SpanLimit: f.spanLimit, Batch: f.batch, MinBlockBytes: f.minBlock, MaxBlockBytes: f.maxBlock,
		Distribution: Uniform, CycleLength: f.cycle, InsertCount: f.insertCount}
	if p, ok := findPreset(f.preset); ok {
		if !k.given("read-percent") {
			o.ReadPercent = p.read
		}
		if !k.given("span-percent") {
			o.SpanPercent = p.span
		}
		if !k.given("del-percent") {
			o.DelPercent = p.del
		}
	}
	switch {
	case f.sequential && !f.zipfian:
		o.Distribution = Sequential
	case f.zipfian && !f.sequential:
		o.Distribution = Zipfian
	}
	if o.Distribution == Zipfian {
		o.ZipfianS, o.ZipfianV = f.zipfS, f.zipfV
	}
	o.WritePercent = 100 - o.ReadPercent - o.SpanPercent - o.DelPercent
	return o
}

// Validate checks the options for the command, returning every problem.
func (k *KV) Validate(v workload.Validation) []string {
	var p []string
	add := func(format string, a ...any) { p = append(p, fmt.Sprintf(format, a...)) }
	f := &k.flags
	o := k.resolve()
	run := v.Cmd == workload.CmdRun || v.Cmd == workload.CmdOneShot
	load := v.Cmd == workload.CmdLoad || v.Cmd == workload.CmdOneShot
	if v.Cmd == workload.CmdCheck {
		return nil
	}
	if run {
		if v.Mode == workload.ModeSpec {
			add("--mode spec is TPC-C's: kv has no keying or think times; use --mode throughput or --mode rate")
		}
		if _, ok := findPreset(f.preset); !ok && f.preset != "" {
			add("--preset %q is not a preset: use one of %s, or --preset \"\" with --read-percent, --span-percent and --del-percent", f.preset, presetNames())
		}
		for _, pc := range []struct {
			name string
			val  int
		}{{"read-percent", o.ReadPercent}, {"span-percent", o.SpanPercent}, {"del-percent", o.DelPercent}} {
			if pc.val < 0 || pc.val > 100 {
				add("--%s %d is not a percentage: give a number from 0 to 100", pc.name, pc.val)
			}
		}
		if sum := o.ReadPercent + o.SpanPercent + o.DelPercent; sum > 100 {
			from := ""
			if o.Preset != "" {
				from = fmt.Sprintf(" (with --preset %s)", o.Preset)
			}
			add("--read-percent %d, --span-percent %d and --del-percent %d add up to %d%%%s: make them sum to 100 or less (the rest are writes)",
				o.ReadPercent, o.SpanPercent, o.DelPercent, sum, from)
		}
		if o.SpanLimit < 0 {
			add("--span-limit %d is negative: give the rows a scan counts, or 0 for the whole table", o.SpanLimit)
		}
		if o.Batch < 1 {
			add("--batch %d is below 1: give the keys per statement, at least 1", o.Batch)
		}
		if o.Batch > maxBatch {
			add("--batch %d is above %d, more keys than every engine takes in one statement: give at most %d", o.Batch, maxBatch, maxBatch)
		}
	}
	if o.MinBlockBytes < 0 {
		add("--min-block-bytes %d is negative: give a size in bytes, 0 or more", o.MinBlockBytes)
	}
	if o.MaxBlockBytes < 0 {
		add("--max-block-bytes %d is negative: give a size in bytes, 0 or more", o.MaxBlockBytes)
	}
	if o.MinBlockBytes >= 0 && o.MaxBlockBytes >= 0 && o.MinBlockBytes > o.MaxBlockBytes {
		add("--min-block-bytes %d is above --max-block-bytes %d: give a minimum no larger than the maximum", o.MinBlockBytes, o.MaxBlockBytes)
	}
	if o.MaxBlockBytes > maxBlockBytes {
		add("--max-block-bytes %d is above %d (64 MiB): give a smaller value size", o.MaxBlockBytes, maxBlockBytes)
	}
	if f.sequential && f.zipfian {
		add("--sequential and --zipfian cannot both be given: choose one key distribution (neither: hashed, uniform keys)")
	}
	if f.zipfian && !(f.zipfS > 1) {
		add("--zipfian-s %g must be above 1: give the Zipf exponent, for example 1.1", f.zipfS)
	}
	if f.zipfian && !(f.zipfV >= 1) {
		add("--zipfian-v %g must be 1 or more: give the Zipf offset, for example 1", f.zipfV)
	}
	if o.CycleLength < 1 {
		add("--cycle-length %d is below 1: give the number of distinct keys the writes cycle through", o.CycleLength)
	}
	if v.Cmd == workload.CmdRun && k.given("insert-count") {
		if d, ok := driver.URLDialect(v.DB); !ok || d.Name != "null" {
			add("--insert-count on run is for the null engine (--db null:), which holds no data: a run on a database uses the keys loaded; drop it, or reload with candor kv load --drop --insert-count %d", o.InsertCount)
		}
	}
	if load || v.Cmd == workload.CmdRun {
		if o.InsertCount < 0 {
			add("--insert-count %d is negative: give the rows to load, 0 or more", o.InsertCount)
		}
		if o.CycleLength >= 1 && o.InsertCount > o.CycleLength {
			add("--insert-count %d is above --cycle-length %d, the number of distinct keys the generator makes: load at most %d rows or raise --cycle-length", o.InsertCount, o.CycleLength, o.CycleLength)
		}
	}
	if problem := sqlexec.DialectProblem(v.DB, "kv"); problem != "" {
		p = append(p, problem)
	}
	return p
}

// maxBlockBytes bounds a value: MySQL's largest max_allowed_packet is 1 GiB, and a statement of
// --batch values must fit in it; beyond a few MB a key-value benchmark measures something else.
const maxBlockBytes = 64 << 20

// ExpectedRows is the rows a load writes.
func (k *KV) ExpectedRows() int64 { return max(0, k.flags.insertCount) }

// mixName is the preset the percentages are, or a description of them.
func (o *Options) mixName() string {
	for _, p := range presets {
		if p.read == o.ReadPercent && p.span == o.SpanPercent && p.del == o.DelPercent {
			return p.name
		}
	}
	return fmt.Sprintf("reads %d%%, writes %d%%, scans %d%%, deletes %d%%", o.ReadPercent, o.WritePercent, o.SpanPercent, o.DelPercent)
}

// EstimateLoad is the load's size (workload.LoadEstimator): each row a key of 8 bytes and a value
// of at least --min-block-bytes on disk; in memory, the chunks held at once, each value at most
// --max-block-bytes with its key, slice headers and the sort's copies.
func (k *KV) EstimateLoad(loaders int) workload.LoadEstimate {
	o := k.resolve()
	rows := max(0, o.InsertCount)
	return workload.LoadEstimate{
		Rows:       rows,
		Bytes:      workload.Product(rows, 8+int64(max(0, o.MinBlockBytes))),
		PeakMemory: k.PeakMemory(loaders),
	}
}

var _ workload.LoadEstimator = (*KV)(nil)
