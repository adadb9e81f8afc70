package ycsb

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/loadstate"
	"github.com/candor-bench/candor/workload/sqlexec"
	"github.com/candor-bench/candor/workload/textfmt"
)

// session is one ycsb run (workload.Session, workload.RoundTripper).
type session struct {
	sqlexec.Run
	opts *options
	cfg  Config
	// fromLoad are the data properties taken from the load (not given).
	fromLoad map[string]bool
	st       loadstate.State
	rec      record
	// termsFrom says where the terminals' number came from: "--terminals", "threadcount" or
	// "default".
	termsFrom string
	core      *Core
	// insertFrom is the insert counter's first value; found counts the inserts of a run that did
	// not record its end, found by Open (findInserts).
	insertFrom int64
	found      int64
	mix        mix
	ex         *executor
	// recorded: Close has written the run's inserts into the record.
	recorded bool
}

var (
	_ workload.Session      = (*session)(nil)
	_ workload.RoundTripper = (*session)(nil)
)

// Open resolves a run against the loaded database: the properties (the load's data properties where
// none is given), the Core shared by every terminal, and the terminals and connections.
//
// Terminals: --terminals, else the threadcount property when one is given (YCSB's client threads),
// else twice the CPUs (sqlexec.DefaultConcurrency, as kv's: YCSB's threadcount defaults to 1, which
// measures one client's round trips rather than the database). Connections: one per terminal in
// throughput mode. In rate
// mode, connections default to the terminals given (--terminals or threadcount) or to twice the CPUs,
// and the terminals (the pool of random streams arrivals are drawn from, round-robin) to one per
// connection. Terminals and connections are spread round-robin over the endpoints.
func (y *YCSB) Open(ctx context.Context, db driver.DB, c workload.SessionConfig) (workload.Session, error) {
	run, err := sqlexec.NewRun(db, c, recordName)
	if err != nil {
		return nil, err
	}
	// on the null engine, the records a load with the run's properties would have written
	given := func() (record, error) {
		opts := y.options()
		if len(opts.problems) > 0 {
			return record{}, userr.Errorf("%s", strings.Join(opts.problems, "; "))
		}
		return record{Properties: dataOf(opts.cfg), Workload: opts.builtin, NextInsert: opts.cfg.RecordCount}, nil
	}
	st, rec, err := loadstate.ForRunOrGiven(ctx, db, recordName, readRecord, given, c.GivenLoadSeed())
	if err != nil {
		return nil, err
	}
	cfg, fromLoad, err := y.runConfig(db, rec)
	if err != nil {
		return nil, err
	}
	if c.Shard.Sharded() && c.Shard.Count > 1 && cfg.Insert > 0 {
		// Every shard would number its inserts from the same record (the counter is per process),
		// so the shards' inserts would collide on their keys.
		return nil, userr.Errorf("a sharded ycsb run cannot insert yet (insertproportion %g): each shard would number its inserts from the same record and their keys would collide; run a workload with inserts (D, E, or insertproportion > 0) unsharded, or shard one without inserts", cfg.Insert)
	}
	s := &session{Run: run, opts: y.options(), cfg: cfg, fromLoad: fromLoad, st: st, rec: rec}
	if err := loadstate.SameLoad(ctx, db, st, c.Endpoints, readRecord, nil); err != nil {
		return nil, err
	}
	if rec.Running {
		if err := s.findInserts(ctx); err != nil {
			return nil, err
		}
	}
	s.insertFrom = max(s.rec.NextInsert, cfg.RecordCount)
	if s.core, err = NewCoreAt(cfg, s.insertFrom); err != nil {
		return nil, err
	}
	s.mix = mix{core: s.core, readAll: cfg.ReadAllFields, writeAll: cfg.WriteAllFields, integrity: cfg.DataIntegrity,
		fields: int(cfg.FieldCount), valueLen: int(cfg.FieldLength)}

	threads, from := 0, "default"
	switch {
	case c.Terminals > 0:
		threads, from = c.Terminals, "--terminals"
	case s.opts.set("threadcount"):
		threads, from = cfg.ThreadCount, "threadcount"
	}
	conc := sqlexec.DefaultConcurrency()
	rateConns := conc
	if threads > 0 {
		rateConns = threads // the open loop's connections default to the terminals given
	}
	s.termsFrom = from
	if err := s.Size(threads, c.Connections, conc, rateConns); err != nil {
		return nil, err
	}
	// Each terminal keeps the record it last drew for an insert or update, each connection the one
	// it sends or reads.
	if _, hi := lengthBounds(cfg); cfg.FieldCount*hi > 0 {
		what := fmt.Sprintf("ycsb's records of %d fields of up to %s characters (fieldcount, fieldlength)", cfg.FieldCount, textfmt.Thousands(hi))
		if err := sqlexec.CheckRunMemory(s.Terms, s.Conns, cfg.FieldCount*hi+255, what, "give fewer --terminals or --connections, or reload with a smaller fieldlength or fieldcount"); err != nil {
			return nil, err
		}
	}
	if c.Note != nil {
		for _, l := range s.notes() {
			c.Note(l)
		}
	}
	return s, nil
}

