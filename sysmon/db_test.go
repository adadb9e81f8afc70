package sysmon

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
)

func connect(t *testing.T, db driver.DB) driver.Conn {
	t.Helper()
	c, err := db.Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func exec(t *testing.T, c driver.Conn, sql string) {
	t.Helper()
	if _, err := c.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// TestPostgresSeries samples a real PostgreSQL while a loop commits and one session waits on
// another's row lock: commits, WAL bytes and the Lock wait must show in the samples.
func TestPostgresSeries(t *testing.T) {
	db := dbtest.FreshPostgres(t, "candor_sysmon")
	setup := connect(t, db)
	exec(t, setup, "CREATE TABLE counter (id int PRIMARY KEY, n int)")
	exec(t, setup, "INSERT INTO counter VALUES (1, 0), (2, 0)")

	path := filepath.Join(t.TempDir(), File)
	s := Start(t.Context(), Config{Every: 250 * time.Millisecond, Path: path, DB: db})
	stopped := false
	defer func() {
		if !stopped {
			s.Stop()
		}
	}()

	var wg sync.WaitGroup
	// Commits: autocommit updates of row 2 for 2.5 s (the server publishes counters each second).
	loop := connect(t, db)
	wg.Go(func() {
		for t0 := time.Now(); time.Since(t0) < 2500*time.Millisecond; {
			if _, err := loop.Exec(context.Background(), "UPDATE counter SET n = n + 1 WHERE id = 2"); err != nil {
				t.Error(err)
				return
			}
		}
	})
	// A lock wait: holder locks row 1 for a second; waiter blocks on it meanwhile.
	holder, waiter := connect(t, db), connect(t, db)
	if err := holder.Begin(t.Context(), driver.TxOptions{}); err != nil {
		t.Fatal(err)
	}
	exec(t, holder, "UPDATE counter SET n = 1 WHERE id = 1")
	wg.Go(func() {
		if _, err := waiter.Exec(context.Background(), "UPDATE counter SET n = 2 WHERE id = 1"); err != nil {
			t.Error(err)
		}
	})
	time.Sleep(1200 * time.Millisecond)
	if err := holder.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	time.Sleep(1500 * time.Millisecond)
	sum := s.Stop()
	stopped = true
	if len(sum.Errors) > 0 {
		t.Errorf("sampling errors: %v", sum.Errors)
	}
	samples, err := ReadSamples(path)
	if err != nil {
		t.Fatal(err)
	}
	maxOf := func(name string) (float64, int) {
		m, n := 0.0, 0
		for _, smp := range samples {
			if x, ok := smp.V[name]; ok {
				m, n = max(m, x), n+1
			}
		}
		return m, n
	}
	for _, name := range []string{"db.commits_per_s", "db.rollbacks_per_s", "db.deadlocks", "db.blks_hit_per_s",
		"db.blks_read_per_s", "db.wal_bytes_per_s", "db.checkpoints_timed", "db.checkpoints_req",
		"db.buffers_checkpoint_per_s", "db.sessions_active", "db.wait.Lock", "db.wait.running", "db.wait.Client"} {
		if _, n := maxOf(name); n < len(samples)-1 {
			t.Errorf("%s is in %d of %d samples", name, n, len(samples))
		}
	}
	if m, _ := maxOf("db.commits_per_s"); m < 50 {
		t.Errorf("db.commits_per_s peaked at %v while a loop committed updates, want at least 50", m)
	}
	if m, _ := maxOf("db.wal_bytes_per_s"); m <= 0 {
		t.Errorf("db.wal_bytes_per_s peaked at %v while a loop wrote, want > 0", m)
	}
	if m, _ := maxOf("db.wait.Lock"); m < 1 {
		t.Errorf("db.wait.Lock peaked at %v while a session waited on a row lock for a second, want 1", m)
	}
	// The server is a process of this host (the test's servers are): its page faults are followed;
	// the sessions opened during the run are new processes, which fault their pages in.
	if m, n := maxOf("db.pgfaults_per_s"); n < len(samples)-2 || m <= 0 {
		t.Errorf("db.pgfaults_per_s is in %d of %d samples, peaking at %v, want all but the first and > 0", n, len(samples), m)
	}
	if m, _ := maxOf("db.sessions_active"); m < 1 {
		t.Errorf("db.sessions_active peaked at %v, want at least 1", m)
	}
}

func TestSQLiteSeries(t *testing.T) {
	db := dbtest.SQLite(t)
	c := connect(t, db)
	exec(t, c, "CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT)")
	exec(t, c, "INSERT INTO t (s) VALUES (hex(randomblob(4000)))")
	s := Start(t.Context(), Config{Every: 100 * time.Millisecond, Path: filepath.Join(t.TempDir(), File), DB: db})
	time.Sleep(250 * time.Millisecond)
	sum := s.Stop()
	if len(sum.Errors) > 0 {
		t.Errorf("sampling errors: %v", sum.Errors)
	}
	if st := sum.Series["db.file_bytes"]; st.N == 0 || st.Max <= 0 {
		t.Errorf("db.file_bytes = %+v, want the file's size", st)
	}
	if st := sum.Series["db.wal_bytes"]; st.N == 0 || st.Max <= 0 {
		t.Errorf("db.wal_bytes = %+v, want the WAL's size (a write just happened)", st)
	}
}

// TestSamplerSurvivesLostDatabase: the sampler's connection killed by the server leaves a gap in
// the db.* series, not an end to sampling: it reconnects.
func TestSamplerSurvivesLostDatabase(t *testing.T) {
	db := dbtest.FreshPostgres(t, "candor_sysmon")
	admin := connect(t, db)
	path := filepath.Join(t.TempDir(), File)
	s := Start(t.Context(), Config{Every: 100 * time.Millisecond, DB: db, Path: path})
	time.Sleep(250 * time.Millisecond)
	exec(t, admin, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
	time.Sleep(600 * time.Millisecond)
	sum := s.Stop()
	samples, err := ReadSamples(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) < 6 {
		t.Errorf("%d samples in 850 ms at 100 ms", len(samples))
	}
	if len(sum.Errors) == 0 {
		t.Error("the lost connection was not noted")
	}
	gap := false
	for _, smp := range samples {
		if _, ok := smp.V["db.wait.running"]; !ok {
			gap = true
		}
		if _, ok := smp.V["host.cpu.busy_pct"]; !ok {
			t.Errorf("sample at t=%v has no host series", smp.T)
		}
	}
	if _, ok := samples[len(samples)-1].V["db.commits_per_s"]; !gap || !ok {
		t.Errorf("gap in the db series %v, db series at the end %v: want a gap, then the series again after reconnecting", gap, ok)
	}
}

// pgVersionNum is the test server's server_version_num (150013, 180006).
func pgVersionNum(t *testing.T, ctx context.Context) int {
	t.Helper()
	c := connect(t, dbtest.FreshPostgres(t, "candor_sysmon"))
	var v int64
	if err := c.QueryRow(ctx, "SELECT current_setting('server_version_num')::int8").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return int(v)
}

func TestDisclose(t *testing.T) {
	ctx := t.Context()
	pg := Disclose(ctx, dbtest.FreshPostgres(t, "candor_sysmon"))
	if len(pg.Errors) > 0 {
		t.Fatalf("disclosure errors: %v", pg.Errors)
	}
	for _, k := range PGSettings {
		if pg.Settings[k] == "" {
			t.Errorf("PostgreSQL setting %s not disclosed: %v", k, pg.Settings)
		}
	}
	// The I/O settings the server has: asynchronous I/O from 18 on (scripts/test runs this test on
	// 15 and on 18), io_combine_limit from 17, effective_io_concurrency on every version.
	version := pgVersionNum(t, ctx)
	for _, k := range PGIOSettings {
		_, has := pg.Settings[k]
		want := k == "effective_io_concurrency" || k == "maintenance_io_concurrency" ||
			k == "io_combine_limit" && version >= 170000 || version >= 180000
		if has != want {
			t.Errorf("server %d: setting %s disclosed %v, want %v: %v", version, k, has, want, pg.Settings)
		}
	}
	if version >= 180000 {
		if m := pg.Settings["io_method"]; m != "worker" && m != "io_uring" && m != "sync" {
			t.Errorf("io_method %q", m)
		}
		if n, err := strconv.Atoi(pg.Settings["io_workers"]); err != nil || n < 1 {
			t.Errorf("io_workers %q", pg.Settings["io_workers"])
		}
	}
	if _, ok := ParseMemSetting(pg.Settings["shared_buffers"]); !ok {
		t.Errorf("shared_buffers %q does not parse", pg.Settings["shared_buffers"])
	}
	if !strings.HasPrefix(pg.Client, "statements with arguments on candor's wire") {
		t.Errorf("PostgreSQL client path %q", pg.Client)
	}
	if pg.SizeBytes < 1<<20 || !pg.OnDriverHost {
		t.Errorf("size %d bytes, on the driver's host %v; want a few MB on this host", pg.SizeBytes, pg.OnDriverHost)
	}
	h := pg.Host
	if h.MemTotalBytes == 0 || h.MemAvailableBytes == 0 || h.CPUs < 1 || h.GOMAXPROCS < 1 || h.GoVersion == "" || h.Hostname == "" || h.OS == "" {
		t.Errorf("host = %+v", h)
	}
	t.Logf("%+v", pg)

	sq := Disclose(ctx, dbtest.SQLite(t))
	if sq.Settings["synchronous"] != "full" || sq.Settings["journal_mode"] != "wal" || sq.SizeBytes <= 0 || !sq.OnDriverHost {
		t.Errorf("SQLite disclosure = %+v", sq)
	}
}
