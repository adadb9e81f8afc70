package kv

import (
	"context"
	sqldriver "database/sql/driver"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/loadstate"
)

// The load: the table kv, then --insert-count rows in parallel through the engine's bulk path
// (driver.Conn.CopyFrom), recorded in candor_workloads (package loadstate) under "kv". Row i is
// sequence number i: its key is loadKey(i) (keys.go) and its value comes from the stream of its
// chunk, gen.Derive(seed, "kv", "load", chunk), so the same seed and options give the same rows byte
// for byte whatever the number of loaders.

// loadChunk is the rows of one chunk: one CopyFrom (its own transaction), rows sorted by key.
const loadChunk = 10000

// record is what kv keeps in candor_workloads' options: what was loaded, and what runs on the data
// have done since (Start updates them).
type record struct {
	InsertCount int64 `json:"insert_count"`
	// Distribution is the key distribution loaded with and Keys its layout ("hashed": the keys are
	// SHA-1 hashes of 0..insert-count-1 under the seed; "dense": the keys 0..insert-count-1).
	Distribution  Distribution `json:"distribution"`
	Keys          string       `json:"keys"`
	CycleLength   int64        `json:"cycle_length"`
	MinBlockBytes int          `json:"min_block_bytes"`
	MaxBlockBytes int          `json:"max_block_bytes"`
	// ValueMinBytes and ValueMaxBytes bound every value written since the load, by the load or a
	// run, when Values says some were; Deleted says a run with --del-percent above 0 started. Both
	// for Check.
	Values        bool `json:"values"`
	ValueMinBytes int  `json:"value_min_bytes"`
	ValueMaxBytes int  `json:"value_max_bytes"`
	Deleted       bool `json:"deleted,omitempty"`
}

// wrote widens the recorded value sizes by values of [lo, hi] bytes.
func (r *record) wrote(lo, hi int) {
	if !r.Values {
		r.Values, r.ValueMinBytes, r.ValueMaxBytes = true, lo, hi
		return
	}
	r.ValueMinBytes, r.ValueMaxBytes = min(r.ValueMinBytes, lo), max(r.ValueMaxBytes, hi)
}

// Load creates the table and loads --insert-count rows. It refuses a database that already holds
// kv's table or record, unless o.Drop.
func (k *KV) Load(ctx context.Context, db driver.DB, o workload.LoadOptions) (workload.LoadResult, error) {
	opt := k.resolve()
	fam, engine, err := dialectOf(db)
	if err != nil {
		return workload.LoadResult{}, err
	}
	ctl, err := db.Connect(ctx)
	if err != nil {
		return workload.LoadResult{}, err
	}
	defer ctl.Close()
	has, err := loadstate.TableExists(ctx, ctl, fam, table)
	if err != nil {
		return workload.LoadResult{}, err
	}
	st, err := loadstate.Read(ctx, db, "kv")
	if err != nil {
		return workload.LoadResult{}, err
	}
	if has || st.Status != loadstate.NotFound {
		if !o.Drop {
			return workload.LoadResult{}, refusal(db, has, st)
		}
		if _, err := ctl.Exec(ctx, dropSQL); err != nil {
			return workload.LoadResult{}, fmt.Errorf("dropping the old kv table: %w", err)
		}
		if err := loadstate.Drop(ctx, db, "kv"); err != nil {
			return workload.LoadResult{}, err
		}
	}
	rec := record{InsertCount: opt.InsertCount, Distribution: opt.Distribution, Keys: opt.Distribution.keyLayout(),
		CycleLength: opt.CycleLength, MinBlockBytes: opt.MinBlockBytes, MaxBlockBytes: opt.MaxBlockBytes}
	if opt.InsertCount > 0 {
		rec.wrote(opt.MinBlockBytes, opt.MaxBlockBytes)
	}
	if _, err := loadstate.Begin(ctx, db, "kv", rec, o.Seed, o.ToolVersion); err != nil {
		return workload.LoadResult{}, err
	}
	if _, err := ctl.Exec(ctx, createSQL(fam)); err != nil {
		return workload.LoadResult{}, fmt.Errorf("creating the kv table: %w", err)
	}
	progress := o.Progress
	if progress == nil {
		progress = func(int64) {}
	}
	loaders := max(1, o.Loaders)
	if db.Dialect().SingleWriter {
		loaders = 1 // one writer at a time: more connections would only wait for its lock
	}
	spec := loadSpec{dist: opt.Distribution, seed: o.Seed, count: opt.InsertCount, minBytes: opt.MinBlockBytes,
		maxBytes: opt.MaxBlockBytes, blob: fam == familySQLite}
	setup := []string(nil)
	if fam == familyPostgres && engine != engineCockroach && engine != engineYugabyte {
		// Safe: the load is recorded complete only by Complete's synchronous commit, whose WAL flush
		// covers these transactions too; a crash before it leaves the load half-done, and seen so.
		setup = []string{"SET synchronous_commit = off"}
	}
	rows, err := loadRows(ctx, db, spec, loaders, setup, progress)
	if err != nil {
		if ctx.Err() != nil {
			return workload.LoadResult{}, fmt.Errorf("the load was interrupted (%w); the database holds an incomplete load: reload with candor kv load --drop", context.Cause(ctx))
		}
		return workload.LoadResult{}, err
	}
	for _, q := range statsSQL(fam, engine) {
		if _, err := ctl.Exec(ctx, q); err != nil {
			return workload.LoadResult{}, fmt.Errorf("after the load (%s): %w", q, err)
		}
	}
	if _, err := loadstate.Complete(ctx, db, "kv"); err != nil {
		return workload.LoadResult{}, err
	}
	res := workload.LoadResult{Rows: rows, Summary: loadSummary(opt)}
	if bp, ok := db.(interface{ BulkPath() string }); ok && rows > 0 {
		res.BulkPath = bp.BulkPath()
	}
	return res, nil
}

