package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/dbtest"
)

// A run whose statements are still running when its grace period ends leaves the server idle: they
// are cancelled on the server (PostgreSQL's CancelRequest, MySQL's KILL QUERY), and the run says so
// (STATEMENTS_CANCELLED). Before, candor exited on time while the server slept on in every session.
func TestGraceEndCancelsOnServer(t *testing.T) {
	parallel(t)
	for _, e := range []struct{ name, db, sleep, running string }{
		{"postgres", dbtest.FreshPostgresURL(t, "candor_grace_cancel"), "SELECT pg_sleep(30);",
			"SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE 'SELECT pg_sleep%'"},
		{"mysql", dbtest.FreshMySQLURL(t, "candor_grace_cancel"), "SELECT SLEEP(30);",
			"SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND INFO LIKE 'SELECT SLEEP%'"},
	} {
		t.Run(e.name, func(t *testing.T) {
			dir := t.TempDir()
			if code, _ := runCLI(t, "script", "load", "--db", e.db, "--scale", "1"); code != 0 {
				t.Fatalf("load: exit %d", code)
			}
			f := filepath.Join(dir, "sleep.sql")
			os.WriteFile(f, []byte(e.sleep+"\n"), 0o644)
			_, out := runCLI(t, "script", "run", "--db", e.db, "-f", f, "-c", "3", "--duration", "1s", "--warmup", "0s",
				"--grace", "1s", "--no-check", "-q", "--out", filepath.Join(dir, "run"))
			if !strings.Contains(out, "[STATEMENTS_CANCELLED] 3 statement(s) still running") {
				t.Errorf("the run does not say its 3 statements were cancelled on the server:\n%s", out)
			}
			_, c := connectURL(t, e.db)
			var n int64
			deadline := time.Now().Add(5 * time.Second)
			for {
				if err := c.QueryRow(context.Background(), e.running).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d sleeps still run on the server after the run ended", n)
				}
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
}
