package run

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

// FuzzParseShard: whatever --shard, --shards and JOB_COMPLETION_INDEX say, ParseShard never
// panics; it returns a shard inside its count (the count --shard or --shards gave, --shard's index
// when given, the variable's otherwise), the zero Shard when neither flag was given, or a user
// error naming what is wrong. The seed corpus is testdata/fuzz/FuzzParseShard and the f.Add lines.
func FuzzParseShard(f *testing.F) {
	for _, c := range []struct {
		flag        string
		given       bool
		shards      int
		shardsGiven bool
		env         string
	}{
		{"0/4", true, 0, false, ""}, {" 3/4 ", true, 0, false, "1"}, {"2/3", true, 3, true, "0"},
		{"", false, 4, true, "2"}, {"4/4", true, 0, false, ""}, {"-1/4", true, 0, false, ""},
		{"1/0", true, 0, false, ""}, {"1", true, 0, false, ""}, {"a/b", true, 0, false, ""},
		{"1/4", true, 3, true, ""}, {"", false, 4, true, ""}, {"", false, 4, true, "4"},
		{"", false, 4, true, " 1 "}, {"", false, 0, true, "0"}, {"", false, -3, true, "0"},
		{"+1/+2", true, 0, false, ""}, {"1/2/3", true, 0, false, ""}, {"9223372036854775807/9223372036854775807", true, 0, false, ""},
		{"0x1/2", true, 0, false, ""}, {"", false, 2, true, "-0"}, {"", false, 0, false, "1"},
	} {
		f.Add(c.flag, c.given, c.shards, c.shardsGiven, c.env)
	}
	f.Fuzz(func(t *testing.T, flag string, given bool, shards int, shardsGiven bool, env string) {
		getenv := func(k string) string {
			if k == EnvShardIndex {
				return env
			}
			return ""
		}
		s, err := ParseShard(flag, given, shards, shardsGiven, getenv)
		if err != nil {
			if !userr.Is(err) {
				t.Fatalf("ParseShard(%q, %v, %d, %v, env %q): %v is not a user error", flag, given, shards, shardsGiven, env, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, "--shard") && !strings.Contains(msg, EnvShardIndex) {
				t.Fatalf("ParseShard(%q, %v, %d, %v, env %q): %q names neither --shard(s) nor %s", flag, given, shards, shardsGiven, env, msg, EnvShardIndex)
			}
			if s != (workload.Shard{}) {
				t.Fatalf("ParseShard(%q, ...) returned %v with its error", flag, s)
			}
			return
		}
		if !given && !shardsGiven {
			if s != (workload.Shard{}) {
				t.Fatalf("ParseShard without --shard or --shards = %v, want not sharded", s)
			}
			return
		}
		if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
			t.Fatalf("ParseShard(%q, %v, %d, %v, env %q) = %v: out of range", flag, given, shards, shardsGiven, env, s)
		}
		if shardsGiven && s.Count != shards {
			t.Fatalf("ParseShard(%q, %v, %d, %v, env %q) = %v: the count is not --shards'", flag, given, shards, shardsGiven, env, s)
		}
		want := strings.TrimSpace(env)
		if given {
			i, n, _ := strings.Cut(strings.TrimSpace(flag), "/")
			if c, _ := strconv.Atoi(strings.TrimSpace(n)); c != s.Count {
				t.Fatalf("ParseShard(%q) = %v: the count is not the flag's", flag, s)
			}
			want = strings.TrimSpace(i)
		}
		if idx, _ := strconv.Atoi(want); idx != s.Index {
			t.Fatalf("ParseShard(%q, %v, %d, %v, env %q) = %v: the index is not %q", flag, given, shards, shardsGiven, env, s, want)
		}
	})
}

// FuzzParseStartAt: whatever --start-at says, ParseStartAt never panics; it returns the RFC 3339
// time written (formatting it again and reading that gives the same instant) or a user error
// naming --start-at with an example that ParseStartAt itself accepts.
func FuzzParseStartAt(f *testing.F) {
	for _, s := range []string{"2026-11-26T13:00:00Z", "2026-11-26T13:00:00.123456789+02:00", " 2026-11-26T13:00:00Z ",
		"2026-11-26 13:00:00", "2026-11-26T25:00:00Z", "2026-02-30T13:00:00Z", "13:00", "", "now", "0000-01-01T00:00:00Z",
		"9999-12-31T23:59:59.999999999-23:59", "2026-11-26T13:00:00z", "1700000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		at, err := ParseStartAt(s)
		if err != nil {
			if !userr.Is(err) || !strings.Contains(err.Error(), "--start-at") {
				t.Fatalf("ParseStartAt(%q): %v, want a user error naming --start-at", s, err)
			}
			msg := err.Error()
			ex := msg[strings.LastIndex(msg, " ")+1:]
			if _, err := ParseStartAt(ex); err != nil {
				t.Fatalf("ParseStartAt(%q)'s example %q is refused: %v", s, ex, err)
			}
			return
		}
		again, err := ParseStartAt(at.Format(time.RFC3339Nano))
		if err != nil || !again.Equal(at) {
			t.Fatalf("ParseStartAt(%q) = %v; its RFC 3339 text reads back as %v, %v", s, at, again, err)
		}
	})
}
