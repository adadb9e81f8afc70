package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/report"
)

// The workloads beside TPC-C, through the CLI the contract builds for each of them: load, check,
// a run in every mode, search, report (console and HTML), compare and the one-shot, on the real
// engines. One flow serves every workload: what differs is the load's arguments, an SLO and the
// headline figure's name.

type workloadFlow struct {
	name     string
	loadArgs []string // after load --db URL
	runArgs  []string // added to every run
	slo      string
	lead     string // the result's first headline figure
	ops      []string
	// slow: an engine that scans its table on every key lookup (the Dolt stand-in): the rate run
	// and the search start lower, so that a busy machine does not make them a test of capacity.
	slow bool
	// searchOn and oneShotOn: the engines (sqlite, postgres, mysql, dolt; "" none) whose flow runs the
	// search and the one-shot. Both are workload-neutral orchestration (run/search.go,
	// run/oneshot.go) over open-loop and closed-loop runs that the flow has already shown on every
	// engine, and both hold the machine to themselves (calls): each workload runs them on different
	// engines, rotating over the workloads, so that every workload and every engine meets both once.
	searchOn, oneShotOn string
	// searchArgs are added to the search's arguments: a lighter test where the flow's own would make
	// the search a test of the busy machine's capacity.
	searchArgs []string
}

// engineOf names db's engine as searchOn and oneShotOn do.
func engineOf(db string) string {
	switch {
	case strings.HasPrefix(db, "sqlite:"):
		return "sqlite"
	case strings.HasPrefix(db, "postgres"):
		return "postgres"
	case strings.HasPrefix(db, "mysql:"), strings.HasPrefix(db, "mariadb:"):
		return "mysql"
	case strings.HasPrefix(db, "dolt:"):
		return "dolt"
	}
	return ""
}

// rates are the rate run's rate and the search's start rate of f.
func (f workloadFlow) rates() (run, search string) {
	if f.slow {
		return "20", "5"
	}
	return "50", "20"
}

var kvFlow = workloadFlow{name: "kv", loadArgs: []string{"--insert-count", "2000"}, slo: "read.p99<=5s",
	lead: "throughput", ops: []string{"read", "write", "scan", "delete"}, searchOn: "sqlite", oneShotOn: "postgres"}

func TestKVSQLiteCLI(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	kvFlow.run(t, "sqlite:"+filepath.Join(dir, "kv.db"), dir)
}

func TestKVPostgresCLI(t *testing.T) {
	parallel(t)
	kvFlow.run(t, dbtest.FreshPostgresURL(t, "candor_kv_cli"), t.TempDir())
}

func TestKVMySQLCLI(t *testing.T) {
	parallel(t)
	kvFlow.run(t, dbtest.FreshMySQLURL(t, "candor_kv_cli"), t.TempDir())
}

func (f workloadFlow) cli(t *testing.T, want int, args ...string) string {
	t.Helper()
	code, out := runCLI(t, args...)
	if code != want {
		t.Fatalf("candor %s: exit %d, want %d", strings.Join(args, " "), code, want)
	}
	if strings.Contains(out, "panic") || strings.Contains(out, "goroutine ") {
		t.Fatalf("candor %s panicked", strings.Join(args, " "))
	}
	return out
}

