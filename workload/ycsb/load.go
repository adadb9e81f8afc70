package ycsb

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/bulkload"
	"github.com/candor-bench/candor/workload/loadstate"
	"github.com/candor-bench/candor/workload/sqlexec"
	"github.com/candor-bench/candor/workload/textfmt"
)

// The load (YCSB's load phase, CoreWorkload.doInsert for every record): the table, then the records
// insertstart .. insertstart+insertcount-1 in parallel through the engine's bulk path
// (driver.Conn.CopyFrom, package bulkload), recorded in candor_workloads (package loadstate) under "ycsb". The load is
// cut into chunks of consecutive record numbers; chunk c's values come from its own stream,
// gen.Derive(seed, "ycsb", "load", c), record by record in key order and field by field (each
// field's length from the field-length generator, then its characters), so the same seed and
// properties give the same rows byte for byte whatever the number of loaders. Each chunk goes in as
// one CopyFrom, its rows sorted by key; the values it holds at once are bounded in bytes, not
// records (chunkBytes, makeChunk).

// chunkBytes bounds a chunk's values, and loadChunk its records.
const (
	chunkBytes = 16 << 20
	loadChunk  = 10000
)

// recordName is ycsb's name in candor_workloads.
const recordName = "ycsb"

// dataProperties are the properties that decide the loaded data, which a run must agree with: the
// records and their keys, the table and its columns, the values' lengths and whether they are
// dataintegrity's. (minfieldlength counts only for a distribution that uses it.)
var dataProperties = []string{"recordcount", "insertstart", "insertcount", "table", "fieldcount", "fieldnameprefix",
	"fieldlength", "minfieldlength", "fieldlengthdistribution", "zeropadding", "insertorder", "dataintegrity"}

// dataOf is c's data properties, as text FromProperties reads back to the same values.
func dataOf(c Config) Properties {
	p := Properties{
		"recordcount":             strconv.FormatInt(c.RecordCount, 10),
		"insertstart":             strconv.FormatInt(c.InsertStart, 10),
		"insertcount":             strconv.FormatInt(c.InsertCount, 10),
		"table":                   c.Table,
		"fieldcount":              strconv.FormatInt(c.FieldCount, 10),
		"fieldnameprefix":         c.FieldNamePrefix,
		"fieldlength":             strconv.FormatInt(c.FieldLength, 10),
		"minfieldlength":          strconv.FormatInt(c.MinFieldLength, 10),
		"fieldlengthdistribution": string(c.FieldLengthDistribution),
		"zeropadding":             strconv.Itoa(c.ZeroPadding),
		"insertorder":             string(c.InsertOrder),
		"dataintegrity":           strconv.FormatBool(c.DataIntegrity),
	}
	if c.FieldLengthDistribution == DistConstant {
		delete(p, "minfieldlength")
	}
	return p
}

// lengthBounds are the least and most characters of a field value.
func lengthBounds(c Config) (lo, hi int64) {
	if c.FieldLengthDistribution == DistConstant {
		return c.FieldLength, c.FieldLength
	}
	return c.MinFieldLength, c.FieldLength
}

// record is what ycsb keeps in candor_workloads' options: the data properties of the load, and
// what the runs on the data have inserted since (Start and Close update them).
type record struct {
	Properties Properties `json:"properties"`
	// Workload is the built-in workload the load's properties started from ("" for -P files).
	Workload string `json:"workload,omitempty"`
	// NextInsert is the first record number no run has taken for an insert (recordcount after the
	// load); Inserted counts the runs' inserts that succeeded. The table holds insertcount +
	// Inserted records; the NextInsert - recordcount - Inserted others taken failed.
	NextInsert int64 `json:"next_insert"`
	Inserted   int64 `json:"inserted"`
	// Running says a run with inserts started and has not recorded its end (it was killed): the
	// next run looks for its inserts before taking record numbers (session.go, findInserts).
	Running bool `json:"running,omitempty"`
}

// config is the load's Config (the data properties, YCSB's defaults for the rest).
func (r record) config() (Config, error) {
	c, _, err := FromProperties(r.Properties)
	if err != nil {
		return c, userr.Errorf("the ycsb load recorded in %s has properties candor cannot read (%v): reload with candor ycsb load --drop", loadstate.Table, err)
	}
	return c, nil
}

