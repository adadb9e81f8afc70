package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/dbtest"
)

// cliBin is candor built from this package's source (childCLI), the program the tests' child
// processes run: a shard runs as a process of its own, as it does in a Kubernetes Indexed Job.
// Not the test binary acting as candor: it also links the Dolt stand-in (go-mysql-server), whose
// ICU regular expressions (go-icu-regex) take 0.6 s of CPU and 1.7 s at every start, which the
// package's 700 child processes paid on a 2-CPU machine.
var cliBin struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// childCLI returns the path of candor built from this package (buildCLI).
func childCLI(t *testing.T) string {
	t.Helper()
	buildCLI()
	if cliBin.err != nil {
		t.Fatalf("building candor for the tests' child processes: %v", cliBin.err)
	}
	return cliBin.path
}

// buildCLI builds candor from this package once per test binary, with go build (the packages are
// in the build cache after go test's own build); TestMain calls it before any test, so that a
// test's first child process does not wait for the build (shards given a common --start-at would
// miss it).
func buildCLI() {
	cliBin.once.Do(func() {
		if cliBin.dir, cliBin.err = os.MkdirTemp("", "candor-cli-"); cliBin.err != nil {
			return
		}
		cliBin.path = filepath.Join(cliBin.dir, "candor")
		// -buildvcs=false: the version says "devel", as the test binary's, for the runs made in-process.
		out, err := exec.Command("go", "build", "-buildvcs=false", "-o", cliBin.path, ".").CombinedOutput()
		if err != nil {
			cliBin.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
}

func TestMain(m *testing.M) {
	// Every test marked parallel starts at once, unless -parallel is given: their candor calls take
	// turns for the call slots (calls, main_test.go), so a test of many calls does not wait for a
	// test slot behind tests of few, and the package ends with its longest test, not after it.
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(max(runtime.GOMAXPROCS(0), maxParallel)))
	}
	buildCLI() // a failed build fails each test that runs a child process, with the build's output
	code := m.Run()
	removeTemplates() // template_test.go
	if cliBin.dir != "" {
		os.RemoveAll(cliBin.dir)
	}
	os.Exit(code)
}

// maxParallel is how many tests marked parallel run at once (TestMain): more than this package has.
const maxParallel = 256

// startChildCLI starts candor as a child process (childCLI) with args and its output in the file log.
func startChildCLI(t *testing.T, log string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	c := exec.Command(childCLI(t), args...)
	c.Env = append(os.Environ(), env...)
	c.Stdout, c.Stderr = f, f
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c.ProcessState == nil {
			c.Process.Kill()
			c.Wait()
		}
	})
	return c
}

// hdrhPercentiles reads the measured totals of the interval logs with the Python HdrHistogram
// implementation (testdata/hdrh_percentiles.py): by tag, the count and p50, p90, p99, p99.9 and max
// in microseconds.
func hdrhPercentiles(t *testing.T, logs ...string) map[string]map[string]int64 {
	t.Helper()
	py := os.Getenv("CANDOR_PYTHON")
	if py == "" {
		t.Fatal("CANDOR_PYTHON is not set: run the test through scripts/test, which makes the Python environment with hdrh (the independent HdrHistogram implementation this test needs)")
	}
	out, err := exec.Command(py, append([]string{filepath.Join("testdata", "hdrh_percentiles.py")}, logs...)...).Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("%s testdata/hdrh_percentiles.py: %v\n%s", py, err, stderr)
	}
	var m map[string]map[string]int64
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("hdrh_percentiles.py printed %q: %v", out, err)
	}
	return m
}

