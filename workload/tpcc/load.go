package tpcc

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/bulkload"
	"github.com/candor-bench/candor/workload/loadstate"
)

// LoadOptions say what to load and how.
type LoadOptions struct {
	Warehouses int
	// Loaders is the number of parallel loaders (database connections on PostgreSQL; generators
	// feeding the single writer on SQLite). It changes the speed, never the rows.
	Loaders int
	Seed    uint64
	// Drop replaces existing candor TPC-C tables; without it Load refuses to touch them.
	Drop        bool
	ToolVersion string
	// Progress, if set, is called from several goroutines with the number of rows loaded since its
	// last call (every few thousand rows); it must be cheap and safe for concurrent use.
	Progress func(rows int64)
	// Now is the load's timestamp (c_since, o_entry_d, h_date, the delivered ol_delivery_d); zero
	// means the current time. It is truncated to the microsecond and stored in candor_load: the same
	// Seed and Now give the same rows.
	Now time.Time
	// Shard is this process's part of a sharded load (shard.go), ShardWait how long it waits for
	// the others, Note where it says so.
	Shard     workload.Shard
	ShardWait time.Duration
	Note      func(string)
	// Tablespaces spread the tables and indexes over PostgreSQL tablespaces or MySQL/MariaDB
	// directories (tablespace.go); none: the database's default place.
	Tablespaces []string
}

// Load creates the TPC-C tables and loads the initial population of clause 4.3.3.1 with
// o.Loaders parallel loaders, builds the keys and indexes, and records the load in candor_load,
// whose completed_at is set only when all of that succeeded. If ctx ends or a loader fails, Load
// stops every loader and returns the error, leaving completed_at null so that check and run see the
// half-loaded database.
func Load(ctx context.Context, db driver.DB, o LoadOptions) (LoadInfo, error) {
	if o.Warehouses < 1 {
		return LoadInfo{}, userr.Errorf("the number of warehouses must be at least 1, not %d: pass --warehouses N with N >= 1", o.Warehouses)
	}
	if o.Loaders < 1 {
		return LoadInfo{}, userr.Errorf("the number of loaders must be at least 1, not %d: pass --loaders N with N >= 1", o.Loaders)
	}
	dialect := db.Dialect().SQLFamily()
	if err := checkDialect(dialect); err != nil {
		return LoadInfo{}, err
	}
	engine := engineName(db) // per-engine overrides: distsql.go
	if p := tablespacesProblems(o.Tablespaces, engine, true); len(p) > 0 {
		return LoadInfo{}, userr.Errorf("%s", strings.Join(p, "; "))
	}
	ctl, err := db.Connect(ctx)
	if err != nil {
		return LoadInfo{}, err
	}
	defer ctl.Close()
	if o.Shard.Sharded() && o.Shard.Index > 0 {
		return loadShardPart(ctx, db, ctl, o) // shard.go: after shard 0 has made the tables
	}
	if !o.Drop {
		if resume, _, err := parts.Resumes(ctx, db, o.Shard); err != nil {
			return LoadInfo{}, err
		} else if resume {
			return resumeShard0(ctx, db, ctl, o) // shard.go: its part is in; wait and finish
		}
	}
	if err := checkTablespaces(ctx, db, ctl, o.Tablespaces); err != nil { // tablespace.go
		return LoadInfo{}, err
	}
	have, err := existingTables(ctx, ctl, db.Dialect())
	if err != nil {
		return LoadInfo{}, fmt.Errorf("looking for existing TPC-C tables: %w", err)
	}
	if err := bulkload.Foreign(ctx, db, "tpcc", have); err != nil { // another workload's (TPC-H's customer, orders)
		return LoadInfo{}, err
	}
	if len(have) > 0 {
		if !o.Drop {
			return LoadInfo{}, refusal(ctx, db, ctl, have)
		}
		if err := dropTables(ctx, ctl, db.Dialect()); err != nil {
			return LoadInfo{}, fmt.Errorf("dropping the old TPC-C tables: %w", err)
		}
	}
	if err := parts.Forget(ctx, db); err != nil { // an earlier sharded load's rows (shard.go)
		return LoadInfo{}, fmt.Errorf("forgetting an earlier sharded load: %w", err)
	}

	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	now = now.UTC().Truncate(time.Microsecond)
	g := newGenConfig(o.Seed, now, dialect)
	info := LoadInfo{Warehouses: o.Warehouses, Seed: o.Seed, C: g.c, ToolVersion: o.ToolVersion,
		Loaders: o.Loaders, StartedAt: now}
	if len(o.Tablespaces) > 0 {
		info.Placement = planPlacement(dialect, o.Tablespaces)
	}
	if ownKeys(engine) {
		err = createSchemaDistributed(ctx, ctl, dialect, engine, info)
	} else {
		err = createSchema(ctx, ctl, dialect, info)
	}
	if err != nil {
		return LoadInfo{}, fmt.Errorf("creating the TPC-C tables: %w", err)
	}
	if o.Shard.Sharded() {
		if err := parts.Begin(ctx, db, o.Shard.Count, shardOptions{Warehouses: o.Warehouses}, o.Seed, o.ToolVersion); err != nil { // shard.go
			return LoadInfo{}, err
		}
	}

	progress := o.Progress
	if progress == nil {
		progress = func(int64) {}
	}
	us := loadUnits(o.Warehouses)
	if o.Shard.Sharded() { // shard 0: ITEM and its own warehouses
		lo, hi := o.Shard.Range(o.Warehouses)
		us = loadUnitsOf(true, lo, hi)
	}
	phase := time.Now()
	if db.Dialect().SingleWriter {
		err = loadSingleWriter(ctx, db, g, us, o.Loaders, progress)
	} else {
		err = loadParallel(ctx, db, g, us, int(min(int64(o.Loaders), unitCount(o.Warehouses))), progress, o.Note)
	}
	if err == nil && o.Shard.Sharded() {
		err = parts.Complete(ctx, db, o.Shard) // shard 0's part; the keys once every part is in
	}
	if err != nil {
		if ctx.Err() != nil {
			return info, fmt.Errorf("the load was interrupted (%w); the database holds an incomplete load: reload with candor tpcc load --drop", context.Cause(ctx))
		}
		return info, err
	}
	loadTrace("rows", time.Since(phase))
	return finishLoad(ctx, db, ctl, o, info)
}

