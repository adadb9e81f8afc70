package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/workload/loadstate"
)

// TestFaultsInputCLI: the fault pass's input cases through the CLI, each with exit status 2, one
// sentence and the data unchanged: a warehouse count that cannot load (refused before the loaded
// tables are dropped); another candor process on the database (a run and a load --drop refused
// while it holds candor's lock); a password in a key=value DSN or a URL without "//" (never
// printed); a result.json whose operation is null (report, report --html and compare refuse it,
// never panic).
func TestFaultsInputCLI(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "kv.db")
	tpcc := tpccSQLiteCopy(t, filepath.Join(dir, "tpcc.db"))
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
	out := cli(2, "tpcc", "load", "--db", tpcc, "--warehouses", "1000000000", "--drop")
	if !strings.Contains(out, "this tpcc load of 499,011,000,100,000 rows") || !strings.Contains(out, "PiB") || !strings.Contains(out, "--allow-large") {
		t.Errorf("a billion warehouses: %q", out)
	}
	cli(0, "tpcc", "check", "--db", tpcc) // the loaded warehouse is still there

	cli(0, "kv", "load", "--db", db, "--insert-count", "500")
	h, err := driver.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	unlock, err := loadstate.Lock(context.Background(), h, "run") // another candor process, as far as the lock goes
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"kv", "run", "--db", db, "--duration", "1s", "--warmup", "0s", "--out", filepath.Join(dir, "r1")},
		{"kv", "load", "--db", db, "--drop"},
		{"kv", "check", "--db", db},
	} {
		if out := cli(2, args...); !strings.Contains(out, "another candor run, load or check is using") {
			t.Errorf("candor %s while another holds the lock: %q", strings.Join(args, " "), out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "r1")); err == nil {
		t.Error("the refused run created its --out directory")
	}
	unlock()
	cli(0, "kv", "check", "--db", db)

	for _, u := range []string{"host=127.0.0.1 user=u password=S3cretPW dbname=d", "postgres:u:S3cretPW@127.0.0.1:1/db", "mysql:u:S3cretPW@127.0.0.1:1/db", "postgres://u:S3c@retPW@127.0.0.1:1/db"} {
		if out := cli(2, "kv", "check", "--db", u); strings.Contains(out, "S3c") || strings.Contains(out, "retPW") {
			t.Errorf("--db %q: the password is shown: %q", u, out)
		}
	}

	cli(0, "kv", "run", "--db", db, "--duration", "1s", "--warmup", "0s", "--out", filepath.Join(dir, "good"), "-q")
	b, err := os.ReadFile(filepath.Join(dir, "good", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "result.json"), []byte(strings.Replace(string(b), `"read": {`, `"read": null, "x": {`, 1)), 0o644)
	for _, args := range [][]string{{"report", bad}, {"report", bad, "--html", filepath.Join(dir, "x.html")}, {"compare", bad, filepath.Join(dir, "good")}} {
		if out := cli(2, args...); !strings.Contains(out, "is damaged: operations.read is null") {
			t.Errorf("candor %s: %q", strings.Join(args, " "), out)
		}
	}
}
