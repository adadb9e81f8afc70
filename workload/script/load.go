package script

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/bulkload"
	"github.com/candor-bench/candor/workload/loadstate"
	"github.com/candor-bench/candor/workload/script/pgscript"
	"github.com/candor-bench/candor/workload/sqlexec"
	"github.com/candor-bench/candor/workload/textfmt"
)

// The load is pgbench -i's (pgbench.c: initCreateTables, initGenerateDataClientSide,
// initCreatePKeys) at --scale N: pgbench_branches 1×N rows (bbalance 0, filler NULL),
// pgbench_tellers 10×N (bid = (tid-1)/10+1, tbalance 0, filler NULL), pgbench_accounts
// 100,000×N (bid = (aid-1)/100000+1, abalance 0, filler ''), pgbench_history empty; fillers
// char(88), char(84), char(84) and char(22). The rows go in through the engine's bulk path
// (package bulkload). pgbench adds the primary keys after the rows; so does candor on the
// PostgreSQL family. MySQL's InnoDB clusters a table on its primary key (added later, the table is
// rebuilt) and SQLite cannot add one, so there the keys are in CREATE TABLE and the rows go in in
// key order. The load is recorded in candor_workloads under "script" with its scale, which a
// run's :scale reads.

const (
	accountsPerBranch = 100000
	tellersPerBranch  = 10
	// maxScale keeps aid within an INTEGER, as pgbench's int columns below scale 20000.
	maxScale  = 20000 - 1
	loadChunk = 10000
)

// record is what the script workload keeps in candor_workloads' options.
type record struct {
	Scale int `json:"scale"`
}

var tables = []string{"pgbench_history", "pgbench_tellers", "pgbench_accounts", "pgbench_branches"}

func init() {
	loadstate.Register(loadstate.Claim{Workload: "script", Owns: loadstate.Names(tables...)})
}

var room = bulkload.Room{Workload: "script", Table: "pgbench_accounts", Name: "pgbench_accounts", Tables: tables,
	Describe: func(st loadstate.State) string {
		var r record
		if st.Decode(&r) != nil {
			return ""
		}
		return fmt.Sprintf(" (scale %d, loaded %s UTC)", r.Scale, st.StartedAt.Format(time.DateTime))
	},
	DropTables: func(ctx context.Context, ctl driver.Conn, _ loadstate.State) error {
		for _, t := range tables {
			if _, err := ctl.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
				return fmt.Errorf("dropping the old %s: %w", t, err)
			}
		}
		return nil
	}}

// createSQL is pgbench's tables; keys in CREATE TABLE except on PostgreSQL's family (see above).
func createSQL(fam string) []string {
	pk := func(col string) string {
		if fam == sqlexec.FamilyPostgres {
			return ""
		}
		return ", PRIMARY KEY (" + col + ")"
	}
	ts := "timestamp"
	if fam == sqlexec.FamilyMySQL {
		ts = "datetime(6)"
	}
	return []string{
		"CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime " + ts + ", filler char(22))",
		"CREATE TABLE pgbench_tellers (tid int NOT NULL, bid int, tbalance int, filler char(84)" + pk("tid") + ")",
		"CREATE TABLE pgbench_accounts (aid int NOT NULL, bid int, abalance int, filler char(84)" + pk("aid") + ")",
		"CREATE TABLE pgbench_branches (bid int NOT NULL, bbalance int, filler char(88)" + pk("bid") + ")",
	}
}

// keys are pgbench's initCreatePKeys (ALTER TABLE table ADD PRIMARY KEY (column)), on
// PostgreSQL's family.
var keys = [...]struct{ table, column string }{
	{"pgbench_branches", "bid"},
	{"pgbench_tellers", "tid"},
	{"pgbench_accounts", "aid"},
}