// findInserts finds the inserts of a run that started inserting and never recorded how far it got
// (it was killed): the records from the recorded NextInsert on, checkBatch record numbers at a time,
// until a whole batch holds none (inserts run ahead of each other by at most the connections, far
// fewer). It counts them into the record and moves NextInsert past the last, so this run's inserts
// take new record numbers.
func (s *session) findInserts(ctx context.Context) error {
	c, err := s.DB.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	next := max(s.rec.NextInsert, s.cfg.RecordCount)
	for from := next; ; from += checkBatch {
		keys := make([]string, checkBatch)
		for i := range keys {
			keys[i] = s.cfg.KeyName(from + int64(i))
		}
		present, err := presentKeys(ctx, c, s.Family, s.cfg.Table, keys)
		if err != nil {
			return fmt.Errorf("looking for the inserts of the last run: %w", err)
		}
		if len(present) == 0 {
			break
		}
		for i, k := range keys {
			if present[k] {
				s.found++
				next = from + int64(i) + 1
			}
		}
	}
	if s.Session.Note != nil {
		s.Session.Note(fmt.Sprintf("the last ycsb run on this data did not record its inserts (it was stopped): found %s, the record numbers from %s on are free", textfmt.Thousands(s.found), textfmt.Thousands(next)))
	}
	s.rec.Inserted += s.found
	s.rec.NextInsert = next
	s.rec.Running = false
	return nil
}

// notes are the lines Open prints: every property not applied as YCSB would, and what candor did
// with the run-length and client properties.
func (s *session) notes() []string {
	o, c := s.opts, s.cfg
	lines := Report{Unknown: o.rep.Unknown}.Lines()
	for _, g := range s.notApplied() {
		lines = append(lines, fmt.Sprintf("ignored property %s=%q: %s", g.Name, g.Value, g.Reason))
	}
	switch s.termsFrom {
	case "threadcount":
		lines = append(lines, fmt.Sprintf("threadcount=%d (%s): %d terminals", c.ThreadCount, o.origin("threadcount"), s.Terms))
	case "--terminals":
		if o.set("threadcount") && c.ThreadCount != s.Terms {
			lines = append(lines, fmt.Sprintf("threadcount=%d (%s) is overridden by --terminals %d", c.ThreadCount, o.origin("threadcount"), s.Terms))
		}
	}
	if c.TargetOpsPerSec > 0 {
		lines = append(lines, fmt.Sprintf("target=%s (%s): the open loop's pace is --rate's (the result warns when they differ)", formatRate(c.TargetOpsPerSec), o.origin("target")))
	}
	if o.set("operationcount") && c.OperationCount > 0 {
		what := "the run is bounded by --duration, not by a number of operations"
		if c.RequestDistribution == DistZipfian && c.Insert > 0 {
			what += fmt.Sprintf("; as in YCSB it still sizes the zipfian's room for inserts (%s records beyond insertcount)", textfmt.Thousands(c.ExpectedNewKeys()))
		}
		lines = append(lines, fmt.Sprintf("operationcount=%d (%s): %s", c.OperationCount, o.origin("operationcount"), what))
	}
	return lines
}

