package tpcc

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/loadstate"
)

// A sharded load (`candor tpcc load --shard i/N`): shard i writes warehouses
// [i·W/N+1, (i+1)·W/N] (workload.Shard.Range) with their districts, customers, history, orders and
// stock; ITEM is written once, by shard 0. Every warehouse's rows derive from the load's seed and
// timestamp by name, so the shards together write exactly the rows one process would.
//
// The bookkeeping is the workloads' one (loadstate.Parts, workload/loadstate/shards.go): a row per
// shard in candor_workloads (workload 'tpcc:shard:i/N') says its part started and completed; the
// load's record is candor_load's row (loadRecord). The order of work:
//
//  1. shard 0 checks the room, drops the old tables (--drop), creates the tables and candor_load's
//     row, completed_at null, in one transaction, then every shard's row (parts.Begin);
//  2. shards 1..N-1 wait (at most --shard-wait) for that row and their own (parts.WaitBegun), take
//     its seed and timestamp (a different --seed or --warehouses is refused), write their
//     warehouses and mark their row (parts.Complete);
//  3. shard 0 writes ITEM and its warehouses, marks its row, waits for every other shard's row to
//     be complete (parts.Wait), builds the keys and indexes, then marks the load complete.
//
// So the load is complete exactly when every part is in and shard 0 has built the keys; a run
// refuses until then, naming what is missing (shardsIncomplete). Shard 0 restarted without --drop
// on a load whose part it completed (it gave up waiting, or was stopped) goes on from there
// (parts.Resumes). Shards use candor's lock in its shared mode (loadstate.LockShared): an
// unsharded load, run or check is refused while they work.
//
// A half-loaded sharded load made before this bookkeeping (its shard rows in candor_load) reads as
// an unsharded half-loaded one: reload it with --drop.

// parts is TPC-C's sharded-load bookkeeping.
var parts = loadstate.Parts{Name: "tpcc", Record: loadRecord}

// shardOptions is what a part's row records of the load (its seed is the row's).
type shardOptions struct {
	Warehouses int `json:"warehouses"`
	// Tablespaces are the load's --tablespaces (tablespace.go).
	Tablespaces []string `json:"tablespaces,omitempty"`
}

// loadRecord is candor_load's row told as the load's record: NotFound while the database holds
// no TPC-C data (or the tables of a load being made).
func loadRecord(ctx context.Context, db driver.DB) (loadstate.State, error) {
	li, err := ReadLoadInfo(ctx, db)
	if userr.Is(err) {
		return loadstate.State{Workload: "tpcc"}, nil
	}
	if err != nil {
		return loadstate.State{}, err
	}
	so := shardOptions{Warehouses: li.Warehouses}
	if li.Placement != nil {
		so.Tablespaces = li.Placement.Tablespaces
	}
	opts, _ := json.Marshal(so)
	st := loadstate.State{Status: loadstate.HalfLoaded, Workload: "tpcc", Options: opts, Seed: li.Seed,
		ToolVersion: li.ToolVersion, StartedAt: li.StartedAt, Runs: li.Runs}
	if li.Completed {
		st.Status, st.CompletedAt = loadstate.Completed, li.CompletedAt
	}
	return st, nil
}

// MissingShards tells which parts of a TPC-C load split over count shards are not complete
// (workload.Sharder): all of them without TPC-C data, or while the data is another load (an
// unsharded one in progress, or one of another shard count) still incomplete; shard 0's until the
// load is complete; none once it is, however it was made.
func (w *Workload) MissingShards(ctx context.Context, db driver.DB, count int) ([]int, error) {
	if err := checkDialect(db.Dialect().SQLFamily()); err != nil {
		return nil, err
	}
	st, err := loadRecord(ctx, db)
	if err != nil {
		return nil, err
	}
	if st.Status == loadstate.Completed && w.Warehouses != 0 {
		var o shardOptions
		if err := st.Decode(&o); err == nil && o.Warehouses != w.Warehouses {
			return nil, userr.Errorf("%s holds %d warehouses, not %d: pass --warehouses %d, or reload with candor tpcc load --drop", db.Redacted(), o.Warehouses, w.Warehouses, o.Warehouses)
		}
	}
	return parts.Missing(ctx, db, count)
}

// ShardRows is the rows shard s's part of the load writes: its warehouses' and, in shard 0,
// ITEM's (workload.Sharder).
func (w *Workload) ShardRows(s workload.Shard) int64 {
	lo, hi := s.Range(w.loadWarehouses())
	n := ExpectedRows(max(0, hi-lo+1)) - Items
	if s.Index == 0 {
		n += Items
	}
	return n
}