// finishLoad waits for the other shards' parts of a sharded load (shard.go), builds the keys and
// indexes, and marks the load complete.
func finishLoad(ctx context.Context, db driver.DB, ctl driver.Conn, o LoadOptions, info LoadInfo) (LoadInfo, error) {
	dialect := db.Dialect().SQLFamily()
	var err error
	if o.Shard.Sharded() {
		err = parts.Wait(ctx, db, o.Shard.Count, o.ShardWait, o.Note)
	}
	if err == nil {
		err = buildKeys(ctx, db, ctl, dialect, o.Loaders, info.Resumed, info.Placement, o.Note)
	}
	if err == nil {
		err = verifyPlacement(ctx, db, ctl, info.Placement) // tablespace.go: where the catalog says they are
	}
	if err != nil {
		if ctx.Err() != nil {
			return info, fmt.Errorf("the load was interrupted (%w); the database holds an incomplete load: reload with candor tpcc load --drop", context.Cause(ctx))
		}
		return info, err
	}
	done := time.Now().UTC().Truncate(time.Microsecond)
	// The loaders may have committed asynchronously (synchronous_commit off); this commit is
	// synchronous, and its WAL flush covers everything written before it.
	if _, err := ctl.Exec(ctx, placeholders(dialect, "UPDATE "+metaTable+" SET completed_at = $1 WHERE workload = 'tpcc'"), done); err != nil {
		return info, fmt.Errorf("recording the completed load: %w", err)
	}
	info.CompletedAt, info.Completed = done, true
	if bp, ok := db.(interface{ BulkPath() string }); ok {
		info.BulkPath = bp.BulkPath()
	}
	return info, nil
}

// loadTrace receives the duration of each phase of a load (tests and measurements set it).
var loadTrace = func(phase string, d time.Duration) {}