func loadSummary(o Options) string {
	return fmt.Sprintf("%s keys (%s), values of %s bytes", thousands(o.InsertCount), o.Distribution, blockRange(o.MinBlockBytes, o.MaxBlockBytes))
}

// refusal is the user error for a database that holds kv's table or record while Drop is off.
func refusal(db driver.DB, has bool, st loadstate.State) error {
	u := db.Redacted()
	switch st.Status {
	case loadstate.Completed:
		var r record
		what := ""
		if st.Decode(&r) == nil {
			what = fmt.Sprintf(" (%s keys, %s, loaded %s UTC)", thousands(r.InsertCount), r.Distribution, st.StartedAt.Format("2006-01-02 15:04:05"))
		}
		return userr.Errorf("the database at %s already holds kv data%s: pass --drop to replace it", u, what)
	case loadstate.HalfLoaded:
		return userr.Errorf("the database at %s holds an incomplete kv load (started %s UTC): pass --drop to replace it", u, st.StartedAt.Format("2006-01-02 15:04:05"))
	}
	if has {
		return userr.Errorf("the database at %s already has a table kv that candor did not record loading: pass --drop to replace it", u)
	}
	return userr.Errorf("the database at %s already holds kv data: pass --drop to replace it", u)
}

// dialectOf is db's SQL family and engine, or a user error for an engine kv has no SQL for.
func dialectOf(db driver.DB) (family, engine string, err error) {
	d := db.Dialect()
	if !supportedFamily(d.SQLFamily()) {
		return "", "", userr.Errorf("kv has no SQL for the database kind %q: use PostgreSQL (or CockroachDB, YugabyteDB), MySQL/MariaDB or SQLite", d.Name)
	}
	return d.SQLFamily(), d.Name, nil
}

// loadSpec is what the rows are made from.
type loadSpec struct {
	dist               Distribution
	seed               uint64
	count              int64
	minBytes, maxBytes int
	// blob wraps the values so SQLite's CopyFrom binds them as BLOBs (it stores a plain []byte as
	// TEXT, for the text columns of the other workloads).
	blob bool
}

// blob is a value bound as bytes through database/sql's driver.Valuer.
type blob []byte

func (b blob) Value() (sqldriver.Value, error) { return []byte(b), nil }

// chunkRows is one chunk's rows, sorted by key, as a driver.RowSource.
type chunkRows struct {
	keys []int64
	vals [][]byte
	blob bool
	i    int
	row  [2]any
}

// makeChunk generates chunk c: rows c*loadChunk up to the count, values from the chunk's stream in
// sequence order, then sorted by key (so each chunk writes one run of the key order).
func makeChunk(s loadSpec, c int64) *chunkRows {
	first := c * loadChunk
	n := int(min(loadChunk, s.count-first))
	r := gen.New(gen.Derive(s.seed, "kv", "load", c))
	ch := &chunkRows{keys: make([]int64, n), vals: make([][]byte, n), blob: s.blob}
	// Never nil, so that an empty value is empty, not NULL.
	buf := make([]byte, 0, n*(s.minBytes+s.maxBytes)/2+1)
	for i := range n {
		ch.keys[i] = loadKey(s.dist, first+int64(i), s.seed)
		start := len(buf)
		buf = fillBlock(r, buf, s.minBytes, s.maxBytes)
		ch.vals[i] = buf[start:len(buf):len(buf)]
	}
	if s.dist.hashed() {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return cmpInt64(ch.keys[a], ch.keys[b]) })
		keys, vals := make([]int64, n), make([][]byte, n)
		for j, i := range idx {
			keys[j], vals[j] = ch.keys[i], ch.vals[i]
		}
		ch.keys, ch.vals = keys, vals
	}
	return ch
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (c *chunkRows) Next() bool {
	if c.i >= len(c.keys) {
		return false
	}
	c.i++
	return true
}

