package run

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/loadstate"
)

// Shards: N processes, each given `--shard i/N`, split one load or run.
//
//   - The index may come from Kubernetes: an Indexed Job sets JOB_COMPLETION_INDEX in each pod, so
//     one manifest with `--shards N` serves every pod (ParseShard).
//   - Seeds: the user's seed (given or drawn) is the root; shard i runs with
//     gen.Derive(root, "shard", i), stored as the result's seed, the root in "shard" (ShardSeed).
//     A load is not reseeded: each warehouse's rows derive from the load's seed by name, so a
//     sharded load writes exactly the rows one process would.
//   - Rate mode: each shard drives rate/N (the sum of N independent Poisson streams of rate r/N is
//     a Poisson stream of rate r), rate.go.
//   - --start-at: every shard opens its connections, then waits for the common start, so that all
//     measure over [start_at+warmup, start_at+warmup+duration] on the wall clock (waitStart); the
//     result states each shard's lateness and what is known of its clock (report.Clock).
//   - The consistency check is not run by a shard: it runs once, after every shard has ended
//     (candor NAME check, or the merge).

// EnvShardIndex is the environment variable Kubernetes sets to a pod's index in an Indexed Job.
const EnvShardIndex = "JOB_COMPLETION_INDEX"

// DefaultShardWait bounds how long a shard waits for the others' parts of a load.
const DefaultShardWait = 30 * time.Minute

// StartAtTolerance is how far in the past --start-at may be when the run is ready to start: within
// it the run starts at once (its lateness is recorded in the result's clock); beyond it the run is
// refused, since its window would not be the other shards'.
const StartAtTolerance = 2 * time.Second

// ParseShard resolves `--shard i/N` (given says the flag was given) and `--shards N` (shards > 0
// when given) with the environment (getenv): an explicit --shard wins; --shards N alone takes the
// index from JOB_COMPLETION_INDEX. Neither: not sharded (the zero Shard).
func ParseShard(flag string, given bool, shards int, shardsGiven bool, getenv func(string) string) (workload.Shard, error) {
	if given {
		i, n, ok := strings.Cut(strings.TrimSpace(flag), "/")
		idx, err1 := strconv.Atoi(strings.TrimSpace(i))
		cnt, err2 := strconv.Atoi(strings.TrimSpace(n))
		if !ok || err1 != nil || err2 != nil {
			return workload.Shard{}, userr.Errorf("--shard %q is not INDEX/COUNT: write for example --shard 0/4 (0-based: the shards of 4 are 0/4 to 3/4)", flag)
		}
		if cnt < 1 || idx < 0 || idx >= cnt {
			return workload.Shard{}, userr.Errorf("--shard %s is out of range: the index is 0-based and below the count (0/%d to %d/%d)", flag, max(cnt, 1), max(cnt, 1)-1, max(cnt, 1))
		}
		if shardsGiven && shards != cnt {
			return workload.Shard{}, userr.Errorf("--shard %s and --shards %d disagree on the count: give one of them", flag, shards)
		}
		return workload.Shard{Index: idx, Count: cnt}, nil
	}
	if !shardsGiven {
		return workload.Shard{}, nil
	}
	if shards < 1 {
		return workload.Shard{}, userr.Errorf("--shards must be at least 1 (got %d)", shards)
	}
	v, ok := strings.TrimSpace(getenv(EnvShardIndex)), getenv(EnvShardIndex) != ""
	if !ok {
		return workload.Shard{}, userr.Errorf("--shards %d needs this process's index: give --shard i/%d, or set %s (a Kubernetes Indexed Job sets it in each pod)", shards, shards, EnvShardIndex)
	}
	idx, err := strconv.Atoi(v)
	if err != nil || idx < 0 || idx >= shards {
		return workload.Shard{}, userr.Errorf("the environment variable %s=%q is not a shard index of --shards %d (0 to %d): give the Indexed Job completions: %d, or --shard i/%d", EnvShardIndex, getenv(EnvShardIndex), shards, shards-1, shards, shards)
	}
	return workload.Shard{Index: idx, Count: shards}, nil
}

