package ycsb

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/loadstate"
)

// The load (YCSB's load phase, CoreWorkload.doInsert for every record): the table, then the records
// insertstart .. insertstart+insertcount-1 in parallel through the engine's bulk path
// (driver.Conn.CopyFrom), recorded in candor_workloads (package loadstate) under "ycsb". The load is
// cut into chunks of consecutive record numbers; chunk c's values come from its own stream,
// gen.Derive(seed, "ycsb", "load", c), record by record and field by field (each field's length
// from the field-length generator, then its characters), so the same seed and properties give the
// same rows byte for byte whatever the number of loaders. Each chunk goes in as one CopyFrom, its
// rows sorted by key.

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
	fam, engine, err := dialectOf(db)
	if err != nil {
		return workload.LoadResult{}, err
	}
	ctl, err := db.Connect(ctx)
	if err != nil {
		return workload.LoadResult{}, err
	}
	defer ctl.Close()
	has, err := loadstate.TableExists(ctx, ctl, fam, storedName(fam, cfg.Table))
	if err != nil {
		return workload.LoadResult{}, err
	}
	st, err := loadstate.Read(ctx, db, recordName)
	if err != nil {
		return workload.LoadResult{}, err
	}
	if has || st.Status != loadstate.NotFound {
		if !o.Drop {
			return workload.LoadResult{}, refusal(db, cfg.Table, has, st)
		}
		tables := []string{cfg.Table}
		var old record
		if st.Status != loadstate.NotFound && st.Decode(&old) == nil {
			if t := old.Properties["table"]; identifier.MatchString(t) && !strings.EqualFold(t, cfg.Table) {
				tables = append(tables, t)
			}
		}
		for _, t := range tables {
			if _, err := ctl.Exec(ctx, dropSQL(t)); err != nil {
				return workload.LoadResult{}, fmt.Errorf("dropping the old table %s: %w", t, err)
			}
		}
		if err := loadstate.Drop(ctx, db, recordName); err != nil {
			return workload.LoadResult{}, err
		}
	}
	rec := record{Properties: dataOf(cfg), Workload: opts.builtin, NextInsert: cfg.RecordCount}
	if _, err := loadstate.Begin(ctx, db, recordName, rec, o.Seed, o.ToolVersion); err != nil {
		return workload.LoadResult{}, err
	}
	if _, err := ctl.Exec(ctx, createSQL(fam, cfg)); err != nil {
		return workload.LoadResult{}, fmt.Errorf("creating the table %s: %w", cfg.Table, err)
	}
	if o.Note != nil {
		for _, l := range loadNotes(opts) {
			o.Note(l)
		}
	}
	progress := o.Progress
	if progress == nil {
		progress = func(int64) {}
	}
	loaders := max(1, o.Loaders)
	if db.Dialect().SingleWriter {
		loaders = 1 // one writer at a time: more connections would only wait for its lock
	}
	spec, err := newLoadSpec(cfg, o.Seed)
	if err != nil {
		return workload.LoadResult{}, err
	}
	setup := []string(nil)
	if fam == familyPostgres && engine != engineCockroach && engine != engineYugabyte {
		// Safe: the load is recorded complete only by Complete's synchronous commit, whose WAL flush
		// covers these transactions too; a crash before it leaves the load half-done, and seen so.
		setup = []string{"SET synchronous_commit = off"}
	}
	table, cols := storedName(fam, cfg.Table), []string{storedName(fam, keyColumn)}
	for _, c := range columnNames(cfg) {
		cols = append(cols, storedName(fam, c))
	}
	rows, err := loadRows(ctx, db, spec, table, cols, loaders, setup, progress)
	if err != nil {
		if ctx.Err() != nil {
			return workload.LoadResult{}, fmt.Errorf("the load was interrupted (%w); the database holds an incomplete load: reload with candor ycsb load --drop", context.Cause(ctx))
		}
		return workload.LoadResult{}, err
	}
	for _, q := range statsSQL(fam, engine, cfg.Table) {
		if _, err := ctl.Exec(ctx, q); err != nil {
			return workload.LoadResult{}, fmt.Errorf("after the load (%s): %w", q, err)
		}
	}
	if _, err := loadstate.Complete(ctx, db, recordName); err != nil {
		return workload.LoadResult{}, err
	}
	res := workload.LoadResult{Rows: rows, Summary: loadSummary(cfg, opts.builtin)}
	if bp, ok := db.(interface{ BulkPath() string }); ok && rows > 0 {
		res.BulkPath = bp.BulkPath()
	}
	return res, nil
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
	s := thousands(c.InsertCount) + " records"
	if c.InsertStart > 0 {
		s += fmt.Sprintf(" (%s to %s)", thousands(c.InsertStart), thousands(c.InsertStart+c.InsertCount-1))
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

// refusal is the user error for a database that holds the table or ycsb's record while Drop is off.
func refusal(db driver.DB, table string, has bool, st loadstate.State) error {
	u := db.Redacted()
	switch st.Status {
	case loadstate.Completed:
		var r record
		what := ""
		if st.Decode(&r) == nil {
			what = fmt.Sprintf(" (%s records in %s, loaded %s UTC)", r.Properties["insertcount"], r.Properties["table"], st.StartedAt.Format(time.DateTime))
		}
		return userr.Errorf("the database at %s already holds ycsb data%s: pass --drop to replace it", u, what)
	case loadstate.HalfLoaded:
		return userr.Errorf("the database at %s holds an incomplete ycsb load (started %s UTC): pass --drop to replace it", u, st.StartedAt.Format(time.DateTime))
	}
	if has {
		return userr.Errorf("the database at %s already has a table %s that candor did not record loading: pass --drop to replace it, or -p table=NAME for another table", u, table)
	}
	return userr.Errorf("the database at %s already holds ycsb data: pass --drop to replace it", u)
}

// dialectOf is db's SQL family and engine, or a user error for an engine ycsb has no SQL for.
func dialectOf(db driver.DB) (family, engine string, err error) {
	d := db.Dialect()
	if !supportedFamily(d.SQLFamily()) {
		return "", "", userr.Errorf("ycsb has no SQL for the database kind %q: use PostgreSQL (or CockroachDB, YugabyteDB), MySQL/MariaDB or SQLite", d.Name)
	}
	return d.SQLFamily(), d.Name, nil
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
	keys   []string
	vals   []string // fields per row, row by row in record order
	order  []int    // record indexes in key order
	fields int
	i      int
	row    []any
}

// makeChunk generates chunk c: records c*chunk up to insertcount (record numbers from insertstart),
// values from the chunk's stream in record order, field by field (dataintegrity: derived from the
// key and field name, drawing nothing).
func makeChunk(s *loadSpec, c int64) *chunkRows {
	first := c * s.chunk
	n := int(min(s.chunk, s.cfg.InsertCount-first))
	nf := len(s.names)
	r := gen.New(gen.Derive(s.seed, "ycsb", "load", c))
	ch := &chunkRows{keys: make([]string, n), fields: nf, row: make([]any, 1+nf)}
	_, hi := lengthBounds(s.cfg)
	buf := make([]byte, 0, int64(n*nf)*hi)
	ends := make([]int, 0, n*nf)
	for i := range n {
		key := s.cfg.KeyName(s.cfg.InsertStart + first + int64(i))
		ch.keys[i] = key
		for _, name := range s.names {
			size := int(s.length.Next(r))
			if s.cfg.DataIntegrity {
				buf = AppendDeterministicValue(buf, key, name, size)
			} else {
				buf = AppendRandomValue(buf, r, size)
			}
			ends = append(ends, len(buf))
		}
	}
	all := string(buf)
	ch.vals = make([]string, len(ends))
	start := 0
	for j, e := range ends {
		ch.vals[j], start = all[start:e], e
	}
	ch.order = make([]int, n)
	for i := range ch.order {
		ch.order[i] = i
	}
	slices.SortFunc(ch.order, func(a, b int) int { return strings.Compare(ch.keys[a], ch.keys[b]) })
	return ch
}

func (c *chunkRows) Next() bool {
	if c.i >= len(c.order) {
		return false
	}
	c.i++
	return true
}

func (c *chunkRows) Values() ([]any, error) {
	k := c.order[c.i-1]
	c.row[0] = c.keys[k]
	for f := range c.fields {
		c.row[1+f] = c.vals[k*c.fields+f]
	}
	return c.row, nil
}

func (c *chunkRows) Err() error { return nil }

// loadRows copies the chunks on `loaders` connections, each chunk in one CopyFrom, and returns the
// rows written. The first error stops every loader.
func loadRows(ctx context.Context, db driver.DB, s *loadSpec, table string, cols []string, loaders int, setup []string, progress func(int64)) (int64, error) {
	chunks := s.chunks()
	if chunks == 0 {
		return 0, nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	work := make(chan int64)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		rows  int64
		first error
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
			cancel(err)
		}
		mu.Unlock()
	}
	for range min(int64(loaders), chunks) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := db.Connect(ctx)
			if err != nil {
				fail(err)
				return
			}
			defer c.Close()
			for _, q := range setup {
				if _, err := c.Exec(ctx, q); err != nil {
					fail(err)
					return
				}
			}
			for ch := range work {
				src := makeChunk(s, ch)
				n, err := c.CopyFrom(ctx, table, cols, src)
				if err != nil {
					from := s.cfg.InsertStart + ch*s.chunk
					fail(fmt.Errorf("loading records %d to %d: %w", from, from+int64(len(src.keys))-1, err))
					return
				}
				mu.Lock()
				rows += n
				mu.Unlock()
				progress(n)
			}
		}()
	}
