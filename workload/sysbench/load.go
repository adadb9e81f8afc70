package sysbench

import (
	"context"
	"fmt"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/bulkload"
	"github.com/candor-bench/candor/workload/loadstate"
	"github.com/candor-bench/candor/workload/sqlexec"
	"github.com/candor-bench/candor/workload/textfmt"
	"slices"
	"strconv"
	"strings"
)

// The load is oltp_common.lua's prepare: for each table sbtestN, the table, then --table-size rows
// with ids 1..table-size, k drawn by sysbench.rand.default(1, table-size) (the --rand-type of the
// load), c and pad random digit groups (rand.go), then the secondary index k_N. The rows go in
// through the engine's bulk path (package bulkload) in chunks, each chunk's values from its own
// stream gen.Derive(seed, "sysbench", "load", table, chunk), so the same seed gives the same rows
// whatever the number of loaders. The load is recorded in candor_workloads under "sysbench".

const loadChunk = 10000

// record is what sysbench keeps in candor_workloads' options.
type record struct {
	Tables    int      `json:"tables"`
	TableSize int      `json:"table_size"`
	RandType  RandType `json:"rand_type"`
	// Changed says a run since the load deleted or inserted rows (oltp_delete, oltp_insert: the
	// row counts may differ from the load's); the delete/insert pairs keep them.
	Changed bool `json:"changed,omitempty"`
	// DoltTables and TypesTable: the load made the tables of Dolt's suite (dolt.go): sbdolt1 and
	// sbdolt2, and sbtypes.
	DoltTables bool `json:"dolt_tables,omitempty"`
	TypesTable bool `json:"types_table,omitempty"`
}

// extras are the tables of Dolt's suite the load holds.
func (r record) extras() extraTables {
	var e extraTables
	if r.DoltTables {
		e |= tablesDolt
	}
	if r.TypesTable {
		e |= tablesTypes
	}
	return e
}

// newRecord is the record of a load of o.
func newRecord(o *Options) record {
	e := loadExtras(o)
	return record{Tables: o.Tables, TableSize: o.TableSize, RandType: o.RandType, DoltTables: e&tablesDolt != 0, TypesTable: e&tablesTypes != 0}
}

func init() {
	loadstate.Register(loadstate.Claim{Workload: "sysbench", Owns: func(n string) bool {
		if slices.Contains(extraNames, n) {
			return true
		}
		d, ok := strings.CutPrefix(n, "sbtest")
		_, err := strconv.Atoi(d)
		return ok && err == nil && d != "" && d[0] != '0'
	}})
}

// roomFor is room for a load of n tables: each of sbtest1..n is made.
func roomFor(n int) bulkload.Room {
	r := room
	for i := 1; i <= n; i++ {
		r.Tables = append(r.Tables, tableName(i))
	}
	r.Tables = append(r.Tables, extraNames...)
	return r
}

// room is what a load replaces: sbtest1..N and the record (sbtest1 tells whether tables exist).
var room = bulkload.Room{Workload: "sysbench", Table: "sbtest1", Name: "sbtest1",
	Describe: func(st loadstate.State) string {
		var r record
		if st.Decode(&r) != nil {
			return ""
		}
		return fmt.Sprintf(" (%d tables of %s rows, loaded %s UTC)", r.Tables, textfmt.Thousands(int64(r.TableSize)), st.StartedAt.Format(time.DateTime))
	},
	DropTables: func(ctx context.Context, ctl driver.Conn, st loadstate.State) error {
		n := 1
		var r record
		if st.Status != loadstate.NotFound && st.Decode(&r) == nil {
			n = max(n, r.Tables)
		}
		for i := 1; i <= n; i++ {
			if _, err := ctl.Exec(ctx, "DROP TABLE IF EXISTS "+tableName(i)); err != nil {
				return fmt.Errorf("dropping the old %s: %w", tableName(i), err)
			}
		}
		for _, t := range extraNames { // Dolt's tables, whether or not the load made them
			if _, err := ctl.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
				return fmt.Errorf("dropping the old %s: %w", t, err)
			}
		}
		return nil
	}}