// notApplied are the YCSB properties a run takes and does not apply: YCSB's Report.Ignored, and
// the properties of Config that candor does its own way (only when set to other than YCSB's default,
// so that nothing is reported that changes nothing).
func (s *session) notApplied() []IgnoredProperty {
	o, c := s.opts, s.cfg
	out := slices.Clone(o.rep.Ignored)
	add := func(name, why string) {
		if o.set(name) {
			out = append(out, IgnoredProperty{Name: name, Value: o.merged[name], Reason: why})
		}
	}
	if c.MaxExecutionTimeSec > 0 {
		add("maxexecutiontime", "the run is bounded by --duration")
	}
	if c.MeasurementType != "hdrhistogram" {
		add("measurementtype", "candor always records HdrHistograms of response, service and lag")
	}
	for _, n := range []string{"core_workload_insertion_retry_limit", "core_workload_insertion_retry_interval", "core_workload_insertion_keep_going_on_error"} {
		add(n, "it concerns the load's inserts, and candor's load copies records in bulk")
	}
	return out
}

// runPlan is what result.json's plan stores under "options".
type runPlan struct {
	// Workload is the built-in workload the properties started from ("" for -P files alone),
	// PropertyFiles the -P files and Overrides the -p given, as given.
	Workload      string   `json:"workload,omitempty"`
	PropertyFiles []string `json:"property_files,omitempty"`
	Overrides     []string `json:"overrides,omitempty"`
	// Properties is the resolved Config, by YCSB's property names.
	Properties Config `json:"properties"`
	// LoadSeed is the load's seed.
	LoadSeed string `json:"load_seed"`
}

func (s *session) plan() runPlan {
	return runPlan{Workload: s.opts.builtin, PropertyFiles: s.opts.files(), Overrides: s.opts.overrides(),
		Properties: s.cfg, LoadSeed: strconv.FormatUint(s.st.Seed, 10)}
}

func (o *options) files() []string {
	var out []string
	for _, l := range o.layers {
		if strings.HasPrefix(l.name, "-P ") {
			out = append(out, strings.TrimPrefix(l.name, "-P "))
		}
	}
	return out
}

func (o *options) overrides() []string {
	for _, l := range o.layers {
		if l.name == "-p" {
			var out []string
			for _, k := range l.props.Names() {
				out = append(out, k+"="+RedactValue(k, l.props[k])) // a binding's password never reaches result.json
			}
			return out
		}
	}
	return nil
}

func (s *session) Setup() workload.Setup {
	return workload.Setup{Terminals: s.Terms, Connections: s.Conns, Describe: s.describe(), Options: s.plan(), KeyOp: s.keyOp()}
}

// describe is the run's opening line: "workload a (read 50%, update 50%), zipfian requests, 1,000
// records of 10 fields of 100 characters".
func (s *session) describe() string {
	c := s.cfg
	name := "property files"
	if s.opts.builtin != "" {
		name = "workload " + s.opts.builtin
	}
	parts := []string{fmt.Sprintf("%s (%s)", name, mixText(c.Proportions)), string(c.RequestDistribution) + " requests",
		fmt.Sprintf("%s records of %d fields of %s characters", textfmt.Thousands(c.InsertCount), c.FieldCount, lengthText(c))}
	if c.Scan > 0 {
		parts = append(parts, fmt.Sprintf("scans of %d..%d records (%s)", c.MinScanLength, c.MaxScanLength, c.ScanLengthDistribution))
	}
	if !c.ReadAllFields {
		parts = append(parts, "reads of one field")
	}
	if c.WriteAllFields {
		parts = append(parts, "writes of every field")
	}
	if c.DataIntegrity {
		parts = append(parts, "dataintegrity")
	}
	return strings.Join(parts, ", ")
}