// Load creates the table and loads the records. It refuses a database that already holds the
// table or ycsb's record, unless o.Drop.
func (y *YCSB) Load(ctx context.Context, db driver.DB, o workload.LoadOptions) (workload.LoadResult, error) {
	opts := y.options()
	if len(opts.problems) > 0 {
		return workload.LoadResult{}, userr.Errorf("%s", strings.Join(opts.problems, "; "))
	}
	cfg := opts.cfg
	fam, _, err := sqlexec.Dialect(db, recordName)
	if err != nil {
		return workload.LoadResult{}, err
	}
	if err := sizeLimits(db, cfg); err != nil {
		return workload.LoadResult{}, err
	}
	rec := record{Properties: dataOf(cfg), Workload: opts.builtin, NextInsert: cfg.RecordCount}
	var ctl driver.Conn
	resumed := false
	if o.Shard.Sharded() && o.Shard.Index > 0 {
		// Shard i's part: the load shard 0 began, with its seed and properties.
		st, got, err := loadstate.Joined[record](ctx, db, parts, o)
		if err != nil {
			return workload.LoadResult{}, err
		}
		if !reflect.DeepEqual(got.Properties, rec.Properties) || st.Seed != o.Seed {
			return workload.LoadResult{}, userr.Errorf("shard 0 began a ycsb load with other properties or seed (seed %d): give every shard the same load flags and --seed", st.Seed)
		}
	} else {
		if ctl, resumed, err = room(fam, cfg.Table).Begin(ctx, db, o, rec); err != nil {
			return workload.LoadResult{}, err
		}
		defer ctl.Close()
		if !resumed {
			if _, err := ctl.Exec(ctx, createSQL(fam, cfg)); err != nil {
				return workload.LoadResult{}, fmt.Errorf("creating the table %s: %w", cfg.Table, err)
			}
			if o.Note != nil {
				for _, l := range loadNotes(opts) {
					o.Note(l)
				}
			}
		}
	}
	var rows int64
	if !resumed {
		if rows, err = loadRecords(ctx, db, o, cfg, fam); err != nil {
			return workload.LoadResult{}, err
		}
	}
	summary := loadSummary(cfg, opts.builtin)
	if o.Shard.Sharded() {
		summary = "shard " + o.Shard.String() + "'s part of " + summary + bulkload.ResumedNote(resumed)
	}
	if finish, err := parts.Done(ctx, db, o); err != nil || !finish {
		return workload.LoadResult{Rows: rows, Summary: summary}, err // shard i > 0: shard 0 finishes
	}
	res, err := bulkload.Finish(ctx, db, ctl, recordName, cfg.Table, rows)
	if err != nil {
		return workload.LoadResult{}, err
	}
	res.Summary = summary
	if o.Shard.Sharded() {
		res.Summary += ", and the whole load completed"
	}
	return res, nil
}

// sizeLimits refuses records whose fields or rows the engine cannot take (sqlexec.SizeLimits), before
// the load drops or writes anything.
func sizeLimits(db driver.DB, c Config) error {
	_, hi := lengthBounds(c)
	what := fmt.Sprintf("ycsb's records of %d fields of up to %s characters (fieldcount, fieldlength)", c.FieldCount, textfmt.Thousands(hi))
	fix := "give a smaller fieldlength or fieldcount"
	if db.Dialect().SQLFamily() == sqlexec.FamilyMySQL {
		fix += ", or raise max_allowed_packet on the server"
	}
	return sqlexec.SizeLimits(db, hi, c.FieldCount*hi+255, what, fix)
}

// loadRecords copies the records of this process's chunks: all of them, or a shard's
// (workload.Shard.Chunks), the same records byte for byte as an unsharded load's chunks.
func loadRecords(ctx context.Context, db driver.DB, o workload.LoadOptions, cfg Config, fam string) (int64, error) {
	spec, err := newLoadSpec(cfg, o.Seed)
	if err != nil {
		return 0, err
	}
	cols := []string{storedName(fam, keyColumn)}
	for _, c := range columnNames(cfg) {
		cols = append(cols, storedName(fam, c))
	}
	first, n, records := o.Shard.Chunks(cfg.InsertCount, spec.chunk)
	return bulkload.Run(ctx, db, o, bulkload.Copy{Workload: recordName, Table: storedName(fam, cfg.Table), Columns: cols,
		Chunks: n, Rows: records,
		Chunk: func(c int64) driver.RowSource { return makeChunk(spec, first+c) },
		Failed: func(c int64, src driver.RowSource, err error) error {
			from := cfg.InsertStart + (first+c)*spec.chunk
			return fmt.Errorf("loading records %d to %d: %w", from, from+int64(src.(*chunkRows).N)-1, err)
		}})
}