// run is the flow on db: load, check, a throughput run, an open-loop run, report and compare, and on
// the engines the flow names a search and the one-shot. Its open-loop run and one-shot assert the
// rate offered, nothing dropped and what the output holds, which a busy machine does not change, so
// they run beside other tests' runs (ratesShared); its search holds the machine.
func (f workloadFlow) run(t *testing.T, db, dir string) {
	ratesShared(t)
	f.cli(t, 0, append([]string{f.name, "load", "--db", db, "--loaders", "2"}, f.loadArgs...)...)
	if out := f.cli(t, 0, f.name, "check", "--db", db, "--full"); strings.Contains(out, "FAIL") {
		t.Fatalf("check after the load failed")
	}
	// A second load without --drop is refused and names the fix.
	if out := f.cli(t, 2, append([]string{f.name, "load", "--db", db}, f.loadArgs...)...); !strings.Contains(out, "--drop") {
		t.Errorf("a second load without --drop does not name --drop")
	}

	short := []string{"--duration", "3s", "--warmup", "1s", "--interval", "1s", "-q"}
	thr, rate := filepath.Join(dir, "thr"), filepath.Join(dir, "rate")
	out := f.cli(t, 0, append(append([]string{f.name, "run", "--db", db, "--mode", "throughput", "--terminals", "2", "--out", thr, "--check-full"}, short...), f.runArgs...)...)
	for _, want := range []string{"candor " + f.name, f.lead, "consistency checks", "response time"} {
		if !strings.Contains(out, want) {
			t.Errorf("throughput summary lacks %q", want)
		}
	}
	res := readResult(t, thr)
	f.checkResult(t, res, "throughput")
	runRate, _ := f.rates()
	f.cli(t, 0, append(append([]string{f.name, "run", "--db", db, "--mode", "rate", "--rate", runRate, "--out", rate}, short...), f.runArgs...)...)
	rres := readResult(t, rate)
	f.checkResult(t, rres, "rate")
	// The driver offered the rate (its schedule kept, nothing dropped); whether the database kept
	// up in 3 s is the host's capacity: a transaction's tail of a few hundred ms on a loaded host
	// leaves more than 5% of the arrivals unfinished at the window's end (RATE_NOT_SUSTAINED says
	// so), so "sustained" is not asserted here.
	r, _ := rres["rate"].(map[string]any)
	target, _ := strconv.ParseFloat(runRate, 64)
	// Poisson arrivals over 3 s: the count offered within 4 standard deviations of the target's.
	if n := 3 * target; r == nil || r["dropped"] != 0.0 || math.Abs(3*r["offered_rate"].(float64)-n) > 4*math.Sqrt(n)+2 {
		t.Errorf("rate %s/s: rate %v, want the rate offered (a Poisson count within 4 standard deviations) and nothing dropped", runRate, rres["rate"])
	}
	if r != nil && r["sustained"] != true && !strings.Contains(mustRead(t, filepath.Join(rate, report.ResultFile)), "RATE_NOT_SUSTAINED") {
		t.Errorf("rate %s/s: not sustained, and no RATE_NOT_SUSTAINED warning says so", runRate)
	}
	// A mode the workload has not: refused before anything connects.
	if out := f.cli(t, 2, f.name, "run", "--db", db, "--mode", "spec", "--duration", "1s"); !strings.Contains(out, "is not a mode of "+f.name) {
		t.Errorf("spec mode: no sentence naming the modes of %s", f.name)
	}

	// report, report --html, compare.
	if out := f.cli(t, 0, "report", thr); !strings.Contains(out, f.lead) {
		t.Errorf("report of a %s run lacks %q", f.name, f.lead)
	}
	page := filepath.Join(dir, "page.html")
	f.cli(t, 0, "report", thr, "--html", page)
	if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), "spectrum-"+f.ops[0]) {
		t.Errorf("report --html: %v, or no spectrum chart of %s", err, f.ops[0])
	}
	if out := f.cli(t, 0, "compare", thr, rate); !strings.Contains(out, f.ops[0]) || !strings.Contains(out, "conditions that differ") {
		t.Errorf("compare of two %s runs lacks %s or the conditions", f.name, f.ops[0])
	}

	if engineOf(db) == f.searchOn {
		f.search(t, db, dir)
	}
	if engineOf(db) == f.oneShotOn {
		f.oneShot(t, db, dir)
	}
}

