package main

import (
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dbtest"
)

// TPC-H through the CLI on the servers, PostgreSQL and MariaDB (the throwaways scripts/test
// starts; missing ones fail the test): `candor tpch load` at SF 0.01, the power test in validation
// mode (22 answers that match), the full check, then the whole performance test (QphH@Size), its
// result's timing intervals as clause 5.3.7.5 reports them, and never the password in the output
// or result.json.
func TestTPCHServersCLI(t *testing.T) {
	parallel(t)
	for _, c := range []struct{ name, url string }{
		{"postgresql", dbtest.FreshPostgresURL(t, "candor_tpchcli")},
		{"mariadb", dbtest.FreshMySQLURL(t, "candor_tpchcli")},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var pw string
			if u, err := url.Parse(c.url); err == nil {
				pw, _ = u.User.Password()
			}
			cli := func(want int, args ...string) string {
				t.Helper()
				code, out := runCLI(t, args...)
				if code != want {
					t.Fatalf("candor %s: exit %d, want %d\n%s", strings.Join(args[:2], " "), code, want, out)
				}
				if strings.Contains(out, "panic") || strings.Contains(out, "goroutine ") {
					t.Fatalf("candor %s panicked", strings.Join(args[:2], " "))
				}
				if pw != "" && strings.Contains(out, pw) {
					t.Fatalf("candor %s printed the password", strings.Join(args[:2], " "))
				}
				return out
			}

			out := cli(0, "tpch", "load", "--db", c.url, "--sf", "0.01", "--loaders", "2")
			if !strings.Contains(out, "loaded SF 0.01: 60,175 lineitems, 15,000 orders") {
				t.Errorf("the load's output lacks its summary:\n%s", out)
			}
			val := filepath.Join(dir, "val")
			out = cli(0, "tpch", "run", "--db", c.url, "--validate", "--test", "power", "--out", val, "-q")
			if strings.Contains(out, "WRONG") || strings.Contains(out, "TPCH_WRONG_ANSWERS") || strings.Count(out, "matches") != 22 {
				t.Errorf("validation mode: want 22 answers that match:\n%s", out)
			}
			if strings.Contains(out, "TPCH_SQLITE_DECIMALS") {
				t.Errorf("%s warned of SQLite's decimals", c.name)
			}
			cli(0, "tpch", "check", "--db", c.url, "--full")

			both := filepath.Join(dir, "both")
			out = cli(0, "tpch", "run", "--db", c.url, "--test", "both", "--streams", "2", "--out", both, "-q")
			for _, want := range []string{"QphH@0.01", "Power@0.01", "Throughput@0.01", "refresh sets 1..3", "TPC-H: throughput test, per stream", "TPC-H: metric (clause 5.4)", "TPCH_SF_NOT_STANDARD"} {
				if !strings.Contains(out, want) {
					t.Errorf("the performance test's output lacks %q", want)
				}
			}
			res := readResult(t, both)
			d := res["details"].(map[string]any)
			if d["qphh_at_size"].(float64) <= 0 || d["compliant"] != false {
				t.Errorf("details %v", d)
			}
			p := d["power"].([]any)[0].(map[string]any)
			reported := append(p["query_seconds"].([]any), p["refresh_seconds"].([]any)...)
			measured := append(p["measured_query_seconds"].([]any), p["measured_refresh_seconds"].([]any)...)
			if len(reported) != 24 || len(measured) != 24 {
				t.Fatalf("power test: %d intervals reported, %d measured; want 24", len(reported), len(measured))
			}
			for i := range reported {
				v, m := reported[i].(float64), measured[i].(float64)
				if tenths := v * 10; v < 0.1 || math.Abs(tenths-math.Round(tenths)) > 1e-9 || m <= 0 || (m >= 0.05 && math.Abs(v-m) > 0.05+1e-9) {
					t.Errorf("power test interval %d: reported %v s for %v s measured; want it to 0.1 s (clause 5.3.7.5)", i, v, m)
				}
			}
			if b, err := os.ReadFile(filepath.Join(both, "result.json")); err != nil || (pw != "" && strings.Contains(string(b), pw)) {
				t.Errorf("result.json holds the password (or is unreadable: %v)", err)
			}
			cli(0, "tpch", "check", "--db", c.url)
		})
	}
}
