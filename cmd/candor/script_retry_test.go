package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/internal/dbtest"
)

// pgbench's --max-tries on PostgreSQL: four clients update one row at repeatable read, so most
// transactions meet a serialization failure. Each try first records, in autocommit, the random
// value the script drew; a retried try must draw the same one (the client's random state goes
// back to where the script began, as pgbench's CSTATE_RETRY does), so the recorded rows hold each
// drawn value once per try: the repeats are the retries result.json counts. With --max-tries 1 (pgbench's default) the
// same script fails instead, and nothing repeats.
func TestScriptMaxTriesPostgres(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	db := dbtest.FreshPostgresURL(t, "candor_script_tries")
	pgExec(t, db, `CREATE TABLE hot (id int PRIMARY KEY, v bigint NOT NULL);
INSERT INTO hot VALUES (1, 0);
CREATE TABLE tries (client int NOT NULL, a bigint NOT NULL)`)
	file := filepath.Join(dir, "hot.sql")
	script := `\set a random(1, 1000000000000)
INSERT INTO tries (client, a) VALUES (:client_id, :a);
BEGIN;
UPDATE hot SET v = v + 1 WHERE id = 1;
SELECT pg_sleep(0.002);
END;
`
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	f := scriptFlow
	out := f.cli(t, 0, "script", "run", "--db", db, "-f", file, "-c", "4", "--isolation", "repeatable-read", "--max-tries", "0",
		"--duration", "3s", "--warmup", "0s", "--no-check", "-q", "--out", filepath.Join(dir, "retry"))
	if strings.Contains(out, "FAILED") {
		t.Fatalf("with unlimited tries the run failed:\n%s", out)
	}
	op := readResult(t, filepath.Join(dir, "retry"))["operations"].(map[string]any)["hot"].(map[string]any)
	retries, _ := op["retries"].(float64)
	if errs, _ := op["errors"].(float64); errs != 0 {
		t.Fatalf("%v errors with unlimited tries", errs)
	}
	if retries < 10 {
		t.Fatalf("%v retries: the hot row should have made many (the test's premise)", retries)
	}

	ctx := context.Background()
	_, c := connectURL(t, db)
	var rows, distinct, committed int64
	if err := c.QueryRow(ctx, `SELECT count(*), count(DISTINCT (client, a)) FROM tries`).Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, `SELECT v FROM hot WHERE id = 1`).Scan(&committed); err != nil {
		t.Fatal(err)
	}
	// Every try inserted its drawn value; the retries repeat the first try's. Warm-up and window
	// together: the run's retries in the window are at most the repeats.
	repeats := rows - distinct
	if repeats < int64(retries) {
		t.Fatalf("%d tries recorded %d distinct values (%d repeats) but result.json counts %v retries in the window: a retry drew new values",
			rows, distinct, repeats, retries)
	}
	// Each distinct value is one transaction, committed once (at most the ones cut at the end).
	if committed > distinct || committed < distinct-4 {
		t.Fatalf("%d transactions committed, %d distinct drawn values", committed, distinct)
	}

	// pgbench's default: no retry; the serialization failures are failures, by class.
	pgExec(t, db, `TRUNCATE tries`)
	code, out := runCLI(t, "script", "run", "--db", db, "-f", file, "-c", "4", "--isolation", "repeatable-read",
		"--duration", "2s", "--warmup", "0s", "--no-check", "-q", "--out", filepath.Join(dir, "once"))
	if code != 0 && code != 1 { // 1 when the failures pass --max-failures (5%)
		t.Fatalf("exit %d without retries:\n%s", code, out)
	}
	once := readResult(t, filepath.Join(dir, "once"))["operations"].(map[string]any)["hot"].(map[string]any)
	if errs, _ := once["errors"].(float64); errs == 0 || once["retries"] != nil && once["retries"].(float64) != 0 {
		t.Fatalf("without retries: %v errors, %v retries; want failures and no retry", once["errors"], once["retries"])
	}
	if !strings.Contains(out, "serialization") {
		t.Errorf("the failures by class do not name serialization failures:\n%s", out)
	}
	if err := c.QueryRow(ctx, `SELECT count(*), count(DISTINCT (client, a)) FROM tries`).Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	if rows != distinct {
		t.Fatalf("without retries %d tries recorded only %d distinct values", rows, distinct)
	}

	// A negative count is refused before anything connects.
	if out := f.cli(t, 2, "script", "run", "--db", db, "-f", file, "--max-tries", "-1", "--duration", "1s"); !strings.Contains(out, "--max-tries -1 is negative") {
		t.Errorf("--max-tries -1 is not refused by name:\n%s", out)
	}
}
