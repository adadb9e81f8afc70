package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/candor-bench/candor/driver/blockconn"
	"github.com/candor-bench/candor/driver/mysql"
	"github.com/candor-bench/candor/driver/postgres"
	"github.com/candor-bench/candor/internal/dbtest"
)

// sysbench through the CLI: the flow every workload gets (workloads_test.go), then what is
// sysbench's own: the statements as parts of the transaction in result.json, the console and the
// page, another test on the same tables, and its refusals.

var sysbenchFlow = workloadFlow{name: "sysbench", loadArgs: []string{"--tables", "2", "--table-size", "2000"},
	slo: "transaction.p99<=5s", lead: "transactions",
	ops: []string{"transaction", "point_select", "simple_range", "sum_range", "order_range", "distinct_range",
		"index_update", "non_index_update", "delete", "insert", "commit"},
	searchOn: "mysql", oneShotOn: "sqlite",
	// oltp_read_write's 18 statements in a transaction took 250 ms on a MariaDB busy with other
	// packages' loads, and one connection at 20/s fell behind: the search probes point selects.
	searchArgs: []string{"--test", "oltp_point_select"}}

func TestSysbenchSQLiteCLI(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "sb.db")
	sysbenchFlow.run(t, db, dir)
	sysbenchParts(t, db, dir)
}

func TestSysbenchPostgresCLI(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	db := dbtest.FreshPostgresURL(t, "candor_sysbench_cli")
	sysbenchFlow.run(t, db, dir)
	sysbenchParts(t, db, dir)
}

func TestSysbenchMySQLCLI(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	db := dbtest.FreshMySQLURL(t, "candor_sysbench_cli")
	sysbenchFlow.run(t, db, dir)
	sysbenchParts(t, db, dir)
}

// TestSysbenchHeldPostgres and TestSysbenchHeldMySQL: sysbenchHeld on tables of their own. They
// stay serial: they set the environment, and a held run raises GOMAXPROCS in this process while it
// runs.
func TestSysbenchHeldPostgres(t *testing.T) {
	db := dbtest.FreshPostgresURL(t, "candor_sysbench_held")
	sysbenchFlow.cli(t, 0, append([]string{"sysbench", "load", "--db", db}, sysbenchFlow.loadArgs...)...)
	sysbenchHeld(t, db, t.TempDir(), postgres.SocketEnv)
}

func TestSysbenchHeldMySQL(t *testing.T) {
	db := dbtest.FreshMySQLURL(t, "candor_sysbench_held")
	sysbenchFlow.cli(t, 0, append([]string{"sysbench", "load", "--db", db}, sysbenchFlow.loadArgs...)...)
	sysbenchHeld(t, db, t.TempDir(), mysql.SocketEnv)
}

// sysbenchHeld: held sockets (driver/blockconn) are opt-in: a sysbench run with env unset is on Go's
// netpoller and leaves GOMAXPROCS alone; with env=held oltp_read_write's transactions complete
// without errors on held sockets, the disclosure says so and that GOMAXPROCS gave each held
// connection a P, and once the run is over GOMAXPROCS is what it was before; a run of more
// than blockconn.HeldPerCPU connections per CPU stays on the netpoller and says why; env=blocking
// (removed) is refused as the user's error.
func sysbenchHeld(t *testing.T, db, dir, env string) {
	t.Setenv(env, "")
	t.Setenv("GOMAXPROCS", "") // candor raises it for held connections only when the user has not set it
	before := runtime.GOMAXPROCS(0)
	runN := func(name string, terminals int, args ...string) map[string]any {
		out := filepath.Join(dir, name)
		sysbenchFlow.cli(t, 0, append(append([]string{}, args...), "--db", db, "--terminals", strconv.Itoa(terminals), "--duration", "2s",
			"--warmup", "0s", "--interval", "1s", "-q", "--out", out)...)
		return readResult(t, out)
	}
	run := func(name string, args ...string) map[string]any { return runN(name, 3, args...) }
	client := func(res map[string]any) string {
		c, _ := res["database"].(map[string]any)["client"].(string)
		return c
	}
	gomaxprocs := func(res map[string]any) float64 { return res["driver_host"].(map[string]any)["gomaxprocs"].(float64) }
	res := run("default", "sysbench", "run", "--test", "oltp_point_select")
	if c := client(res); strings.Contains(c, "sockets") {
		t.Errorf("by default: client path %q, want Go's netpoller", c)
	}
	if p := gomaxprocs(res); int(p) != before {
		t.Errorf("by default: GOMAXPROCS %v as the run ended, want %d as before", p, before)
	}
	t.Setenv(env, blockconn.Held)
	res = run("held", "sysbench", "run", "--test", "oltp_read_write")
	tx := res["operations"].(map[string]any)["transaction"].(map[string]any)
	if tx["count"].(float64) < 10 || tx["errors"].(float64) != 0 {
		t.Errorf("on held sockets: %v transactions, %v errors", tx["count"], tx["errors"])
	}
	var procs int
	if c := client(res); !strings.Contains(c, "held sockets for the run's connections") || !strings.Contains(c, env+"=held") {
		t.Errorf("the client path %q does not name the run's held sockets and %s", c, env)
	} else if _, err := fmt.Sscanf(c[strings.Index(c, "GOMAXPROCS up to "):], "GOMAXPROCS up to %d", &procs); err != nil || procs < 3+blockconn.SpareProcs {
		t.Errorf("the client path %q: GOMAXPROCS up to %d with 3 held connections, want at least %d", c, procs, 3+blockconn.SpareProcs)
	}
	if p := runtime.GOMAXPROCS(0); p != before {
		t.Errorf("GOMAXPROCS %d after the held run, want %d as before it", p, before)
	}
	many := blockconn.HeldPerCPU*before + 1
	if c := client(runN("many", many, "sysbench", "run", "--test", "oltp_point_select")); !strings.Contains(c, "Go's netpoller") || !strings.Contains(c, "per CPU") {
		t.Errorf("a run of %d connections on GOMAXPROCS %d: client path %q, want Go's netpoller and why", many, before, c)
	}
	t.Setenv(env, "blocking")
	if out := sysbenchFlow.cli(t, 2, "sysbench", "run", "--db", db, "--duration", "1s", "-q"); !strings.Contains(out, env+"=blocking") || !strings.Contains(out, "removed") {
		t.Errorf("%s=blocking: %q, want it refused as removed", env, out)
	}
}

