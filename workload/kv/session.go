package kv

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/loadstate"
	"github.com/candor-bench/candor/workload/sqlexec"
	"github.com/candor-bench/candor/workload/textfmt"
)

// session is one kv run (workload.Session, workload.RoundTripper).
type session struct {
	sqlexec.Run
	o        Options
	st       loadstate.State
	rec      record
	seq      *sequence
	seqStart int64
	mix      mix
	ex       *executor
}

var (
	_ workload.Session      = (*session)(nil)
	_ workload.RoundTripper = (*session)(nil)
)

// Open resolves a run against the loaded database. The key distribution, cycle length and block
// sizes not given take the load's; given ones must fit the loaded keys. Terminals default to
// CockroachDB's concurrency, twice the CPUs (GOMAXPROCS); connections to one per terminal in
// throughput mode. In rate mode connections default to that concurrency and the terminals (the
// pool of random streams arrivals are drawn from, round-robin) to one per connection. Terminals and
// connections are spread round-robin over the endpoints.
func (k *KV) Open(ctx context.Context, db driver.DB, c workload.SessionConfig) (workload.Session, error) {
	run, err := sqlexec.NewRun(db, c, "kv")
	if err != nil {
		return nil, err
	}
	// on the null engine, the keys a load with the run's flags would have written
	given := func() (record, error) { return loadRecord(k.resolve()), nil }
	st, rec, err := loadstate.ForRunOrGiven(ctx, db, "kv", readRecord, given, c.GivenLoadSeed())
	if err != nil {
		return nil, err
	}
	o, err := k.runOptions(rec)
	if err != nil {
		return nil, err
	}
	// A write statement carries --batch values, held in memory at once: within the engine's limit.
	stmt, what := int64(o.MaxBlockBytes)+8, valuesWhat(o.MaxBlockBytes)
	if o.WritePercent > 0 {
		stmt = int64(o.Batch) * stmt
		what = fmt.Sprintf("kv's writes of --batch %d values of up to %s bytes (--max-block-bytes)", o.Batch, textfmt.Thousands(int64(o.MaxBlockBytes)))
	}
	if err := sqlexec.SizeLimits(db, int64(o.MaxBlockBytes), stmt, what, "give a smaller --batch or --max-block-bytes"+raiseHint(db)); err != nil {
		return nil, err
	}
	s := &session{Run: run, o: o, st: st, rec: rec, seqStart: rec.InsertCount}
	sameKeys := func(erec record) bool { return erec.InsertCount == rec.InsertCount }
	if err := loadstate.SameLoad(ctx, db, st, c.Endpoints, readRecord, sameKeys); err != nil {
		return nil, err
	}
	conc := sqlexec.DefaultConcurrency()
	if err := s.Size(c.Terminals, c.Connections, conc, conc); err != nil {
		return nil, err
	}
	holding := 0 // the terminals holding values drawn: those of writes
	if o.WritePercent > 0 {
		holding = s.Terms
	}
	if err := sqlexec.CheckRunMemory(holding, s.Conns, stmt, what, "give fewer --terminals or --connections, or a smaller --batch or --max-block-bytes"); err != nil {
		return nil, err
	}
	s.mix = mix{read: o.ReadPercent, del: o.DelPercent, span: o.SpanPercent, spanLimit: o.SpanLimit, batch: o.Batch,
		minBytes: o.MinBlockBytes, maxBytes: o.MaxBlockBytes}
	return s, nil
}

