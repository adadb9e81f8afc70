package run

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

// TestParseShard: --shard i/N wins; --shards N takes the index from JOB_COMPLETION_INDEX; bad or
// out-of-range values are user errors naming the flag, or the variable when it came from there.
func TestParseShard(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvShardIndex {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct {
		flag        string
		given       bool
		shards      int
		shardsGiven bool
		env         string
		want        workload.Shard
		err         string
	}{
		{"", false, 0, false, "", workload.Shard{}, ""},
		{"", false, 0, false, "3", workload.Shard{}, ""}, // the variable alone shards nothing
		{"0/4", true, 0, false, "", workload.Shard{Index: 0, Count: 4}, ""},
		{" 3/4 ", true, 0, false, "1", workload.Shard{Index: 3, Count: 4}, ""}, // the flag wins
		{"2/3", true, 3, true, "0", workload.Shard{Index: 2, Count: 3}, ""},
		{"", false, 4, true, "2", workload.Shard{Index: 2, Count: 4}, ""},
		{"4/4", true, 0, false, "", workload.Shard{}, "out of range"},
		{"-1/4", true, 0, false, "", workload.Shard{}, "out of range"},
		{"1/0", true, 0, false, "", workload.Shard{}, "out of range"},
		{"1", true, 0, false, "", workload.Shard{}, "--shard 0/4"},
		{"a/b", true, 0, false, "", workload.Shard{}, "not INDEX/COUNT"},
		{"1/4", true, 3, true, "", workload.Shard{}, "disagree"},
		{"", false, 4, true, "", workload.Shard{}, EnvShardIndex},
		{"", false, 4, true, "4", workload.Shard{}, EnvShardIndex + "=\"4\""},
		{"", false, 4, true, "x", workload.Shard{}, EnvShardIndex + "=\"x\""},
		{"", false, 0, true, "0", workload.Shard{}, "--shards must be at least 1"},
	} {
		got, err := ParseShard(c.flag, c.given, c.shards, c.shardsGiven, env(c.env))
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("ParseShard(%q, %v, %d, %v, env %q) = %v, %v; want %v", c.flag, c.given, c.shards, c.shardsGiven, c.env, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !userr.Is(err)):
			t.Errorf("ParseShard(%q, %v, %d, %v, env %q) = %v, %v; want a user error saying %q", c.flag, c.given, c.shards, c.shardsGiven, c.env, got, err, c.err)
		}
	}
}

// TestShardSeeds: every shard's seed differs from the others' and from the root, is the same for
// the same root and index, and the plan keeps the root.
func TestShardSeeds(t *testing.T) {
	seen := map[uint64]int{}
	for i := range 64 {
		s := ShardSeed(42, i)
		if s == 42 {
			t.Fatalf("shard %d runs with the root seed", i)
		}
		if j, dup := seen[s]; dup {
			t.Fatalf("shards %d and %d have the same seed %d", j, i, s)
		}
		seen[s] = i
		if ShardSeed(42, i) != s {
			t.Fatalf("shard %d's seed is not reproducible", i)
		}
	}
	p := RunPlan{Seed: 42}
	p.SetShard(workload.Shard{Index: 3, Count: 8})
	if p.Seed != ShardSeed(42, 3) || p.Shard == nil || p.Shard.RootSeed != 42 || p.Shard.Index != 3 || p.Shard.Count != 8 {
		t.Fatalf("SetShard: seed %d, shard %+v", p.Seed, p.Shard)
	}
	q := RunPlan{Seed: 42}
	q.SetShard(workload.Shard{})
	if q.Seed != 42 || q.Shard != nil {
		t.Fatalf("SetShard of no shard changed the plan: seed %d, shard %+v", q.Seed, q.Shard)
	}
}