// mixText is "read 50%, update 50%": the operations with a share, in YCSB's order.
func mixText(p Proportions) string {
	var parts []string
	for _, op := range Operations() {
		if sh := p.Share(op); sh > 0 {
			parts = append(parts, fmt.Sprintf("%s %s%%", OpNames[op], strconv.FormatFloat(100*sh, 'f', -1, 64)))
		}
	}
	return strings.Join(parts, ", ")
}

// Start records the run on the data, opens the connections and builds the terminals (closed loop)
// or the arrival source (rate mode).
func (s *session) Start(ctx context.Context, env workload.Env) (*workload.Work, error) {
	if s.Slots != nil {
		return nil, fmt.Errorf("ycsb: Start called twice")
	}
	slots, err := sqlexec.Open(ctx, s.Endpoints, s.Conns, env.Abort)
	if err != nil {
		return nil, err
	}
	// The run is recorded on the data before its first operation: a run with inserts is marked as
	// inserting until Close records how far its inserts went.
	rec := s.rec
	rec.Running = s.cfg.Insert > 0
	if err := loadstate.SetOptions(ctx, s.DB, recordName, rec); err != nil {
		slots.Close()
		return nil, err
	}
	s.rec = rec
	if err := loadstate.MarkRun(ctx, s.DB, recordName); err != nil {
		slots.Close()
		return nil, err
	}
	s.Slots = slots
	s.ex = newExecutor(slots, newStatements(s.Family, s.cfg, s.cfg.ReadAllFieldsByName || s.cfg.DataIntegrity), &s.mix, s.Session.Isolation)
	terms := make([]*terminal, s.Terms)
	for i := range terms {
		terms[i] = &terminal{mix: &s.mix, r: gen.New(gen.Derive(s.Session.Seed, "ycsb", "terminal", i))}
	}
	return sqlexec.Work(s.Session.Mode, s.ex, slots, terms), nil
}

// Details is ycsb's part of result.json ("details").
type Details struct {
	// Workload, PropertyFiles and Overrides are where the properties came from (the built-in
	// workload the layers start from, the -P files, the -p given); Properties the resolved ones by
	// YCSB's names, and Origins where each property not at YCSB's default was set ("workload a",
	// "-P FILE", "-p", "the load").
	Workload      string            `json:"workload,omitempty"`
	PropertyFiles []string          `json:"property_files,omitempty"`
	Overrides     []string          `json:"overrides,omitempty"`
	Properties    Config            `json:"properties"`
	Origins       map[string]string `json:"origins,omitempty"`
	// Unknown and Ignored are the properties not applied: unknown to YCSB's core and client (a
	// binding's, or a typo), or YCSB's own that candor does its own way.
	Unknown []UnknownProperty `json:"unknown_properties,omitempty"`
	Ignored []IgnoredProperty `json:"ignored_properties,omitempty"`
	// Terminals is where the terminals' number came from: --terminals, threadcount or default.
	TerminalsFrom string `json:"terminals_from"`
	// OperationCountBoundsRun is false: candor's runs end after --duration, never after
	// operationcount operations (nor maxexecutiontime seconds).
	OperationCountBoundsRun bool   `json:"operationcount_bounds_run"`
	LoadSeed                string `json:"load_seed"`
	// InsertKeynumAtStart and InsertKeynumAtEnd are the insert counter (YCSB's
	// transactioninsertkeysequence) at the run's start and end: the record numbers taken by inserts,
	// warm-up and failed ones included; LastAcknowledged is the highest record number up to which
	// every record existed or had its insert end, at the end. FoundUnrecorded counts the inserts of
	// an earlier run that had not recorded them, found before this one.
	InsertKeynumAtStart int64 `json:"insert_keynum_at_start"`
	InsertKeynumAtEnd   int64 `json:"insert_keynum_at_end"`
	LastAcknowledged    int64 `json:"last_acknowledged"`
	FoundUnrecorded     int64 `json:"found_unrecorded_inserts,omitempty"`
	// InsertsFailed counts the run's failed inserts (warm-up included), whose records reads may
	// choose and not find.
	InsertsFailed int64 `json:"inserts_failed"`
	// Measured is what the measured operations did, beyond their counts.
	Measured tally `json:"measured"`
	// RecordedInserts are the inserts the load record counted at the run's start (earlier runs'),
	// and OperationCountSetBy where operationcount was set by the user ("" when it was not): what
	// the warnings are judged on, kept so that a merge judges them again.
	RecordedInserts     int64  `json:"recorded_inserts"`
	OperationCountSetBy string `json:"operationcount_set_by,omitempty"`
	// Shards are the shards' own insert counters, in a run merged from shards (each shard's
	// counter starts where the load record left it).
	Shards []ShardInserts `json:"shards,omitempty"`
}