// Load creates and fills the tables.
func (s *Sysbench) Load(ctx context.Context, db driver.DB, o workload.LoadOptions) (workload.LoadResult, error) {
	opt := s.resolve()
	fam, engine, err := sqlexec.Dialect(db, "sysbench")
	if err != nil {
		return workload.LoadResult{}, err
	}
	if o.Shard.Sharded() {
		return s.loadShard(ctx, db, o, opt, fam, engine)
	}
	ctl, _, err := roomFor(opt.Tables).Begin(ctx, db, o, newRecord(&opt))
	if err != nil {
		return workload.LoadResult{}, err
	}
	defer ctl.Close()
	d := newDist(&opt)
	var rows int64
	for t := 1; t <= opt.Tables; t++ {
		if _, err := ctl.Exec(ctx, createSQL(fam, t)); err != nil {
			return workload.LoadResult{}, fmt.Errorf("creating %s: %w", tableName(t), err)
		}
		size := int64(opt.TableSize)
		n, err := bulkload.Run(ctx, db, o, bulkload.Copy{Workload: "sysbench", Table: tableName(t), Columns: []string{"id", "k", "c", "pad"},
			Chunks: (size + loadChunk - 1) / loadChunk, Rows: size,
			Chunk: func(c int64) driver.RowSource { return makeChunk(o.Seed, d, t, opt.TableSize, c) },
			Failed: func(c int64, src driver.RowSource, err error) error {
				first := c*loadChunk + 1
				return fmt.Errorf("loading ids %d to %d of %s: %w", first, first+int64(src.(*chunkRows).N)-1, tableName(t), err)
			}})
		if err != nil {
			return workload.LoadResult{}, err
		}
		rows += n
		if err := indexTable(ctx, ctl, fam, engine, t); err != nil {
			return workload.LoadResult{}, err
		}
	}
	extra := loadExtras(&opt)
	n, err := loadExtra(ctx, ctl, fam, extra, opt.TableSize)
	if err != nil {
		return workload.LoadResult{}, err
	}
	rows += n
	if err := tableStats(ctx, ctl, fam, engine, opt.Tables); err != nil {
		return workload.LoadResult{}, err
	}
	if err := extraStats(ctx, ctl, fam, engine, extra); err != nil {
		return workload.LoadResult{}, err
	}
	res, err := bulkload.Finish(ctx, db, ctl, "sysbench", tableName(opt.Tables), rows)
	if err != nil {
		return workload.LoadResult{}, err
	}
	res.Summary = fmt.Sprintf("%d table%s of %s rows (k: %s)%s", opt.Tables, plural(opt.Tables), textfmt.Thousands(int64(opt.TableSize)), opt.RandType, extraNote(extra))
	return res, nil
}