// runOptions are the run's options with the load's where the flags were not given, checked
// against the loaded data.
func (k *KV) runOptions(rec record) (Options, error) {
	o := k.resolve()
	var p []string
	if !k.given("sequential") && !k.given("zipfian") {
		o.Distribution = rec.Distribution
	} else if o.Distribution.keyLayout() != rec.Keys {
		p = append(p, fmt.Sprintf("the data was loaded with %s keys (%s), which %s keys would never read: drop --sequential and --zipfian to use the loaded distribution, or reload with candor kv load --drop", rec.Distribution, rec.Keys, o.Distribution))
	}
	o.ZipfianS, o.ZipfianV = 0, 0
	if o.Distribution == Zipfian {
		o.ZipfianS, o.ZipfianV = k.flags.zipfS, k.flags.zipfV
	}
	if !k.given("cycle-length") {
		o.CycleLength = rec.CycleLength
	} else if o.CycleLength < rec.InsertCount {
		p = append(p, fmt.Sprintf("--cycle-length %d is below the %d keys loaded: give at least %d, or drop it to use the load's", o.CycleLength, rec.InsertCount, rec.InsertCount))
	}
	if !k.given("min-block-bytes") {
		o.MinBlockBytes = rec.MinBlockBytes
	}
	if !k.given("max-block-bytes") {
		o.MaxBlockBytes = rec.MaxBlockBytes
	}
	if o.MinBlockBytes > o.MaxBlockBytes {
		p = append(p, fmt.Sprintf("values of %d to %d bytes (--min-block-bytes and --max-block-bytes, with the load's %s where not given) are empty: give both", o.MinBlockBytes, o.MaxBlockBytes, blockRange(rec.MinBlockBytes, rec.MaxBlockBytes)))
	}
	o.InsertCount = rec.InsertCount
	if len(p) > 0 {
		return o, userr.Errorf("%s", strings.Join(p, "; "))
	}
	return o, nil
}

// runPlan is what result.json's plan stores under "options".
type runPlan struct {
	Options
	// LoadSeed is the load's seed, which the uniform keys' hash uses.
	LoadSeed string `json:"load_seed"`
}

func (s *session) Setup() workload.Setup {
	return workload.Setup{Terminals: s.Terms, Connections: s.Conns, Describe: s.describe(),
		Options: runPlan{Options: s.o, LoadSeed: strconv.FormatUint(s.st.Seed, 10)}}
}

// describe is the run's opening line: "kv95, batch 1, 1,000 keys loaded, blocks 1..1 bytes, uniform
// keys".
func (s *session) describe() string {
	o := &s.o
	parts := []string{o.mixName(), "batch " + strconv.Itoa(o.Batch), textfmt.Thousands(o.InsertCount) + " keys loaded",
		"blocks " + blockRange(o.MinBlockBytes, o.MaxBlockBytes) + " bytes"}
	switch o.Distribution {
	case Zipfian:
		parts = append(parts, fmt.Sprintf("zipfian keys (s %g, v %g)", o.ZipfianS, o.ZipfianV))
	default:
		parts = append(parts, string(o.Distribution)+" keys")
	}
	if o.CycleLength != math.MaxInt64 {
		parts = append(parts, "cycle "+textfmt.Thousands(o.CycleLength))
	}
	if o.SpanPercent > 0 {
		if o.SpanLimit > 0 {
			parts = append(parts, "scans of "+textfmt.Thousands(int64(o.SpanLimit))+" rows")
		} else {
			parts = append(parts, "scans of the whole table")
		}
	}
	return strings.Join(parts, ", ")
}

// Start records the run on the data, opens the connections and builds the terminals (closed loop)
// or the arrival source (rate mode).
func (s *session) Start(ctx context.Context, env workload.Env) (*workload.Work, error) {
	rec := s.rec
	if s.o.WritePercent > 0 {
		rec.wrote(s.o.MinBlockBytes, s.o.MaxBlockBytes)
		// A run may write keys past the load's range (a larger --cycle-length, --zipfian on dense
		// keys): the check's bound widens with it, so correct data is never reported corrupt.
		if _, hi := keyBounds(s.o.Distribution, s.o.CycleLength); !rec.Distribution.hashed() {
			if _, loadHi := keyBounds(rec.Distribution, rec.CycleLength); hi > loadHi {
				rec.KeyMax = max(rec.KeyMax, hi)
			}
		}
	}
	if s.o.DelPercent > 0 {
		rec.Deleted = true
	}
	if rec != s.rec {
		if err := loadstate.SetOptions(ctx, s.DB, "kv", rec); err != nil {
			return nil, err
		}
		s.rec = rec
	}
	if err := loadstate.MarkRun(ctx, s.DB, "kv"); err != nil {
		return nil, err
	}
	slots, err := s.Connect(ctx, env)
	if err != nil {
		return nil, err
	}
	s.ex = newExecutor(slots, newStatements(s.Family, s.Engine, s.o.Batch, s.o.SpanLimit), s.Session.Isolation)
	s.seq = newSequence(s.seqStart, s.o.CycleLength)
	terms := make([]*terminal, s.Terms)
	for i := range terms {
		r := gen.New(gen.Derive(s.Session.Seed, "kv", "terminal", i))
		terms[i] = &terminal{mix: &s.mix, g: newKeyGen(s.o.Distribution, s.seq, s.st.Seed, r, s.o.ZipfianS, s.o.ZipfianV)}
	}
	return sqlexec.Work(s.Session.Mode, s.ex, slots, terms), nil
}

