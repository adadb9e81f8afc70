package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TPC-H through the CLI, on SQLite: `candor tpch` alone (loads SF 0.01 into the embedded file,
// runs the power test, prints the per-query table, writes report.html and the plans); the
// performance test; validation mode; --repeat and compare's per-query judgement; bad input.
func TestTPCHSQLiteCLI(t *testing.T) {
	dir := t.TempDir()
	// The one-shot's default database is sqlite:candor-tpch.db in the working directory.
	parallelIn(t, dir)
	cli := func(want int, args ...string) string {
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

	// The one-shot runs the performance test the tool calls complete (power, then throughput), with
	// a header that says the run ends with its streams, not a 24-hour measurement.
	out := cli(0, "tpch", "--out", "one")
	for _, want := range []string{"loaded SF 0.01", "power test (RF1, 22 queries, RF2), then throughput test", "Power@0.01", "QphH@0.01", "Throughput@0.01",
		"TPC-H: power test, per query", "Q14", "RF2", "TPC-H: metric (clause 5.4)", "TPCH_SF_NOT_STANDARD", "TPCH_SQLITE_DECIMALS",
		"no warm-up, measured until its streams are done (at most --duration 24h0m0s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the one-shot's output lacks %q", want)
		}
	}
	for _, bad := range []string{"TPCH_PARTIAL_TEST", "measure 24h0m0s"} {
		if strings.Contains(out, bad) {
			t.Errorf("the one-shot's output says %q", bad)
		}
	}
	seen := map[string]bool{} // each progress line's elapsed time and phase once
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 2 && strings.HasSuffix(f[0], "s") && (f[1] == "measure" || f[1] == "drain") {
			if seen[f[0]+f[1]] {
				t.Errorf("the progress prints %s %s twice", f[0], f[1])
			}
			seen[f[0]+f[1]] = true
		}
	}
	if strings.Contains(out, "[SHORT_RUN]") || strings.Contains(out, "[CLOSED_LOOP]") {
		t.Errorf("a finite workload's run warned of a short run or a closed loop")
	}
	page := mustRead(t, filepath.Join(dir, "one", "report.html"))
	if !strings.Contains(page, "TPC-H: power test, per query") || !strings.Contains(page, "Power@0.01") {
		t.Errorf("report.html lacks the per-query table or Power@Size")
	}
	if p := mustRead(t, filepath.Join(dir, "one", "plans", "q21.txt")); !strings.Contains(p, "-- Q21") || strings.Count(p, "\n") < 3 {
		t.Errorf("plans/q21.txt: %q", p)
	}
	res := readResult(t, filepath.Join(dir, "one"))
	d := res["details"].(map[string]any)
	if d["power_at_size"].(float64) <= 0 || d["compliant"] != false || d["first_refresh_set"].(float64) != 1 {
		t.Errorf("details %v", d)
	}

	// The whole performance test again on the same data: the next refresh sets, QphH.
	db := "sqlite:" + filepath.Join(dir, "candor-tpch.db")
	out = cli(0, "tpch", "run", "--db", db, "--out", "both", "-q")
	for _, want := range []string{"QphH@0.01", "Throughput@0.01", "refresh sets 4..6", "TPC-H: throughput test, per stream", "stream 2", "refresh"} {
		if !strings.Contains(out, want) {
			t.Errorf("the performance test's output lacks %q", want)
		}
	}
	// Validation mode is refused on refreshed data; fine on a fresh load.
	if out := cli(2, "tpch", "run", "--db", db, "--validate", "--test", "power", "--out", "v0"); !strings.Contains(out, "reload") {
		t.Errorf("validation on refreshed data: %s", out)
	}
	vdb := "sqlite:" + filepath.Join(dir, "v.db")
	cli(0, "tpch", "load", "--db", vdb, "--sf", "0.01")
	out = cli(0, "tpch", "run", "--db", vdb, "--validate", "--test", "power", "--out", "val", "-q")
	if strings.Contains(out, "WRONG") || strings.Contains(out, "TPCH_WRONG_ANSWERS") || strings.Count(out, "matches") != 22 {
		t.Errorf("validation mode: want 22 answers that match")
	}

	cli(0, "tpch", "check", "--db", vdb, "--full")
	// A run cut short by --duration measured less than it says: its check fails (exit status 1),
	// as does the data's, RF1 having run without its RF2.
	out = cli(1, "tpch", "run", "--db", vdb, "--duration", "1ms", "--out", "cut", "-q")
	if !strings.Contains(out, "every stream of the run completed its sequence") || !strings.Contains(out, "TPCH_INCOMPLETE") {
		t.Errorf("a run cut short: no failed condition or no TPCH_INCOMPLETE warning")
	}

	// Two runs of 2 power tests each (the fewest compare judges), compared per query over the
	// repeats.
	cli(0, "tpch", "run", "--db", db, "--test", "power", "--repeat", "2", "--out", "a", "-q")
	cli(0, "tpch", "run", "--db", db, "--test", "power", "--repeat", "2", "--out", "b", "-q")
	out = cli(0, "compare", "a", "b")
	if !strings.Contains(out, "2×2 s") || !strings.Contains(out, "q17") {
		t.Errorf("compare lacks the per-query repeats rows")
	}

	// Bad input: one sentence, exit status 2.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tpch", "load", "--db", db, "--sf", "-1"}, "is not a scale factor"},
		{[]string{"tpch", "run", "--db", db, "--test", "fast"}, "--test \"fast\""},
		{[]string{"tpch", "run", "--db", db, "--validate"}, "give --test power with it"},
		{[]string{"tpch", "run", "--db", db, "--terminals", "3"}, "leave out --terminals"},
		{[]string{"tpch", "run", "--db", db, "--mode", "rate"}, "not a mode of tpch"},
		{[]string{"tpch", "--sf", "1"}, "loaded at SF 0.01"},
		{[]string{"tpch", "load", "--db", db, "--shard", "1/2", "--seed", "1"}, "cannot be split over driver processes"},
		{[]string{"tpch", "run", "--db", db, "--shard", "0/2", "--seed", "1"}, "cannot be split over driver processes"},
	} {
		if out := cli(2, c.args...); !strings.Contains(out, c.want) {
			t.Errorf("candor %s: output lacks %q", strings.Join(c.args, " "), c.want)
		}
	}
}
