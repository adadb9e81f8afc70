package loadstate

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// A sharded load of a workload whose rows split (issue 10, section 3; kv, ycsb, sysbench, script):
// besides the load's row (workload NAME), candor_workloads holds one row per shard (NAME:shard:i/N,
// the same options and seed): its part started (the row exists) and completed (completed_at).
//
//  1. shard 0 makes the room (refuse, or --drop), records the load's row and every shard's row
//     uncompleted (BeginShards), creates the tables;
//  2. shards 1..N-1 wait for those rows (WaitBegun, at most --shard-wait), take the load's seed
//     and options (other ones are refused), write their part and mark their row (CompleteShard);
//  3. shard 0 writes its part, marks its row, waits until every shard's row is complete
//     (WaitShards), then finishes (statistics) and marks the load's row complete.
//
// So the load is complete exactly when every part is; until then the load's row is half-loaded and
// a run is refused (ForRun), naming the parts missing (HalfLoadedError).

// ShardRow is the row of shard s of workload's load.
func ShardRow(workload string, s workload.Shard) string {
	return workload + ":shard:" + strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count)
}

// BeginShards is Begin for shard 0 of a sharded load of s.Count shards: the load's row and every
// shard's row (an earlier load's shard rows removed).
func BeginShards(ctx context.Context, db driver.DB, name string, s workload.Shard, options any, seed uint64, toolVersion string) (State, error) {
	st, err := Begin(ctx, db, name, options, seed, toolVersion)
	if err != nil {
		return st, err
	}
	if err := dropShardRows(ctx, db, name); err != nil {
		return st, err
	}
	for i := range s.Count {
		if _, err := Begin(ctx, db, ShardRow(name, workload.Shard{Index: i, Count: s.Count}), options, seed, toolVersion); err != nil {
			return st, err
		}
	}
	return st, nil
}

// dropShardRows removes every shard row of name's load.
func dropShardRows(ctx context.Context, db driver.DB, name string) error {
	fam, c, err := connect(ctx, db)
	if err != nil {
		return err
	}
	defer c.Close()
	if ok, err := TableExists(ctx, c, fam, Table); err != nil || !ok {
		return err
	}
	_, err = c.Exec(ctx, sqlexec.Placeholders(fam, "DELETE FROM "+Table+" WHERE workload LIKE $1"), name+":shard:%")
	return err
}

// CompleteShard records that shard s's part of name's load is complete.
func CompleteShard(ctx context.Context, db driver.DB, name string, s workload.Shard) error {
	_, err := Complete(ctx, db, ShardRow(name, s))
	return err
}

// MissingShards is the parts of name's load split over count shards that are not complete: all of
// them when nothing is recorded, none once the load is complete (sharded or not).
func MissingShards(ctx context.Context, db driver.DB, name string, count int) ([]int, error) {
	st, err := Read(ctx, db, name)
	if err != nil {
		return nil, err
	}
	var missing []int
	for i := range count {
		if st.Status == Completed {
			break
		}
		if st.Status == NotFound {
			missing = append(missing, i)
			continue
		}
		p, err := Read(ctx, db, ShardRow(name, workload.Shard{Index: i, Count: count}))
		if err != nil {
			return nil, err
		}
		if p.Status != Completed {
			missing = append(missing, i)
		}
	}
	return missing, nil
}

// WaitBegun is shard s (s.Index > 0) waiting for shard 0 to have begun name's load (its row and
// s's row recorded), for at most limit; it returns the load's row, whose seed and options the
// shard loads with.
func WaitBegun(ctx context.Context, db driver.DB, name string, s workload.Shard, limit time.Duration, note func(string)) (State, error) {
	var st State
	err := poll(ctx, limit, note, fmt.Sprintf("shard %s: waiting for shard 0 to begin the %s load", s, name), func() (string, bool, error) {
		var err error
		if st, err = Read(ctx, db, name); err != nil {
			return "", false, err
		}
		if st.Status == NotFound {
			return "not begun yet", false, nil
		}
		p, err := Read(ctx, db, ShardRow(name, s))
		if err != nil {
			return "", false, err
		}
		if p.Status == NotFound {
			if st.Status == Completed {
				return "", false, userr.Errorf("%s already holds a complete %s load that is not split into %d shards: run on it, or reload with shard 0 given --drop", db.Redacted(), name, s.Count)
			}
			return "begun without this shard's part (another shard count?)", false, nil
		}
		return "", true, nil
	})
	return st, err
}

// WaitShards is shard 0 waiting until every part of name's load split over count shards is
// complete, for at most limit.
func WaitShards(ctx context.Context, db driver.DB, name string, count int, limit time.Duration, note func(string)) error {
	return poll(ctx, limit, note, fmt.Sprintf("shard 0/%d: waiting for the other shards' parts of the %s load", count, name), func() (string, bool, error) {
		var missing []int
		for i := 1; i < count; i++ {
			p, err := Read(ctx, db, ShardRow(name, workload.Shard{Index: i, Count: count}))
			if err != nil {
				return "", false, err
			}
			if p.Status != Completed {
				missing = append(missing, i)
			}
		}
		parts := make([]string, len(missing))
		for k, i := range missing {
			parts[k] = strconv.Itoa(i) + "/" + strconv.Itoa(count)
		}
		return "not complete yet: " + strings.Join(parts, ", "), len(missing) == 0, nil
	})
}

// ShardsNote names the parts of a half-loaded, sharded load of name that are not complete ("" when
// the load is not sharded).
func ShardsNote(ctx context.Context, db driver.DB, name string) string {
	fam, c, err := connect(ctx, db)
	if err != nil {
		return ""
	}
	defer c.Close()
	rows, err := c.Query(ctx, sqlexec.Placeholders(fam, "SELECT workload, completed_at FROM "+Table+" WHERE workload LIKE $1"), name+":shard:%")
	if err != nil {
		return ""
	}
	defer rows.Close()
	var missing []string
	n := 0
	for rows.Next() {
		var w string
		var done *time.Time
		if rows.Scan(&w, &done) != nil {
			return ""
		}
		n++
		if done == nil {
			missing = append(missing, strings.TrimPrefix(w, name+":shard:"))
		}
	}
	if n == 0 || len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf(" (a sharded load: the parts of shards %s are not complete; start them with --shard, or reload)", strings.Join(missing, ", "))
}

// poll calls done every second until it reports true, saying what and its state through note every
// 10 s, for at most limit (DefaultShardWait when 0).
func poll(ctx context.Context, limit time.Duration, note func(string), what string, done func() (string, bool, error)) error {
	if limit <= 0 {
		limit = 30 * time.Minute
	}
	if note == nil {
		note = func(string) {}
	}
	t0 := time.Now()
	var said time.Time
	for {
		state, ok, err := done()
		if err != nil {
			return err
		}
		if ok {
			if !said.IsZero() {
				note(fmt.Sprintf("%s: done after %s", what, time.Since(t0).Round(time.Second)))
			}
			return nil
		}
		if time.Since(t0) > limit {
			return userr.Errorf("%s: gave up after %s (%s): start the missing shards, or give a longer --shard-wait", what, limit, state)
		}
		if said.IsZero() || time.Since(said) >= 10*time.Second {
			note(fmt.Sprintf("%s (%s, %s so far, giving up after --shard-wait %s)", what, state, time.Since(t0).Round(time.Second), limit))
			said = time.Now()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: interrupted", what)
		case <-time.After(time.Second):
		}
	}
}
