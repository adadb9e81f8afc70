package tpcc

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/loadstate"
)

// TestShardTerminals: shard i of N drives only the terminals of its warehouses (spec: one per
// district of each, clause 4.2.2), the shards' terminals are disjoint and together are the
// unsharded run's, while remote warehouses (New-Order supply, Payment customer) are drawn from all
// W, outside the shard's range too.
func TestShardTerminals(t *testing.T) {
	const W, N = 7, 3
	c := Constants{CLast: 100, CID: 200, OLIID: 300}
	seen := map[[2]int]int{}
	remoteOutside := false
	for i := range N {
		s := workload.Shard{Index: i, Count: N}
		lo, hi := s.Range(W)
		n := TerminalsPerWarehouse * (hi - lo + 1)
		for _, tm := range newTerminalsOf(n, W, lo, hi, ModeSpec, uint64(i), c) {
			hw, hd := tm.home()
			if hw < lo || hw > hi || tm.run.W != W {
				t.Fatalf("shard %s: a terminal of warehouse %d (W %d), outside %d..%d", s, hw, tm.run.W, lo, hi)
			}
			k := [2]int{hw, hd}
			if j, dup := seen[k]; dup {
				t.Fatalf("warehouse %d district %d has terminals in shards %d and %d", hw, hd, j, i)
			}
			seen[k] = i
			for range 200 {
				var in txInputs
				op, _ := tm.Next()
				tm.draw(op, &in)
				tm.Think(op)
				switch op {
				case NewOrder:
					for _, l := range in.no.Lines[:in.no.OLCnt] {
						remoteOutside = remoteOutside || l.SupplyWID < lo || l.SupplyWID > hi
					}
				case Payment:
					remoteOutside = remoteOutside || in.pay.CWID < lo || in.pay.CWID > hi
				}
			}
		}
		// Throughput mode: any terminal count, spread over the shard's warehouses only.
		for _, tm := range newTerminalsOf(5, W, lo, hi, ModeThroughput, 1, c) {
			if hw, _ := tm.home(); hw < lo || hw > hi {
				t.Fatalf("shard %s in throughput mode: a terminal of warehouse %d", s, hw)
			}
		}
	}
	if len(seen) != W*DistrictsPerWarehouse {
		t.Fatalf("the shards' spec terminals cover %d districts, want %d", len(seen), W*DistrictsPerWarehouse)
	}
	if !remoteOutside {
		t.Fatal("no remote warehouse outside a shard's range was drawn: remote warehouses must come from all W")
	}
}

// TestShardRows: the shards' parts add up to the whole load's rows (ITEM once, in shard 0).
func TestShardRows(t *testing.T) {
	for _, c := range []struct{ W, N int }{{1, 1}, {3, 3}, {10, 3}, {2, 5}} {
		w := &Workload{Options: Options{Warehouses: c.W}}
		var sum int64
		for i := range c.N {
			sum += w.ShardRows(workload.Shard{Index: i, Count: c.N})
		}
		if sum != ExpectedRows(c.W) {
			t.Errorf("W=%d in %d shards: the parts hold %d rows, the whole load %d", c.W, c.N, sum, ExpectedRows(c.W))
		}
	}
}

