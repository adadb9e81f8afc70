package tpcc

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

// A sharded load (`candor tpcc load --shard i/N`, issue 10 section 3): shard i writes warehouses
// [i·W/N+1, (i+1)·W/N] (workload.Shard.Range) with their districts, customers, history, orders and
// stock; ITEM is written once, by shard 0. Every warehouse's rows derive from the load's seed and
// timestamp by name, so the shards together write exactly the rows one process would.
//
// candor_load holds, besides the load's row (workload 'tpcc'), one row per shard (workload
// 'tpcc:shard:i/N', the same columns): its part started (the row exists) and completed
// (completed_at). The order of work:
//
//  1. shard 0 checks the room, drops the old tables (--drop), creates the tables and the marker with
//     every shard's row, completed_at null, in one transaction;
//  2. shards 1..N-1 wait (at most --shard-wait) for that marker, take its seed and timestamp (a
//     different --seed or --warehouses is refused), write their warehouses and mark their row;
//  3. shard 0 writes ITEM and its warehouses, waits for every other shard's row to be complete,
//     builds the keys and indexes, then marks the load and its own row complete together.
//
// So the load is complete exactly when every shard's row is; a run refuses until then, naming the
// shards whose part is missing (Open). Shards use candor's lock in its shared mode
// (loadstate.LockShared): an unsharded load, run or check is refused while they work.

// shardName is the workload column of shard i of n's row in candor_load.
func shardName(i, n int) string { return "tpcc:shard:" + strconv.Itoa(i) + "/" + strconv.Itoa(n) }

const shardRowsSQL = "SELECT workload, completed_at FROM " + metaTable + " WHERE workload LIKE 'tpcc:shard:%'"

// insertShardRows adds the row of every shard of n to candor_load, completed_at null (shard 0,
// once it has made the tables).
func insertShardRows(ctx context.Context, c driver.Conn, dialect string, info LoadInfo, n int) error {
	q := strings.Replace(metaInsertSQL, "VALUES ('tpcc', $1", "VALUES ($9, $1", 1)
	for i := range n {
		if _, err := c.Exec(ctx, placeholders(dialect, q), int64(info.Warehouses),
			strconv.FormatUint(info.Seed, 10), int64(info.C.CLast), int64(info.C.CID), int64(info.C.OLIID),
			info.ToolVersion, int64(info.Loaders), info.StartedAt, shardName(i, n)); err != nil {
			return err
		}
	}
	return nil
}

// shardRows reads the shard rows of candor_load: by name, whether that part completed.
func shardRows(ctx context.Context, c driver.Conn) (map[string]bool, error) {
	rows, err := c.Query(ctx, shardRowsSQL)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		var done *time.Time
		if err := rows.Scan(&name, &done); err != nil {
			return nil, err
		}
		out[name] = done != nil
	}
	return out, rows.Err()
}

// shardState is a sharded load's state as candor_load tells it.
type shardState struct {
	info LoadInfo
	// sharded: the load has shard rows; count is their N, missing the parts not complete.
	sharded bool
	count   int
	missing []int
}

// readShardState reads candor_load (an error when the database holds no TPC-C data).
func readShardState(ctx context.Context, db driver.DB, c driver.Conn) (shardState, error) {
	info, err := readLoadInfo(ctx, db, c)
	if err != nil {
		return shardState{}, err
	}
	st := shardState{info: info}
	rows, err := shardRows(ctx, c)
	if err != nil {
		return st, err
	}
	for name := range rows {
		if _, n, ok := strings.Cut(strings.TrimPrefix(name, "tpcc:shard:"), "/"); ok {
			st.count, _ = strconv.Atoi(n)
			st.sharded = true
		}
	}
	for i := range st.count {
		if !rows[shardName(i, st.count)] {
			st.missing = append(st.missing, i)
		}
	}
	return st, nil
}