var _ workload.Sharder = (*YCSB)(nil)

// parts is the bookkeeping of a sharded ycsb load (loadstate's shards.go).
var parts = loadstate.Parts{Name: recordName}

// ShardRows is the records shard s's part of the load writes (workload.Sharder).
func (y *YCSB) ShardRows(sh workload.Shard) int64 {
	spec, err := newLoadSpec(y.options().cfg, 0)
	if err != nil {
		return 0
	}
	_, _, records := sh.Chunks(spec.cfg.InsertCount, spec.chunk)
	return records
}

// MissingShards is the parts of a ycsb load split over count shards not complete yet
// (workload.Sharder).
func (y *YCSB) MissingShards(ctx context.Context, db driver.DB, count int) ([]int, error) {
	if _, _, err := sqlexec.Dialect(db, recordName); err != nil {
		return nil, err
	}
	return parts.Missing(ctx, db, count)
}

func init() {
	loadstate.Register(loadstate.Claim{Workload: recordName, Owns: loadstate.Names(strings.ToLower(DefaultConfig().Table))})
}

// room is what a load into table replaces: the table, the table of the recorded load (when it is
// another), and ycsb's record.
func room(fam, table string) bulkload.Room {
	return bulkload.Room{Workload: recordName, Table: storedName(fam, table), Name: table, Hint: ", or -p table=NAME for another table",
		Describe: func(st loadstate.State) string {
			var r record
			if st.Decode(&r) != nil {
				return ""
			}
			return fmt.Sprintf(" (%s records in %s, loaded %s UTC)", r.Properties["insertcount"], r.Properties["table"], st.StartedAt.Format(time.DateTime))
		},
		DropTables: func(ctx context.Context, ctl driver.Conn, st loadstate.State) error {
			tables := []string{table}
			var old record
			if st.Status != loadstate.NotFound && st.Decode(&old) == nil {
				if t := old.Properties["table"]; identifier.MatchString(t) && !strings.EqualFold(t, table) {
					tables = append(tables, t)
				}
			}
			for _, t := range tables {
				if _, err := ctl.Exec(ctx, dropSQL(t)); err != nil {
					return fmt.Errorf("dropping the old table %s: %w", t, err)
				}
			}
			return nil
		}}
}

// loadNotes are the lines a load prints about properties it does not apply: the ones no YCSB
// component knows, YCSB's own that candor does its own way, and the run's that the load ignores.
func loadNotes(o *options) []string {
	lines := o.rep.Lines()
	for _, n := range []struct{ name, why string }{
		{"threadcount", "the load runs on --loaders connections"},
		{"target", "the load is not paced"},
		{"core_workload_insertion_retry_limit", "the load copies records in bulk, and a failed copy stops it (recorded as incomplete)"},
		{"core_workload_insertion_retry_interval", "the load copies records in bulk, and a failed copy stops it (recorded as incomplete)"},
		{"core_workload_insertion_keep_going_on_error", "the load copies records in bulk, and a failed copy stops it (recorded as incomplete)"},
	} {
		if o.userSet(n.name) {
			lines = append(lines, fmt.Sprintf("ignored property %s=%q for the load: %s", n.name, o.merged[n.name], n.why))
		}
	}
	return lines
}

// loadSummary is "1,000 records of 10 fields of 100 characters (workload a)".
func loadSummary(c Config, builtin string) string {
	s := textfmt.Thousands(c.InsertCount) + " records"
	if c.InsertStart > 0 {
		s += fmt.Sprintf(" (%s to %s)", textfmt.Thousands(c.InsertStart), textfmt.Thousands(c.InsertStart+c.InsertCount-1))
	}
	s += fmt.Sprintf(" of %d fields of %s characters", c.FieldCount, lengthText(c))
	if c.DataIntegrity {
		s += " (dataintegrity)"
	}
	if builtin != "" {
		s += ", workload " + builtin
	}
	return s
}

// lengthText is "100" or "1..100 (zipfian)".
func lengthText(c Config) string {
	lo, hi := lengthBounds(c)
	if c.FieldLengthDistribution == DistConstant {
		return strconv.FormatInt(hi, 10)
	}
	return fmt.Sprintf("%d..%d (%s)", lo, hi, c.FieldLengthDistribution)
}

// loadSpec is what the rows are made from.
type loadSpec struct {
	cfg    Config
	seed   uint64
	length NumberGenerator
	names  []string
	// chunk is the records per chunk: loadChunk, fewer when the values are long.
	chunk int64
}