// TestShardRestarts (the sharded load's bookkeeping, loadstate.Parts): shard 0 of 2 gives up
// waiting for shard 1 with its part in; a run is refused naming shard 1/2; shard 1 loads its part,
// after which a run is refused saying shard 0 must finish; shard 1 started again without --drop is
// told its part is complete; shard 0 started again without --drop resumes (no --drop, no rows
// written twice), builds the keys and completes the load. Then shard 0 is stopped again, this
// time in the middle of its key build (keysResumed), and restarted; the load passes the
// consistency check. (Shards loading at once: cmd/candor's TestShardsLoadAndRun.)
func TestShardRestarts(t *testing.T) {
	parallel(t)
	for _, e := range testDBs {
		t.Run(e.name, func(t *testing.T) {
			parallel(t)
			ctx := context.Background()
			db := e.open(t)
			w := &Workload{Options: Options{Warehouses: 2}}
			missing := func(want ...int) {
				t.Helper()
				got, err := w.MissingShards(ctx, db, 2)
				if err != nil || !slices.Equal(got, want) {
					t.Fatalf("MissingShards = %v, %v; want %v", got, err, want)
				}
			}
			var notes []string
			shard := func(i int, wait time.Duration) LoadOptions {
				return LoadOptions{Warehouses: 2, Loaders: 2, Seed: 11, ToolVersion: "test", Shard: workload.Shard{Index: i, Count: 2},
					ShardWait: wait, Note: func(s string) { notes = append(notes, s) }}
			}
			missing(0, 1)
			_, err := Load(ctx, db, shard(0, 2*time.Second))
			if !userr.Is(err) || !strings.Contains(err.Error(), "gave up") || !strings.Contains(err.Error(), "1/2") {
				t.Fatalf("shard 0 without shard 1: %v, want it to give up naming 1/2", err)
			}
			missing(0, 1) // shard 0's part is in, but the load is not finished
			want := func(what string, err error, words ...string) {
				t.Helper()
				if !userr.Is(err) {
					t.Fatalf("%s: %v, want a user error", what, err)
				}
				for _, s := range words {
					if !strings.Contains(err.Error(), s) {
						t.Fatalf("%s: %v, want it to say %q", what, err, s)
					}
				}
			}
			sc := workload.SessionConfig{Mode: workload.ModeThroughput, Seed: 1}
			_, err = w.Open(ctx, db, sc)
			want("a run before shard 1", err, "in 2 shards is not complete", "shard 1/2 has not completed its part")
			if _, err := Load(ctx, db, shard(1, time.Minute)); err != nil {
				t.Fatalf("shard 1: %v", err)
			}
			missing(0)
			_, err = w.Open(ctx, db, sc)
			want("a run before shard 0 finished", err, "every shard's part is in", "--shard 0/2, without --drop")
			_, err = Check(ctx, db, CheckOptions{})
			want("a check before shard 0 finished", err, "did not complete", "shard 0 has not finished it")
			_, err = Load(ctx, db, shard(1, time.Minute))
			want("shard 1 again", err, "shard 1/2's part", "complete already")
			if n := count(t, db, "warehouse"); n != 2 {
				t.Fatalf("%d warehouses before shard 0's restart, want 2", n)
			}
			notes = nil
			info, err := Load(ctx, db, shard(0, time.Minute))
			if err != nil || !info.Resumed || !info.Completed {
				t.Fatalf("shard 0 restarted: %+v, %v; want it resumed and complete", info, err)
			}
			if !slices.ContainsFunc(notes, func(s string) bool { return strings.Contains(s, "is in already") }) {
				t.Errorf("shard 0's restart did not say it resumes: %q", notes)
			}
			missing()
			if n := count(t, db, "item"); n != Items {
				t.Errorf("%d items after the resumed load, want %d (ITEM once)", n, Items)
			}
			if s, err := w.Open(ctx, db, sc); err != nil {
				t.Errorf("a run on the completed load: %v", err)
			} else {
				s.Close()
			}
			keysResumed(t, db, shard(0, time.Minute)) // and the whole consistency check
			// A new load with --drop forgets the sharded load's rows: they are gone once it writes
			// its own (it is stopped there; the rest of a load is TestLoadAndCheck's).
			stopped, stop := context.WithCancel(ctx)
			defer stop()
			if _, err := Load(stopped, db, LoadOptions{Warehouses: 1, Loaders: 1, Seed: 3, Drop: true, ToolVersion: "test",
				Progress: func(int64) { stop() }}); !errors.Is(err, context.Canceled) {
				t.Fatalf("an unsharded load with Drop, stopped at its first rows: %v", err)
			}
			if n, m, err := parts.Begun(ctx, db); err != nil || n != 0 || len(m) != 0 {
				t.Errorf("after an unsharded load: the parts' rows %d, %v, %v; want none", n, m, err)
			}
		})
	}
}

// keysResumed: shard0 (shard 0 of a sharded load that completed on db) stopped while it built the
// keys (some built, some not; on PostgreSQL one table's unique index built and not yet attached as
// its primary key) is started again without --drop: it builds only what is missing, completes the
// load, and the load passes the consistency check. Built twice, an index or a key would fail
// ("already exists").
func keysResumed(t *testing.T, db driver.DB, shard0 LoadOptions) {
	t.Helper()
	ctx := context.Background()
	// The state a stop in the middle of the key build leaves: the load not complete, the
	// customers' index not built, and on PostgreSQL district without its key and stock
	// with its unique index but without the key made from it.
	exec(t, db, "UPDATE "+metaTable+" SET completed_at = NULL WHERE workload = 'tpcc'")
	dialect := db.Dialect().SQLFamily()
	switch dialect {
	case dialectMySQL:
		exec(t, db, "DROP INDEX customer_name_idx ON customer")
	default:
		exec(t, db, "DROP INDEX customer_name_idx")
	}
	if dialect == dialectPostgres {
		exec(t, db, "ALTER TABLE district DROP CONSTRAINT district_pkey")
		exec(t, db, "ALTER TABLE stock DROP CONSTRAINT stock_pkey")
		exec(t, db, "CREATE UNIQUE INDEX stock_pkey ON stock (s_w_id, s_i_id)")
	}
	c, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	before, err := loadstate.ReadKeys(ctx, c, dialect)
	if err != nil {
		t.Fatal(err)
	}
	if before.Indexes["customer_name_idx"] || !before.Indexes["orders_customer_idx"] {
		t.Fatalf("before the restart: indexes %v, want orders_customer_idx and not customer_name_idx", before.Indexes)
	}
	if dialect == dialectPostgres && (before.PrimaryKeys["district"] || before.PrimaryKeys["stock"] || !before.Indexes["stock_pkey"] || !before.PrimaryKeys["customer"]) {
		t.Fatalf("before the restart: keys %v, indexes %v", before.PrimaryKeys, before.Indexes)
	}

	info, err := Load(ctx, db, shard0)
	if err != nil || !info.Resumed || !info.Completed {
		t.Fatalf("shard 0 restarted during its key build: %+v, %v; want it resumed and complete", info, err)
	}
	after, err := loadstate.ReadKeys(ctx, c, dialect)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range indexes {
		if !after.Indexes[x.name] {
			t.Errorf("index %s missing after the resumed key build (indexes %v)", x.name, after.Indexes)
		}
	}
	for _, tb := range tables {
		if len(tb.pk) > 0 && !keyBuilt(after, dialect, tb) {
			t.Errorf("%s has no primary key after the resumed key build (keys %v, indexes %v)", tb.name, after.PrimaryKeys, after.Indexes)
		}
	}
	for _, r := range checkAll(t, db, true) {
		if !r.Skipped && !r.OK {
			t.Errorf("condition %d after the resumed key build: %v", r.Condition, r.Violations)
		}
	}
}
