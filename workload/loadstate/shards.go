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

// A sharded load (TPC-C, kv, ycsb, sysbench, script): besides the load's own
// record, candor_workloads holds one row per shard (NAME:shard:i/N, the load's options and seed):
// its part started (the row exists) and completed (completed_at). The load's record is the
// workload's row in candor_workloads, or, for TPC-C, its row in candor_load (Parts.Record).
//
//  1. shard 0 makes the room (refuse, or --drop), records the load and every shard's row
//     uncompleted (Begin), creates the tables;
//  2. shards 1..N-1 wait for those rows (WaitBegun, at most --shard-wait), take the load's seed
//     and options (other ones are refused), write their part and mark their row (Complete);
//  3. shard 0 writes its part, marks its row, waits until every shard's row is complete (Wait),
//     then finishes (keys, statistics) and marks the load's record complete.
//
// So the load is complete exactly when every part is and shard 0 has finished; until then the
// record is half-loaded and a run is refused (ForRun), naming the parts missing (HalfLoadedError).
// A shard restarted without --drop resumes where it can: shard 0 whose part is complete goes on
// to wait and finish (Resumes); a shard whose part is complete is told so.

// Parts is the bookkeeping of the sharded loads of the workload Name.
type Parts struct {
	// Name is the workload: its parts' rows are Name:shard:i/N.
	Name string
	// Record reads the load's own record (nil: Name's row in candor_workloads, Read). Its Status
	// says whether shard 0 has begun (HalfLoaded) and finished (Completed) the load.
	Record func(context.Context, driver.DB) (State, error)
}

// Row is the row of shard s's part.
func (p Parts) Row(s workload.Shard) string {
	return p.Name + ":shard:" + strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count)
}

// record reads the load's own record.
func (p Parts) record(ctx context.Context, db driver.DB) (State, error) {
	if p.Record != nil {
		return p.Record(ctx, db)
	}
	return Read(ctx, db, p.Name)
}

// part reads the row of shard i of count.
func (p Parts) part(ctx context.Context, db driver.DB, i, count int) (State, error) {
	return Read(ctx, db, p.Row(workload.Shard{Index: i, Count: count}))
}

// BeginShards is Begin for shard 0 of a sharded load of s.Count shards: the load's record and
// every shard's row.
func (p Parts) BeginShards(ctx context.Context, db driver.DB, s workload.Shard, options any, seed uint64, toolVersion string) (State, error) {
	st, err := Begin(ctx, db, p.Name, options, seed, toolVersion)
	if err != nil {
		return st, err
	}
	return st, p.Begin(ctx, db, s.Count, options, seed, toolVersion)
}

// Begin records the rows of every part of a load in count shards, uncompleted (an earlier load's
// rows removed); shard 0 calls it once it has begun the load's record.
func (p Parts) Begin(ctx context.Context, db driver.DB, count int, options any, seed uint64, toolVersion string) error {
	if err := p.Forget(ctx, db); err != nil {
		return err
	}
	for i := range count {
		if _, err := Begin(ctx, db, p.Row(workload.Shard{Index: i, Count: count}), options, seed, toolVersion); err != nil {
			return err
		}
	}
	return nil
}

// Forget removes every part's row of the workload's loads (an unsharded load, or --drop).
func (p Parts) Forget(ctx context.Context, db driver.DB) error {
	fam, c, err := connect(ctx, db)
	if err != nil {
		return err
	}
	defer c.Close()
	if ok, err := TableExists(ctx, c, fam, Table); err != nil || !ok {
		return err
	}
	_, err = c.Exec(ctx, sqlexec.Placeholders(fam, "DELETE FROM "+Table+" WHERE workload LIKE $1"), p.Name+":shard:%")
	return err
}

// Complete records that shard s's part is complete.
func (p Parts) Complete(ctx context.Context, db driver.DB, s workload.Shard) error {
	_, err := Complete(ctx, db, p.Row(s))
	return err
}