// ShardSeed is shard i's seed, derived from the root seed.
func ShardSeed(root uint64, index int) uint64 { return gen.Derive(root, "shard", index) }

// SetShard makes r shard s of a sharded run: the plan keeps the root seed in Shard and runs with
// the shard's derived seed. A zero s leaves r alone.
func (r *RunPlan) SetShard(s workload.Shard) {
	if !s.Sharded() {
		return
	}
	r.Shard = &report.Shard{Index: s.Index, Count: s.Count, RootSeed: r.Seed}
	r.Seed = ShardSeed(r.Seed, s.Index)
}

// shard is the plan's shard (the zero Shard when not sharded).
func (r *RunPlan) shard() workload.Shard {
	if r.Shard == nil {
		return workload.Shard{}
	}
	return workload.Shard{Index: r.Shard.Index, Count: r.Shard.Count}
}

// shardDiv is what the rate is divided by: the shard count (1 when not sharded).
func (r *RunPlan) shardDiv() float64 {
	if r.Shard == nil || r.Shard.Count < 1 {
		return 1
	}
	return float64(r.Shard.Count)
}

// ParseStartAt reads --start-at (RFC 3339, "2026-11-26T13:00:00Z").
func ParseStartAt(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, userr.Errorf("--start-at %q is not an RFC 3339 time: write for example --start-at %s", s, time.Now().UTC().Add(time.Minute).Truncate(time.Second).Format(time.RFC3339))
	}
	return t, nil
}

// validateShard adds the problems of --shard and --start-at.
func (r *RunPlan) validateShard(p *problems, now time.Time) {
	if s := r.Shard; s != nil && (s.Count < 1 || s.Index < 0 || s.Index >= s.Count) {
		p.add("--shard %d/%d is out of range: the index is 0-based and below the count", s.Index, s.Count)
	}
	if r.Shard != nil && !r.SeedGiven {
		// Each process would draw a root of its own: the shards' seeds would not derive from one.
		p.add("--shard needs --seed: give every shard the same root seed (each derives its own from it and its index), for example --seed %d", r.Shard.RootSeed)
	}
	if !r.StartAt.IsZero() && now.Sub(r.StartAt) > StartAtTolerance {
		p.add("--start-at %s is already past (by %s): give every shard the same time in the future, for example --start-at %s", r.StartAt.Format(time.RFC3339), now.Sub(r.StartAt).Round(time.Second), now.UTC().Add(time.Minute).Truncate(time.Second).Format(time.RFC3339))
	}
}

// Clock is what waitStart reads and waits on (a fake one in tests).
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type wallClock struct{}