// ShardInserts is one shard's insert counter in a merged run.
type ShardInserts struct {
	Index               int   `json:"index"`
	InsertKeynumAtStart int64 `json:"insert_keynum_at_start"`
	InsertKeynumAtEnd   int64 `json:"insert_keynum_at_end"`
	LastAcknowledged    int64 `json:"last_acknowledged"`
}

// Finish adds ycsb's headline (operations per second, then per operation with a share), its
// details, the mix asked and measured, the properties that differ from the workload's, and
// warnings for what the run did not apply or found amiss.
func (s *session) Finish(f *workload.Finished) {
	var t tally
	var failed int64
	if s.ex != nil {
		for i := range s.ex.per {
			t.add(&s.ex.per[i].t)
			failed += s.ex.per[i].insertFailed
		}
	}
	d := s.details(t, failed)
	var diff []report.Section
	if sec, ok := s.differences(); ok {
		diff = append(diff, sec)
	}
	finish(f, d, diff)
}

// details is the run's Details from its tally and failed inserts.
func (s *session) details(t tally, failed int64) Details {
	o := s.opts
	d := Details{Workload: o.builtin, PropertyFiles: o.files(), Overrides: o.overrides(), Properties: s.cfg,
		Origins: s.origins(), Unknown: o.rep.Unknown, Ignored: s.notApplied(), TerminalsFrom: s.termsFrom,
		LoadSeed: strconv.FormatUint(s.st.Seed, 10), InsertKeynumAtStart: s.insertFrom, InsertKeynumAtEnd: s.insertFrom,
		LastAcknowledged: s.insertFrom - 1, FoundUnrecorded: s.found, InsertsFailed: failed, Measured: t,
		RecordedInserts: s.rec.Inserted}
	if s.core != nil {
		d.InsertKeynumAtEnd, d.LastAcknowledged = s.core.PeekInsertKeynum(), s.core.LastInsertedKeynum()
	}
	if o.userSet("operationcount") {
		d.OperationCountSetBy = o.origin("operationcount")
	}
	return d
}