// sameLoad refuses a shard given other --warehouses or --seed than the load shard 0 began.
func sameLoad(info LoadInfo, o LoadOptions) error {
	if info.Warehouses != o.Warehouses || info.Seed != o.Seed {
		return userr.Errorf("shard 0 loads %d warehouses with seed %d, this shard (%s) was given --warehouses %d --seed %d: give every shard the same --warehouses and --seed", info.Warehouses, info.Seed, o.Shard, o.Warehouses, o.Seed)
	}
	var ts []string
	if info.Placement != nil {
		ts = info.Placement.Tablespaces
	}
	if !slices.Equal(ts, o.Tablespaces) {
		return userr.Errorf("shard 0 loads with --tablespaces %q, this shard (%s) was given %q: give every shard the same --tablespaces", strings.Join(ts, ","), o.Shard, strings.Join(o.Tablespaces, ","))
	}
	return nil
}

// loadShardPart is shard i > 0's part: wait for shard 0 to begin the load, then write the shard's
// warehouses and mark its row complete.
func loadShardPart(ctx context.Context, db driver.DB, ctl driver.Conn, o LoadOptions) (LoadInfo, error) {
	if _, err := parts.WaitBegun(ctx, db, o.Shard, o.Drop, o.ShardWait, o.Note); err != nil {
		return LoadInfo{}, err
	}
	info, err := readLoadInfo(ctx, db, ctl)
	if err != nil {
		return LoadInfo{}, err
	}
	if err := sameLoad(info, o); err != nil {
		return LoadInfo{}, err
	}
	dialect := db.Dialect().SQLFamily()
	g := newGenConfig(info.Seed, info.StartedAt, dialect) // shard 0's seed and timestamp: the same rows
	lo, hi := o.Shard.Range(o.Warehouses)
	progress := o.Progress
	if progress == nil {
		progress = func(int64) {}
	}
	if lo <= hi {
		us := loadUnitsOf(false, lo, hi)
		if db.Dialect().SingleWriter {
			err = loadSingleWriter(ctx, db, g, us, o.Loaders, progress)
		} else {
			err = loadParallel(ctx, db, g, us, int(min(int64(o.Loaders), unitCount(hi-lo+1))), progress, o.Note)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return info, fmt.Errorf("shard %s's part of the load was interrupted (%w): reload every shard with --drop", o.Shard, context.Cause(ctx))
		}
		return info, err
	}
	if err := parts.Complete(ctx, db, o.Shard); err != nil {
		return info, fmt.Errorf("recording shard %s's part complete: %w", o.Shard, err)
	}
	info.Warehouses = hi - lo + 1
	if bp, ok := db.(interface{ BulkPath() string }); ok {
		info.BulkPath = bp.BulkPath()
	}
	return info, nil
}

// resumeShard0 is shard 0 restarted on a load whose part it completed (parts.Resumes): it waits
// for the other parts, builds the keys and marks the load complete, as the first start would have.
func resumeShard0(ctx context.Context, db driver.DB, ctl driver.Conn, o LoadOptions) (LoadInfo, error) {
	info, err := readLoadInfo(ctx, db, ctl)
	if err != nil {
		return LoadInfo{}, err
	}
	if err := sameLoad(info, o); err != nil {
		return LoadInfo{}, err
	}
	if o.Note != nil {
		o.Note(fmt.Sprintf("shard %s: its part of the load begun %s UTC is in already; going on to wait for the other parts and build the keys", o.Shard, info.StartedAt.Format(time.DateTime)))
	}
	info.Resumed = true
	return finishLoad(ctx, db, ctl, o, info)
}

var _ workload.Sharder = (*Workload)(nil)

// shardsIncomplete is the user error for a run on a sharded load not complete yet, naming the
// shards whose part is missing; nil when the load is not a sharded one.
func shardsIncomplete(ctx context.Context, db driver.DB) error {
	count, missing, err := parts.Begun(ctx, db)
	if err != nil || count == 0 {
		return nil
	}
	var msg string
	switch len(missing) {
	case 0:
		return userr.Errorf("the load of %s in %d shards is not complete: every shard's part is in, but shard 0/%d has not built the keys and marked the load complete: start it again (candor tpcc load --shard 0/%d, without --drop), which finishes the load", db.Redacted(), count, count, count)
	case 1:
		msg = "shard " + loadstate.PartsText(missing, count) + " has not completed its part (shard 0 builds the keys once every part is in)"
	default:
		msg = "shards " + loadstate.PartsText(missing, count) + " have not completed their part (shard 0 builds the keys once every part is in)"
	}
	return userr.Errorf("the load of %s in %d shards is not complete: %s; run waits for none: start the missing shards, or run the one-shot with --shard, which waits for them", db.Redacted(), count, msg)
}

// home is the run's home warehouses: the shard's range, or all of them.
func (o RunOptions) home() (lo, hi int) {
	if o.HomeLo == 0 {
		return 1, o.Warehouses
	}
	return o.HomeLo, o.HomeHi
}

// shardLine is the run's opening line's note of a shard's warehouses ("" for all of them).
func (o RunOptions) shardLine() string {
	lo, hi := o.home()
	if lo == 1 && hi == o.Warehouses {
		return ""
	}
	return fmt.Sprintf("; this shard's home warehouses %d..%d (remote ones drawn from all %d)", lo, hi, o.Warehouses)
}
