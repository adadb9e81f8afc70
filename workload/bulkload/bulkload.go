// Package bulkload is what the workloads' loads share: making room for a load (refusing, or with
// --drop replacing, an earlier one), the parallel chunked copy through the engine's bulk path
// (driver.Conn.CopyFrom) with progress and first-error cancellation, and the closing steps
// (statistics, the load recorded complete in candor_workloads, the bulk path taken).
package bulkload

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/loadstate"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// Room is what a load of a workload replaces: its table and its record in candor_workloads.
type Room struct {
	// Workload is the workload's name in candor_workloads and in messages (kv, ycsb).
	Workload string
	// Table is the table as the engine stores it (loadstate.TableExists), Name as the user names it.
	Table, Name string
	// Hint ends the refusal of a table candor did not record loading (", or -p table=NAME for
	// another table"); may be empty.
	Hint string
	// Describe is what a completed load holds, for the refusal (" (1,000 keys, uniform, loaded
	// 2024-01-02 03:04:05 UTC)"), or "" when unknown.
	Describe func(st loadstate.State) string
	// Tables are every table the load creates, as the engine stores them (Table among them); nil:
	// Table alone. Before anything is dropped or created, each that exists must be the workload's
	// (Owned).
	Tables []string
	// DropTables drops the earlier load's tables on ctl (st is its record, Status NotFound when there
	// is none).
	DropTables func(ctx context.Context, ctl driver.Conn, st loadstate.State) error
}

// Open opens the load's control connection on db (for its DDL; the caller closes it) and makes
// room for the load: when the table exists or a load is recorded, it refuses (a user error naming
// --drop) unless drop; with drop, it drops the tables and forgets the recorded load.
func (r Room) Open(ctx context.Context, db driver.DB, drop bool) (driver.Conn, error) {
	ctl, err := db.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.make(ctx, db, ctl, drop); err != nil {
		ctl.Close()
		return nil, err
	}
	return ctl, nil
}

// Begin opens the load's control connection (the caller closes it), makes room (Open) and records
// the load's start: its record, and in shard 0 of a sharded load every part's row
// (loadstate.Parts.BeginShards). Shard 0 restarted without --drop on a half-loaded load whose
// part is complete resumes it instead (loadstate.Parts.Resumes): resumed, the tables and its rows
// are there already, and the load goes on to wait for the other parts and finish. rec is the
// load's options, which a resumed load must have been begun with, as its seed.
func (r Room) Begin(ctx context.Context, db driver.DB, o workload.LoadOptions, rec any) (ctl driver.Conn, resumed bool, err error) {
	parts := loadstate.Parts{Name: r.Workload}
	if !o.Drop {
		ok, st, err := parts.Resumes(ctx, db, o.Shard)
		if err != nil {
			return nil, false, err
		}
		if ok {
			want, err := json.Marshal(rec)
			if err != nil {
				return nil, false, err
			}
			if string(want) != string(st.Options) || st.Seed != o.Seed {
				return nil, false, userr.Errorf("shard %s's part of the %s load in %s (begun %s UTC) is in, but with other load options or seed (%d): give shard 0 the options and --seed of that load to finish it, or reload every shard with --drop", o.Shard, r.Workload, db.Redacted(), st.StartedAt.Format(time.DateTime), st.Seed)
			}
			if o.Note != nil {
				o.Note(fmt.Sprintf("shard %s: its part of the %s load begun %s UTC is in already; going on to wait for the other parts and finish", o.Shard, r.Workload, st.StartedAt.Format(time.DateTime)))
			}
			ctl, err := db.Connect(ctx)
			return ctl, err == nil, err
		}
	}
	if ctl, err = r.Open(ctx, db, o.Drop); err != nil {
		return nil, false, err
	}
	if o.Shard.Sharded() {
		_, err = parts.BeginShards(ctx, db, o.Shard, rec, o.Seed, o.ToolVersion)
	} else {
		_, err = loadstate.Begin(ctx, db, r.Workload, rec, o.Seed, o.ToolVersion)
	}
	if err != nil {
		ctl.Close()
		return nil, false, err
	}
	return ctl, false, nil
}