// refusal is the user error for a database that already holds TPC-C tables while Drop is off.
func refusal(ctx context.Context, db driver.DB, c driver.Conn, have []string) error {
	u := db.Redacted()
	if contains(have, metaTable) {
		if li, err := readLoadInfo(ctx, db, c); err == nil {
			state := "loaded " + li.StartedAt.Format("2006-01-02 15:04:05") + " UTC"
			if !li.Completed {
				state = "an incomplete load started " + li.StartedAt.Format("2006-01-02 15:04:05") + " UTC" + parts.Note(ctx, db)
			}
			return userr.Errorf("the database at %s already holds TPC-C data (%s, %s): pass --drop to replace it", u, warehousesText(li.Warehouses), state)
		}
	}
	return userr.Errorf("the database at %s already holds TPC-C tables (%s): pass --drop to replace them", u, strings.Join(have, ", "))
}

// dropTables drops the TPC-C tables and candor_load: on PostgreSQL in one statement, with CASCADE
// (what depends on them: views, a user's foreign keys); Doltgres has no CASCADE, and drops them one by one.
func dropTables(ctx context.Context, c driver.Conn, d driver.Dialect) error {
	all := append(append([]string{}, TableNames...), metaTable)
	if d.SQLFamily() == dialectPostgres && d.Name != dialectDoltgres {
		_, err := c.Exec(ctx, "DROP TABLE IF EXISTS "+strings.Join(all, ", ")+" CASCADE")
		return err
	}
	for _, t := range all {
		if _, err := c.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return err
		}
	}
	return nil
}

// createSchema creates the tables (PostgreSQL: without keys, which come after the data) and
// candor_load with its row, completed_at null, in one transaction.
func createSchema(ctx context.Context, c driver.Conn, dialect string, info LoadInfo) error {
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		return err
	}
	err := func() error {
		for _, t := range tables {
			if _, err := c.Exec(ctx, t.createSQL(dialect, keysFirst(dialect))+info.Placement.tableClause(t)); err != nil {
				if on := info.Placement.on(t.name); on != "" && dialect == dialectMySQL {
					return fmt.Errorf("creating %s in the directory %s (the directory must be on the server's host, writable by the server's OS user): %w", t.name, on, err)
				}
				return err
			}
		}
		if _, err := c.Exec(ctx, metaCreateSQL(dialect)); err != nil {
			return err
		}
		if err := insertMeta(ctx, c, dialect, info); err != nil {
			return err
		}
		if info.Placement != nil {
			return recordPlacement(ctx, c, dialect, info.Placement) // tablespace.go
		}
		return nil
	}()
	if err != nil {
		c.Rollback(context.WithoutCancel(ctx))
		return err
	}
	return c.Commit(ctx)
}

// insertMeta inserts candor_load's row, completed_at null.
func insertMeta(ctx context.Context, c driver.Conn, dialect string, info LoadInfo) error {
	_, err := c.Exec(ctx, placeholders(dialect, metaInsertSQL), int64(info.Warehouses),
		strconv.FormatUint(info.Seed, 10), int64(info.C.CLast), int64(info.C.CID), int64(info.C.OLIID),
		info.ToolVersion, int64(info.Loaders), info.StartedAt)
	return err
}

// unitError names the unit that failed.
func unitError(u unit, err error) error { return fmt.Errorf("loading %s: %w", u, err) }

// loadUnit copies a unit's rows in one transaction.
func loadUnit(ctx context.Context, c driver.Conn, steps []step, progress func(int64)) error {
	if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
		return err
	}
	for _, s := range steps {
		src := &counting{RowSource: s.src, report: progress}
		_, err := c.CopyFrom(ctx, s.t.name, s.t.colNames, src)
		src.flush()
		if err != nil {
			c.Rollback(context.WithoutCancel(ctx))
			return fmt.Errorf("copying into %s: %w", s.t.name, err)
		}
	}
	return c.Commit(ctx)
}

// counting reports the rows a source gave, in batches.
type counting struct {
	driver.RowSource
	n      int64
	report func(int64)
}

const progressBatch = 4096

func (c *counting) Next() bool {
	if !c.RowSource.Next() {
		return false
	}
	if c.n++; c.n == progressBatch {
		c.report(c.n)
		c.n = 0
	}
	return true
}