func newLoadSpec(c Config, seed uint64) (*loadSpec, error) {
	fl, err := NewFieldLengthGenerator(c.FieldLengthDistribution, c.MinFieldLength, c.FieldLength)
	if err != nil {
		return nil, err
	}
	_, hi := lengthBounds(c)
	return &loadSpec{cfg: c, seed: seed, length: fl, names: c.FieldNames(),
		chunk: min(loadChunk, max(1, chunkBytes/max(1, c.FieldCount*hi)))}, nil
}

// chunks is the number of chunks.
func (s *loadSpec) chunks() int64 { return (s.cfg.InsertCount + s.chunk - 1) / s.chunk }

// chunkRows is one chunk's rows, sorted by key, as a driver.RowSource.
type chunkRows struct {
	bulkload.Cursor
	keys []string // in key order
	// vals are the fields, row by row in key order, when the chunk was made ahead (ahead);
	// otherwise each row's are drawn from r as it is read.
	vals   []string
	ahead  bool
	spec   *loadSpec
	r      *gen.Rand
	buf    []byte
	fields int
	row    []any
}

// aheadBytes is chunkBytes, the most a chunk makes ahead (a variable for the test that both ways
// give the same rows).
var aheadBytes int64 = chunkBytes

// makeChunk generates chunk c: the keys of records c*chunk up to insertcount (record numbers from
// insertstart), sorted, then the values from the chunk's stream in key order, field by field
// (dataintegrity: derived from the key and field name, drawing nothing): all of them now when they
// take at most chunkBytes, else each row's as it is read (Values), so that a record of long fields
// (a chunk of one) is held once, by the loader copying it, not made ahead. Either way the same rows.
func makeChunk(s *loadSpec, c int64) *chunkRows {
	first := c * s.chunk
	n := int(min(s.chunk, s.cfg.InsertCount-first))
	nf := len(s.names)
	ch := &chunkRows{Cursor: bulkload.Cursor{N: n}, keys: make([]string, n), spec: s, fields: nf, row: make([]any, 1+nf),
		r: gen.New(gen.Derive(s.seed, "ycsb", "load", c))}
	for i := range n {
		ch.keys[i] = s.cfg.KeyName(s.cfg.InsertStart + first + int64(i))
	}
	slices.Sort(ch.keys)
	_, hi := lengthBounds(s.cfg)
	if int64(n)*int64(nf)*hi > aheadBytes {
		return ch
	}
	ch.ahead = true
	buf := make([]byte, 0, int64(n*nf)*hi)
	ends := make([]int, 0, n*nf)
	for _, key := range ch.keys {
		buf = ch.appendRow(buf, key, &ends)
	}
	all := string(buf)
	ch.vals = make([]string, len(ends))
	start := 0
	for j, e := range ends {
		ch.vals[j], start = all[start:e], e
	}
	return ch
}

// appendRow appends the fields of the record key to buf, each one's end to ends.
func (c *chunkRows) appendRow(buf []byte, key string, ends *[]int) []byte {
	s := c.spec
	for _, name := range s.names {
		size := int(s.length.Next(c.r))
		if s.cfg.DataIntegrity {
			buf = AppendDeterministicValue(buf, key, name, size)
		} else {
			buf = AppendRandomValue(buf, c.r, size)
		}
		*ends = append(*ends, len(buf))
	}
	return buf
}

func (c *chunkRows) Values() ([]any, error) {
	i := c.Row()
	c.row[0] = c.keys[i]
	if c.ahead {
		for f := range c.fields {
			c.row[1+f] = c.vals[i*c.fields+f]
		}
		return c.row, nil
	}
	// A buffer of its own per row, never written again (an engine's bulk path may hold a few rows
	// before it sends them), so its fields are strings over it without a copy.
	_, hi := lengthBounds(c.spec.cfg)
	ends := make([]int, 0, c.fields)
	buf := c.appendRow(make([]byte, 0, int64(c.fields)*hi), c.keys[i], &ends)
	start := 0
	for f, e := range ends {
		c.row[1+f], start = unsafe.String(unsafe.SliceData(buf[start:]), e-start), e
	}
	return c.row, nil
}