// finish is the headline, details, sections and warnings of a run (Finish) or of a run merged
// from shards (MergeFinish), from d, the result's operations and diff (the table of properties
// that differ from the workload's, which depends on the options alone).
func finish(f *workload.Finished, d Details, diff []report.Section) {
	r := f.Result
	r.Details = d
	t, cfg := d.Measured, d.Properties
	counts, total := f.Completed(int(numOperations))
	perSec := f.PerSecond
	name := "property files"
	if d.Workload != "" {
		name = "workload " + d.Workload
	}
	r.Headline = append(r.Headline, report.Figure{Name: "throughput", Value: perSec(total), Unit: "operations per second", Note: name})
	for _, op := range Operations() {
		if cfg.Proportions.Share(op) > 0 {
			r.Headline = append(r.Headline, report.Figure{Name: OpNames[op], Value: perSec(counts[op]), Unit: OpNames[op] + " operations per second"})
		}
	}

	mixRows := [][]string{}
	for _, op := range Operations() {
		measured := "-"
		if total > 0 {
			measured = fmt.Sprintf("%.1f%%", 100*float64(counts[op])/float64(total))
		}
		mixRows = append(mixRows, []string{OpNames[op], fmt.Sprintf("%.1f%%", 100*cfg.Proportions.Share(op)), measured, textfmt.Thousands(counts[op])})
	}
	notes := []string{fmt.Sprintf("Inserts took record numbers %s to %s (the insert counter); every record up to %s existed or had its insert end at the end.",
		textfmt.Thousands(d.InsertKeynumAtStart), textfmt.Thousands(d.InsertKeynumAtEnd-1), textfmt.Thousands(d.LastAcknowledged))}
	if d.InsertKeynumAtEnd == d.InsertKeynumAtStart {
		notes = []string{fmt.Sprintf("No insert ran; the insert counter stayed at %s.", textfmt.Thousands(d.InsertKeynumAtStart))}
	}
	notes = append(notes, fmt.Sprintf("Reads that found no record: %s of %s; read-modify-writes whose read found none: %s of %s; updates that changed no row: %s of %s; scans returned %s records.",
		textfmt.Thousands(t.ReadsNotFound), textfmt.Thousands(t.Reads), textfmt.Thousands(t.ReadModifyWritesNotFound), textfmt.Thousands(t.ReadModifyWrites),
		textfmt.Thousands(t.UpdatesNotFound), textfmt.Thousands(t.Updates), textfmt.Thousands(t.ScannedRecords)))
	if cfg.ReadModifyWrite > 0 {
		notes = append(notes, "A read-modify-write is YCSB's read then update of one record, measured together; at the engine's default isolation they are two transactions, as in YCSB.")
	}
	if len(d.Shards) > 0 {
		var parts []string
		for _, x := range d.Shards {
			parts = append(parts, fmt.Sprintf("shard %d: %s to %s, acknowledged to %s", x.Index, textfmt.Thousands(x.InsertKeynumAtStart),
				textfmt.Thousands(x.InsertKeynumAtEnd-1), textfmt.Thousands(x.LastAcknowledged)))
		}
		notes = append(notes, "Each shard has its own insert counter: "+strings.Join(parts, "; ")+".")
	}
	r.Sections = append(r.Sections, report.Section{
		Title:   "ycsb: the operation mix, asked (the proportions) and measured",
		Columns: []string{"operation", "asked", "measured", "count"},
		Rows:    mixRows,
		Notes:   notes,
	})
	r.Sections = append(r.Sections, diff...)
	r.Warnings = append(r.Warnings, warnings(f, d)...)
}

// origins says where each property not at YCSB's default was set.
func (s *session) origins() map[string]string {
	m := map[string]string{}
	for _, name := range PropertyNames() {
		switch {
		case s.fromLoad[name]:
			m[name] = "the load"
		case s.opts.set(name):
			m[name] = s.opts.origin(name)
		}
	}
	return m
}

// differences is the table of properties that differ from the built-in workload's (or, with -P
// files alone, from YCSB's defaults), with where each was set.
func (s *session) differences() (report.Section, bool) {
	base, what := DefaultConfig(), "YCSB's defaults"
	if s.opts.builtin != "" {
		if p, err := Builtin(s.opts.builtin); err == nil {
			if c, _, err := FromProperties(p); err == nil {
				base, what = c, "workload "+s.opts.builtin
			}
		}
	}
	bm, um := configMap(base), configMap(s.cfg)
	origins := s.origins()
	var rows [][]string
	for _, name := range PropertyNames() {
		if bm[name] != um[name] {
			rows = append(rows, []string{name, bm[name], um[name], origins[name]})
		}
	}
	if len(rows) == 0 {
		return report.Section{}, false
	}
	return report.Section{
		Title:   "ycsb: properties that differ from " + what,
		Columns: []string{"property", what, "this run", "set by"},
		Rows:    rows,
	}, true
}