// A sharded load (o.Shard): the chunks of every table, numbered table after table, split by
// workload.Shard.Range, so shard i loads the same rows (by table, id and chunk stream) an unsharded
// load writes. Shard 0 makes the room, the records (parts.BeginShards) and every table; the
// others wait for them; shard 0 builds the k indexes, moves the id sequences and runs the
// statistics once every part is complete, then marks the load complete.
func (s *Sysbench) loadShard(ctx context.Context, db driver.DB, o workload.LoadOptions, opt Options, fam, engine string) (workload.LoadResult, error) {
	rec := newRecord(&opt)
	var ctl driver.Conn
	resumed := false
	if o.Shard.Index > 0 {
		st, got, err := loadstate.Joined[record](ctx, db, parts, o)
		if err != nil {
			return workload.LoadResult{}, err
		}
		if got.Tables != rec.Tables || got.TableSize != rec.TableSize || got.RandType != rec.RandType || st.Seed != o.Seed {
			return workload.LoadResult{}, userr.Errorf("shard 0 began a sysbench load of %d tables of %d rows (k: %s, seed %d): give every shard the same --tables, --table-size, --rand-type and --seed", got.Tables, got.TableSize, got.RandType, st.Seed)
		}
	} else {
		var err error
		if ctl, resumed, err = roomFor(opt.Tables).Begin(ctx, db, o, rec); err != nil {
			return workload.LoadResult{}, err
		}
		defer ctl.Close()
		for t := 1; t <= opt.Tables && !resumed; t++ {
			if _, err := ctl.Exec(ctx, createSQL(fam, t)); err != nil {
				return workload.LoadResult{}, fmt.Errorf("creating %s: %w", tableName(t), err)
			}
		}
	}
	d := newDist(&opt)
	per := (int64(opt.TableSize) + loadChunk - 1) / loadChunk
	var rows int64
	for t := 1; t <= opt.Tables && !resumed; t++ { // resumed: shard 0's rows are in already
		first, n := shardChunks(o.Shard, opt.Tables, per, t)
		if n == 0 {
			continue
		}
		size := int64(opt.TableSize)
		got, err := bulkload.Run(ctx, db, o, bulkload.Copy{Workload: "sysbench", Table: tableName(t), Columns: []string{"id", "k", "c", "pad"},
			Chunks: n, Rows: min(size, (first+n)*loadChunk) - first*loadChunk,
			Chunk: func(c int64) driver.RowSource { return makeChunk(o.Seed, d, t, opt.TableSize, first+c) },
			Failed: func(c int64, src driver.RowSource, err error) error {
				id := (first+c)*loadChunk + 1
				return fmt.Errorf("loading ids %d to %d of %s: %w", id, id+int64(src.(*chunkRows).N)-1, tableName(t), err)
			}})
		if err != nil {
			return workload.LoadResult{}, err
		}
		rows += got
	}
	summary := fmt.Sprintf("shard %s's part of %d table%s of %s rows (k: %s)%s", o.Shard, opt.Tables, plural(opt.Tables), textfmt.Thousands(int64(opt.TableSize)), opt.RandType, bulkload.ResumedNote(resumed))
	if finish, err := parts.Done(ctx, db, o); err != nil || !finish {
		return workload.LoadResult{Rows: rows, Summary: summary}, err // shard i > 0: shard 0 finishes
	}
	// Resumed, shard 0 may have been stopped while it built the k indexes: those there are whole
	// (loadstate.Keys), the rest are built now.
	var built loadstate.Keys
	if resumed {
		var err error
		if built, err = loadstate.ReadKeys(ctx, ctl, fam); err != nil {
			return workload.LoadResult{}, err
		}
	}
	for t := 1; t <= opt.Tables; t++ {
		if built.Indexes[indexName(t)] {
			if err := moveSequence(ctx, ctl, fam, engine, t); err != nil {
				return workload.LoadResult{}, err
			}
			continue
		}
		if err := indexTable(ctx, ctl, fam, engine, t); err != nil {
			return workload.LoadResult{}, err
		}
	}
	// Dolt's tables, small and inserted by one connection, by shard 0 once the parts are in (a
	// resumed shard 0 makes them again).
	extra := rec.extras()
	for _, t := range extraNames {
		if _, err := ctl.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return workload.LoadResult{}, err
		}
	}
	n, err := loadExtra(ctx, ctl, fam, extra, opt.TableSize)
	if err != nil {
		return workload.LoadResult{}, err
	}
	rows += n
	if err := tableStats(ctx, ctl, fam, engine, opt.Tables); err != nil {
		return workload.LoadResult{}, err
	}
	if err := extraStats(ctx, ctl, fam, engine, extra); err != nil {
		return workload.LoadResult{}, err
	}
	res, err := bulkload.Finish(ctx, db, ctl, "sysbench", tableName(opt.Tables), rows)
	if err != nil {
		return workload.LoadResult{}, err
	}
	res.Summary = summary + extraNote(extra) + ", and the whole load completed"
	return res, nil
}