feed:
	for ch := range chunks {
		select {
		case work <- ch:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if first != nil {
		return rows, first
	}
	if err := context.Cause(ctx); err != nil {
		return rows, err
	}
	if rows != s.cfg.InsertCount {
		return rows, fmt.Errorf("the load wrote %d rows, not %d", rows, s.cfg.InsertCount)
	}
	return rows, nil
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
		fam, _, err := dialectOf(db)
		if err != nil {
			return false, err
		}
		c, err := db.Connect(ctx)
		if err != nil {
			return false, err
		}
		defer c.Close()
		if has, err := loadstate.TableExists(ctx, c, fam, storedName(fam, opts.cfg.Table)); err != nil || !has {
			return false, err
		}
		return false, userr.Errorf("the database at %s has a table %s that candor did not record loading: replace it with candor ycsb load --drop --db %s", db.Redacted(), opts.cfg.Table, db.Redacted())
	case loadstate.HalfLoaded:
		return false, halfLoaded(db, st)
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
		return Config{}, nil, userr.Errorf("the ycsb data at %s was loaded with other properties: %s; drop those properties to use the loaded data, or reload with candor ycsb load --drop --db %s", db.Redacted(), joinList(diff), db.Redacted())
	}
	cfg, _, err := FromProperties(o.merge(loaded))
	if err != nil {
		return cfg, nil, userr.Errorf("the properties given with the load's (%s) are not a workload: %v: give others, or reload with candor ycsb load --drop --db %s and the properties you mean", joinList(loadedList(rec)), err, db.Redacted())
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

func halfLoaded(db driver.DB, st loadstate.State) error {
	return userr.Errorf("the ycsb load of %s never completed (started %s UTC): it is half-loaded and must not be used; reload with candor ycsb load --drop --db %s",
		db.Redacted(), st.StartedAt.Format(time.DateTime), db.Redacted())
}

// readRecord reads ycsb's row of candor_workloads and its options.
func readRecord(ctx context.Context, db driver.DB) (loadstate.State, record, error) {
	if _, _, err := dialectOf(db); err != nil {
		return loadstate.State{}, record{}, err
	}
	st, err := loadstate.Read(ctx, db, recordName)
	if err != nil || st.Status == loadstate.NotFound {
		return st, record{}, err
	}
	var rec record
	if err := st.Decode(&rec); err != nil {
		return st, record{}, userr.Errorf("%v", err)
	}
	if rec.Properties == nil {
		return st, record{}, userr.Errorf("the ycsb load recorded in %s has no properties: reload with candor ycsb load --drop", loadstate.Table)
	}
	return st, rec, nil
}

// thousands formats n with commas: 1,234,567.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String()
}

// joinList is "a, b and c".
func joinList(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