// Usable is what a workload's Loaded makes of its record st: a completed load is usable; none
// recorded is not loaded (Unrecorded: or a table candor did not record loading, a user error), and
// a half-loaded one is a user error (loadstate.HalfLoadedError).
func (r Room) Usable(ctx context.Context, db driver.DB, st loadstate.State) (bool, error) {
	switch st.Status {
	case loadstate.NotFound:
		return false, r.Unrecorded(ctx, db)
	case loadstate.HalfLoaded:
		return false, loadstate.HalfLoadedError(db, st)
	}
	return true, nil
}

// ResumedNote ends a resumed shard 0's summary (Begin's resumed), "" otherwise.
func ResumedNote(resumed bool) string {
	if !resumed {
		return ""
	}
	return " (in already: this start waited for the other parts and finished the load)"
}

func (r Room) make(ctx context.Context, db driver.DB, ctl driver.Conn, drop bool) error {
	has, err := loadstate.TableExists(ctx, ctl, db.Dialect().SQLFamily(), r.Table)
	if err != nil {
		return err
	}
	st, err := loadstate.Read(ctx, db, r.Workload)
	if err != nil {
		return err
	}
	if err := r.owned(ctx, db, ctl, st); err != nil {
		return err
	}
	if !has && st.Status == loadstate.NotFound {
		return nil
	}
	if !drop {
		return r.refusal(db, has, st)
	}
	if err := r.DropTables(ctx, ctl, st); err != nil {
		return err
	}
	return loadstate.Drop(ctx, db, r.Workload)
}

// owned refuses, before anything is dropped or created, a load that would create a table that
// exists and is not the workload's: one of another workload's recorded load (Foreign), or, besides
// the workload's own Table, one that no candor load recorded (st is the workload's record).
func (r Room) owned(ctx context.Context, db driver.DB, ctl driver.Conn, st loadstate.State) error {
	tables := r.Tables
	if len(tables) == 0 {
		tables = []string{r.Table}
	}
	var have []string
	for _, t := range tables {
		ok, err := loadstate.TableExists(ctx, ctl, db.Dialect().SQLFamily(), t)
		if err != nil {
			return err
		}
		if ok {
			have = append(have, t)
		}
	}
	if err := Foreign(ctx, db, r.Workload, have); err != nil {
		return err
	}
	if st.Status != loadstate.NotFound {
		return nil // the workload's tables, from its recorded load
	}
	for _, t := range have {
		if !strings.EqualFold(t, r.Table) {
			return userr.Errorf("the database at %s has a table %s that no candor load recorded, and a %s load makes a table of that name: drop it yourself if nothing needs it, or load %s into another database", db.Redacted(), t, r.Workload, r.Workload)
		}
	}
	return nil
}

// Foreign refuses a load of workload that would create a table of have (the tables it makes that
// exist) belonging to another workload's recorded load (loadstate.Owners): naming the table, its
// owner, and what to do. Every workload's load calls it before it drops or creates anything.
func Foreign(ctx context.Context, db driver.DB, workload string, have []string) error {
	for _, t := range have {
		owners, err := loadstate.Owners(ctx, db, t, workload)
		if err != nil {
			return err
		}
		if len(owners) > 0 {
			o := owners[0]
			return userr.Errorf("the database at %s holds the table %s of its %s load, and a %s load makes a table of that name: load %s into another database, or remove the %s load first with candor %s drop --db %s", db.Redacted(), t, o, workload, workload, o, o, db.Redacted())
		}
	}
	return nil
}

// refusal is the user error for a database that holds the table or the workload's record while
// drop is off.
func (r Room) refusal(db driver.DB, has bool, st loadstate.State) error {
	u := db.Redacted()
	switch st.Status {
	case loadstate.Completed:
		return userr.Errorf("the database at %s already holds %s data%s: pass --drop to replace it", u, r.Workload, r.Describe(st))
	case loadstate.HalfLoaded:
		return userr.Errorf("the database at %s holds an incomplete %s load (started %s UTC): pass --drop to replace it", u, r.Workload, st.StartedAt.Format(time.DateTime))
	}
	if has {
		return userr.Errorf("the database at %s already has a table %s that candor did not record loading: pass --drop to replace it%s", u, r.Name, r.Hint)
	}
	return userr.Errorf("the database at %s already holds %s data: pass --drop to replace it", u, r.Workload)
}

