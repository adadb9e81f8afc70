package main

import (
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/run"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

// shardFlags are --shard, --shards, --shard-wait and (run, one-shot) --start-at: run/shard.go.
type shardFlags struct {
	shard   string
	shards  int
	wait    time.Duration
	startAt string
}

func addShardFlags(c *cobra.Command, f *shardFlags, withStart, withWait bool) {
	fs := c.Flags()
	fs.StringVar(&f.shard, "shard", "", "this process's part of a sharded load or run, INDEX/COUNT, 0-based (--shard 0/4 ... 3/4): shard i takes the i-th of COUNT equal parts of the workload's data and terminals")
	fs.IntVar(&f.shards, "shards", 0, "the shard count, the index taken from $"+run.EnvShardIndex+" (set by a Kubernetes Indexed Job), so one manifest serves every pod")
	f.wait = run.DefaultShardWait
	if withWait {
		fs.DurationVar(&f.wait, "shard-wait", run.DefaultShardWait, "how long a shard waits for the other shards' parts of the load")
	}
	if withStart {
		fs.StringVar(&f.startAt, "start-at", "", "start the run (its warm-up) at this RFC 3339 time once the connections are open, so every shard measures over the same wall-clock window (for example 2026-11-26T13:00:00Z)")
	}
}

// resolve reads the flags: the shard (zero when not sharded) and the start (zero without).
func (f *shardFlags) resolve(c *cobra.Command) (workload.Shard, time.Time, error) {
	s, err := run.ParseShard(f.shard, c.Flags().Changed("shard"), f.shards, c.Flags().Changed("shards"), os.Getenv)
	if err != nil {
		return s, time.Time{}, err
	}
	if f.wait <= 0 {
		return s, time.Time{}, userr.Errorf("--shard-wait must be positive (got %s)", f.wait)
	}
	var at time.Time
	if f.startAt != "" {
		if at, err = run.ParseStartAt(f.startAt); err != nil {
			return s, at, err
		}
	}
	return s, at, nil
}