// sysbenchParts checks the throughput run sysbenchFlow left in dir/thr, then runs another test.
func sysbenchParts(t *testing.T, db, dir string) {
	f := sysbenchFlow
	res := readResult(t, filepath.Join(dir, "thr"))
	ops := res["operations"].(map[string]any)
	tx := ops["transaction"].(map[string]any)
	if tx["part_of"] != nil {
		t.Errorf("the transaction is marked a part of %v", tx["part_of"])
	}
	n := tx["count"].(float64)
	for _, op := range f.ops[1:] {
		o := ops[op].(map[string]any)
		want := n
		if op == "point_select" {
			want = 10 * n
		}
		// Statements of transactions whose intended start was in the window: as many per
		// transaction as sysbench sends (retried attempts may add a few).
		if c := o["count"].(float64); c < want || c > want*1.05+2 {
			t.Errorf("%s: %v in the window, want about %v (%v transactions)", op, c, want, n)
		}
		if o["part_of"] != "transaction" || o["part_note"] == nil {
			t.Errorf("%s: part_of %v, part_note %v", op, o["part_of"], o["part_note"])
		}
	}
	if ops["random_points"] != nil {
		t.Errorf("oltp_read_write's result holds select_random_points' operation")
	}
	// The console and the page say what the parts are.
	out := f.cli(t, 0, "report", filepath.Join(dir, "thr"))
	for _, want := range []string{"are parts of transaction (each statement from its call to its result)", "sysbench: statements of the measured transactions", "point_select"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "thr", "report.html"))
	if err != nil || !strings.Contains(string(b), "spectrum-point_select") || !strings.Contains(string(b), "a part of transaction, each statement from its call to its result") {
		t.Errorf("report.html: %v, or no point_select spectrum marked a part of transaction", err)
	}

	// Another test on the same tables: one statement, no commit.
	ps := filepath.Join(dir, "ps")
	out = f.cli(t, 0, "sysbench", "run", "--db", db, "--test", "oltp_point_select", "--terminals", "2", "--duration", "2s",
		"--warmup", "0s", "--interval", "1s", "--rand-type", "pareto", "--out", ps)
	if !strings.Contains(out, "oltp_point_select, 2 tables of 2,000 rows, 1 statement per transaction, pareto ids") {
		t.Errorf("oltp_point_select's opening line is not there")
	}
	if !strings.Contains(out, "throughput per second: tx │") {
		t.Errorf("the progress line shows more than the transactions")
	}
	pres := readResult(t, ps)
	pops := pres["operations"].(map[string]any)
	if len(pops) != 2 || pops["commit"] != nil || pops["point_select"].(map[string]any)["count"] != pops["transaction"].(map[string]any)["count"] {
		t.Errorf("oltp_point_select's operations: %v", pops)
	}
	// Bad input: one sentence naming the flag, exit status 2, before anything connects.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--test", "oltp_nothing"}, `--test "oltp_nothing" is not a sysbench test candor has`},
		{[]string{"--rand-type", "normal"}, `--rand-type "normal" is not a distribution`},
		{[]string{"--table-size", "5"}, "--table-size 5 (loaded: 2000)"},
		{[]string{"--tables", "3"}, "--tables 3 (loaded: 2)"},
	} {
		out := f.cli(t, 2, append([]string{"sysbench", "run", "--db", db, "--duration", "1s"}, tc.args...)...)
		if !strings.Contains(out, tc.want) {
			t.Errorf("%v: no sentence saying %q", tc.args, tc.want)
		}
	}
}
