package sysmon

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver"
)

// mysqlSource reads the server status of MySQL and the engines of its family (SHOW GLOBAL STATUS)
// on a dedicated connection: one query a second, cut by its WHERE clause to the dozen variables
// below rather than the several hundred the server has. Counters are cumulative and turned into
// rates (or counts in the interval, as PostgreSQL's deadlocks); gauges are read as they are. A
// variable the server does not have (Innodb_deadlocks on MySQL, most of them on TiDB or Dolt) is
// absent from every sample, never written as 0.
type mysqlSource struct {
	statsSession
	dolt    bool // Dolt: only the variables of doltKeeps are read
	cur     myStatus
	prev    myStatus
	havePrv bool // prev holds a reading
	prevAt  time.Time
	faults  serverFaults
}

// The status variables read, by index into myStatus.
const (
	myComCommit = iota
	myComRollback
	myDeadlocks
	myRowLockWaits
	myRowLockTime
	myBPReadRequests
	myBPReads
	myDataFsyncs
	myOSLogWritten
	myTmpDiskTables
	myThreadsRunning
	myThreadsConnected
	myBPPagesDirty
	numMyStatus
)

// myStatusNames are the variables' names as the server writes them, by index.
var myStatusNames = [numMyStatus]string{
	myComCommit:        "Com_commit",
	myComRollback:      "Com_rollback",
	myDeadlocks:        "Innodb_deadlocks",
	myRowLockWaits:     "Innodb_row_lock_waits",
	myRowLockTime:      "Innodb_row_lock_time",
	myBPReadRequests:   "Innodb_buffer_pool_read_requests",
	myBPReads:          "Innodb_buffer_pool_reads",
	myDataFsyncs:       "Innodb_data_fsyncs",
	myOSLogWritten:     "Innodb_os_log_written",
	myTmpDiskTables:    "Created_tmp_disk_tables",
	myThreadsRunning:   "Threads_running",
	myThreadsConnected: "Threads_connected",
	myBPPagesDirty:     "Innodb_buffer_pool_pages_dirty",
}

// myRates are the counters written as per-second rates, with their series.
var myRates = []struct {
	i      int
	series string
}{
	{myComCommit, "db.commits_per_s"},
	{myComRollback, "db.rollbacks_per_s"},
	{myRowLockWaits, "db.row_lock_waits_per_s"},
	// Milliseconds spent waiting for row locks per second, all sessions together (1000: one
	// session waiting all the time). InnoDB adds a wait when it ends, so long waits land late.
	{myRowLockTime, "db.row_lock_time_ms_per_s"},
	{myBPReadRequests, "db.buffer_pool_read_requests_per_s"},
	{myBPReads, "db.buffer_pool_reads_per_s"},
	{myDataFsyncs, "db.data_fsyncs_per_s"},
	{myOSLogWritten, "db.redo_log_bytes_per_s"},
	{myTmpDiskTables, "db.tmp_disk_tables_per_s"},
}

// doltKeeps are the variables above that Dolt keeps: its server counts the sessions connected and
// running, and none of the others (Com_commit stays 0 however many transactions commit).
var doltKeeps = [numMyStatus]bool{myThreadsRunning: true, myThreadsConnected: true}

// myStatusSQL asks for the variables above only.
var myStatusSQL = "SHOW GLOBAL STATUS WHERE Variable_name IN ('" + strings.Join(myStatusNames[:], "','") + "')"

// myStatusIndex finds a variable's index by its name; the server's case is not relied on.
var myStatusIndex = func() map[string]int {
	m := make(map[string]int, numMyStatus)
	for i, n := range myStatusNames {
		m[strings.ToLower(n)] = i
	}
	return m
}()

// myStatus is one reading; have[i] says the server reported variable i.
type myStatus struct {
	v    [numMyStatus]float64
	have [numMyStatus]bool
}

func newMySQLSource(ctx context.Context, db driver.DB) (*mysqlSource, error) {
	s := &mysqlSource{statsSession: statsSession{db: db}, dolt: isDolt(db), faults: serverFaults{find: findMySQL}}
	if err := s.connect(ctx, 3*dbTimeout); err != nil {
		return s, err // keep trying on later samples
	}
	return s, nil
}

func (s *mysqlSource) name() string { return "db" }

func (s *mysqlSource) sample(ctx context.Context, now time.Time, v map[string]float64) error {
	if ok, err := s.ready(ctx, now); !ok {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, dbTimeout)
	defer cancel()
	if err := s.read(ctx); err != nil {
		s.lost(err)
		return fmt.Errorf("reading SHOW GLOBAL STATUS: %w", err)
	}
	dt := 0.0 // no rates without a previous reading
	if s.havePrv {
		dt = now.Sub(s.prevAt).Seconds()
	}
	s.cur.series(&s.prev, dt, v)
	s.prev, s.cur = s.cur, s.prev
	s.havePrv, s.prevAt = true, now
	return s.faults.sample(ctx, s.conn, now, v)
}

// series adds the gauges of reading c to v and, when dt > 0, the rates (and counts) since reading
// p, taken dt seconds before. Only what both readings have is written.
func (c *myStatus) series(p *myStatus, dt float64, v map[string]float64) {
	// The gauges count the sampler's own session out (it is connected, and running this query), as
	// PostgreSQL's sessions_active does.
	if c.have[myThreadsRunning] {
		v["db.threads_running"] = max(0, c.v[myThreadsRunning]-1)
	}
	if c.have[myThreadsConnected] {
		v["db.threads_connected"] = max(0, c.v[myThreadsConnected]-1)
	}
	if c.have[myBPPagesDirty] {
		v["db.buffer_pool_dirty_pages"] = c.v[myBPPagesDirty]
	}
	if dt <= 0 {
		return
	}
	// A counter that went down (FLUSH STATUS, a restart) gives no value this once.
	delta := func(i int) (float64, bool) {
		d := c.v[i] - p.v[i]
		return d, c.have[i] && p.have[i] && d >= 0
	}
	for _, r := range myRates {
		if d, ok := delta(r.i); ok {
			v[r.series] = d / dt
		}
	}
	if d, ok := delta(myDeadlocks); ok {
		v["db.deadlocks"] = d // in the interval, as PostgreSQL's
	}
	// The share of page reads served from the buffer pool over the interval: reads are the
	// requests that went to disk.
	if req, ok := delta(myBPReadRequests); ok && req > 0 {
		if rd, ok := delta(myBPReads); ok {
			v["db.buffer_pool_hit_pct"] = 100 * max(0, 1-rd/req)
		}
	}
}

// read fills s.cur from one SHOW GLOBAL STATUS.
func (s *mysqlSource) read(ctx context.Context) error {
	s.cur.have = [numMyStatus]bool{}
	rows, err := s.conn.Query(ctx, myStatusSQL)
	if err != nil {
		return err
	}
	defer rows.Close()
	var name, val string
	for rows.Next() {
		if err := rows.Scan(&name, &val); err != nil {
			return err
		}
		i, ok := myStatusIndex[strings.ToLower(name)]
		if !ok || s.dolt && !doltKeeps[i] {
			continue
		}
		if x, err := strconv.ParseFloat(val, 64); err == nil {
			s.cur.v[i], s.cur.have[i] = x, true
		}
	}
	return rows.Err()
}

func (s *mysqlSource) lost(err error) {
	if s.statsSession.lost(err) {
		s.havePrv = false
	}
}
