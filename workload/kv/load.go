package kv

import (
	"context"
	sqldriver "database/sql/driver"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/bulkload"
	"github.com/candor-bench/candor/workload/loadstate"
	"github.com/candor-bench/candor/workload/sqlexec"
	"github.com/candor-bench/candor/workload/textfmt"
)

// The load: the table kv, then --insert-count rows in parallel through the engine's bulk path
// (driver.Conn.CopyFrom, package bulkload), recorded in candor_workloads (package loadstate) under "kv". Row i is
// sequence number i: its key is loadKey(i) (keys.go) and its value comes from the stream of its
// chunk, gen.Derive(seed, "kv", "load", chunk), drawn in the chunk's key order, so the same seed and
// options give the same rows byte for byte whatever the number of loaders; the values a chunk holds
// at once are bounded in bytes, not rows (chunkBytes, makeChunk).

// loadChunk is the rows of one chunk: one CopyFrom (its own transaction), rows sorted by key. It
// decides which stream a row's value comes from, so the rows a seed makes; the memory a chunk holds
// is bounded in bytes (chunkBytes).
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
	// KeyMax is the largest key a run since the load may have written, when a run's keys reached
	// past the load's range (a larger --cycle-length, or --zipfian on dense keys); 0: none did.
	KeyMax int64 `json:"key_max,omitempty"`
}

