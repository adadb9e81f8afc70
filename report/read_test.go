package report

import (
	"encoding/json"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/userr"
)

// seedResults are real result.json files (a TPC-C run in throughput and in rate mode, a kv run),
// the seeds of the readers' tests and fuzz targets.
func seedResults(tb testing.TB) map[string][]byte {
	paths, err := filepath.Glob(filepath.Join("testdata", "results", "*.json"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no seed results in testdata/results: %v", err)
	}
	m := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		m[filepath.Base(p)] = b
	}
	return m
}

// TestParseDamaged: a result.json with a null operation, a negative count or interval, or no
// workload is a user error naming the problem (the fault pass's `candor report` panicked on a
// transaction type that was null).
func TestParseDamaged(t *testing.T) {
	good := string(seedResults(t)["tpcc-throughput.json"])
	if _, err := Parse([]byte(good), "result.json"); err != nil {
		t.Fatalf("the seed does not parse: %v", err)
	}
	for _, tc := range []struct{ name, from, to, want string }{
		{"null operation", `"new_order": {`, `"new_order": null, "x": {`, "operations.new_order is null"},
		{"null transaction", `"transactions": {`, `"transactions": {"a_payment": null,`, "transactions.a_payment is null"},
		{"negative count", `"count": 1`, `"count": -1`, "has a negative count"},
		{"negative interval", `"measure_seconds": `, `"measure_seconds": -`, "is negative"},
		{"no workload", `"workload": "tpcc"`, `"workload": ""`, "has no workload field"},
		{"not JSON", `{`, `[`, "is not a candor result"},
		{"endless window", `"measure_seconds": `, `"measure_seconds": 1e15, "x": `, "longer than any run"},
		{"no window, yet counts", `"measure_seconds": `, `"measure_seconds": 0, "x": `, "measure_seconds is 0 but operations."},
	} {
		b := strings.Replace(good, tc.from, tc.to, 1)
		if b == good {
			t.Fatalf("%s: the seed has no %q", tc.name, tc.from)
		}
		_, err := Parse([]byte(b), "result.json")
		if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want a user error with %q", tc.name, err, tc.want)
		}
	}
}

// FuzzParseResult: whatever the bytes of result.json, Parse returns a result or a user error, and
// the console summary of a result it returns never panics.
func FuzzParseResult(f *testing.F) {
	for _, b := range seedResults(f) {
		f.Add(b)
	}
	f.Add([]byte(`{"workload":"tpcc","transactions":{"new_order":null}}`))
	f.Add([]byte(`{"workload":"kv","operations":{"read":{"count":1}},"op_order":["read","write"],"headline":[{}]}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`[null]`))
	f.Add([]byte(`{"x": null}`))
	seeds := seedResults(f)
	var tpcc map[string]json.RawMessage
	if err := json.Unmarshal(seeds["tpcc-rate.json"], &tpcc); err != nil {
		f.Fatal(err)
	}
	check := func(t *testing.T, b []byte) {
		r, err := Parse(b, "result.json")
		if err != nil {
			if !userr.Is(err) {
				t.Fatalf("Parse: %v is not a user error", err)
			}
			return
		}
		Summary(io.Discard, r)
		_, _, _ = r.Ops(), r.Key(), r.Completed()
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		check(t, b)
		// The bytes as the value of each key of a real result (a rate run's), and of each of its
		// operations: damage where the readers look, not only in the JSON's syntax.
		if !json.Valid(b) || len(b) > 4096 {
			return
		}
		for k := range tpcc {
			m := maps.Clone(tpcc)
			m[k] = b
			out, _ := json.Marshal(m)
			check(t, out)
		}
		var ops map[string]json.RawMessage
		if json.Unmarshal(tpcc["operations"], &ops) == nil {
			for k := range ops {
				o := maps.Clone(ops)
				o[k] = b
				m := maps.Clone(tpcc)
				m["operations"], _ = json.Marshal(o)
				out, _ := json.Marshal(m)
				check(t, out)
			}
		}
	})
}