// Missing is the parts of a load split over count shards that are not complete: all of them when
// nothing is recorded, none once the load is complete (sharded or not). Shard 0's part includes
// finishing the load: it is missing until the load's record is complete, so whoever waits for no
// part missing waits for a load it can use.
func (p Parts) Missing(ctx context.Context, db driver.DB, count int) ([]int, error) {
	st, err := p.record(ctx, db)
	if err != nil {
		return nil, err
	}
	var missing []int
	for i := range count {
		switch st.Status {
		case Completed:
			return nil, nil
		case NotFound:
			missing = append(missing, i)
			continue
		}
		r, err := p.part(ctx, db, i, count)
		if err != nil {
			return nil, err
		}
		if i == 0 || r.Status != Completed {
			missing = append(missing, i)
		}
	}
	return missing, nil
}

// Resumes reports whether shard s, started without --drop on a database that holds a load, goes
// on with it instead of refusing: shard 0 of a half-loaded load in s.Count shards whose own part
// is complete (it stopped while waiting for the others, or before it finished) resumes by
// waiting for the others' parts and finishing. It returns the load's record.
func (p Parts) Resumes(ctx context.Context, db driver.DB, s workload.Shard) (bool, State, error) {
	if !s.Sharded() || s.Index != 0 {
		return false, State{}, nil
	}
	st, err := p.record(ctx, db)
	if err != nil || st.Status != HalfLoaded {
		return false, st, err
	}
	r, err := p.part(ctx, db, 0, s.Count)
	return err == nil && r.Status == Completed, st, err
}

// WaitBegun is shard s (s.Index > 0) waiting for shard 0 to have begun the load (its record and
// s's row), for at most limit; it returns the load's record, whose seed and options the shard
// loads with. A part complete already is refused unless drop: then the shard waits for shard 0 to
// begin the load anew.
func (p Parts) WaitBegun(ctx context.Context, db driver.DB, s workload.Shard, drop bool, limit time.Duration, note func(string)) (State, error) {
	var st State
	err := Poll(ctx, limit, note, fmt.Sprintf("shard %s: waiting for shard 0 to begin the %s load", s, p.Name), func() (string, bool, error) {
		var err error
		if st, err = p.record(ctx, db); err != nil {
			return "", false, err
		}
		if st.Status == NotFound {
			return "not begun yet", false, nil
		}
		r, err := Read(ctx, db, p.Row(s))
		if err != nil {
			return "", false, err
		}
		switch {
		case r.Status == NotFound && st.Status == Completed:
			return "", false, userr.Errorf("%s already holds a complete %s load that is not split into %d shards: run on it, or reload with shard 0 given --drop", db.Redacted(), p.Name, s.Count)
		case r.Status == NotFound:
			return "begun without this shard's part (another shard count?)", false, nil
		case r.Status == Completed && !drop:
			return "", false, userr.Errorf("shard %s's part of the %s load in %s is complete already: nothing to do (start shard 0 if the load is not complete), or pass --drop to every shard to reload (shard 0 drops the tables; the others wait for its new load)", s, p.Name, db.Redacted())
		case r.Status == Completed:
			return "this shard's part is of the load being replaced", false, nil
		}
		return "", true, nil
	})
	return st, err
}

// Joined is shard o.Shard (Index > 0) joining the load shard 0 began (WaitBegun): the load's
// record and its options decoded into R, which the shard compares with its own.
func Joined[R any](ctx context.Context, db driver.DB, p Parts, o workload.LoadOptions) (State, R, error) {
	var rec R
	st, err := p.WaitBegun(ctx, db, o.Shard, o.Drop, o.ShardWait, o.Note)
	if err == nil {
		err = st.Decode(&rec)
	}
	return st, rec, err
}

