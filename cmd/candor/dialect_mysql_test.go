package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/report"
)

// TestDialectTiDBOnMariaDB: a tidb:// URL pointing at the MariaDB test server (no TiDB here: this
// is the code path a real TiDB takes, against MariaDB) loads, runs interactively and checks; the
// result names the engine tidb, warns that the server calls itself MariaDB, and carries MySQL's
// per-second server statistics. --procedures, by URL scheme or by --dialect tidb or dolt, is a user
// error (exit 2) naming the engine and the fix, in every command that takes it.
func TestDialectTiDBOnMariaDB(t *testing.T) {
	parallel(t)
	raw := dbtest.FreshMySQLURL(t, "candor_tidb")
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	if pw == "" {
		t.Fatal("the test server's URL has no password: this test checks that it never shows")
	}
	tidb := "tidb" + strings.TrimPrefix(raw, "mysql")
	var outs []string
	cli := func(args ...string) (int, string) {
		code, out := runCLI(t, args...)
		outs = append(outs, out)
		return code, out
	}

	// Refused before anything connects: the database is still empty afterwards.
	for _, args := range [][]string{
		{"tpcc", "load", "--db", tidb, "--warehouses", "1", "--procedures"},
		{"tpcc", "procedures", "--db", tidb},
		{"tpcc", "--db", tidb, "--procedures", "--duration", "1s"},
		{"tpcc", "--db", tidb, "--procedures", "--mode", "throughput", "--duration", "1s"},
		{"tpcc", "run", "--db", tidb, "--procedures", "--duration", "1s"},
		{"tpcc", "run", "--db", raw, "--dialect", "tidb", "--procedures", "--duration", "1s"},
		{"tpcc", "load", "--db", raw, "--dialect", "dolt", "--warehouses", "1", "--procedures"},
	} {
		engine := "tidb"
		if strings.Contains(strings.Join(args, " "), "dolt") {
			engine = "dolt"
		}
		code, out := refusedCLI(t, args...)
		outs = append(outs, out)
		if code != 2 || !strings.Contains(out, "--procedures is not available on "+engine) || !strings.Contains(out, "drop --procedures") {
			t.Errorf("candor %v: exit %d, want 2 and the refusal naming %s", args[:3], code, engine)
		}
	}
	if code, out := cli("tpcc", "check", "--db", tidb); code != 2 || !strings.Contains(out, "has no candor TPC-C data") {
		t.Fatalf("the refused commands touched the database: check exits %d", code)
	}

	if code, _ := cli("tpcc", "load", "--db", tidb, "--warehouses", "1", "--loaders", "2"); code != 0 {
		t.Fatalf("load by tidb://: exit %d", code)
	}
	dir := filepath.Join(t.TempDir(), "tidb")
	code, out := cli("tpcc", "run", "--db", tidb, "--mode", "throughput", "--terminals", "2", "--duration", "3s",
		"--warmup", "1s", "--interval", "1s", "--out", dir, "--seed", "5", "--check-full")
	if code != 0 {
		t.Fatalf("run by tidb://: exit %d", code)
	}
	if !strings.Contains(out, "mode throughput · 1 warehouse, interactive") || !strings.Contains(out, "(tidb)") || !strings.Contains(out, "commits/s") {
		t.Errorf("the summary does not name the engine tidb and the server's commit rate")
	}
	res := readResult(t, dir)
	d := res["database"].(map[string]any)
	if d["kind"] != "tidb" || !strings.HasPrefix(d["url"].(string), "tidb://") || !strings.HasPrefix(d["version"].(string), "MariaDB ") {
		t.Errorf("result.json database: %v", d)
	}
	if settings, _ := d["settings"].(map[string]any); settings["innodb_flush_log_at_trx_commit"] == nil {
		t.Errorf("no InnoDB settings disclosed for the tidb dialect: %v", d)
	}
	if p := res["plan"].(map[string]any); p["dialect"] != "tidb" {
		t.Errorf("plan dialect %v, want tidb", p["dialect"])
	}
	if !distWarningCodes(res)["DIALECT_MISMATCH"] {
		t.Errorf("no DIALECT_MISMATCH warning for tidb on MariaDB: %v", res["warnings"])
	}
	if count, errs, _ := distTxSums(t, res); count < 20 || errs != 0 {
		t.Errorf("%v transactions, %v errors in 3 s", count, errs)
	}
	distChecksPass(t, res)
	series := res["resources"].(map[string]any)["series"].(map[string]any)
	for _, name := range []string{"db.commits_per_s", "db.threads_connected"} {
		st, ok := series[name].(map[string]any)
		if !ok || st["max"].(float64) <= 0 {
			t.Errorf("resources series %s: %v, want > 0 during the run", name, series[name])
		}
	}
	if html := mustRead(t, filepath.Join(dir, "report.html")); !strings.Contains(html, "db.commits_per_s") || !strings.Contains(html, "db.threads_connected") {
		t.Error("report.html does not show the MySQL statistics")
	}
	for _, o := range outs {
		if strings.Contains(o, pw) {
			t.Errorf("candor printed the password: %q", o)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, report.ResultFile)); err != nil || strings.Contains(string(b), pw) {
		t.Errorf("result.json holds the password (or is unreadable: %v)", err)
	}
}
