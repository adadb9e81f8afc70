package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/workload"
)

// runCLI runs candor with args and returns its exit status and what it printed (stdout and stderr
// together, as a terminal shows them). In a test marked parallel (see parallel) it runs as a child
// process; otherwise in-process, its output in a buffer of the call's own (executeTo), not through
// os.Stdout.
func runCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	return callAs(t, callAuto, args...)
}

// refusedCLI is runCLI for a call the test expects candor to refuse before it runs anything
// (exit status 2): it takes one call slot, whatever the arguments would measure.
func refusedCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	return callAs(t, callRefused, args...)
}

// urgentCLI is runCLI for a call other tests wait for (the load of a template database they
// copy): it takes one call slot before any other shared call.
func urgentCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	return callAs(t, callUrgent, args...)
}

// callAs runs candor with args: as a child process taking its call slots as kind says in a
// parallel test, else in this process.
func callAs(t *testing.T, kind callKind, args ...string) (int, string) {
	t.Helper()
	top, _, _ := strings.Cut(t.Name(), "/")
	if dir, ok := inChild.Load(top); ok {
		return runChild(t, dir.(string), kind, args...)
	}
	return runInProcess(t, args...)
}

// callKind is how a call takes its call slots: by its arguments (callAuto: every slot for a
// capacity-bound run, else one), or one slot whatever they say (a call refused before it runs
// anything), or one slot ahead of the other shared calls (callUrgent).
type callKind int

const (
	callAuto callKind = iota
	callRefused
	callUrgent
)

// runInProcess is runCLI in this process (a serial test).
func runInProcess(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var buf syncBuffer
	started := time.Now()
	code := executeTo(args, &buf, &buf, false)
	logCall(t, args, false, 0, time.Since(started), 0)
	t.Logf("candor %s -> exit %d\n%s", strings.Join(args, " "), code, buf.String())
	return code, buf.String()
}

// inChild holds the names of the top-level tests whose runCLI calls run candor as a child process,
// with the working directory of each ("": this process's).
var inChild sync.Map

// parallel marks t (a top-level test) to run beside the other parallel tests: t.Parallel, so after
// every serial test of the package, all at once (TestMain), its candor calls taking turns for
// the call slots and its runs that depend on the machine's capacity one at a time (see calls). Its
// runCLI calls run candor as a child process (childCLI), so that what a run sets for its whole
// process stays its own: a GOMAXPROCS raised while held sockets are open (CANDOR_PG_SOCKET=held),
// the handlers of Ctrl-C. A test that sets the environment, the working directory or GOMAXPROCS,
// sends signals, or asserts timings a busy machine would spoil stays serial (no call to parallel).
func parallel(t *testing.T) { parallelIn(t, "") }

// parallelIn is parallel with candor's working directory dir (t.Chdir cannot be used beside
// t.Parallel).
func parallelIn(t *testing.T, dir string) {
	t.Helper()
	t.Parallel()
	inChild.Store(t.Name(), dir)
	t.Cleanup(func() { inChild.Delete(t.Name()) })
}

// calls are the slots of the candor calls of parallel tests: every call takes one (shared), so at
// most callSlots run at once whatever the number of tests started (TestMain starts them all); the
// runs whose assertions depend on the machine's capacity take them all (exclusive), so they overlap
// no other call of this package: an open-loop run (its rate must be sustained), a search (its
// probes must pass), the one-shot (open-loop runs at 50% and 80% of its peak), the selftest, and
// every run of a test marked with quietRuns. Waiting calls are served by priority (slotSem,
// slots_test.go): exclusive ones first, so that the package drains once for those waiting
// together; then a template's load, which other tests wait for (urgentCLI); then those of the
// tests that have made the most calls, whose chains of calls would otherwise end the package
// alone; then in the order they asked. A call waiting for every slot lets the others pass for its
// first 30 s, then holds them back. Exclusive calls still run beside other packages' tests.
var calls = newSlotSem(callSlots)

// callSlots is how many candor calls of parallel tests run at once. The suite keeps this 2-CPU
// machine's CPUs busy throughout: more calls at once would only make each one slower.
const callSlots = 6