// loadRecord is what a load with the options o records.
func loadRecord(o Options) record {
	rec := record{InsertCount: o.InsertCount, Distribution: o.Distribution, Keys: o.Distribution.keyLayout(),
		CycleLength: o.CycleLength, MinBlockBytes: o.MinBlockBytes, MaxBlockBytes: o.MaxBlockBytes}
	if o.InsertCount > 0 {
		rec.wrote(o.MinBlockBytes, o.MaxBlockBytes)
	}
	if rec.CycleLength < 1 {
		rec.CycleLength = math.MaxInt64
	}
	return rec
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
// kv's table or record, unless o.Drop. A sharded load (o.Shard) writes the shard's chunks only
// (workload.Shard.Chunks), the same rows byte for byte as an unsharded load's chunks: shard 0 makes the
// room, the table and the records (parts.BeginShards), the others wait for them and load with
// the load's seed; shard 0 finishes once every part is complete (loadstate's shards.go).
func (k *KV) Load(ctx context.Context, db driver.DB, o workload.LoadOptions) (workload.LoadResult, error) {
	opt := k.resolve()
	fam, _, err := sqlexec.Dialect(db, "kv")
	if err != nil {
		return workload.LoadResult{}, err
	}
	if err := sqlexec.SizeLimits(db, int64(opt.MaxBlockBytes), int64(opt.MaxBlockBytes)+8, valuesWhat(opt.MaxBlockBytes),
		"give a smaller --max-block-bytes"+raiseHint(db)); err != nil {
		return workload.LoadResult{}, err
	}
	rec := loadRecord(opt)
	var ctl driver.Conn
	resumed := false
	if o.Shard.Sharded() && o.Shard.Index > 0 {
		st, got, err := loadstate.Joined[record](ctx, db, parts, o)
		if err != nil {
			return workload.LoadResult{}, err
		}
		if got.InsertCount != rec.InsertCount || got.Keys != rec.Keys || got.MinBlockBytes != rec.MinBlockBytes || got.MaxBlockBytes != rec.MaxBlockBytes || st.Seed != o.Seed {
			return workload.LoadResult{}, userr.Errorf("shard 0 began a kv load with other options (%s, seed %d): give every shard the same load flags and --seed", loadSummary(Options{InsertCount: got.InsertCount, Distribution: got.Distribution, MinBlockBytes: got.MinBlockBytes, MaxBlockBytes: got.MaxBlockBytes}), st.Seed)
		}
	} else {
		if ctl, resumed, err = room.Begin(ctx, db, o, rec); err != nil {
			return workload.LoadResult{}, err
		}
		defer ctl.Close()
		if !resumed {
			if _, err := ctl.Exec(ctx, createSQL(fam)); err != nil {
				return workload.LoadResult{}, fmt.Errorf("creating the kv table: %w", err)
			}
		}
	}
	var rows int64
	if !resumed {
		if rows, err = k.loadRows(ctx, db, o, opt, fam); err != nil {
			return workload.LoadResult{}, err
		}
	}
	summary := loadSummary(opt)
	if o.Shard.Sharded() {
		summary = "shard " + o.Shard.String() + "'s part of " + summary + bulkload.ResumedNote(resumed)
	}
	if finish, err := parts.Done(ctx, db, o); err != nil || !finish {
		return workload.LoadResult{Rows: rows, Summary: summary}, err // shard i > 0: shard 0 finishes
	}
	res, err := bulkload.Finish(ctx, db, ctl, "kv", table, rows)
	if err != nil {
		return workload.LoadResult{}, err
	}
	res.Summary = summary
	if o.Shard.Sharded() {
		res.Summary += ", and the whole load completed"
	}
	return res, nil
}

// ShardRows is the rows shard s's part of the load writes (workload.Sharder).
func (k *KV) ShardRows(s workload.Shard) int64 {
	_, _, rows := s.Chunks(k.resolve().InsertCount, loadChunk)
	return rows
}

// MissingShards is the parts of a kv load split over count shards not complete yet
// (workload.Sharder).
func (k *KV) MissingShards(ctx context.Context, db driver.DB, count int) ([]int, error) {
	if _, _, err := sqlexec.Dialect(db, "kv"); err != nil {
		return nil, err
	}
	return parts.Missing(ctx, db, count)
}

var _ workload.Sharder = (*KV)(nil)

// parts is the bookkeeping of a sharded kv load (loadstate's shards.go).
var parts = loadstate.Parts{Name: "kv"}

// loadRows copies the rows of this process's chunks (all of them unless sharded).
func (k *KV) loadRows(ctx context.Context, db driver.DB, o workload.LoadOptions, opt Options, fam string) (int64, error) {
	spec := loadSpec{dist: opt.Distribution, seed: o.Seed, count: opt.InsertCount, minBytes: opt.MinBlockBytes,
		maxBytes: opt.MaxBlockBytes, blob: fam == sqlexec.FamilySQLite}
	first, n, rows := o.Shard.Chunks(spec.count, loadChunk)
	return bulkload.Run(ctx, db, o, bulkload.Copy{Workload: "kv", Table: table, Columns: []string{"k", "v"},
		Chunks: n, Rows: rows,
		Chunk: func(c int64) driver.RowSource { return makeChunk(spec, first+c) },
		Failed: func(c int64, src driver.RowSource, err error) error {
			c += first
			return fmt.Errorf("loading rows %d to %d: %w", c*loadChunk, c*loadChunk+int64(src.(*chunkRows).N)-1, err)
		}})
}

// valuesWhat names kv's values of up to max bytes in a refusal.
func valuesWhat(max int) string {
	return fmt.Sprintf("kv's values of up to %s bytes (--max-block-bytes)", textfmt.Thousands(int64(max)))
}

// raiseHint is the refusal's other way out on an engine whose limit is a setting.
func raiseHint(db driver.DB) string {
	if db.Dialect().SQLFamily() == sqlexec.FamilyMySQL {
		return ", or raise max_allowed_packet on the server"
	}
	return ""
}

func loadSummary(o Options) string {
	return fmt.Sprintf("%s keys (%s), values of %s bytes", textfmt.Thousands(o.InsertCount), o.Distribution, blockRange(o.MinBlockBytes, o.MaxBlockBytes))
}

func init() { loadstate.Register(loadstate.Claim{Workload: "kv", Owns: loadstate.Names(table)}) }

// room is what a kv load replaces: the table kv and kv's record.
var room = bulkload.Room{Workload: "kv", Table: table, Name: table,
	Describe: func(st loadstate.State) string {
		var r record
		if st.Decode(&r) != nil {
			return ""
		}
		return fmt.Sprintf(" (%s keys, %s, loaded %s UTC)", textfmt.Thousands(r.InsertCount), r.Distribution, st.StartedAt.Format(time.DateTime))
	},
	DropTables: func(ctx context.Context, ctl driver.Conn, _ loadstate.State) error {
		if _, err := ctl.Exec(ctx, dropSQL); err != nil {
			return fmt.Errorf("dropping the old kv table: %w", err)
		}
		return nil
	}}

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

// chunkBytes bounds the values a chunk makes ahead (made whole, on a generator goroutine of a
// single-writer engine's load, before a loader copies it). A chunk whose values may take more is
// made row by row as it is copied: each value drawn as its row is read, so a load holds a row or
// two per loader, whatever the values' size, and never --insert-count's worth.
const chunkBytes = 16 << 20

// chunkRows is one chunk's rows, sorted by key, as a driver.RowSource.
type chunkRows struct {
	bulkload.Cursor
	keys []int64
	// vals are the values in key order when the chunk was made ahead (ahead); otherwise r draws
	// them as the rows are read, of minBytes..maxBytes.
	vals               [][]byte
	ahead              bool
	r                  *gen.Rand
	minBytes, maxBytes int
	blob               bool
	row                [2]any
}

// aheadBytes is chunkBytes, the most a chunk makes ahead (a variable for the test that both ways
// give the same rows).
var aheadBytes int64 = chunkBytes

// makeChunk generates chunk c: the keys of rows c*loadChunk up to the count, sorted (so each chunk
// writes one run of the key order), then their values from the chunk's stream in key order: all of
// them now when they take at most chunkBytes, else each as its row is read (Values). Either way
// the same rows.
func makeChunk(s loadSpec, c int64) *chunkRows {
	first := c * loadChunk
	n := int(min(loadChunk, s.count-first))
	ch := &chunkRows{Cursor: bulkload.Cursor{N: n}, keys: make([]int64, n), blob: s.blob,
		r: gen.New(gen.Derive(s.seed, "kv", "load", c)), minBytes: s.minBytes, maxBytes: s.maxBytes}
	for i := range n {
		ch.keys[i] = loadKey(s.dist, first+int64(i), s.seed)
	}
	if s.dist.hashed() {
		slices.Sort(ch.keys)
	}
	if int64(n)*int64(s.maxBytes) > aheadBytes {
		return ch
	}
	ch.ahead, ch.vals = true, make([][]byte, n)
	// Never nil, so that an empty value is empty, not NULL.
	buf := make([]byte, 0, n*(s.minBytes+s.maxBytes)/2+1)
	for i := range n {
		start := len(buf)
		buf = fillBlock(ch.r, buf, s.minBytes, s.maxBytes)
		ch.vals[i] = buf[start:len(buf):len(buf)]
	}
	return ch
}

func (c *chunkRows) Values() ([]any, error) {
	i := c.Row()
	c.row[0] = c.keys[i]
	var v []byte
	if c.ahead {
		v = c.vals[i]
	} else {
		// A buffer of its own per row: an engine's bulk path may hold a few rows before it sends them.
		v = fillBlock(c.r, make([]byte, 0, max(1, c.maxBytes)), c.minBytes, c.maxBytes)
	}
	if c.blob {
		c.row[1] = blob(v)
	} else {
		c.row[1] = v
	}
	return c.row[:], nil
}

// PeakMemory is the most bytes of values a load on loaders connections holds at once: on a
// single-writer engine up to about 2 x loaders + 1 chunks are made ahead or being copied, each of at most
// chunkBytes made ahead, or a row being drawn and the engine's copy of it and of the row before.
func (k *KV) PeakMemory(loaders int) int64 {
	o := k.resolve()
	perChunk := min(int64(loadChunk), max(o.InsertCount, 1)) * int64(o.MaxBlockBytes)
	if perChunk > chunkBytes {
		perChunk = 3 * int64(o.MaxBlockBytes)
	}
	return int64(2*max(loaders, 1)+1) * perChunk
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
	if ok, err := room.Usable(ctx, db, st); !ok {
		return false, err
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
		return false, userr.Errorf("the kv data at %s was loaded with other options: %s; drop those flags to use the loaded data, or reload with candor kv load --drop --db %s", db.Redacted(), textfmt.List(diff), db.Redacted())
	}
	return true, nil
}

// readRecord reads kv's row of candor_workloads and its options.
func readRecord(ctx context.Context, db driver.DB) (loadstate.State, record, error) {
	if _, _, err := sqlexec.Dialect(db, "kv"); err != nil {
		return loadstate.State{}, record{}, err
	}
	st, rec, err := loadstate.ReadRecord[record](ctx, db, "kv")
	if err != nil || st.Status == loadstate.NotFound {
		return st, rec, err
	}
	if rec.CycleLength < 1 {
		rec.CycleLength = math.MaxInt64
	}
	return st, rec, nil
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