// MissingShards tells which parts of a TPC-C load split over count shards are not complete
// (workload.Sharder): all of them without TPC-C data, or while the data is another load (an
// unsharded one in progress, or one of another shard count) still incomplete; none once the load
// is complete, however it was made.
func (w *Workload) MissingShards(ctx context.Context, db driver.DB, count int) ([]int, error) {
	all := make([]int, count)
	for i := range all {
		all[i] = i
	}
	has, err := HasData(ctx, db)
	if err != nil || !has {
		return all, err
	}
	c, err := db.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	st, err := readShardState(ctx, db, c)
	if err != nil {
		if userr.Is(err) {
			return all, nil // the tables of a load being made
		}
		return nil, err
	}
	switch {
	case st.info.Completed:
		if w.Warehouses != 0 && st.info.Warehouses != w.Warehouses {
			return nil, userr.Errorf("%s holds %d warehouses, not %d: pass --warehouses %d, or reload with candor tpcc load --drop", db.Redacted(), st.info.Warehouses, w.Warehouses, st.info.Warehouses)
		}
		return nil, nil
	case !st.sharded || st.count != count:
		return all, nil
	}
	return st.missing, nil
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

// missingText names the shards whose part of a sharded load is not complete.
func missingText(st shardState) string {
	s := make([]string, len(st.missing))
	for i, m := range st.missing {
		s[i] = strconv.Itoa(m) + "/" + strconv.Itoa(st.count)
	}
	return strings.Join(s, ", ")
}

// loadShardPart is shard i > 0's part: wait for shard 0's marker, then write the shard's
// warehouses and mark its row complete.
func loadShardPart(ctx context.Context, db driver.DB, ctl driver.Conn, o LoadOptions) (LoadInfo, error) {
	me := shardName(o.Shard.Index, o.Shard.Count)
	note := o.Note
	if note == nil {
		note = func(string) {}
	}
	var info LoadInfo
	t0, said := time.Now(), time.Time{}
	for {
		st, err := readShardState(ctx, db, ctl)
		if err != nil && !userr.Is(err) {
			return LoadInfo{}, err
		}
		rows := map[string]bool{}
		if err == nil {
			if rows, err = shardRows(ctx, ctl); err != nil {
				return LoadInfo{}, err
			}
		}
		done, present := rows[me]
		switch {
		case present && !done:
			info = st.info
		case present && done && !o.Drop:
			return LoadInfo{}, userr.Errorf("shard %s's part of the load in %s is complete already: pass --drop to every shard to reload (shard 0 drops the tables; the others wait for its new marker)", o.Shard, db.Redacted())
		}
		if info.Warehouses != 0 {
			break
		}
		if time.Since(t0) > o.ShardWait {
			return LoadInfo{}, userr.Errorf("shard %s waited %s for shard 0 to create the tables and its marker of a load in %d shards: start shard 0 (candor tpcc load --shard 0/%d), or give a longer --shard-wait", o.Shard, o.ShardWait, o.Shard.Count, o.Shard.Count)
		}
		if said.IsZero() || time.Since(said) >= 10*time.Second {
			note(fmt.Sprintf("shard %s: waiting for shard 0 to create the tables of a load in %d shards (%s so far, giving up after --shard-wait %s)", o.Shard, o.Shard.Count, time.Since(t0).Round(time.Second), o.ShardWait))
			said = time.Now()
		}
		select {
		case <-ctx.Done():
			return LoadInfo{}, fmt.Errorf("shard %s: interrupted while waiting for shard 0", o.Shard)
		case <-time.After(time.Second):
		}
	}
	if info.Warehouses != o.Warehouses || info.Seed != o.Seed {
		return LoadInfo{}, userr.Errorf("shard 0 loads %d warehouses with seed %d, this shard (%s) was given --warehouses %d --seed %d: give every shard the same --warehouses and --seed", info.Warehouses, info.Seed, o.Shard, o.Warehouses, o.Seed)
	}
	dialect := db.Dialect().SQLFamily()
	g := newGenConfig(info.Seed, info.StartedAt, dialect) // shard 0's seed and timestamp: the same rows
	lo, hi := o.Shard.Range(o.Warehouses)
	progress := o.Progress
	if progress == nil {
		progress = func(int64) {}
	}
	us := loadUnitsOf(false, lo, hi)
	var err error
	if lo <= hi {
		if db.Dialect().SingleWriter {
			err = loadSingleWriter(ctx, db, g, us, o.Loaders, progress)
		} else {
			err = loadParallel(ctx, db, g, us, int(min(int64(o.Loaders), unitCount(hi-lo+1))), progress)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return info, fmt.Errorf("shard %s's part of the load was interrupted (%w): reload every shard with --drop", o.Shard, context.Cause(ctx))
		}
		return info, err
	}
	done := time.Now().UTC().Truncate(time.Microsecond)
	if _, err := ctl.Exec(ctx, placeholders(dialect, "UPDATE "+metaTable+" SET completed_at = $1 WHERE workload = $2"), done, me); err != nil {
		return info, fmt.Errorf("recording shard %s's part complete: %w", o.Shard, err)
	}
	info.Warehouses = hi - lo + 1
	if bp, ok := db.(interface{ BulkPath() string }); ok {
		info.BulkPath = bp.BulkPath()
	}
	return info, nil
}

// waitShards is shard 0 waiting for the other shards' parts before it builds the keys.
func waitShards(ctx context.Context, ctl driver.Conn, o LoadOptions) error {
	note := o.Note
	if note == nil {
		note = func(string) {}
	}
	t0, said := time.Now(), time.Time{}
	for {
		rows, err := shardRows(ctx, ctl)
		if err != nil {
			return err
		}
		var missing []string
		for i := 1; i < o.Shard.Count; i++ {
			if !rows[shardName(i, o.Shard.Count)] {
				missing = append(missing, strconv.Itoa(i)+"/"+strconv.Itoa(o.Shard.Count))
			}
		}
		if len(missing) == 0 {
			if !said.IsZero() {
				note(fmt.Sprintf("shard %s: every shard's rows are in after %s; building the keys and indexes", o.Shard, time.Since(t0).Round(time.Second)))
			}
			return nil
		}
		if time.Since(t0) > o.ShardWait {
			return userr.Errorf("shard %s waited %s for shards %s to load their parts: start them (candor tpcc load --shard i/%d), or give a longer --shard-wait; the load stays incomplete until then", o.Shard, o.ShardWait, strings.Join(missing, ", "), o.Shard.Count)
		}
		if said.IsZero() || time.Since(said) >= 10*time.Second {
			note(fmt.Sprintf("shard %s: its rows are in; waiting for shards %s before building the keys (%s so far, giving up after --shard-wait %s)", o.Shard, strings.Join(missing, ", "), time.Since(t0).Round(time.Second), o.ShardWait))
			said = time.Now()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("shard %s: interrupted while waiting for the other shards", o.Shard)
		case <-time.After(time.Second):
		}
	}
}

var _ workload.Sharder = (*Workload)(nil)

// shardsIncomplete is the user error for a run on a sharded load not complete yet, naming the
// shards whose part is missing; nil when the load is not a sharded one.
func shardsIncomplete(ctx context.Context, db driver.DB) error {
	c, err := db.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	st, err := readShardState(ctx, db, c)
	if err != nil || !st.sharded {
		return nil
	}
	msg := "shards " + missingText(st) + " have not completed their part"
	if len(st.missing) == 1 && st.missing[0] == 0 {
		msg = "every other shard's part is in, but shard 0/" + strconv.Itoa(st.count) + " has not built the keys and marked the load complete"
	} else if len(st.missing) == 1 {
		msg = "shard " + missingText(st) + " has not completed its part"
	}
	return userr.Errorf("the load of %s in %d shards is not complete: %s (shard 0 builds the keys once every part is in); run waits for none: start the missing shards, or run the one-shot with --shard, which waits for them", db.Redacted(), st.count, msg)
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
