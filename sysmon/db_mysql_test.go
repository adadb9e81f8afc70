package sysmon

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
)

// reading builds a myStatus from name/value pairs, as SHOW GLOBAL STATUS would give them.
func reading(t *testing.T, kv map[string]float64) *myStatus {
	t.Helper()
	var s myStatus
	for k, x := range kv {
		i, ok := myStatusIndex[strings.ToLower(k)]
		if !ok {
			t.Fatalf("%s is not a status variable the sampler reads", k)
		}
		s.v[i], s.have[i] = x, true
	}
	return &s
}

// TestMySQLSeriesFromReadings: rates over the interval, counts for deadlocks, the hit ratio, gauges
// without the sampler's own session; a variable one reading lacks is absent (MySQL has no
// Innodb_deadlocks), and a counter that went down gives nothing that once.
func TestMySQLSeriesFromReadings(t *testing.T) {
	prev := reading(t, map[string]float64{
		"Com_commit": 1000, "Com_rollback": 10, "Innodb_row_lock_waits": 5, "Innodb_row_lock_time": 100,
		"Innodb_buffer_pool_read_requests": 10000, "Innodb_buffer_pool_reads": 100, "Innodb_data_fsyncs": 50,
		"Innodb_os_log_written": 1 << 20, "Created_tmp_disk_tables": 7, "Threads_running": 3,
		"Threads_connected": 9, "Innodb_buffer_pool_pages_dirty": 40,
	})
	cur := reading(t, map[string]float64{
		"Com_commit": 1500, "Com_rollback": 12, "Innodb_row_lock_waits": 9, "Innodb_row_lock_time": 400,
		"Innodb_buffer_pool_read_requests": 12000, "Innodb_buffer_pool_reads": 150, "Innodb_data_fsyncs": 300,
		"Innodb_os_log_written": 3 << 20, "Created_tmp_disk_tables": 5, "Threads_running": 1,
		"Threads_connected": 11, "Innodb_buffer_pool_pages_dirty": 60, "Innodb_deadlocks": 2,
	})
	v := map[string]float64{}
	cur.series(prev, 2, v)
	want := map[string]float64{
		"db.commits_per_s": 250, "db.rollbacks_per_s": 1, "db.row_lock_waits_per_s": 2,
		"db.row_lock_time_ms_per_s": 150, "db.buffer_pool_read_requests_per_s": 1000,
		"db.buffer_pool_reads_per_s": 25, "db.buffer_pool_hit_pct": 97.5, "db.data_fsyncs_per_s": 125,
		"db.redo_log_bytes_per_s": 1 << 20, "db.threads_running": 0, "db.threads_connected": 10,
		"db.buffer_pool_dirty_pages": 60,
	}
	for k, x := range want {
		if got, ok := v[k]; !ok || got != x {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, x)
		}
	}
	for _, k := range []string{"db.deadlocks", "db.tmp_disk_tables_per_s"} {
		if x, ok := v[k]; ok {
			t.Errorf("%s = %v, want absent (missing from the previous reading / went down)", k, x)
		}
	}
	if len(v) != len(want) {
		t.Errorf("%d series, want %d: %v", len(v), len(want), v)
	}
	// The baseline (no previous reading) has the gauges only.
	base := map[string]float64{}
	cur.series(&myStatus{}, 0, base)
	if len(base) != 3 || base["db.threads_connected"] != 10 {
		t.Errorf("baseline series %v, want the three gauges", base)
	}
}

