package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/run"
)

// syncBuffer is a buffer several goroutines of one command write to (progress lines, notes).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runShardCLI runs candor in-process with output of its own, so that several can run at once (as
// the shards' processes would), and returns its exit status and what it printed.
func runShardCLI(t *testing.T, name string, args ...string) (int, string) {
	var buf syncBuffer
	code := executeTo(args, &buf, &buf, false)
	t.Logf("[%s] candor %s -> exit %d\n%s", name, strings.Join(args, " "), code, buf.String())
	return code, buf.String()
}

// TestShardsLoadAndRun on PostgreSQL: W = 3 loaded in 3 shards, shards 0
// and 1 at once (shard 0 waits for the others before it builds the keys), a shard's run refused
// while shard 2's part is missing, an unsharded run refused by the shards' lock, then shard 2
// through the one-shot (its part, a wait for shard 0, a short run);
// then 3 shards' runs at once with a common --start-at, whose results carry the shard and clock,
// their own seeds and warehouses, and no consistency check.
func TestShardsLoadAndRun(t *testing.T) {
	parallel(t)
	// Its candor calls run in this process, up to three at once (runShardCLI): they hold three call
	// slots throughout, as three child processes would.
	defer holdSlots(3)()
	db := dbtest.FreshPostgresURL(t, "candor_shard")
	load := func(i int) []string {
		return []string{"tpcc", "load", "--db", db, "--warehouses", "3", "--seed", "7", "--loaders", "2",
			"--shard", fmt.Sprintf("%d/3", i), "--shard-wait", "5m"}
	}
	shard0 := make(chan int, 1)
	var out0 string
	go func() {
		code, out := runShardCLI(t, "load 0/3", load(0)...)
		out0 = out
		shard0 <- code
	}()
	if code, out := runShardCLI(t, "load 1/3", load(1)...); code != 0 || !strings.Contains(out, "shard 1/3's part of 3 warehouses: warehouses 2..2") {
		t.Fatalf("shard 1's load: exit %d", code)
	}
	// Shard 0 now waits for shard 2: a shard's run is refused, naming the missing part.
	code, out := runShardCLI(t, "run early", "tpcc", "run", "--db", db, "--shard", "0/3", "--seed", "1", "--duration", "5s", "--warmup", "0s", "--out", filepath.Join(t.TempDir(), "early"))
	if code != 2 || !strings.Contains(out, "in 3 shards is not complete") || !strings.Contains(out, "2/3") {
		t.Fatalf("a run while shard 2 is missing: exit %d, want 2 naming shard 2/3", code)
	}
	// An unrelated (unsharded) run is refused while the shards hold candor's lock.
	code, out = runShardCLI(t, "run unsharded", "tpcc", "run", "--db", db, "--duration", "5s", "--warmup", "0s", "--out", filepath.Join(t.TempDir(), "unsharded"))
	if code != 2 || !strings.Contains(out, "candor's lock") {
		t.Fatalf("an unsharded run during a sharded load: exit %d, want 2 naming the lock", code)
	}
	// Shard 2 through the one-shot: its part of the load, a wait for shard 0's keys, then its run.
	code, out = runShardCLI(t, "one-shot 2/3", "tpcc", "--db", db, "--warehouses", "3", "--load-seed", "7", "--shard", "2/3",
		"--mode", "throughput", "--seed", "5", "--warmup", "0s", "--duration", "2s", "--out", filepath.Join(t.TempDir(), "oneshot"))
	if code != 0 || !strings.Contains(out, "warehouses 3..3") || !strings.Contains(out, "waiting for the other shards' parts") || !strings.Contains(out, "shard 2/3 of a sharded run") {
		t.Fatalf("shard 2's one-shot: exit %d, want its part loaded, a wait for the others, then its run", code)
	}
	select {
	case code := <-shard0:
		if code != 0 || !strings.Contains(out0, "shard 0/3's part of 3 warehouses: warehouses 1..1 and ITEM") {
			t.Fatalf("shard 0's load: exit %d", code)
		}
	case <-time.After(5 * time.Minute):
		t.Fatal("shard 0's load did not end")
	}

	// Three shards' runs at once, with a common start far enough ahead for their connections.
	at := time.Now().Add(15 * time.Second).UTC().Truncate(time.Millisecond)
	dir := t.TempDir()
	var wg sync.WaitGroup
	codes, outs := make([]int, 3), make([]string, 3)
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], outs[i] = runShardCLI(t, fmt.Sprintf("run %d/3", i), "tpcc", "run", "--db", db, "--mode", "spec",
				"--shard", fmt.Sprintf("%d/3", i), "--seed", "99", "--start-at", at.Format(time.RFC3339Nano),
				"--warmup", "2s", "--duration", "5s", "--grace", "10s", "--interval", "1s",
				"--out", filepath.Join(dir, fmt.Sprint(i)))
		}()
	}
	wg.Wait()
	seeds := map[float64]bool{}
	for i := range 3 {
		if codes[i] != 0 {
			t.Fatalf("shard %d's run: exit %d", i, codes[i])
		}
		if !strings.Contains(outs[i], "until --start-at") {
			t.Errorf("shard %d did not say it waits for --start-at", i)
		}
		r := readResult(t, filepath.Join(dir, fmt.Sprint(i)))
		sh, _ := r["shard"].(map[string]any)
		if sh == nil || sh["index"] != float64(i) || sh["count"] != float64(3) || sh["root_seed"] != float64(99) {
			t.Fatalf("shard %d's result.json shard = %v", i, r["shard"])
		}
		seed := r["seed"].(float64)
		if want := float64(run.ShardSeed(99, i)); seed != want || seeds[seed] {
			t.Errorf("shard %d's seed %v, want %v, distinct from the others'", i, seed, want)
		}
		seeds[seed] = true
		clk, _ := r["clock"].(map[string]any)
		if clk == nil {
			t.Fatalf("shard %d's result.json has no clock", i)
		}
		if got, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(clk["start_at"])); !got.Equal(at) {
			t.Errorf("shard %d's clock.start_at %v, want %v", i, clk["start_at"], at)
		}
		ms, err := time.Parse(time.RFC3339Nano, fmt.Sprint(clk["measure_start"]))
		off, _ := clk["offset_seconds"].(float64)
		if err != nil || off < 0 || off > run.StartAtTolerance.Seconds() || ms.Sub(at.Add(2*time.Second)).Seconds()-off > 0.001 {
			t.Errorf("shard %d's clock %v: the window should start at start_at + warm-up, its lateness the offset", i, clk)
		}
		if s, _ := clk["clock_source"].(string); s == "" {
			t.Errorf("shard %d's clock has no clock_source", i)
		}
		if r["terminals"] != float64(10) {
			t.Errorf("shard %d ran %v terminals, want 10 (its one warehouse's)", i, r["terminals"])
		}
		if setup := fmt.Sprint(r["setup"]); !strings.Contains(setup, fmt.Sprintf("home warehouses %d..%d", i+1, i+1)) {
			t.Errorf("shard %d's setup %q does not name its warehouse %d", i, setup, i+1)
		}
		if cs, _ := r["checks"].([]any); len(cs) != 0 {
			t.Errorf("shard %d ran the consistency check (%d conditions): it runs once, after every shard", i, len(cs))
		}
		if plan, _ := r["plan"].(map[string]any); plan == nil || plan["start_at"] == nil || plan["shard"] == nil {
			t.Errorf("shard %d's plan lacks start_at or shard: %v", i, r["plan"])
		}
	}
	// After every shard: the consistency check, once.
	if code, _ := runShardCLI(t, "check", "tpcc", "check", "--db", db); code != 0 {
		t.Fatalf("the consistency check after the shards' runs: exit %d", code)
	}
}