// PeakMemory is the most bytes of values a load on loaders connections holds at once: on a
// single-writer engine up to about 2 x loaders + 1 chunks are made ahead or being copied, each of
// at most chunkBytes made ahead, or a record being drawn and the engine's copy of it and of the
// record before.
func (y *YCSB) PeakMemory(loaders int) int64 {
	o := y.options()
	if len(o.problems) > 0 {
		return 0
	}
	spec, err := newLoadSpec(o.cfg, 0)
	if err != nil {
		return 0
	}
	_, hi := lengthBounds(o.cfg)
	row := o.cfg.FieldCount * hi
	perChunk := min(spec.chunk, max(o.cfg.InsertCount, 1)) * row
	if perChunk > chunkBytes {
		perChunk = 3 * row
	}
	return int64(2*max(loaders, 1)+1) * perChunk
}

// Loaded reports whether db holds a complete ycsb load agreeing with the data properties given
// (dataProperties): those not given take the load's, as a run does (Open). The seed never counts: a
// run reads whatever the load wrote. No ycsb data is "not loaded"; a half-finished load, or one that
// disagrees with a property given, is a user error naming the fix.
func (y *YCSB) Loaded(ctx context.Context, db driver.DB) (bool, error) {
	st, rec, err := readRecord(ctx, db)
	if err != nil {
		return false, err
	}
	switch st.Status {
	case loadstate.NotFound:
		opts := y.options()
		if len(opts.problems) > 0 {
			return false, nil // Load reports them
		}
		fam, _, err := sqlexec.Dialect(db, recordName)
		if err != nil {
			return false, err
		}
		return false, room(fam, opts.cfg.Table).Unrecorded(ctx, db)
	case loadstate.HalfLoaded:
		return false, loadstate.HalfLoadedError(db, st)
	}
	if _, _, err := y.runConfig(db, rec); err != nil {
		return false, err
	}
	return true, nil
}

// runConfig is the run's Config: the layers of the flags with the load's data properties beneath
// the user's (-P, -p), so that a data property not given is the load's, and one given must agree
// with it. It returns the properties taken from the load.
func (y *YCSB) runConfig(db driver.DB, rec record) (Config, map[string]bool, error) {
	o := y.options()
	if len(o.problems) > 0 {
		return Config{}, nil, userr.Errorf("%s", strings.Join(o.problems, "; "))
	}
	loaded, fromLoad := Properties{}, map[string]bool{}
	for k, v := range rec.Properties {
		if !o.userSet(k) {
			loaded[k], fromLoad[k] = v, true
		}
	}
	// The properties given are compared as the flags alone read them (o.cfg): the user's layers win
	// over the load's in the merge too.
	want := dataOf(o.cfg)
	var diff []string
	for _, k := range dataProperties {
		if o.userSet(k) && want[k] != rec.Properties[k] {
			have := rec.Properties[k]
			if have == "" {
				have = "unused"
			}
			diff = append(diff, fmt.Sprintf("%s=%s (%s; loaded: %s)", k, want[k], o.origin(k), have))
		}
	}
	if len(diff) > 0 {
		return Config{}, nil, userr.Errorf("the ycsb data at %s was loaded with other properties: %s; drop those properties to use the loaded data, or reload with candor ycsb load --drop --db %s", db.Redacted(), textfmt.List(diff), db.Redacted())
	}
	cfg, _, err := FromProperties(o.merge(loaded))
	if err != nil {
		return cfg, nil, userr.Errorf("the properties given with the load's (%s) are not a workload: %v: give others, or reload with candor ycsb load --drop --db %s and the properties you mean", textfmt.List(loadedList(rec)), err, db.Redacted())
	}
	if p := sqlProblems(cfg, o.origin); len(p) > 0 {
		return cfg, nil, userr.Errorf("%s", strings.Join(p, "; "))
	}
	return cfg, fromLoad, nil
}

// loadedList is the load's data properties as name=value, in dataProperties' order.
func loadedList(rec record) []string {
	var out []string
	for _, k := range dataProperties {
		if v, ok := rec.Properties[k]; ok {
			out = append(out, k+"="+v)
		}
	}
	return out
}

// readRecord reads ycsb's row of candor_workloads and its options.
func readRecord(ctx context.Context, db driver.DB) (loadstate.State, record, error) {
	if _, _, err := sqlexec.Dialect(db, recordName); err != nil {
		return loadstate.State{}, record{}, err
	}
	st, rec, err := loadstate.ReadRecord[record](ctx, db, recordName)
	if err != nil || st.Status == loadstate.NotFound {
		return st, rec, err
	}
	if rec.Properties == nil {
		return st, record{}, userr.Errorf("the ycsb load recorded in %s has no properties: reload with candor ycsb load --drop", loadstate.Table)
	}
	return st, rec, nil
}