// exclusively holds every call slot until the returned function is called.
func exclusively() func() { return holdSlots(callSlots) }

// holdSlots takes n call slots until the returned function is called: for the candor processes a
// test starts itself (shards that must start together, a run it signals), which count as calls.
// A test must not call runCLI while it holds slots: a call waiting for every slot would wait for
// them, and they for it. The function gives them back once, however often it is called.
func holdSlots(n int64) func() {
	calls.acquire(n, exclusivePrio)
	var once sync.Once
	return func() { once.Do(func() { calls.release(n) }) }
}

// quietTests holds the names of the top-level tests whose every run takes the call slots exclusively.
var quietTests sync.Map

// quietRuns marks t's runs as ones that must not overlap other runs of this package (see calls):
// for a test whose assertions depend on timing, as a failure rate under contention does. Its
// loads, checks and readings of saved results take one slot, as other tests' do (measures).
func quietRuns(t *testing.T) {
	quietTests.Store(t.Name(), true)
	t.Cleanup(func() { quietTests.Delete(t.Name()) })
}

// sharedRateTests holds the names of the top-level tests whose open-loop runs and one-shots take
// one call slot, as other calls do.
var sharedRateTests sync.Map

// ratesShared marks t's open-loop runs (`--mode rate`) and one-shots (not its searches) as ones
// whose assertions a busy machine does not change (the run's own figures compared with each other,
// a rate offered at twice another, an overload's drops, the one-shot's three runs and their
// pages), so they run beside the other parallel tests' runs instead of holding the machine to
// themselves. A search stays exclusive: its answer rests on probes that must be sustained.
func ratesShared(t *testing.T) {
	sharedRateTests.Store(t.Name(), true)
	t.Cleanup(func() { sharedRateTests.Delete(t.Name()) })
}

// openLoopRun says whether candor args is a run in mode rate or a one-shot (not a search).
func openLoopRun(args []string) bool {
	if oneShotArgs(args) {
		return true
	}
	if len(args) < 2 || args[1] != "run" {
		return false
	}
	return modeOf(args) == "rate"
}

// modeOf is the --mode candor args give ("" for none).
func modeOf(args []string) string {
	mode := ""
	for i, a := range args {
		if a == "--mode" && i+1 < len(args) {
			mode = args[i+1]
		} else if v, ok := strings.CutPrefix(a, "--mode="); ok {
			mode = v
		}
	}
	return mode
}

// oneShotArgs says whether candor args is a workload's one-shot (`candor NAME --flags...`).
func oneShotArgs(args []string) bool {
	if len(args) == 0 {
		return false
	}
	if _, ok := workload.Lookup(args[0]); !ok {
		return false
	}
	return len(args) == 1 || strings.HasPrefix(args[1], "-")
}

// measures says whether candor args measures something (a run, a search, the one-shot, the
// selftest), as a load, a check, a drop or reading saved results do not.
func measures(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "report", "compare", "merge", "capture":
		return false
	}
	if len(args) > 1 {
		switch args[1] {
		case "load", "check", "drop":
			return false
		}
	}
	return true
}

// capacityBound says whether candor args runs an open loop, a search, the one-shot of a workload
// with open-loop runs (its peak, then 50% and 80% of it) or the selftest: runs whose verdicts
// depend on the capacity the machine gives them. A workload without open-loop runs (TPC-H) has
// none: its `--mode rate` is refused at once.
func capacityBound(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "selftest":
		return true
	case "report", "compare", "merge", "capture":
		return false
	}
	if reg, ok := workload.Lookup(args[0]); ok {
		if in := reg.New().Info(); in.Finite || !in.HasMode(workload.ModeRate) {
			return false
		}
	}
	mode := modeOf(args)
	if mode == "rate" || len(args) > 1 && args[1] == "search" {
		return true
	}
	return oneShotArgs(args) && mode == ""
}