// Load creates and fills pgbench's tables.
func (s *Script) Load(ctx context.Context, db driver.DB, o workload.LoadOptions) (workload.LoadResult, error) {
	fam, engine, err := sqlexec.Dialect(db, "script")
	if err != nil {
		return workload.LoadResult{}, err
	}
	scale := s.o.Scale
	sc := int64(scale)
	var ctl driver.Conn
	resumed := false
	if o.Shard.Sharded() && o.Shard.Index > 0 {
		// A sharded load (o.Shard): shard 0 makes the room, the records and the tables, and writes
		// the branches and tellers; every shard writes its chunks of the accounts (the same rows as
		// one process's); shard 0 adds the keys and statistics once every part is complete.
		_, got, err := loadstate.Joined[record](ctx, db, parts, o)
		if err != nil {
			return workload.LoadResult{}, err
		}
		if got.Scale != scale {
			return workload.LoadResult{}, userr.Errorf("shard 0 began a script load at scale %d, not %d: give every shard the same --scale", got.Scale, scale)
		}
	} else {
		if ctl, resumed, err = room.Begin(ctx, db, o, record{Scale: scale}); err != nil {
			return workload.LoadResult{}, err
		}
		defer ctl.Close()
		for _, q := range createSQL(fam) {
			if resumed {
				break // the tables and shard 0's rows are there
			}
			if _, err := ctl.Exec(ctx, q); err != nil {
				return workload.LoadResult{}, fmt.Errorf("creating pgbench's tables (%s): %w", q, err)
			}
		}
	}
	var rows int64
	copyTable := func(table string, cols []string, n int64, sh workload.Shard, row func(i int64, v []any)) error {
		if resumed {
			return nil // shard 0's rows are in already
		}
		first, chunks, held := sh.Chunks(n, loadChunk)
		written, err := bulkload.Run(ctx, db, o, bulkload.Copy{Workload: "script", Table: table, Columns: cols,
			Chunks: chunks, Rows: held,
			Chunk: func(c int64) driver.RowSource {
				first := (first + c) * loadChunk
				return &genRows{Cursor: bulkload.Cursor{N: int(min(loadChunk, n-first))}, first: first, row: row, v: make([]any, len(cols))}
			},
			Failed: func(c int64, src driver.RowSource, err error) error {
				from := (first+c)*loadChunk + 1
				return fmt.Errorf("loading rows %d to %d of %s: %w", from, from+int64(src.(*genRows).N)-1, table, err)
			}})
		rows += written
		return err
	}
	if o.Shard.Index == 0 {
		if err := copyTable("pgbench_branches", []string{"bid", "bbalance"}, sc, workload.Shard{}, func(i int64, v []any) {
			v[0], v[1] = i+1, int64(0)
		}); err != nil {
			return workload.LoadResult{}, err
		}
		if err := copyTable("pgbench_tellers", []string{"tid", "bid", "tbalance"}, sc*tellersPerBranch, workload.Shard{}, func(i int64, v []any) {
			v[0], v[1], v[2] = i+1, i/tellersPerBranch+1, int64(0)
		}); err != nil {
			return workload.LoadResult{}, err
		}
	}
	if err := copyTable("pgbench_accounts", []string{"aid", "bid", "abalance", "filler"}, sc*accountsPerBranch, o.Shard, func(i int64, v []any) {
		v[0], v[1], v[2], v[3] = i+1, i/accountsPerBranch+1, int64(0), ""
	}); err != nil {
		return workload.LoadResult{}, err
	}
	summary := fmt.Sprintf("pgbench's tables at scale %d (%s accounts)", scale, textfmt.Thousands(sc*accountsPerBranch))
	if o.Shard.Sharded() {
		summary = "shard " + o.Shard.String() + "'s part of " + summary + bulkload.ResumedNote(resumed)
	}
	if finish, err := parts.Done(ctx, db, o); err != nil || !finish {
		return workload.LoadResult{Rows: rows, Summary: summary}, err // shard i > 0: shard 0 finishes
	}
	if o.Shard.Sharded() {
		summary += ", and the whole load completed"
	}
	if fam == sqlexec.FamilyPostgres {
		// Resumed, shard 0 may have been stopped while it added the keys: those there are whole
		// (loadstate.Keys), the rest are added now.
		var built loadstate.Keys
		if resumed {
			if built, err = loadstate.ReadKeys(ctx, ctl, fam); err != nil {
				return workload.LoadResult{}, err
			}
		}
		for _, k := range keys {
			if built.PrimaryKeys[k.table] {
				continue
			}
			q := "ALTER TABLE " + k.table + " ADD PRIMARY KEY (" + k.column + ")"
			if _, err := ctl.Exec(ctx, q); err != nil {
				return workload.LoadResult{}, fmt.Errorf("adding the primary keys (%s): %w", q, err)
			}
		}
	}
	for _, t := range tables[:3] {
		if fam == sqlexec.FamilySQLite {
			break // ANALYZE once, in Finish
		}
		for _, q := range bulkload.StatsSQL(fam, engine, t) {
			if _, err := ctl.Exec(ctx, q); err != nil {
				return workload.LoadResult{}, fmt.Errorf("after the load (%s): %w", q, err)
			}
		}
	}
	res, err := bulkload.Finish(ctx, db, ctl, "script", "pgbench_branches", rows)
	if err != nil {
		return workload.LoadResult{}, err
	}
	res.Summary = summary
	return res, nil
}