// configMap is c's properties as text, by name.
func configMap(c Config) map[string]string {
	b, _ := json.Marshal(c)
	var raw map[string]json.RawMessage
	_ = json.Unmarshal(b, &raw)
	m := map[string]string{}
	for k, v := range raw {
		var str string
		if json.Unmarshal(v, &str) == nil {
			m[k] = str
		} else {
			m[k] = string(v)
		}
	}
	return m
}

// missedShare is the share of reads that may find no record without a warning when inserts ran:
// an insert in flight is never read (nextKeynum stays at or below the last acknowledged), so none
// should miss; the allowance covers an insert whose commit was lost with its connection.
const missedShare = 0.001

// warnings are ycsb's warnings: what was not applied, and reads that found no record where every
// record read should exist.
func warnings(f *workload.Finished, d Details) []report.Warning {
	c, t, failed := d.Properties, d.Measured, d.InsertsFailed
	var w []report.Warning
	if len(d.Unknown) > 0 {
		var names []string
		for _, u := range d.Unknown {
			n := u.Name
			if u.Suggestion != "" {
				n += " (did you mean " + u.Suggestion + "?)"
			}
			names = append(names, n)
		}
		what := fmt.Sprintf("%d properties are", len(names))
		if len(names) == 1 {
			what = "1 property is"
		}
		w = append(w, report.Warning{Code: "UNKNOWN_PROPERTIES", Message: fmt.Sprintf(
			"%s neither YCSB core workload nor client properties and not applied (a database binding's, or a typo): %s",
			what, strings.Join(names, ", "))})
	}
	if ig := d.Ignored; len(ig) > 0 {
		var parts []string
		for _, g := range ig {
			parts = append(parts, fmt.Sprintf("%s (%s)", g.Name, g.Reason))
		}
		w = append(w, report.Warning{Code: "IGNORED_PROPERTIES", Message: "YCSB properties candor does its own way were not applied: " + strings.Join(parts, "; ")})
	}
	if d.OperationCountSetBy != "" && c.OperationCount > 0 {
		w = append(w, report.Warning{Code: "OPERATIONCOUNT_IGNORED", Message: fmt.Sprintf(
			"operationcount=%d (%s) did not end the run: candor's runs last --duration (the window had %s operations)",
			c.OperationCount, d.OperationCountSetBy, textfmt.Thousands(f.Result.Completed()))})
	}
	if rr := f.Result.Rate; c.TargetOpsPerSec > 0 && rr != nil && math.Abs(rr.TargetRate-c.TargetOpsPerSec) > 1e-6*c.TargetOpsPerSec {
		w = append(w, report.Warning{Code: "TARGET_NOT_RATE", Message: fmt.Sprintf(
			"target=%s (%s) asked for %s operations per second, but the run's --rate was %s: the rate is what ran",
			formatRate(c.TargetOpsPerSec), originOf(d, "target"), formatRate(c.TargetOpsPerSec), formatRate(rr.TargetRate))})
	}
	missed := t.ReadsNotFound + t.ReadModifyWritesNotFound + t.UpdatesNotFound
	reads := t.Reads + t.ReadModifyWrites + t.Updates
	// Every record a read may choose exists when the load wrote every record from 0 and no insert
	// ever failed; YCSB has no deletes.
	holes := d.InsertKeynumAtStart - c.RecordCount - d.RecordedInserts + failed
	if missed > 0 && c.InsertStart == 0 && c.InsertCount == c.RecordCount && holes == 0 && float64(missed) > missedShare*float64(reads) {
		w = append(w, report.Warning{Code: "READS_NOT_FOUND", Message: fmt.Sprintf(
			"%s of the %s reads, updates and read-modify-writes (%.2f%%) found no record, though YCSB's workloads never delete and every record they choose was loaded or inserted: the table is not what was loaded (changed outside candor?): candor ycsb check --full tells",
			textfmt.Thousands(missed), textfmt.Thousands(reads), 100*float64(missed)/float64(max(reads, 1)))})
	}
	if t.VerifyFailed > 0 {
		w = append(w, report.Warning{Code: "DATA_INTEGRITY_FAILED", Message: fmt.Sprintf(
			"%s of the %s records read (dataintegrity) held values other than YCSB's deterministic ones: the data was changed outside the workload",
			textfmt.Thousands(t.VerifyFailed), textfmt.Thousands(t.VerifyChecked))})
	}
	return w
}