// runChild runs candor as a child process with args in dir ("": this process's working
// directory), as runCLI does for a parallel test.
func runChild(t *testing.T, dir string, kind callKind, args ...string) (int, string) {
	t.Helper()
	top, _, _ := strings.Cut(t.Name(), "/")
	asked := time.Now()
	exclusive := false
	_, shared := sharedRateTests.Load(top)
	if _, q := quietTests.Load(top); kind == callAuto && (q && measures(args) || capacityBound(args) && !(shared && openLoopRun(args))) {
		exclusive = true
		defer exclusively()()
	} else {
		prio := callPrio(t)
		if kind == callUrgent {
			prio = exclusivePrio - 1
		}
		calls.acquire(1, prio)
		defer calls.release(1)
	}
	started := time.Now()
	var buf syncBuffer
	c := exec.Command(childCLI(t), args...)
	c.Stdout, c.Stderr = &buf, &buf
	c.Dir = dir
	err := c.Run()
	var cpu time.Duration
	if c.ProcessState != nil {
		cpu = c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	}
	logCall(t, args, exclusive, started.Sub(asked), time.Since(started), cpu)
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("candor %s: %v", strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	out := buf.String()
	t.Logf("candor %s -> exit %d (child process)\n%s", strings.Join(args, " "), code, out)
	// In-process, a panic would end the test binary; in a child it is an exit status (2, as for bad
	// input) with a stack trace.
	if code < 0 || (strings.Contains(out, "panic") && strings.Contains(out, "\ngoroutine ")) {
		t.Fatalf("candor %s crashed (%v): see its output above", strings.Join(args, " "), err)
	}
	return code, out
}

// logCall appends one line per candor call to the file CANDOR_TEST_CALL_LOG names, if set, to show
// where the package's time goes: the test, whether the call held every call slot (exclusive,
// shared, or serial: in-process), its wait for its slots, its own wall time, when it ended (Unix
// seconds), the CPU time of its process (a child's; 0 in-process) and its arguments, tab-separated.
func logCall(t *testing.T, args []string, exclusive bool, wait, took, cpu time.Duration) {
	path := os.Getenv("CANDOR_TEST_CALL_LOG")
	if path == "" {
		return
	}
	kind := "shared"
	if exclusive {
		kind = "exclusive"
	} else if _, ok := inChild.Load(strings.SplitN(t.Name(), "/", 2)[0]); !ok {
		kind = "serial"
	}
	callLogMu.Lock()
	defer callLogMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Logf("call log %s: %v", path, err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s\t%s\t%.2f\t%.2f\t%.3f\t%.2f\t%s\n", t.Name(), kind, wait.Seconds(), took.Seconds(),
		float64(time.Now().UnixMilli())/1000, cpu.Seconds(), strings.Join(args, " "))
}

var callLogMu sync.Mutex

// connectURL opens the database at url and one connection to it, both closed when the test ends.
func connectURL(t *testing.T, url string) (driver.DB, driver.Conn) {
	t.Helper()
	ctx := context.Background()
	db, err := driver.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return db, c
}

func readResult(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, report.ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestBadInput: every kind of bad input gets one clear sentence and exit status 2, and changes no data.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "x.db")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"tpcc", "run", "--bogus"}, "unknown flag"},
		{[]string{"tpcc", "run", "--db", "nonsense"}, "malformed"},
		{[]string{"tpcc", "run", "--db", "mysqlx://h/db"}, "not supported"},
		{[]string{"tpcc", "run", "--db", db, "--duration", "0s"}, "--duration must be positive"},
		{[]string{"tpcc", "run", "--db", db, "--duration", "-5s"}, "--duration must be positive"},
		{[]string{"tpcc", "run", "--db", db, "--mode", "fast"}, "not a mode"},
		{[]string{"tpcc", "run", "--db", db}, "x.db does not exist: load it first (candor tpcc load"},
		{[]string{"tpcc", "check", "--db", db}, "x.db does not exist: load it first (candor tpcc load"},
		{[]string{"tpcc", "load", "--db", db, "--warehouses", "0"}, "--warehouses must be at least 1"},
		{[]string{"tpcc", "run", "--db", "postgres://candor:secret@127.0.0.1:1/candor"}, "cannot reach"},
		{[]string{"report", filepath.Join(dir, "nothing")}, "has no result.json"},
		{[]string{"report"}, "takes one directory"},
		{[]string{"tpcc", "run", "--db", db, "--mode", "rate"}, "--mode rate needs --rate"},
		{[]string{"tpcc", "run", "--db", db, "--mode", "rate", "--rate", "fast"}, "is not a rate"},
		{[]string{"tpcc", "run", "--db", db, "--mode", "rate", "--rate", "10..100"}, "--step 100 --step-every 30s"},
		{[]string{"tpcc", "run", "--db", db, "--mode", "rate", "--rate", "10", "--arrivals", "bursty"}, "poisson or constant"},
		{[]string{"tpcc", "run", "--db", db, "--rate", "10"}, "add --mode rate"},
		{[]string{"tpcc", "search", "--db", db, "--slo", "new_order.p99=50ms"}, "new_order.p99<=50ms"},
		{[]string{"tpcc", "search", "--db", db}, "at least one budget"},
		{[]string{"tpcc", "--db", db, "--loads", "half"}, "--loads 50,80"},
	}
	for _, c := range cases {
		code, out := runCLI(t, c.args...)
		if code != 2 {
			t.Errorf("candor %v: exit %d, want 2", c.args, code)
		}
		if !strings.Contains(out, c.want) {
			t.Errorf("candor %v: output %q does not say %q", c.args, out, c.want)
		}
		if strings.Contains(out, "secret") {
			t.Errorf("candor %v printed the password: %q", c.args, out)
		}
		if strings.Contains(out, "goroutine ") || strings.Contains(out, "panic") {
			t.Errorf("candor %v printed a stack trace: %q", c.args, out)
		}
	}
}