// TestShardRate: each of N shards drives rate/N, steps included, so that together they offer the
// rate given.
func TestShardRate(t *testing.T) {
	p := RunPlan{Mode: workload.ModeRate, Rate: "900", Duration: time.Minute}
	p.SetShard(workload.Shard{Index: 1, Count: 3})
	steps, err := p.rateSteps()
	if err != nil || len(steps) != 1 || steps[0].Rate != 300 {
		t.Fatalf("a shard of 3 at --rate 900: steps %+v, %v; want one step at 300/s", steps, err)
	}
	p.Rate, p.Step, p.StepEvery = "300..900", 300, 10*time.Second
	steps, err = p.rateSteps()
	if err != nil || len(steps) != 3 || steps[0].Rate != 100 || steps[2].Rate != 300 {
		t.Fatalf("a shard of 3 at --rate 300..900 --step 300: steps %+v, %v; want 100, 200, 300/s", steps, err)
	}
	if !strings.Contains(p.rateLine(), "1/3 of --rate 300..900") {
		t.Fatalf("rate line %q does not say the shard's share", p.rateLine())
	}
}

// fakeClock is a clock that moves only when After is waited on.
type fakeClock struct {
	now    time.Time
	waited []time.Duration
}

func (c *fakeClock) Now() time.Time { return c.now }
func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.waited = append(c.waited, d)
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// TestWaitStart: a start ahead is waited for exactly; one just past (within the tolerance) starts
// at once; one further past is refused, as is the plan; an interruption ends the wait.
func TestWaitStart(t *testing.T) {
	at := time.Date(2026, 11, 26, 13, 0, 0, 0, time.UTC)
	var notes []string
	note := func(s string) { notes = append(notes, s) }
	clk := &fakeClock{now: at.Add(-90 * time.Second)}
	if err := waitStart(context.Background(), at, clk, note); err != nil {
		t.Fatal(err)
	}
	if len(clk.waited) != 1 || clk.waited[0] != 90*time.Second || !clk.now.Equal(at) {
		t.Fatalf("waited %v, now %v; want one wait of 90s until %v", clk.waited, clk.now, at)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "waiting 1m30s until --start-at") {
		t.Fatalf("notes %q", notes)
	}
	clk = &fakeClock{now: at.Add(StartAtTolerance / 2)}
	if err := waitStart(context.Background(), at, clk, note); err != nil || len(clk.waited) != 0 {
		t.Fatalf("a start %s past: %v, waited %v; want to start at once", StartAtTolerance/2, err, clk.waited)
	}
	clk = &fakeClock{now: at.Add(StartAtTolerance + time.Second)}
	if err := waitStart(context.Background(), at, clk, note); err == nil || !userr.Is(err) || !strings.Contains(err.Error(), "already past") {
		t.Fatalf("a start well past: %v, want a user error saying it is past", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	blocked := &blockingClock{now: at.Add(-time.Hour)}
	if err := waitStart(ctx, at, blocked, note); err == nil || !strings.Contains(err.Error(), "nothing was measured") {
		t.Fatalf("an interrupted wait: %v", err)
	}
	p := RunPlan{StartAt: time.Now().Add(-time.Minute), SeedGiven: true}
	var pr problems
	p.validateShard(&pr, time.Now())
	if len(pr) != 1 || !strings.Contains(pr[0], "already past") {
		t.Fatalf("a plan starting a minute ago: %q", pr)
	}
	// A shard without --seed would draw a root of its own.
	q := RunPlan{Seed: 5}
	q.SetShard(workload.Shard{Index: 0, Count: 2})
	pr = nil
	q.validateShard(&pr, time.Now())
	if len(pr) != 1 || !strings.Contains(pr[0], "--shard needs --seed") {
		t.Fatalf("a shard without --seed: %q", pr)
	}
}

type blockingClock struct{ now time.Time }

func (c *blockingClock) Now() time.Time                       { return c.now }
func (c *blockingClock) After(time.Duration) <-chan time.Time { return nil }

// TestClockResult: the clock states the window's lateness against start_at + warm-up.
func TestClockResult(t *testing.T) {
	at := time.Date(2026, 11, 26, 13, 0, 0, 0, time.UTC)
	p := RunPlan{StartAt: at, Warmup: 2 * time.Second}
	c := p.clockResult(at.Add(2*time.Second + 40*time.Millisecond))
	if c == nil || c.StartAt == nil || !c.StartAt.Equal(at) || c.OffsetSeconds < 0.039 || c.OffsetSeconds > 0.041 || c.ClockSource == "" {
		t.Fatalf("clock %+v; want offset 0.04 s", c)
	}
	if (&RunPlan{}).clockResult(at) != nil {
		t.Fatal("an unsharded run without --start-at has a clock")
	}
}