// Details is kv's part of result.json ("details").
type Details struct {
	Options Options `json:"options"`
	// LoadSeed is the load's seed (the uniform keys' hash); InsertCount the rows loaded.
	LoadSeed string `json:"load_seed"`
	// KeysAtStart and KeysAtEnd are the written-key counter (CockroachDB's write sequence) at the
	// run's start (the keys loaded) and end: the sequence numbers taken, warm-up and failed writes
	// included. CockroachDB's --write-seq would be "R", "S" or "Z" followed by KeysAtEnd.
	KeysAtStart int64 `json:"keys_at_start"`
	KeysAtEnd   int64 `json:"keys_at_end"`
	// Measured is what the measured operations did, beyond their counts.
	Measured tally `json:"measured"`
	// LoadDeleted: the load record said keys were deleted before the run (reads may then miss).
	LoadDeleted bool `json:"load_deleted,omitempty"`
	// ShardKeysAtEnd are the shards' own written-key counters at their ends, in a run merged from
	// shards (each shard counts from KeysAtStart on its own).
	ShardKeysAtEnd []int64 `json:"shard_keys_at_end,omitempty"`
}

// Finish adds kv's headline (operations per second, then per type), details, a table of what the
// operations touched, and a warning when reads missed keys that should exist.
func (s *session) Finish(f *workload.Finished) {
	var t tally
	if s.ex != nil {
		for i := range s.ex.per {
			t.add(&s.ex.per[i].t)
		}
	}
	d := Details{Options: s.o, LoadSeed: strconv.FormatUint(s.st.Seed, 10), KeysAtStart: s.seqStart, KeysAtEnd: s.seqStart, LoadDeleted: s.rec.Deleted}
	if s.seq != nil {
		d.KeysAtEnd = s.seq.written()
	}
	d.Measured = t
	finish(f, d)
}

// finish is the headline, details, keys' table and warning of a run (Finish) or of a run merged
// from shards (MergeFinish), from d and the result's operations.
func finish(f *workload.Finished, d Details) {
	r := f.Result
	r.Details = d
	t, o := d.Measured, d.Options
	counts, total := f.Completed(numOps)
	perSec := f.PerSecond
	r.Headline = append(r.Headline,
		report.Figure{Name: "throughput", Value: perSec(total), Unit: "operations per second", Note: o.mixName()},
		report.Figure{Name: "reads", Value: perSec(counts[OpRead]), Unit: "reads per second"},
		report.Figure{Name: "writes", Value: perSec(counts[OpWrite]), Unit: "writes per second"})
	if o.SpanPercent > 0 {
		r.Headline = append(r.Headline, report.Figure{Name: "scans", Value: perSec(counts[OpScan]), Unit: "scans per second"})
	}
	if o.DelPercent > 0 {
		r.Headline = append(r.Headline, report.Figure{Name: "deletes", Value: perSec(counts[OpDelete]), Unit: "deletes per second"})
	}

	r.Sections = append(r.Sections, report.Section{
		Title:   "kv: keys and rows of the measured operations",
		Columns: []string{"operation", "statements", "keys", "rows"},
		Rows: [][]string{
			{"read", textfmt.Thousands(t.ReadStatements), textfmt.Thousands(t.ReadKeys), textfmt.Thousands(t.ReadFound) + " found"},
			{"write", textfmt.Thousands(t.WriteStatements), textfmt.Thousands(t.WriteKeys), ""},
			{"scan", textfmt.Thousands(t.ScanStatements), "", textfmt.Thousands(t.ScanRows) + " counted"},
			{"delete", textfmt.Thousands(t.DeleteStatements), textfmt.Thousands(t.DeleteKeys), textfmt.Thousands(t.Deleted) + " deleted"},
		},
		Notes: []string{keysNote(d)},
	})
	if w, ok := missedWarning(o, d.LoadDeleted, t); ok {
		r.Warnings = append(r.Warnings, w)
	}
}