// TestSQLiteEndToEnd: the README's first command on the embedded default, shortened; then the parts.
func TestSQLiteEndToEnd(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "tpcc.db")
	endToEnd(t, db, dir, 1)
}

// TestPostgresEndToEnd runs the same flow against the throwaway PostgreSQL of scripts/test, on 2
// warehouses: the transactions' remote warehouses (New-Order's remote supply, Payment's remote
// customer) and the consistency conditions across warehouses, end to end.
func TestPostgresEndToEnd(t *testing.T) {
	parallel(t)
	endToEnd(t, dbtest.FreshPostgresURL(t, "candor_cli"), t.TempDir(), 2)
}

// endToEnd is the flow on db with warehouses loaded by 2 loaders; it returns what the load printed.
func endToEnd(t *testing.T, db, dir string, warehouses int) (loaded string) {
	// Load and check the initial population: the quick conditions here, every one after the runs
	// (the initial population's own, condition 11, is workload/tpcc's TestLoadAndCheck's on every
	// engine).
	w := strconv.Itoa(warehouses)
	code, loaded := runCLI(t, "tpcc", "load", "--db", db, "--warehouses", w, "--loaders", "2")
	if code != 0 {
		t.Fatalf("load: exit %d", code)
	}
	if code, out := runCLI(t, "tpcc", "check", "--db", db); code != 0 || strings.Contains(out, "FAIL") || !strings.Contains(out, "pass  1") {
		t.Fatalf("check after load: exit %d", code)
	}
	// Loading again without --drop refuses and changes nothing.
	if code, out := runCLI(t, "tpcc", "load", "--db", db, "--warehouses", w); code != 2 || !strings.Contains(out, "--drop") {
		t.Fatalf("second load without --drop: exit %d, want 2 and a hint about --drop", code)
	}
	// A warehouse count that does not match is refused.
	if code, out := runCLI(t, "tpcc", "run", "--db", db, "--warehouses", "3", "--duration", "1s"); code != 2 || !strings.Contains(out, "does not match") {
		t.Fatalf("run with a mismatched warehouse count: exit %d", code)
	}
	// A short throughput run, then a short spec run; each checks consistency (quick) afterwards.
	thr := filepath.Join(dir, "thr")
	code, _ = runCLI(t, "tpcc", "run", "--db", db, "--mode", "throughput", "--terminals", "4",
		"--duration", "8s", "--warmup", "2s", "--interval", "2s", "--out", thr, "--seed", "7")
	if code != 0 {
		t.Fatalf("throughput run: exit %d", code)
	}
	res := readResult(t, thr)
	for _, k := range []string{"workload", "mode", "warehouses", "terminals", "seed", "isolation", "measure_seconds", "tpmC", "efficiency", "database", "transactions"} {
		if _, ok := res[k]; !ok {
			t.Errorf("result.json has no %q", k)
		}
	}
	if res["efficiency"] != nil {
		t.Errorf("efficiency is %v outside spec mode, want null", res["efficiency"])
	}
	if res["tpmC"].(float64) <= 0 {
		t.Errorf("tpmC is %v, want > 0", res["tpmC"])
	}
	txs := res["transactions"].(map[string]any)
	for _, name := range []string{"new_order", "payment", "order_status", "delivery", "stock_level"} {
		tx, ok := txs[name].(map[string]any)
		if !ok {
			t.Fatalf("result.json has no transactions.%s", name)
		}
		if tx["count"].(float64) <= 0 {
			t.Errorf("%s: count %v, want > 0", name, tx["count"])
		}
		for _, kind := range []string{"response_ms", "service_ms"} {
			p := tx[kind].(map[string]any)
			for _, q := range []string{"p50", "p90", "p95", "p99", "p99_9", "p99_99", "max", "mean"} {
				if _, ok := p[q]; !ok {
					t.Errorf("%s.%s has no %s", name, kind, q)
				}
			}
			if p["p50"].(float64) <= 0 || p["max"].(float64) < p["p99"].(float64) {
				t.Errorf("%s.%s: implausible spectrum %v", name, kind, p)
			}
		}
		for _, k := range []string{"errors", "retries", "rollbacks"} {
			if _, ok := tx[k]; !ok {
				t.Errorf("%s has no %s", name, k)
			}
		}
	}
	if strings.Contains(mustRead(t, filepath.Join(thr, report.ResultFile)), "secret") {
		t.Error("result.json holds the password")
	}
	if code, out := runCLI(t, "report", thr); code != 0 || !strings.Contains(out, "derived from TPC-C, not audited") {
		t.Fatalf("report: exit %d", code)
	}
	// The run wrote report.html; `report DIR --html FILE` renders it again from the saved files.
	page := filepath.Join(dir, "thr.html")
	if code, _ := runCLI(t, "report", thr, "--html", page); code != 0 {
		t.Fatalf("report --html: exit %d", code)
	}
	for _, f := range []string{filepath.Join(thr, "report.html"), page} {
		if b := mustRead(t, f); !strings.Contains(b, `data-chart="spectrum-new_order"`) || strings.Contains(b, "secret") {
			t.Errorf("%s has no spectrum chart for new_order, or holds the password", f)
		}
	}

	spec := filepath.Join(dir, "spec")
	code, out := runCLI(t, "tpcc", "run", "--db", db, "--mode", "spec",
		"--duration", "25s", "--warmup", "0s", "--interval", "5s", "--out", spec, "--seed", "8")
	if code != 0 {
		t.Fatalf("spec run: exit %d", code)
	}
	res = readResult(t, spec)
	if res["efficiency"] == nil || res["terminals"].(float64) != float64(10*warehouses) {
		t.Errorf("spec run: efficiency %v, terminals %v; want a number and %d", res["efficiency"], res["terminals"], 10*warehouses)
	}
	if !strings.Contains(out, "new_order p90 response time") {
		t.Error("spec run summary has no 90th-percentile verdicts")
	}
	// Everything still holds after both runs (condition 11 is skipped: the data has been run on).
	if code, out := runCLI(t, "tpcc", "check", "--db", db, "--full"); code != 0 || strings.Contains(out, "FAIL") {
		t.Fatalf("check after runs: exit %d", code)
	}
	return loaded
}

func mustRead(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