// shardChunks is the chunks of table t (1-based) that shard s loads, [first, first+n), of the
// tables' chunks numbered table after table (per chunks each).
func shardChunks(s workload.Shard, tables int, per int64, t int) (first, n int64) {
	lo, hi := s.Range(tables * int(per)) // 1-based global chunks
	tlo, thi := int64(t-1)*per+1, int64(t)*per
	a, b := max(int64(lo), tlo), min(int64(hi), thi)
	if a > b {
		return 0, 0
	}
	return a - tlo, b - a + 1
}

var _ workload.Sharder = (*Sysbench)(nil)

// parts is the bookkeeping of a sharded sysbench load (loadstate's shards.go).
var parts = loadstate.Parts{Name: "sysbench"}

// ShardRows is the rows shard s's part of the load writes (workload.Sharder).
func (s *Sysbench) ShardRows(sh workload.Shard) int64 {
	opt := s.resolve()
	size := int64(opt.TableSize)
	per := (size + loadChunk - 1) / loadChunk
	var rows int64
	for t := 1; t <= opt.Tables; t++ {
		if first, n := shardChunks(sh, opt.Tables, per, t); n > 0 {
			rows += min(size, (first+n)*loadChunk) - first*loadChunk
		}
	}
	return rows
}

// MissingShards is the parts of a sysbench load split over count shards not complete yet
// (workload.Sharder).
func (s *Sysbench) MissingShards(ctx context.Context, db driver.DB, count int) ([]int, error) {
	if _, _, err := sqlexec.Dialect(db, "sysbench"); err != nil {
		return nil, err
	}
	return parts.Missing(ctx, db, count)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// chunkRows is one chunk's rows as a driver.RowSource.
type chunkRows struct {
	bulkload.Cursor
	first int64
	k     []int64
	c     []string
	pad   []string
	row   [4]any
}

// makeChunk makes chunk c of table t: ids c*loadChunk+1 on, each row's k, c and pad drawn in
// that order (oltp_common.lua draws c and pad before k; the values are the same in law).
func makeChunk(seed uint64, d *dist, t, size int, c int64) *chunkRows {
	first := c * loadChunk
	n := int(min(loadChunk, int64(size)-first))
	r := gen.New(gen.Derive(seed, "sysbench", "load", t, c))
	ch := &chunkRows{Cursor: bulkload.Cursor{N: n}, first: first + 1, k: make([]int64, n), c: make([]string, n), pad: make([]string, n)}
	buf := make([]byte, 0, 120)
	for i := range n {
		buf = appendDigits(buf[:0], r, cGroups)
		ch.c[i] = string(buf)
		buf = appendDigits(buf[:0], r, padGroups)
		ch.pad[i] = string(buf)
		ch.k[i] = int64(d.draw(r, 1, uint32(size)))
	}
	return ch
}

func (c *chunkRows) Values() ([]any, error) {
	i := c.Row()
	c.row[0], c.row[1], c.row[2], c.row[3] = c.first+int64(i), c.k[i], c.c[i], c.pad[i]
	return c.row[:], nil
}

// Loaded reports whether db holds a complete sysbench load agreeing with --tables and
// --table-size when given.
func (s *Sysbench) Loaded(ctx context.Context, db driver.DB) (bool, error) {
	st, rec, err := readRecord(ctx, db)
	if err != nil {
		return false, err
	}
	if ok, err := room.Usable(ctx, db, st); !ok {
		return false, err
	}
	if d := s.differs(rec); len(d) > 0 {
		return false, userr.Errorf("the sysbench data at %s was loaded with other options: %s; drop those flags to use the loaded data, or reload with candor sysbench load --drop --db %s", db.Redacted(), textfmt.List(d), db.Redacted())
	}
	return true, nil
}

// differs lists the options given that disagree with the load: --table-size other than loaded,
// --tables above the tables loaded (fewer run on a subset, as sysbench's do).
func (s *Sysbench) differs(rec record) []string {
	var d []string
	if s.given("tables") && s.o.Tables > rec.Tables {
		d = append(d, fmt.Sprintf("--tables %d (loaded: %d)", s.o.Tables, rec.Tables))
	}
	if s.given("table-size") && s.o.TableSize != rec.TableSize {
		d = append(d, fmt.Sprintf("--table-size %d (loaded: %d)", s.o.TableSize, rec.TableSize))
	}
	if s.o.DoltTables && rec.extras() != tablesAll {
		d = append(d, "--dolt-tables (the load did not make all of Dolt's tables)")
	}
	if t, ok := findTest(s.o.Test); ok && t.tables&^rec.extras() != 0 {
		d = append(d, fmt.Sprintf("--test %s runs on Dolt's tables %s, which the load did not make (load them with --dolt-tables or --test %s)",
			t.name, strings.Join(t.tables.names(), ", "), t.name))
	}
	return d
}

// readRecord reads sysbench's row of candor_workloads.
func readRecord(ctx context.Context, db driver.DB) (loadstate.State, record, error) {
	if _, _, err := sqlexec.Dialect(db, "sysbench"); err != nil {
		return loadstate.State{}, record{}, err
	}
	return loadstate.ReadRecord[record](ctx, db, "sysbench")
}

// indexTable builds table t's k index once its rows are in and, on PostgreSQL, moves its id
// sequence past the rows loaded.
func indexTable(ctx context.Context, ctl driver.Conn, fam, engine string, t int) error {
	if _, err := ctl.Exec(ctx, indexSQL(t)); err != nil {
		return fmt.Errorf("creating the index %s: %w", indexName(t), err)
	}
	return moveSequence(ctx, ctl, fam, engine, t)
}

// moveSequence moves table t's id sequence past the rows loaded (sequenceSQL), on PostgreSQL
// itself; it can be done again.
func moveSequence(ctx context.Context, ctl driver.Conn, fam, engine string, t int) error {
	if fam == sqlexec.FamilyPostgres && engine == "postgres" {
		if _, err := ctl.Exec(ctx, sequenceSQL(t)); err != nil {
			return fmt.Errorf("moving %s's id sequence past the rows loaded: %w", tableName(t), err)
		}
	}
	return nil
}

// extraNote is the load summary's words on Dolt's tables.
func extraNote(e extraTables) string {
	if e == 0 {
		return ""
	}
	return ", and Dolt's tables " + strings.Join(e.names(), ", ")
}

// extraStats gathers the statistics of Dolt's tables (none on SQLite, as tableStats).
func extraStats(ctx context.Context, ctl driver.Conn, fam, engine string, e extraTables) error {
	for _, t := range e.names() {
		if fam == sqlexec.FamilySQLite {
			break
		}
		for _, q := range bulkload.StatsSQL(fam, engine, t) {
			if _, err := ctl.Exec(ctx, q); err != nil {
				return fmt.Errorf("after the load (%s): %w", q, err)
			}
		}
	}
	return nil
}

// tableStats gathers the statistics of every table but the last (bulkload.Finish does the last's);
// none on SQLite, whose checkpoint PRAGMA would hold the control connection's next DDL in an open
// transaction.
func tableStats(ctx context.Context, ctl driver.Conn, fam, engine string, tables int) error {
	for t := 1; t < tables && fam != sqlexec.FamilySQLite; t++ {
		for _, q := range bulkload.StatsSQL(fam, engine, tableName(t)) {
			if _, err := ctl.Exec(ctx, q); err != nil {
				return fmt.Errorf("after the load (%s): %w", q, err)
			}
		}
	}
	return nil
}