// missedShare is the share of keys read that may find no row without a warning: the keys whose
// write is still in flight, or failed, when they are read (CockroachDB's reads pick among the keys
// whose write has started).
const missedShare = 0.01

// missedWarning is READS_MISSED: reads found fewer keys than asked while every key read should
// exist. Zipfian reads draw from the whole key space, as CockroachDB's do, and deletes remove keys:
// misses are expected with either, and only counted in the details.
func missedWarning(o Options, deleted bool, t tally) (report.Warning, bool) {
	missed := t.ReadKeys - t.ReadFound
	if missed <= 0 || o.Distribution == Zipfian || o.DelPercent > 0 || deleted {
		return report.Warning{}, false
	}
	share := float64(missed) / float64(t.ReadKeys)
	if o.WritePercent > 0 && share < missedShare {
		return report.Warning{}, false
	}
	return report.Warning{Code: "READS_MISSED", Message: fmt.Sprintf(
		"%s of the %s keys read (%.2f%%) found no row, though reads pick keys whose write was drawn before them: writes that failed, were dropped, or still waited in the backlog explain a few; beyond that the table is not what was loaded and written (changed outside candor?): candor kv check --full tells",
		textfmt.Thousands(missed), textfmt.Thousands(t.ReadKeys), 100*share)}, true
}

// blockRange is "1..100".
func blockRange(lo, hi int) string { return strconv.Itoa(lo) + ".." + strconv.Itoa(hi) }

// keysNote says how far the written-key counter went: one counter in a run, one per shard in a
// merged run.
func keysNote(d Details) string {
	if len(d.ShardKeysAtEnd) == 0 {
		return fmt.Sprintf("Keys are distinct keys per statement. The written-key counter went from %s (the keys loaded) to %s.",
			textfmt.Thousands(d.KeysAtStart), textfmt.Thousands(d.KeysAtEnd))
	}
	ends := make([]string, len(d.ShardKeysAtEnd))
	for i, e := range d.ShardKeysAtEnd {
		ends[i] = textfmt.Thousands(e)
	}
	return fmt.Sprintf("Keys are distinct keys per statement. Each shard has its own written-key counter, from %s (the keys loaded): at the end %s, shard by shard; the highest, %s, is the key space written.",
		textfmt.Thousands(d.KeysAtStart), strings.Join(ends, ", "), textfmt.Thousands(d.KeysAtEnd))
}

var _ workload.Merger = (*KV)(nil)

// MergeFinish is kv's part of a result merged from shards (candor merge): the same finish as a
// run's, from the merged operations and the shards' tallies summed (keys read and found, written,
// scanned, deleted), so READS_MISSED is judged on the whole run's reads. The options are the
// shards' common ones (merge.Check refuses shards run with others).
func (w *KV) MergeFinish(m *workload.Merged) error {
	ds, err := workload.ShardDetails[Details](m, "kv")
	if err != nil {
		return err
	}
	d := ds[0]
	d.Measured, d.ShardKeysAtEnd = tally{}, nil
	for _, x := range ds {
		d.Measured.add(&x.Measured)
		d.KeysAtStart = min(d.KeysAtStart, x.KeysAtStart)
		d.KeysAtEnd = max(d.KeysAtEnd, x.KeysAtEnd)
		d.LoadDeleted = d.LoadDeleted || x.LoadDeleted
		d.ShardKeysAtEnd = append(d.ShardKeysAtEnd, x.KeysAtEnd)
	}
	finish(&m.Finished, d)
	return nil
}