// TestMySQLSeries samples the MariaDB (or MySQL) server of CANDOR_TEST_MYSQL_URL while a loop
// commits small transactions: commits per second and the connected sessions must show, every
// series in every sample after the baseline, and Innodb_deadlocks' series exactly when the server
// has the variable.
func TestMySQLSeries(t *testing.T) {
	db := dbtest.FreshMySQL(t, "candor_sysmon")
	setup := connect(t, db)
	exec(t, setup, "CREATE TABLE counter (id INT PRIMARY KEY, n INT NOT NULL) ENGINE=InnoDB")
	exec(t, setup, "INSERT INTO counter VALUES (1, 0)")
	var name, val string
	hasDeadlocks := setup.QueryRow(t.Context(), "SHOW GLOBAL STATUS LIKE 'Innodb_deadlocks'").Scan(&name, &val) == nil

	path := filepath.Join(t.TempDir(), File)
	s := Start(t.Context(), Config{Every: 250 * time.Millisecond, Path: path, DB: db})
	loop := connect(t, db)
	commits := 0
	for t0 := time.Now(); time.Since(t0) < 1500*time.Millisecond; commits++ {
		if err := loop.Begin(t.Context(), driver.TxOptions{}); err != nil {
			t.Fatal(err)
		}
		exec(t, loop, "UPDATE counter SET n = n + 1 WHERE id = 1")
		if err := loop.Commit(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(300 * time.Millisecond)
	sum := s.Stop()
	if len(sum.Errors) > 0 {
		t.Errorf("sampling errors: %v", sum.Errors)
	}
	samples, err := ReadSamples(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) < 5 {
		t.Fatalf("%d samples in 1.8 s at 250 ms", len(samples))
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
	all := []string{"db.commits_per_s", "db.rollbacks_per_s", "db.row_lock_waits_per_s", "db.row_lock_time_ms_per_s",
		"db.buffer_pool_read_requests_per_s", "db.buffer_pool_reads_per_s", "db.data_fsyncs_per_s",
		"db.redo_log_bytes_per_s", "db.tmp_disk_tables_per_s", "db.threads_running", "db.threads_connected",
		"db.buffer_pool_dirty_pages"}
	for _, name := range all {
		if _, n := maxOf(name); n != len(samples) {
			t.Errorf("%s is in %d of %d samples", name, n, len(samples))
		}
	}
	if _, n := maxOf("db.deadlocks"); (n == len(samples)) != hasDeadlocks {
		t.Errorf("db.deadlocks is in %d of %d samples; the server has Innodb_deadlocks: %v", n, len(samples), hasDeadlocks)
	}
	// The loop committed hundreds of times a second; a quarter-second sample sees some of them.
	if m, _ := maxOf("db.commits_per_s"); m < 20 || commits < 20 {
		t.Errorf("db.commits_per_s peaked at %v while a loop committed %d transactions, want at least 20", m, commits)
	}
	if m, _ := maxOf("db.threads_connected"); m < 2 { // setup and loop, the sampler not counted
		t.Errorf("db.threads_connected peaked at %v with two sessions open, want at least 2", m)
	}
	// The server is a process of this host (the test's servers are): its page faults are followed.
	if _, n := maxOf("db.pgfaults_per_s"); n < len(samples)-2 {
		t.Errorf("db.pgfaults_per_s is in %d of %d samples, want all but the first", n, len(samples))
	}
	if m, _ := maxOf("db.redo_log_bytes_per_s"); m <= 0 {
		t.Errorf("db.redo_log_bytes_per_s peaked at %v while a loop wrote, want > 0", m)
	}
	if m, _ := maxOf("db.buffer_pool_read_requests_per_s"); m <= 0 {
		t.Errorf("db.buffer_pool_read_requests_per_s peaked at %v while a loop read, want > 0", m)
	}
	if st := sum.Series["db.commits_per_s"]; st.N == 0 || st.Mean <= 0 {
		t.Errorf("summary of db.commits_per_s: %+v", st)
	}
	if st := sum.Series["db.buffer_pool_hit_pct"]; st.N == 0 || st.Max > 100 || st.Max <= 0 {
		t.Errorf("summary of db.buffer_pool_hit_pct: %+v", st)
	}
}

// TestMySQLSamplerCheap: one sample is one query on the sampler's connection, and the server
// returns only the variables asked for (a dozen rows, not its several hundred).
func TestMySQLSamplerCheap(t *testing.T) {
	db := dbtest.FreshMySQL(t, "candor_sysmon")
	src, err := newMySQLSource(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer src.close()
	c := connect(t, db)
	rows, err := c.Query(context.Background(), myStatusSQL)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	rows.Close()
	if n == 0 || n > int(numMyStatus) {
		t.Errorf("the status query returned %d rows, want 1 to %d", n, numMyStatus)
	}
	v := map[string]float64{}
	t0 := time.Now()
	for range 20 {
		clear(v)
		if err := src.sample(t.Context(), time.Now(), v); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d status rows; %v per sample (wall clock, server included)", n, time.Since(t0)/20)
	if v["db.threads_connected"] < 1 {
		t.Errorf("db.threads_connected = %v with the test's own session open", v["db.threads_connected"])
	}
}