// Unrecorded is, for a database with no recorded load (Workload.Loaded), the user error for a table
// candor did not record loading, or nil when there is no such table.
func (r Room) Unrecorded(ctx context.Context, db driver.DB) error {
	c, err := db.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if has, err := loadstate.TableExists(ctx, c, db.Dialect().SQLFamily(), r.Table); err != nil || !has {
		return err
	}
	return userr.Errorf("the database at %s has a table %s that candor did not record loading: replace it with candor %s load --drop --db %s", db.Redacted(), r.Name, r.Workload, db.Redacted())
}

// Copy is a load's rows: Chunks chunks, Rows rows in all, into Table's Columns (as the engine
// stores their names).
type Copy struct {
	// Workload names the workload in the error of an interrupted load.
	Workload string
	Table    string
	Columns  []string
	Chunks   int64
	Rows     int64
	// Chunk makes chunk c's rows, the same whichever loader copies it.
	Chunk func(c int64) driver.RowSource
	// Failed is the error of chunk c's copy (src its rows), naming the rows.
	Failed func(c int64, src driver.RowSource, err error) error
}

// Run copies the chunks on o.Loaders connections (one on an engine with a single writer), each
// chunk in one CopyFrom (its own transaction), and returns the rows written; o.Progress gets each
// chunk's rows as it is in. On PostgreSQL (not CockroachDB or YugabyteDB) the loaders commit
// asynchronously: the load is recorded complete only by loadstate.Complete's synchronous commit
// (Finish), whose WAL flush covers them too, so a crash before it leaves the load half-done, and
// seen so. The first error stops every loader; an interrupted load is an error naming the reload.
func Run(ctx context.Context, db driver.DB, o workload.LoadOptions, cp Copy) (int64, error) {
	progress := o.Progress
	if progress == nil {
		progress = func(int64) {}
	}
	loaders := max(1, o.Loaders)
	gens := 1
	d := db.Dialect()
	if d.SingleWriter {
		// One writer at a time (more connections would only wait for its lock); the chunks are
		// made ahead of it on `loaders` goroutines.
		gens, loaders = loaders, 1
	}
	var setup *driver.Settings // optional: a server that refuses it loads without it, and says so
	if d.SQLFamily() == sqlexec.FamilyPostgres && d.Name != sqlexec.EngineCockroach && d.Name != sqlexec.EngineYugabyte && driver.SessionSettings(db) {
		setup = driver.NewSettings(o.Note, "SET synchronous_commit = off")
	}
	rows, err := copyChunks(ctx, db, cp, loaders, gens, setup, progress)
	if err != nil && ctx.Err() != nil {
		return rows, fmt.Errorf("the load was interrupted (%w); the database holds an incomplete load: reload with candor %s load --drop", context.Cause(ctx), cp.Workload)
	}
	return rows, err
}

// job is a chunk for a loader: its number, and with generators its rows, ready once made.
type job struct {
	c     int64
	src   driver.RowSource
	ready chan struct{}
}

