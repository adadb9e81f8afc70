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

// TestMySQLEndToEnd runs the end-to-end flow (load 1 warehouse, check, a throughput run and a
// spec run, check --full) against the MySQL/MariaDB server of scripts/test, then a load again
// through multi-row INSERTs, an open-loop run at a fixed rate and a last check; the password of the
// test server's URL must never show.
func TestMySQLEndToEnd(t *testing.T) {
	parallel(t)
	ratesShared(t) // its open-loop runs assert nothing a busy machine changes
	db := dbtest.FreshMySQLURL(t, "candor_cli")
	u, err := url.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	if pw == "" {
		t.Fatalf("the test server's URL has no password: this test checks that it never shows")
	}
	dir := t.TempDir()
	out := endToEnd(t, db, dir, 1)

	// The load says which bulk path it took (the test server has local_infile on).
	if !strings.Contains(out, "via LOAD DATA LOCAL INFILE (streamed)") {
		t.Fatalf("the load does not say which bulk path it took:\n%s", out)
	}
	outs := []string{out}
	code, out := runCLI(t, "tpcc", "load", "--db", db+"?bulk=insert", "--warehouses", "1", "--loaders", "2", "--drop")
	if code != 0 || !strings.Contains(out, "via multi-row INSERT") {
		t.Fatalf("load --drop with bulk=insert: exit %d, or no bulk path in the output", code)
	}
	outs = append(outs, out)
	// The quick conditions now, every one after the rate run.
	code, out = runCLI(t, "tpcc", "check", "--db", db)
	if code != 0 || strings.Contains(out, "FAIL") || !strings.Contains(out, "pass  1") {
		t.Fatalf("check after the INSERT load: exit %d", code)
	}
	outs = append(outs, out)

	rate := filepath.Join(dir, "rate")
	code, out = runCLI(t, "tpcc", "run", "--db", db, "--mode", "rate", "--rate", "40", "--duration", "6s", "--warmup", "1s",
		"--interval", "2s", "--out", rate, "--seed", "9")
	if code != 0 {
		t.Fatalf("rate run: exit %d", code)
	}
	outs = append(outs, out)
	res := readResult(t, rate)
	if res["mode"] != "rate" || res["tpmC"].(float64) <= 0 {
		t.Errorf("rate run: mode %v, tpmC %v", res["mode"], res["tpmC"])
	}
	d := res["database"].(map[string]any)
	if d["kind"] != "mysql" || !strings.HasPrefix(d["version"].(string), "MariaDB ") && !strings.HasPrefix(d["version"].(string), "MySQL ") {
		t.Errorf("result.json database: %v", d)
	}
	// The disclosure: the durability settings as the server runs with them (durable), the database's
	// size, and that the server shares the driver's host.
	settings, _ := d["settings"].(map[string]any)
	if settings["innodb_flush_log_at_trx_commit"] != "1" || settings["innodb_buffer_pool_size"] == nil ||
		d["size_bytes"] == nil || d["size_bytes"].(float64) < 50e6 || d["on_driver_host"] != true {
		t.Errorf("result.json database disclosure: %v", d)
	}
	// and how candor sent the statements: the default, pipelined on candor's wire
	const client = "prepared statements on candor's wire, pipelined"
	if d["client"] != client || !strings.Contains(out, "client     "+client) {
		t.Errorf("the client path: result.json %q; want %q in both it and the console", d["client"], client)
	}
	if strings.Contains(out, "DURABILITY_OFF") {
		t.Error("a durable server was reported with durability off")
	}
	code, out = runCLI(t, "tpcc", "check", "--db", db, "--full")
	if code != 0 || strings.Contains(out, "FAIL") {
		t.Fatalf("check after the rate run: exit %d", code)
	}
	outs = append(outs, out)

	for _, o := range outs {
		if strings.Contains(o, pw) {
			t.Errorf("candor printed the password: %q", o)
		}
	}
	for _, f := range []string{filepath.Join(dir, "thr", report.ResultFile), filepath.Join(dir, "spec", report.ResultFile), filepath.Join(rate, report.ResultFile)} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), pw) {
			t.Errorf("%s holds the password", f)
		}
	}
}