var _ workload.Sharder = (*Script)(nil)

// parts is the bookkeeping of a sharded script load (loadstate's shards.go).
var parts = loadstate.Parts{Name: "script"}

// ShardRows is the rows shard s's part of the load writes (workload.Sharder): its accounts, and
// shard 0 the branches and tellers too.
func (s *Script) ShardRows(sh workload.Shard) int64 {
	sc := int64(s.o.Scale)
	_, _, rows := sh.Chunks(sc*accountsPerBranch, loadChunk)
	if sh.Index == 0 {
		rows += sc + sc*tellersPerBranch
	}
	return rows
}

// MissingShards is the parts of a script load split over count shards not complete yet
// (workload.Sharder).
func (s *Script) MissingShards(ctx context.Context, db driver.DB, count int) ([]int, error) {
	if _, _, err := sqlexec.Dialect(db, "script"); err != nil {
		return nil, err
	}
	return parts.Missing(ctx, db, count)
}

// genRows is one chunk of generated rows as a driver.RowSource.
type genRows struct {
	bulkload.Cursor
	first int64
	row   func(i int64, v []any)
	v     []any
}

func (g *genRows) Values() ([]any, error) {
	g.row(g.first+int64(g.Row()), g.v)
	return g.v, nil
}

// Loaded reports whether db holds a complete load of pgbench's tables at --scale. A run of custom
// scripts alone needs no load: it is loaded whatever the database holds.
func (s *Script) Loaded(ctx context.Context, db driver.DB) (bool, error) {
	if s.cmd == workload.CmdOneShot && !s.usesBuiltin() {
		return true, nil
	}
	st, rec, err := readRecord(ctx, db)
	if err != nil {
		return false, err
	}
	if ok, err := room.Usable(ctx, db, st); !ok {
		return false, err
	}
	if s.given("scale") && rec.Scale != s.o.Scale {
		return false, userr.Errorf("pgbench's tables at %s were loaded at scale %d, not %d: drop --scale to use them, or reload with candor script load --drop --scale %d", db.Redacted(), rec.Scale, s.o.Scale, s.o.Scale)
	}
	return true, nil
}

// readRecord reads the script workload's row of candor_workloads.
func readRecord(ctx context.Context, db driver.DB) (loadstate.State, record, error) {
	if _, _, err := sqlexec.Dialect(db, "script"); err != nil {
		return loadstate.State{}, record{}, err
	}
	return loadstate.ReadRecord[record](ctx, db, "script")
}

// NoLoad is what the one-shot says when it loads nothing: a run of the user's own scripts only
// (no built-in) needs no load, and runs on whatever tables db holds; "" when the run needs
// pgbench's tables, which the one-shot loads or finds loaded.
func (s *Script) NoLoad(db string) string {
	if s.usesBuiltin() {
		return ""
	}
	var names []string
	for _, f := range s.o.Files {
		name, _, err := pgscript.ParseWeight(f)
		if err != nil {
			name = f
		}
		names = append(names, name)
	}
	return fmt.Sprintf("no load: %s %s your own, so candor loads nothing and runs %s on the tables %s already holds (create them first, or give -b tpcb-like, or no -f, for pgbench's tables, which candor loads)",
		strings.Join(names, ", "), map[bool]string{true: "is a script of", false: "are scripts of"}[len(names) == 1], map[bool]string{true: "it", false: "them"}[len(names) == 1], db)
}