// Done is the end of a process's part of a load: it records shard o.Shard's part complete and, in
// shard 0, waits for every other part. It reports whether this process finishes the load (shard
// 0, or an unsharded load, which records nothing here).
func (p Parts) Done(ctx context.Context, db driver.DB, o workload.LoadOptions) (bool, error) {
	if !o.Shard.Sharded() {
		return true, nil
	}
	if err := p.Complete(ctx, db, o.Shard); err != nil {
		return false, err
	}
	if o.Shard.Index > 0 {
		return false, nil
	}
	return true, p.Wait(ctx, db, o.Shard.Count, o.ShardWait, o.Note)
}

// Wait is shard 0 waiting until every other part of a load split over count shards is complete,
// for at most limit.
func (p Parts) Wait(ctx context.Context, db driver.DB, count int, limit time.Duration, note func(string)) error {
	return Poll(ctx, limit, note, fmt.Sprintf("shard 0/%d: waiting for the other shards' parts of the %s load", count, p.Name), func() (string, bool, error) {
		var missing []int
		for i := 1; i < count; i++ {
			r, err := p.part(ctx, db, i, count)
			if err != nil {
				return "", false, err
			}
			if r.Status != Completed {
				missing = append(missing, i)
			}
		}
		return "not complete yet: " + PartsText(missing, count), len(missing) == 0, nil
	})
}

// PartsText names parts of a load in count shards: "1/3, 2/3".
func PartsText(parts []int, count int) string {
	s := make([]string, len(parts))
	for k, i := range parts {
		s[k] = strconv.Itoa(i) + "/" + strconv.Itoa(count)
	}
	return strings.Join(s, ", ")
}

// Begun reads the rows of the workload's sharded load: count is their N (0 when the load is not
// sharded), missing the parts not complete.
func (p Parts) Begun(ctx context.Context, db driver.DB) (count int, missing []int, err error) {
	fam, c, err := connect(ctx, db)
	if err != nil {
		return 0, nil, err
	}
	defer c.Close()
	if ok, err := TableExists(ctx, c, fam, Table); err != nil || !ok {
		return 0, nil, err
	}
	rows, err := c.Query(ctx, sqlexec.Placeholders(fam, "SELECT workload, completed_at FROM "+Table+" WHERE workload LIKE $1"), p.Name+":shard:%")
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	done := map[int]bool{}
	for rows.Next() {
		var w string
		var at *time.Time
		if err := rows.Scan(&w, &at); err != nil {
			return 0, nil, err
		}
		i, n, _ := strings.Cut(strings.TrimPrefix(w, p.Name+":shard:"), "/")
		k, err1 := strconv.Atoi(i)
		m, err2 := strconv.Atoi(n)
		if err1 != nil || err2 != nil {
			continue
		}
		count, done[k] = m, at != nil
	}
	if err := rows.Err(); err != nil {
		return 0, nil, err
	}
	for i := range count {
		if !done[i] {
			missing = append(missing, i)
		}
	}
	return count, missing, nil
}

// Note names what a half-loaded, sharded load still lacks: the parts not complete, or shard 0's
// finish once every part is in ("" when the load is not sharded).
func (p Parts) Note(ctx context.Context, db driver.DB) string {
	count, missing, err := p.Begun(ctx, db)
	switch {
	case err != nil || count == 0:
		return ""
	case len(missing) == 0:
		return fmt.Sprintf(" (a sharded load: every part is in, but shard 0 has not finished it: start shard 0 again, `candor %s load --shard 0/%d` without --drop, which finishes it)", p.Name, count)
	}
	return fmt.Sprintf(" (a sharded load: the parts of shards %s are not complete; start them with --shard, or reload)", PartsText(missing, count))
}

// Poll calls done every second until it reports true, saying what and its state through note every
// 10 s, for at most limit (30 minutes when 0): the shards' waits (and run.ShardLoad's).
func Poll(ctx context.Context, limit time.Duration, note func(string), what string, done func() (string, bool, error)) error {
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
