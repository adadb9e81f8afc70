package sysmon

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/internal/gmsstandin"
)

// TestDoltDisclosureStandin: on Dolt (its engine, go-mysql-server, stands in) the disclosure shows
// the settings Dolt honours, none of InnoDB's it ignores, and the status counters it has but never
// counts as not kept; the samples leave them out instead of writing 0 while transactions commit.
// MariaDB keeps its InnoDB settings and counters.
func TestDoltDisclosureStandin(t *testing.T) {
	ctx := t.Context()
	db, err := driver.Open(ctx, gmsstandin.FreshDoltURL(t, "candor_sysmon"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := connect(t, db)
	var name, val string
	if err := c.QueryRow(ctx, "SHOW GLOBAL STATUS LIKE 'Com_commit'").Scan(&name, &val); err != nil {
		t.Fatalf("the stand-in has no Com_commit (%v): this test shows nothing", err)
	}
	d := Disclose(ctx, db)
	if len(d.Errors) > 0 {
		t.Fatalf("disclosure errors: %v", d.Errors)
	}
	for k := range d.Settings {
		if !slices.Contains(DoltSettings, k) {
			t.Errorf("setting %s=%s is disclosed on Dolt, which does not honour it", k, d.Settings[k])
		}
	}
	t.Logf("settings %v, not kept %v", d.Settings, d.NotKept)
	if d.Settings["max_connections"] == "" || d.Settings["autocommit"] == "" {
		t.Errorf("settings %v lack max_connections or autocommit", d.Settings)
	}
	for _, s := range []string{"db.commits_per_s", "db.row_lock_waits_per_s", "db.buffer_pool_read_requests_per_s", "db.deadlocks"} {
		if !slices.Contains(d.NotKept, s) {
			t.Errorf("%s is not among the series not kept: %v", s, d.NotKept)
		}
	}
	if slices.Contains(d.NotKept, "db.threads_connected") {
		t.Errorf("the sessions connected, which Dolt counts, are said to be not kept: %v", d.NotKept)
	}

	exec(t, c, "CREATE TABLE counter (id INT PRIMARY KEY, n INT NOT NULL)")
	exec(t, c, "INSERT INTO counter VALUES (1, 0)")
	path := filepath.Join(t.TempDir(), File)
	s := Start(ctx, Config{Every: 250 * time.Millisecond, Path: path, DB: db})
	for t0 := time.Now(); time.Since(t0) < time.Second; {
		if err := c.Begin(ctx, driver.TxOptions{}); err != nil {
			t.Fatal(err)
		}
		exec(t, c, "UPDATE counter SET n = n + 1 WHERE id = 1")
		if err := c.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	sum := s.Stop()
	if _, ok := sum.Series["db.commits_per_s"]; ok {
		t.Errorf("db.commits_per_s was sampled on Dolt, which never counts commits: %+v", sum.Series["db.commits_per_s"])
	}
	if st := sum.Series["db.threads_connected"]; st.N == 0 || st.Max < 1 {
		t.Errorf("db.threads_connected on Dolt: %+v", st)
	}

	my := Disclose(ctx, dbtest.FreshMySQL(t, "candor_sysmon"))
	if my.Settings["innodb_buffer_pool_size"] == "" || slices.Contains(my.NotKept, "db.commits_per_s") || slices.Contains(my.NotKept, "db.row_lock_waits_per_s") {
		t.Errorf("MariaDB: settings %v, not kept %v", my.Settings, my.NotKept)
	}
}