// Close closes the run's connections (sqlexec.Run's Close) and records in candor_workloads how far the run's inserts
// went (the counter's end and the inserts that succeeded), for the next run and for Check.
func (s *session) Close() error {
	if s.Slots == nil {
		return nil
	}
	err := s.Run.Close()
	if s.recorded {
		return err
	}
	s.recorded = true
	rec := s.rec
	rec.NextInsert, rec.Running = s.core.PeekInsertKeynum(), false
	for i := range s.ex.per {
		rec.Inserted += s.ex.per[i].inserted
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if werr := loadstate.SetOptions(ctx, s.DB, recordName, rec); werr != nil {
		return fmt.Errorf("recording the run's inserts in %s: %w", loadstate.Table, werr)
	}
	s.rec = rec
	return err
}

// keyOp is the operation the run's short views show: read, or the mix's largest share when it has
// no reads (workload e: scan).
func (s *session) keyOp() string {
	p := s.cfg.Proportions
	if p.Of(OpRead) > 0 {
		return OpNames[OpRead]
	}
	best := OpRead
	for _, op := range Operations() {
		if p.Of(op) > p.Of(best) {
			best = op
		}
	}
	return OpNames[best]
}

// originOf is where d's property name was set, as Finish's origins say it, or YCSB's default.
func originOf(d Details, name string) string {
	if o := d.Origins[name]; o != "" {
		return o
	}
	return "YCSB's default"
}

var _ workload.Merger = (*YCSB)(nil)

// MergeFinish is ycsb's part of a result merged from shards (candor merge): the same finish as a
// run's, from the merged operations (the measured mix from the summed counts) and the shards'
// tallies summed (reads that found no record, scans, verifications), so READS_NOT_FOUND and
// DATA_INTEGRITY_FAILED are judged on the whole run. The properties are the shards' common ones
// (merge.Check refuses shards run with other flags); the table of properties that differ from the
// workload's depends on them alone and is shard 0's. Each shard has its own insert counter: the
// merged counter spans the lowest start to the highest end, acknowledged to the lowest shard's
// acknowledgement, and the section lists each.
func (w *YCSB) MergeFinish(m *workload.Merged) error {
	ds, err := workload.ShardDetails[Details](m, "ycsb")
	if err != nil {
		return err
	}
	d := ds[0]
	d.Measured, d.InsertsFailed, d.FoundUnrecorded, d.Shards = tally{}, 0, 0, nil
	for i, x := range ds {
		d.Measured.add(&x.Measured)
		d.InsertsFailed += x.InsertsFailed
		d.FoundUnrecorded += x.FoundUnrecorded
		d.InsertKeynumAtStart = min(d.InsertKeynumAtStart, x.InsertKeynumAtStart)
		d.InsertKeynumAtEnd = max(d.InsertKeynumAtEnd, x.InsertKeynumAtEnd)
		d.LastAcknowledged = min(d.LastAcknowledged, x.LastAcknowledged)
		d.RecordedInserts = min(d.RecordedInserts, x.RecordedInserts)
		idx := i
		if r := m.Shards[i]; r.Shard != nil {
			idx = r.Shard.Index
		}
		d.Shards = append(d.Shards, ShardInserts{Index: idx, InsertKeynumAtStart: x.InsertKeynumAtStart, InsertKeynumAtEnd: x.InsertKeynumAtEnd, LastAcknowledged: x.LastAcknowledged})
	}
	var diff []report.Section
	for _, sec := range m.Shards[0].Sections {
		if strings.HasPrefix(sec.Title, "ycsb: properties that differ") {
			diff = append(diff, sec)
		}
	}
	finish(&m.Finished, d, diff)
	return nil
}