// TestMergeShardsPostgres tests `candor merge`: a TPC-C run split into 3 shards
// (`--shard i/3 --start-at`, three processes) against one PostgreSQL, merged. The merged
// percentiles of every operation must equal those the Python HdrHistogram implementation computes
// from the union of the shards' logs over their measured windows, the merged log's measured totals
// must be that union, and the counts must add up. `candor report` and `candor compare` read the
// merged run; merges of shards that do not belong together are refused.
func TestMergeShardsPostgres(t *testing.T) {
	parallel(t)
	url := dbtest.FreshPostgresURL(t, "merge")
	dir := t.TempDir()
	if code, _ := runCLI(t, "tpcc", "load", "--db", url, "--warehouses", "3", "--seed", "42"); code != 0 {
		t.Fatalf("load: exit %d", code)
	}
	release := holdSlots(3) // the shards are calls of this package: one slot each
	defer release()
	startAt := time.Now().Add(15 * time.Second).UTC().Format(time.RFC3339Nano) // room for three processes to start and connect on a busy host
	var shards []string
	var procs []*exec.Cmd
	for i := range 3 {
		out := filepath.Join(dir, fmt.Sprintf("shard-%d", i))
		shards = append(shards, out)
		procs = append(procs, startChildCLI(t, out+".log", nil, "tpcc", "run", "--db", url, "--warehouses", "3",
			"--shard", fmt.Sprintf("%d/3", i), "--start-at", startAt, "--seed", "42",
			"--mode", "throughput", "--terminals", "2", "--warmup", "2s", "--duration", "10s", "--interval", "1s",
			"--max-failures", "100", "--out", out))
	}
	for i, p := range procs {
		err := p.Wait()
		b, _ := os.ReadFile(shards[i] + ".log")
		t.Logf("shard %d: %v\n%s", i, err, b)
		if err != nil {
			t.Fatalf("shard %d failed: %v", i, err)
		}
	}
	release()
	merged := filepath.Join(dir, "merged")
	code, out := runCLI(t, append(append([]string{"merge"}, shards...), "--out", merged)...)
	if code != 0 {
		t.Fatalf("merge: exit %d", code)
	}
	for _, want := range []string{"shards (3 merged)", "0/3", "1/3", "2/3"} {
		if !strings.Contains(out, want) {
			t.Errorf("the merge's summary lacks %q", want)
		}
	}
	for _, f := range []string{"result.json", "latency.hlog", "report.html"} {
		if _, err := os.Stat(filepath.Join(merged, f)); err != nil {
			t.Errorf("the merged run has no %s: %v", f, err)
		}
	}

	m := readResult(t, merged)
	ops := m["operations"].(map[string]any)
	var logs []string
	shardRes := make([]map[string]any, 3)
	for i, s := range shards {
		logs = append(logs, filepath.Join(s, "latency.hlog"))
		shardRes[i] = readResult(t, s)
	}
	// Counts add up: every counter of every operation is the sum of the shards'.
	var noInWindow float64
	for _, r := range shardRes {
		noInWindow += r["details"].(map[string]any)["new_orders_in_window"].(float64)
	}
	for op, v := range ops {
		got := v.(map[string]any)
		for _, k := range []string{"count", "errors", "retries", "rollbacks", "incomplete", "dropped"} {
			var sum float64
			for _, r := range shardRes {
				sum += r["operations"].(map[string]any)[op].(map[string]any)[k].(float64)
			}
			if got[k].(float64) != sum {
				t.Errorf("%s.%s: merged %v, shards' sum %v", op, k, got[k], sum)
			}
		}
		var rate float64
		for _, r := range shardRes {
			rate += r["operations"].(map[string]any)[op].(map[string]any)["per_minute"].(float64)
		}
		if math.Abs(got["per_minute"].(float64)-rate) > 1e-6*rate {
			t.Errorf("%s per minute: merged %v, shards' sum %v", op, got["per_minute"], rate)
		}
	}
	if ops["new_order"].(map[string]any)["count"].(float64) < 100 {
		t.Fatalf("too few New-Orders measured to test percentiles: %v", ops["new_order"])
	}
	minutes := m["measure_seconds"].(float64) / 60
	if tpmC := m["tpmC"].(float64); math.Abs(tpmC-noInWindow/minutes) > 1e-6*tpmC {
		t.Errorf("tpmC %v, want the shards' %v New-Orders in the window over %.4f minutes = %v", tpmC, noInWindow, minutes, noInWindow/minutes)
	}

	// The percentiles: candor's merge against hdrh over the union of the shards' logs.
	ref := hdrhPercentiles(t, logs...)
	again := hdrhPercentiles(t, filepath.Join(merged, "latency.hlog"))
	checked := 0
	for op, v := range ops {
		tag := "measured." + op + ".response"
		want, ok := ref[tag]
		if !ok {
			continue
		}
		checked++
		got := v.(map[string]any)
		if int64(got["count"].(float64)) != want["count"] {
			t.Errorf("%s: merged count %v, hdrh's union %d", op, got["count"], want["count"])
		}
		resp := got["response_ms"].(map[string]any)
		for _, k := range []string{"p50", "p90", "p99", "p99_9", "max"} {
			us := int64(math.Round(resp[k].(float64) * 1000))
			if us != want[k] {
				t.Errorf("%s response %s: merged %d µs, hdrh over the shards' logs %d µs", op, k, us, want[k])
			}
		}
		if again[tag]["count"] != want["count"] || again[tag]["p99"] != want["p99"] || again[tag]["max"] != want["max"] {
			t.Errorf("%s: the merged log's measured totals %v are not the shards' union %v", op, again[tag], want)
		}
	}
	if checked < 5 {
		t.Fatalf("hdrh found measured totals of %d operations in the shards' logs, want the 6 of TPC-C: %v", checked, ref)
	}

	// The merged run reads like any other.
	if code, out := runCLI(t, "report", merged); code != 0 || !strings.Contains(out, "tpmC") {
		t.Errorf("candor report on the merged run: exit %d", code)
	}
	if code, _ := runCLI(t, "compare", shards[0], merged); code != 0 {
		t.Errorf("candor compare shard-0 merged: exit %d", code)
	}

	// Shards that do not belong together are refused, saying why (exit 2).
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{shards[0], shards[1]}, "shard 2 of 3 missing"},
		{[]string{shards[0], shards[0], shards[1]}, "both shard 0"},
		{[]string{shards[0], shards[1], shards[2], merged}, "is a merged run already"},
	} {
		code, out := runCLI(t, append(append([]string{"merge"}, c.args...), "--out", filepath.Join(dir, "refused"))...)
		if code != 2 || !strings.Contains(out, c.want) {
			t.Errorf("merge %v: exit %d, want 2 saying %q", c.args, code, c.want)
		}
	}
}
