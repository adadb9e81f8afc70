package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// warningCodes are the codes of a saved result's warnings.
func warningCodes(t *testing.T, res map[string]any) []string {
	t.Helper()
	var codes []string
	ws, _ := res["warnings"].([]any)
	for _, w := range ws {
		codes = append(codes, w.(map[string]any)["code"].(string))
	}
	return codes
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestNullEngineRuns: every workload runs on the null engine without a load, its operations
// completing after the stated service time, and says NULL_ENGINE in the console and result.json,
// with the service time in the disclosure. TPC-C's deferred Delivery still goes through its queue.
func TestNullEngineRuns(t *testing.T) {
	parallel(t)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"tpcc", []string{"tpcc", "run", "--warehouses", "2", "--mode", "throughput"}},
		{"tpcc-rate", []string{"tpcc", "run", "--mode", "rate", "--rate", "300"}},
		{"kv", []string{"kv", "run", "--insert-count", "1000"}},
		{"ycsb", []string{"ycsb", "run", "--workload", "b"}},
		{"sysbench", []string{"sysbench", "run"}},
		{"script", []string{"script", "run", "-b", "select-only"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "r")
			args := append(c.args, "--db", "null:?service=fixed:2ms", "--duration", "2s", "--warmup", "0s", "--interval", "1s", "--out", dir, "-q")
			code, out := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d", code)
			}
			if !strings.Contains(out, "[NULL_ENGINE] no database: these figures are the driver's own ceiling, service time fixed:2ms") {
				t.Fatalf("the console does not say NULL_ENGINE with the service time")
			}
			res := readResult(t, dir)
			if !has(warningCodes(t, res), "NULL_ENGINE") {
				t.Fatalf("result.json's warnings %v lack NULL_ENGINE", warningCodes(t, res))
			}
			if k := res["database"].(map[string]any)["kind"]; k != "null" {
				t.Fatalf("database kind %v", k)
			}
			if _, ok := res["checks"]; ok && res["checks"] != nil {
				t.Fatalf("a consistency check ran on the null engine: %v", res["checks"])
			}
			b, _ := os.ReadFile(filepath.Join(dir, "result.json"))
			if !strings.Contains(string(b), `"service": "fixed:2ms"`) {
				t.Fatalf("the disclosure does not state the service time")
			}
			// Every operation took at least the service time: the engine waited it.
			var all struct {
				Operations map[string]struct {
					Count     int64
					PartOf    string `json:"part_of"`
					ServiceMs struct {
						P50 float64 `json:"p50"`
					} `json:"service_ms"`
				} `json:"operations"`
			}
			if err := json.Unmarshal(b, &all); err != nil {
				t.Fatal(err)
			}
			var n int64
			for name, op := range all.Operations {
				if op.Count == 0 || (name == "delivery" && c.name[:4] == "tpcc") {
					continue // TPC-C's delivery only queues; its deferred part waits the service time
				}
				n += op.Count
				if op.ServiceMs.P50 < 1.9 {
					t.Errorf("%s: service time p50 %.3f ms, below the engine's fixed 2 ms", name, op.ServiceMs.P50)
				}
			}
			if n == 0 {
				t.Fatal("no operation completed")
			}
			if c.name == "tpcc" {
				if all.Operations["delivery_deferred"].Count == 0 {
					t.Fatal("no deferred Delivery ran: the Delivery did not reach its queue")
				}
			}
		})
	}
}

// TestNullEngineNoLoadNoCheck: load and check refuse the null engine (nothing to load or check:
// exit status 2, saying what to do); the one-shot skips the load and says so; bad service times
// are user errors.
func TestNullEngineNoLoadNoCheck(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tpcc", "load", "--db", "null:"}, "nothing to load: `candor tpcc run --db null:` runs without a load"},
		{[]string{"kv", "check", "--db", "null:"}, "nothing to check"},
		{[]string{"kv", "run", "--db", "null:?service=gamma:1ms"}, `"gamma" is not a distribution`},
		{[]string{"tpcc", "run", "--db", "null:?service=uniform:3ms..1ms"}, "above the high end"},
		{[]string{"selftest", "--service", "exp:x"}, "is not a duration"},
		{[]string{"kv", "run", "--db", "sqlite:" + filepath.Join(t.TempDir(), "kv.db"), "--insert-count", "5"}, "--insert-count on run is for the null engine"},
		{[]string{"selftest", "--workload", "nope"}, "not a workload candor has"},
	} {
		code, out := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(out, c.want) {
			t.Errorf("candor %s: exit %d, want 2 and %q", strings.Join(c.args, " "), code, c.want)
		}
	}
	dir := filepath.Join(t.TempDir(), "oneshot")
	code, out := runCLI(t, "kv", "--db", "null:", "--mode", "throughput", "--duration", "1s", "--warmup", "0s", "--out", dir, "-q")
	if code != 0 || !strings.Contains(out, "no load: the null engine holds no data") {
		t.Fatalf("the one-shot on null: exit %d", code)
	}
}

// TestSelftest: a short selftest with tiny bounds prints both answers with their conditions and
// writes its JSON, every probe judged on a measured lag.
func TestSelftest(t *testing.T) {
	parallel(t)
	out := filepath.Join(t.TempDir(), "selftest.json")
	code, text := runCLI(t, "selftest", "--workload", "kv", "--probe", "1s", "--warmup", "0s", "--start-rate", "200", "--rate-probes", "2",
		"--spec-probe", "3s", "--spec-warmup", "3s", "--start-warehouses", "100", "--spec-probes", "1", "--confirm", "1", "--max-lag", "50ms", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`conditions: the null engine \(no database, service time none\), \d+ CPUs, GOMAXPROCS \d+`),
		regexp.MustCompile(`open loop \(kv, poisson arrivals\): `),
		regexp.MustCompile(`spec mode \(TPC-C, 10 terminals per warehouse\): `),
	} {
		if !want.MatchString(text) {
			t.Errorf("the output lacks %s", want)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		Max       float64 `json:"max"`
		Confirmed bool    `json:"confirmed"`
		Probes    []struct {
			Confirm  bool    `json:"confirm"`
			Value    float64 `json:"value"`
			Pass     bool    `json:"pass"`
			LagP99Ms float64 `json:"lag_p99_ms"`
			Achieved float64 `json:"achieved_per_sec"`
			Why      string  `json:"why"`
		} `json:"probes"`
	}
	var r struct {
		GOMAXPROCS int     `json:"gomaxprocs"`
		Rate       *answer `json:"rate"`
		Spec       *answer `json:"spec_terminals"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Rate == nil || r.Spec == nil {
		t.Fatalf("the JSON lacks an answer: %s", b)
	}
	if r.GOMAXPROCS < 1 || len(r.Rate.Probes) == 0 || len(r.Spec.Probes) == 0 {
		t.Fatalf("no probes recorded: %s", b)
	}
	for _, a := range []*answer{r.Rate, r.Spec} {
		repeats := 0
		for _, p := range a.Probes {
			if p.Confirm {
				repeats++
			}
		}
		if a.Max > 0 && (!a.Confirmed || repeats == 0) {
			t.Errorf("the answer %g stands without a confirming repeat (--confirm 1): %+v", a.Max, a)
		}
	}
	for _, p := range append(r.Rate.Probes, r.Spec.Probes...) {
		if p.Achieved <= 0 {
			t.Errorf("probe at %g measured nothing: %+v", p.Value, p)
		}
		if p.Pass != (p.Why == "") {
			t.Errorf("probe at %g: pass %v but why %q", p.Value, p.Pass, p.Why)
		}
	}
}