func (c *counting) flush() {
	if c.n > 0 {
		c.report(c.n)
		c.n = 0
	}
}

// firstError keeps the first error of a group of goroutines and cancels their context.
type firstError struct {
	err    chan error
	cancel context.CancelCauseFunc
}

func newFirstError(cancel context.CancelCauseFunc) *firstError {
	return &firstError{err: make(chan error, 1), cancel: cancel}
}

func (f *firstError) set(err error) {
	select {
	case f.err <- err:
		f.cancel(err)
	default:
	}
}

func (f *firstError) get() error {
	select {
	case err := <-f.err:
		return err
	default:
		return nil
	}
}

// loadParallel runs the units on `loaders` connections, each unit in its own transaction (the
// PostgreSQL path: COPY on every connection at once, into tables without keys or indexes).
//
// Not done: creating a table and COPYing into it in one transaction lets PostgreSQL skip WAL, but
// only with wal_level = minimal (not the default, and not the test server's), and it would put each
// table in one transaction on one connection, losing the parallelism within stock and order_line
// that the load's speed comes from.
//
// The loaders' session settings are optional: one the server refuses is left out and said once
// through note (driver.Settings).
func loadParallel(ctx context.Context, db driver.DB, g *genConfig, us iter.Seq[unit], loaders int, progress func(int64), note func(string)) error {
	note = driver.NoteOnce(note)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	fe := newFirstError(cancel)
	work := make(chan unit)
	done := make(chan struct{})
	n := loaders
	for i := 0; i < n; i++ {
		go func() {
			defer func() { done <- struct{}{} }()
			c, err := db.Connect(ctx)
			if err != nil {
				fe.set(err)
				return
			}
			defer c.Close()
			// synchronous_commit off is safe: the load is recorded complete only by a final
			// synchronous commit, whose WAL flush covers these transactions too; a crash before
			// it leaves completed_at null.
			setup, load := []string{"SET synchronous_commit = off", "SET statement_timeout = 0"}, loadUnit
			if distributed(engineName(db)) {
				setup, load = setup[1:], loadUnitAutocommit // distsql.go
			}
			if db.Dialect().SQLFamily() == dialectMySQL {
				setup = mysqlLoaderSetup // load_mysql.go
			}
			if !driver.SessionSettings(db) {
				setup = nil
			}
			if err := driver.NewSettings(note, setup...).Apply(ctx, db, c); err != nil {
				fe.set(err)
				return
			}
			for u := range work {
				if err := load(ctx, c, u.steps(g), progress); err != nil {
					fe.set(unitError(u, err))
					return
				}
			}
		}()
	}
feed:
	for u := range us {
		select {
		case work <- u:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	for i := 0; i < n; i++ {
		<-done
	}
	if err := fe.get(); err != nil {
		return err
	}
	return context.Cause(ctx)
}

// bySize lists the tables largest first, so that the longest index builds do not start last.
var bySize = []*table{tOrderLine, tStock, tCustomer, tOrders, tHistory, tNewOrder, tItem, tDistrict, tWarehouse}

// buildKeys adds the primary keys and secondary indexes after the load and prepares the tables for
// the run. PostgreSQL builds the indexes in parallel on `loaders` connections, largest first.
//
// A load resumed by shard 0 (resumed) may find some of them built already: an earlier start was
// stopped while it built them. Each index and primary key is built in one statement that either
// completes or leaves nothing (PostgreSQL's CREATE INDEX and ALTER TABLE are transactional; InnoDB's
// and SQLite's DDL are atomic), so what the catalog shows is whole, and only the rest is built. The
// statistics and VACUUM that follow are run again: they can be.
//
// The session settings of the connections that build them are optional: one the server refuses is
// left out and said once through note (driver.Settings).
func buildKeys(ctx context.Context, db driver.DB, ctl driver.Conn, dialect string, loaders int, resumed bool, p *Placement, note func(string)) error {
	note = driver.NoteOnce(note)
	var built loadstate.Keys
	if resumed {
		var err error
		if built, err = loadstate.ReadKeys(ctx, ctl, dialect); err != nil {
			return err
		}
	}
	var tasks []string
	engine := engineName(db)
	if !keysAtCreate(dialect, engine) {
		for _, t := range bySize {
			if ks := t.keySQL(dialect); len(ks) > 0 && !keyBuilt(built, dialect, t) {
				tasks = append(tasks, ks[0]+p.indexClause(t.pkName()))
			}
		}
	}
	for _, x := range indexes {
		if !built.Indexes[x.name] {
			tasks = append(tasks, x.sql()+p.indexClause(x.name))
		}
	}
	if dialect == dialectSQLite {
		// Statistics for the planner from a sample, and the WAL folded into the database file so
		// that the run does not start with a checkpoint of the whole load.
		for _, q := range append(tasks, "PRAGMA analysis_limit = 1000", "ANALYZE", "PRAGMA wal_checkpoint(TRUNCATE)") {
			if _, err := ctl.Exec(ctx, q); err != nil {
				return fmt.Errorf("building keys and indexes (%s): %w", q, err)
			}
		}
		return nil
	}
	if dialect == dialectMySQL {
		return buildKeysMySQL(ctx, db, loaders, tasks) // load_mysql.go
	}
	phase := time.Now()
	setup := []string{"SET statement_timeout = 0", "SET maintenance_work_mem = '512MB'"}
	if ownKeys(engine) {
		// Keys came with the tables; the secondary indexes, then statistics (distsql.go).
		if err := runStatements(ctx, db, loaders, driver.NewSettings(note, setup[:1]...), tasks); err != nil {
			return fmt.Errorf("building indexes: %w", err)
		}
		if err := runStatements(ctx, db, loaders, driver.NewSettings(note, setup[:1]...), analyzeSQL()); err != nil {
			return fmt.Errorf("collecting statistics: %w", err)
		}
		loadTrace("indexes and statistics", time.Since(phase))
		return nil
	}
	if !driver.SessionSettings(db) {
		setup = setup[:0]
	}
	if err := runStatements(ctx, db, loaders, driver.NewSettings(note, setup...), tasks); err != nil {
		return fmt.Errorf("building keys and indexes: %w", err)
	}
	for _, t := range tables {
		if ks := t.keySQL(dialect); len(ks) > 1 && !built.PrimaryKeys[t.name] {
			if _, err := ctl.Exec(ctx, ks[1]); err != nil {
				return fmt.Errorf("adding the primary key of %s: %w", t.name, err)
			}
		}
	}
	loadTrace("keys and indexes", time.Since(phase))
	phase = time.Now()
	// VACUUM (ANALYZE) rather than ANALYZE alone: besides the planner's statistics it sets the
	// hint bits and the visibility map now, and resets the inserted-rows count that would
	// otherwise start autovacuum over every table in the first minutes of the run.
	var vacuum []string
	for _, t := range bySize {
		vacuum = append(vacuum, "VACUUM (ANALYZE) "+t.name)
	}
	if err := runStatements(ctx, db, loaders, driver.NewSettings(note, setup[:min(1, len(setup))]...), vacuum); err != nil {
		return fmt.Errorf("vacuuming the tables: %w", err)
	}
	loadTrace("vacuum and statistics", time.Since(phase))
	return nil
}

// runStatements runs independent statements on up to n connections at once, in order of the list.
func runStatements(ctx context.Context, db driver.DB, n int, setup *driver.Settings, stmts []string) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	fe := newFirstError(cancel)
	work := make(chan string, len(stmts))
	for _, s := range stmts {
		work <- s
	}
	close(work)
	n = min(n, len(stmts))
	done := make(chan struct{})
	for i := 0; i < n; i++ {
		go func() {
			defer func() { done <- struct{}{} }()
			c, err := db.Connect(ctx)
			if err != nil {
				fe.set(err)
				return
			}
			defer c.Close()
			if err := setup.Apply(ctx, db, c); err != nil {
				fe.set(err)
				return
			}
			for s := range work {
				if ctx.Err() != nil {
					return
				}
				if _, err := c.Exec(ctx, s); err != nil {
					fe.set(fmt.Errorf("%s: %w", s, err))
					return
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		<-done
	}
	if err := fe.get(); err != nil {
		return err
	}
	return context.Cause(ctx)
}