// copyChunks copies the chunks on `loaders` connections, each first running setup. With gens > 1
// (a single writer), gens goroutines make the chunks (cp.Chunk) ahead of the loaders, at most about
// 2 x gens at a time, and the loaders copy them in order. The first error stops every loader.
func copyChunks(ctx context.Context, db driver.DB, cp Copy, loaders, gens int, setup *driver.Settings, progress func(int64)) (int64, error) {
	if cp.Chunks == 0 {
		return 0, nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	work := make(chan *job, max(0, gens-1))
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
	var made chan *job // the generators' queue, when there are any
	if gens > 1 {
		made = make(chan *job)
		for range gens {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range made {
					j.src = cp.Chunk(j.c)
					close(j.ready)
				}
			}()
		}
	}
	for range min(int64(loaders), cp.Chunks) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := db.Connect(ctx)
			if err != nil {
				fail(err)
				return
			}
			defer c.Close()
			if err := setup.Apply(ctx, db, c); err != nil {
				fail(err)
				return
			}
			for j := range work {
				var src driver.RowSource
				if j.ready != nil {
					<-j.ready
					src = j.src
				} else {
					src = cp.Chunk(j.c)
				}
				n, err := c.CopyFrom(ctx, cp.Table, cp.Columns, src)
				if err != nil {
					fail(cp.Failed(j.c, src, err))
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
	for ch := range cp.Chunks {
		j := &job{c: ch}
		if made != nil {
			j.ready = make(chan struct{})
			select {
			case made <- j:
			case <-ctx.Done():
				break feed
			}
		}
		select {
		case work <- j:
		case <-ctx.Done():
			break feed
		}
	}
	if made != nil {
		close(made)
	}
	close(work)
	wg.Wait()
	if first != nil {
		return rows, first
	}
	if err := context.Cause(ctx); err != nil {
		return rows, err
	}
	if rows != cp.Rows {
		return rows, fmt.Errorf("the load wrote %d rows, not %d", rows, cp.Rows)
	}
	return rows, nil
}

// Finish closes a load of rows rows into table: it runs the statistics statements (StatsSQL) on
// ctl, records the load of the workload name complete (loadstate.Complete) and returns the result
// with the rows and, when the engine had a choice, its bulk path.
func Finish(ctx context.Context, db driver.DB, ctl driver.Conn, name, table string, rows int64) (workload.LoadResult, error) {
	d := db.Dialect()
	for _, q := range StatsSQL(d.SQLFamily(), d.Name, table) {
		if _, err := ctl.Exec(ctx, q); err != nil {
			return workload.LoadResult{}, fmt.Errorf("after the load (%s): %w", q, err)
		}
	}
	return Complete(ctx, db, name, rows)
}

// Complete is Finish for a load that ran its statistics itself: it records the load of the
// workload name complete and returns the result.
func Complete(ctx context.Context, db driver.DB, name string, rows int64) (workload.LoadResult, error) {
	if _, err := loadstate.Complete(ctx, db, name); err != nil {
		return workload.LoadResult{}, err
	}
	res := workload.LoadResult{Rows: rows}
	if bp, ok := db.(interface{ BulkPath() string }); ok && rows > 0 {
		res.BulkPath = bp.BulkPath()
	}
	return res, nil
}

// StatsSQL is the statistics step after a load of table, per SQL family and engine.
func StatsSQL(family, engine, table string) []string {
	switch {
	case family == sqlexec.FamilySQLite:
		// Statistics for the planner, and the WAL folded into the database file so the run does not
		// start with a checkpoint of the whole load.
		return []string{"ANALYZE", "PRAGMA wal_checkpoint(TRUNCATE)"}
	case family == sqlexec.FamilyMySQL:
		return []string{"ANALYZE TABLE " + table}
	case engine == sqlexec.EngineCockroach || engine == sqlexec.EngineYugabyte:
		return []string{"ANALYZE " + table}
	}
	// VACUUM (ANALYZE) rather than ANALYZE alone: the visibility map and hint bits now, and no
	// autovacuum of the whole table in the run's first minutes.
	return []string{"VACUUM (ANALYZE) " + table}
}

// Cursor is the position of a driver.RowSource over N rows held in memory (a chunk): the chunk
// embeds it for Next and Err, and its Values reads row Row.
type Cursor struct {
	N int
	i int
}

// Next moves to the next row, if there is one.
func (c *Cursor) Next() bool {
	if c.i >= c.N {
		return false
	}
	c.i++
	return true
}

// Row is the current row's index.
func (c *Cursor) Row() int { return c.i - 1 }

// Err is nil: rows in memory cannot fail.
func (c *Cursor) Err() error { return nil }

// Statements runs independent statements (index builds, statistics) on up to n connections at
// once, each connection first running setup (optional settings: one the server refuses is left
// out and said, see driver.Settings; nil sets none); a connection takes the next statement of the
// list as it is free, so list the longest first. The first error stops the others and is returned,
// naming its statement.
func Statements(ctx context.Context, db driver.DB, n int, setup *driver.Settings, stmts []string) error {
	if len(stmts) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	work := make(chan string, len(stmts))
	for _, s := range stmts {
		work <- s
	}
	close(work)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
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
	for range min(max(1, n), len(stmts)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := db.Connect(ctx)
			if err != nil {
				fail(err)
				return
			}
			defer c.Close()
			if err := setup.Apply(ctx, db, c); err != nil {
				fail(err)
				return
			}
			for q := range work {
				if ctx.Err() != nil {
					return
				}
				if _, err := c.Exec(ctx, q); err != nil {
					fail(fmt.Errorf("%s: %w", q, err))
					return
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return context.Cause(ctx)
}

// ChunksHeld is the most chunks a load on loaders connections holds in memory at once, for its
// estimate (workload.LoadEstimator), made before the engine is known: on a single writer, the chunks
// made ahead of it (about 2 x loaders, copyChunks) and the one it copies; elsewhere one per loader.
func ChunksHeld(loaders int) int64 { return int64(2*max(1, loaders) + 1) }