// TestShardBadInput: bad --shard, --shards, --start-at and their combinations are one clear
// sentence each, exit status 2, before anything connects.
func TestShardBadInput(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	t.Setenv(run.EnvShardIndex, "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tpcc", "run", "--db", db, "--shard", "3/3", "--seed", "1"}, "out of range"},
		{[]string{"tpcc", "run", "--db", db, "--shard", "x"}, "INDEX/COUNT"},
		{[]string{"tpcc", "run", "--db", db, "--shards", "3"}, run.EnvShardIndex},
		{[]string{"tpcc", "run", "--db", db, "--shard", "0/2"}, "--shard needs --seed"},
		{[]string{"tpcc", "run", "--db", db, "--start-at", "soon"}, "not an RFC 3339 time"},
		{[]string{"tpcc", "run", "--db", db, "--start-at", "2020-01-01T00:00:00Z"}, "already past"},
		{[]string{"tpcc", "--db", db, "--shard", "0/2", "--seed", "1"}, "give --mode"},
		{[]string{"tpcc", "load", "--db", db, "--shard", "1/2", "--shard-wait", "0s"}, "--shard-wait must be positive"},
	} {
		code, out := runShardCLI(t, "bad", c.args...)
		if code != 2 || !strings.Contains(out, c.want) {
			t.Errorf("candor %s: exit %d, want 2 saying %q", strings.Join(c.args, " "), code, c.want)
		}
	}
}

// TestShardSpecTerminals: in spec mode a shard's --terminals is 10 per warehouse of its range, and
// a shard without a warehouse is refused, before anything connects.
func TestShardSpecTerminals(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--warehouses", "10", "--shard", "2/3", "--terminals", "30"}, "exactly 10 terminals per warehouse (40)"},
		{[]string{"--warehouses", "2", "--shard", "0/3"}, "has no warehouse of 2"},
	} {
		args := append([]string{"tpcc", "run", "--db", db, "--mode", "spec", "--seed", "1"}, c.args...)
		code, out := runShardCLI(t, "spec", args...)
		if code != 2 || !strings.Contains(out, c.want) {
			t.Errorf("candor %s: exit %d, want 2 saying %q", strings.Join(args, " "), code, c.want)
		}
	}
}