// search: the highest rate meeting a budget, checked afterwards.
func (f workloadFlow) search(t *testing.T, db, dir string) {
	_, searchRate := f.rates()
	srch := filepath.Join(dir, "search")
	out := f.cli(t, 0, append([]string{f.name, "search", "--db", db, "--slo", f.slo, "--probe", "2s", "--warmup", "1s",
		"--start-rate", searchRate, "--max-probes", "2", "--confirm", "1", "--confirm-probe", "2s", "--out", srch}, slices.Concat(f.runArgs, f.searchArgs)...)...)
	// The answer is "at least" the start rate when the first probe passes; on a busy host a 2 s
	// probe of a few Poisson arrivals may fall short of its rate, and the search steps down: either
	// way it states a max rate.
	if !strings.Contains(out, "max rate: ") || !strings.Contains(out, "confirmed by 1 probe(s) of 2 s") || !strings.Contains(out, "consistency checks") {
		t.Errorf("search does not print its answer, its confirmation and its check:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(srch, report.SearchFile)); err != nil {
		t.Errorf("search.json: %v", err)
	}
}

// oneShot: the one-shot on the loaded data: peak, then open loop at 50% and 80%, side by side.
func (f workloadFlow) oneShot(t *testing.T, db, dir string) {
	one := filepath.Join(dir, "oneshot")
	out := f.cli(t, 0, append([]string{f.name, "--db", db, "--peak-duration", "2s", "--peak-warmup", "1s", "--duration", "2s",
		"--warmup", "1s", "--interval", "1s", "--out", one}, f.runArgs...)...)
	for _, want := range []string{"using the " + f.name + " data already loaded", "peak (closed loop)", "50% of peak (open loop)", "80% of peak (open loop)", f.ops[0]} {
		if !strings.Contains(out, want) {
			t.Errorf("one-shot output lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(one, "index.html")); err != nil {
		t.Errorf("one-shot page: %v", err)
	}
}

// checkResult checks the envelope of a run of f: format 2, the workload's operations with figures,
// its lead headline figure, no TPC-C keys, a plan that names the workload and holds its options.
func (f workloadFlow) checkResult(t *testing.T, res map[string]any, mode string) {
	t.Helper()
	if res["format_version"] != float64(report.FormatVersion) || res["workload"] != f.name || res["mode"] != mode {
		t.Errorf("%s run: format %v, workload %v, mode %v", mode, res["format_version"], res["workload"], res["mode"])
	}
	ops, _ := res["operations"].(map[string]any)
	for _, op := range f.ops {
		if _, ok := ops[op]; !ok {
			t.Errorf("%s run: operation %s missing from result.json", mode, op)
		}
	}
	first := ops[f.ops[0]].(map[string]any)
	if first["count"].(float64) == 0 || first["response_ms"].(map[string]any)["p99"].(float64) <= 0 {
		t.Errorf("%s run: %s has no count or no p99: %v", mode, f.ops[0], first)
	}
	hl, _ := res["headline"].([]any)
	if len(hl) == 0 || hl[0].(map[string]any)["name"] != f.lead || hl[0].(map[string]any)["value"].(float64) <= 0 {
		t.Errorf("%s run: headline %v, want %s first and above zero", mode, res["headline"], f.lead)
	}
	for _, k := range []string{"tpmC", "transactions", "warehouses", "delivery_deferred"} {
		if _, ok := res[k]; ok {
			t.Errorf("%s run: result.json of %s holds TPC-C's key %s", mode, f.name, k)
		}
	}
	plan := res["plan"].(map[string]any)
	if plan["workload"] != f.name || plan["options"] == nil {
		t.Errorf("%s run: plan.workload %v, plan.options %v", mode, plan["workload"], plan["options"])
	}
	if cs, _ := res["checks"].([]any); mode == "throughput" && len(cs) == 0 {
		t.Errorf("%s run: no consistency check after it", mode)
	}
}

var ycsbFlow = workloadFlow{name: "ycsb", loadArgs: []string{"-p", "recordcount=2000"}, slo: "read.p99<=5s",
	lead: "throughput", ops: []string{"read", "update", "insert", "scan", "read_modify_write"},
	searchOn: "postgres", oneShotOn: "mysql"}

func TestYCSBSQLiteCLI(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	ycsbFlow.run(t, "sqlite:"+filepath.Join(dir, "ycsb.db"), dir)
}

func TestYCSBPostgresCLI(t *testing.T) {
	parallel(t)
	ycsbFlow.run(t, dbtest.FreshPostgresURL(t, "candor_ycsb_cli"), t.TempDir())
}

func TestYCSBMySQLCLI(t *testing.T) {
	parallel(t)
	ycsbFlow.run(t, dbtest.FreshMySQLURL(t, "candor_ycsb_cli"), t.TempDir())
}

// TestYCSBWorkloadE: a mix without reads (workload e scans and inserts) shows its scans in the short
// views (the progress line, the result's key_op), and the table grows by the inserts the check counts.
func TestYCSBWorkloadE(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "ycsb.db")
	ycsbFlow.cli(t, 0, "ycsb", "load", "--db", db, "-p", "recordcount=1000")
	out := ycsbFlow.cli(t, 0, "ycsb", "run", "--db", db, "--workload", "e", "--mode", "throughput", "--duration", "2s",
		"--warmup", "0s", "--interval", "1s", "--out", filepath.Join(dir, "e"), "--check-full")
	if !strings.Contains(out, "scan response ms") {
		t.Errorf("workload e's progress line does not show its scans")
	}
	res := readResult(t, filepath.Join(dir, "e"))
	if res["key_op"] != "scan" {
		t.Errorf("workload e: key_op %v, want scan", res["key_op"])
	}
	ops := res["operations"].(map[string]any)
	if ops["scan"].(map[string]any)["count"].(float64) == 0 || ops["insert"].(map[string]any)["count"].(float64) == 0 || ops["read"].(map[string]any)["count"].(float64) != 0 {
		t.Errorf("workload e ran %v", ops)
	}
}

// TestKVWiderRunKeys: a run may write keys past the load's range (a larger --cycle-length than the
// load's); the check's bound widens with it, so correct data is never reported corrupt.
func TestKVWiderRunKeys(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "kv.db")
	kvFlow.cli(t, 0, "kv", "load", "--db", db, "--sequential", "--cycle-length", "1000", "--insert-count", "1000")
	out := kvFlow.cli(t, 0, "kv", "run", "--db", db, "--preset", "kv0", "--cycle-length", "100000", "--mode", "throughput",
		"--duration", "2s", "--warmup", "0s", "-q", "--out", filepath.Join(dir, "r"), "--check-full")
	if strings.Contains(out, "FAIL") {
		t.Errorf("the check after a run with a wider key range failed on correct data")
	}
}