func (wallClock) Now() time.Time                         { return time.Now() }
func (wallClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// waitStart waits until at (the connections are open by then), saying so through note. A start
// already past by more than StartAtTolerance is refused; within it the run starts at once. An
// interruption while waiting ends the run before anything was measured.
func waitStart(ctx context.Context, at time.Time, clk Clock, note func(string)) error {
	now := clk.Now()
	late := now.Sub(at)
	if late > StartAtTolerance {
		return userr.Errorf("--start-at %s was already past (by %s) once the connections were open: give every shard a start far enough ahead for its connections to open", at.Format(time.RFC3339Nano), late.Round(time.Millisecond))
	}
	if late >= 0 {
		note(fmt.Sprintf("--start-at %s: starting at once, %s late (within the tolerance of %s; the result's clock says so)", at.Format(time.RFC3339Nano), late.Round(time.Millisecond), StartAtTolerance))
		return nil
	}
	note(fmt.Sprintf("connections open; waiting %s until --start-at %s, the shards' common start", (-late).Round(time.Millisecond), at.Format(time.RFC3339Nano)))
	select {
	case <-ctx.Done():
		return fmt.Errorf("interrupted while waiting for --start-at %s: nothing was measured", at.Format(time.RFC3339))
	case <-clk.After(-late):
		return nil
	}
}

// clockResult is the result's clock: the window's start on the wall clock and its lateness
// against the common start (StartAt + warm-up).
func (r *RunPlan) clockResult(measureStart time.Time) *report.Clock {
	if r.Shard == nil && r.StartAt.IsZero() {
		return nil
	}
	c := &report.Clock{MeasureStart: measureStart.UTC(), ClockSource: clockSource()}
	if !r.StartAt.IsZero() {
		at := r.StartAt.UTC()
		c.StartAt = &at
		c.OffsetSeconds = measureStart.Sub(at.Add(r.Warmup)).Seconds()
	}
	return c
}

// ShardLoad is a sharded load's part for shard s of lp (the one-shot's and `load --shard`'s):
//
//   - a Sharder workload (TPC-C) loads s's part unless it is complete already, then, when wait is
//     set, waits until every part is complete;
//   - any other workload is loaded whole by shard 0 (unless it is loaded already); the other shards
//     wait until that load is complete.
//
// Waits poll every second, print a progress line every 10 s and give up after lp.ShardWait.
func ShardLoad(ctx context.Context, lp LoadPlan, s workload.Shard, wait bool, out Out) error {
	v := lp // validated as the shard it is (a workload may refuse to be sharded)
	v.Shard = &report.Shard{Index: s.Index, Count: s.Count, RootSeed: lp.Seed}
	if err := v.Validate(); err != nil {
		return err
	}
	w := lp.Workload
	db, err := driver.Open(ctx, lp.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	limit := lp.ShardWait
	if limit <= 0 {
		limit = DefaultShardWait
	}
	lp.ShardWait = limit
	name := w.Info().Name
	if sh, ok := w.(workload.Sharder); ok {
		missing, err := sh.MissingShards(ctx, db, s.Count)
		if err != nil {
			return err
		}
		if slices.Contains(missing, s.Index) {
			p := lp
			p.Shard = &report.Shard{Index: s.Index, Count: s.Count, RootSeed: lp.Seed}
			if err := Load(ctx, p, out); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(out.Stderr, "shard %s: this shard's part of the %s load is complete already in %s\n", s, name, db.Redacted())
		}
		if !wait {
			return nil
		}
		return pollShards(ctx, limit, out, fmt.Sprintf("shard %s: waiting for the other shards' parts of the %s load", s, name), func() (string, bool, error) {
			m, err := sh.MissingShards(ctx, db, s.Count)
			if err != nil {
				return "", false, err
			}
			return "not complete yet: " + loadstate.PartsText(m, s.Count), len(m) == 0, nil
		})
	}
	loaded, lerr := w.Loaded(ctx, db)
	if lerr == nil && loaded {
		fmt.Fprintf(out.Stderr, "shard %s: using the %s data already loaded in %s\n", s, name, db.Redacted())
		return nil
	}
	if s.Index == 0 {
		if lerr != nil {
			return lerr
		}
		fmt.Fprintf(out.Stderr, "shard %s: %s cannot split its load, so shard 0 loads all of it and the other shards wait\n", s, name)
		p := lp
		p.Shard = &report.Shard{Index: 0, Count: s.Count, RootSeed: lp.Seed}
		return Load(ctx, p, out)
	}
	return pollShards(ctx, limit, out, fmt.Sprintf("shard %s: %s cannot split its load; waiting for shard 0 to load all of it", s, name), func() (string, bool, error) {
		ok, err := w.Loaded(ctx, db)
		if err != nil {
			return err.Error(), false, nil // a load in progress reads as incomplete: wait on
		}
		return "not loaded yet", ok, nil
	})
}

// pollShards is loadstate.Poll saying its notes on out's standard error.
func pollShards(ctx context.Context, limit time.Duration, out Out, what string, done func() (state string, ok bool, err error)) error {
	return loadstate.Poll(ctx, limit, func(s string) { fmt.Fprintln(out.Stderr, s) }, what, done)
}
