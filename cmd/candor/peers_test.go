package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestPeerHabits: a peer's flag or subcommand is answered with candor's name for it (exit 2); where
// a candor command defines the name itself, its own flag is parsed.
func TestPeerHabits(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string // in the output; "" for none
	}{
		{[]string{"kv", "--threads", "8"}, 2, "--threads is sysbench's and go-tpc's (concurrent clients); candor's is --terminals"},
		{[]string{"sysbench", "run", "--threads=8"}, 2, "candor's is --terminals"},
		{[]string{"tpcc", "run", "-T", "60"}, 2, "-T is pgbench's (seconds to run); candor's is --duration"},
		{[]string{"tpcc", "-c", "8"}, 2, "-c is pgbench's (clients); candor's is --terminals"},
		{[]string{"kv", "-j", "4"}, 2, "-j is pgbench's (threads of the driver); candor's is --terminals"},
		{[]string{"sysbench", "--time", "60"}, 2, "--time is sysbench's and go-tpc's (seconds to run); candor's is --duration"},
		{[]string{"ycsb", "run", "-threads", "8"}, 2, "-threads is YCSB's (client threads); candor's is --terminals"},
		{[]string{"ycsb", "-target", "1000"}, 2, "-target is YCSB's (operations per second); candor's is --rate"},
		{[]string{"script", "run", "-P", "5"}, 2, "-P is pgbench's (progress every N seconds); candor's is --interval"},
		{[]string{"script", "-i", "-s", "10"}, 2, "-i is pgbench's (initialize); candor's is the load subcommand"},
		{[]string{"ycsb", "-P", "x", "--help"}, 0, ""}, // ycsb's own -P, a property file
		{[]string{"kv", "--concurrency", "8"}, 2, "--concurrency is cockroach workload's (concurrent workers); candor's is --terminals"},
		{[]string{"sysbench", "load", "--mysql-host", "h"}, 2, "candor's is --db mysql://"},
		{[]string{"sysbench", "prepare"}, 2, "prepare is sysbench's; candor's is load: `candor sysbench load --db URL`"},
		{[]string{"tpcc", "cleanup"}, 2, "cleanup is sysbench's and go-tpc's; candor's is drop: `candor tpcc drop --db URL`"},
		{[]string{"kv", "init"}, 2, "init is cockroach workload's (and pgbench -i's); candor's is load: `candor kv load --db URL`"},
		{[]string{"init"}, 2, "candor's is load: `candor WORKLOAD load --db URL`"},
		// a name a candor command defines is its own: script's -c is pgbench's -c
		{[]string{"script", "run", "-c", "4", "--help"}, 0, ""},
		{[]string{"script", "run", "-c", "x"}, 2, "invalid argument \"x\" for \"-c, --clients\""},
		// not a peer's: the plain error
		{[]string{"kv", "--no-such-flag"}, 2, "unknown flag: --no-such-flag"},
	}
	for _, tc := range cases {
		var buf bytes.Buffer
		code := executeTo(tc.args, &buf, &buf, false)
		if code != tc.code || !strings.Contains(buf.String(), tc.want) {
			t.Errorf("candor %s: exit %d, want %d and %q in:\n%s", strings.Join(tc.args, " "), code, tc.code, tc.want, buf.String())
		}
		if tc.code == 2 && strings.Count(buf.String(), "\n") != 1 {
			t.Errorf("candor %s: not one sentence:\n%s", strings.Join(tc.args, " "), buf.String())
		}
	}
}