func (c *chunkRows) Values() ([]any, error) {
	c.row[0] = c.keys[c.i-1]
	if c.blob {
		c.row[1] = blob(c.vals[c.i-1])
	} else {
		c.row[1] = c.vals[c.i-1]
	}
	return c.row[:], nil
}

func (c *chunkRows) Err() error { return nil }

// loadRows copies the chunks on `loaders` connections, each chunk in one CopyFrom, and returns the
// rows written. The first error stops every loader.
func loadRows(ctx context.Context, db driver.DB, s loadSpec, loaders int, setup []string, progress func(int64)) (int64, error) {
	chunks := (s.count + loadChunk - 1) / loadChunk
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
				n, err := c.CopyFrom(ctx, table, []string{"k", "v"}, src)
				if err != nil {
					fail(fmt.Errorf("loading rows %d to %d: %w", ch*loadChunk, ch*loadChunk+int64(len(src.keys))-1, err))
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
	if rows != s.count {
		return rows, fmt.Errorf("the load wrote %d rows, not %d", rows, s.count)
	}
	return rows, nil
}

// Loaded reports whether db holds a complete kv load agreeing with the options given that decide
// the data: --insert-count, the key layout (--sequential or --zipfian: hashed uniform keys, or the
// dense keys 0..insert-count-1 that sequential and zipfian runs share) and the block sizes. Options
// not given take the load's, as a run does (Open); the seed never counts: a run reads the keys of
// the load's seed, recorded with it. No kv data is "not loaded"; a half-finished load, or one that
// disagrees with an option given, is a user error naming the fix.
func (k *KV) Loaded(ctx context.Context, db driver.DB) (bool, error) {
	st, rec, err := readRecord(ctx, db)
	if err != nil {
		return false, err
	}
	switch st.Status {
	case loadstate.NotFound:
		fam, _, err := dialectOf(db)
		if err != nil {
			return false, err
		}
		c, err := db.Connect(ctx)
		if err != nil {
			return false, err
		}
		defer c.Close()
		if has, err := loadstate.TableExists(ctx, c, fam, table); err != nil || !has {
			return false, err
		}
		return false, userr.Errorf("the database at %s has a table kv that candor did not record loading: replace it with candor kv load --drop --db %s", db.Redacted(), db.Redacted())
	case loadstate.HalfLoaded:
		return false, halfLoaded(db, st)
	}
	o := k.resolve()
	var diff []string
	if k.given("insert-count") && o.InsertCount != rec.InsertCount {
		diff = append(diff, fmt.Sprintf("--insert-count %d (loaded: %d)", o.InsertCount, rec.InsertCount))
	}
	if (k.given("sequential") || k.given("zipfian")) && o.Distribution.keyLayout() != rec.Keys {
		diff = append(diff, fmt.Sprintf("%s keys (loaded: %s)", o.Distribution, rec.Distribution))
	}
	lo, hi := rec.MinBlockBytes, rec.MaxBlockBytes
	if k.given("min-block-bytes") {
		lo = o.MinBlockBytes
	}
	if k.given("max-block-bytes") {
		hi = o.MaxBlockBytes
	}
	if lo != rec.MinBlockBytes || hi != rec.MaxBlockBytes {
		diff = append(diff, fmt.Sprintf("values of %s bytes (loaded: %s)", blockRange(lo, hi), blockRange(rec.MinBlockBytes, rec.MaxBlockBytes)))
	}
	if len(diff) > 0 {
		return false, userr.Errorf("the kv data at %s was loaded with other options: %s; drop those flags to use the loaded data, or reload with candor kv load --drop --db %s", db.Redacted(), joinList(diff), db.Redacted())
	}
	return true, nil
}

func halfLoaded(db driver.DB, st loadstate.State) error {
	return userr.Errorf("the kv load of %s never completed (started %s UTC): it is half-loaded and must not be used; reload with candor kv load --drop --db %s",
		db.Redacted(), st.StartedAt.Format(time.DateTime), db.Redacted())
}

// readRecord reads kv's row of candor_workloads and its options.
func readRecord(ctx context.Context, db driver.DB) (loadstate.State, record, error) {
	if _, _, err := dialectOf(db); err != nil {
		return loadstate.State{}, record{}, err
	}
	st, err := loadstate.Read(ctx, db, "kv")
	if err != nil || st.Status == loadstate.NotFound {
		return st, record{}, err
	}
	var rec record
	if err := st.Decode(&rec); err != nil {
		return st, record{}, userr.Errorf("%v", err)
	}
	if rec.CycleLength < 1 {
		rec.CycleLength = math.MaxInt64
	}
	return st, rec, nil
}
