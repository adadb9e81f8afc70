package sysmon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/candor-bench/candor/driver"
)

// dbTimeout bounds each sample's database work, so that a stalled server leaves gaps in the db.*
// series instead of delaying the host's samples.
const dbTimeout = 500 * time.Millisecond

// newDBSource returns the statistics source for db's engine, or nil for an engine without one yet.
// Every engine of the MySQL family gets MySQL's (db_mysql.go): the status variables one of them
// lacks are left out of the samples.
func newDBSource(ctx context.Context, db driver.DB) (source, error) {
	switch db.Kind() {
	case "postgres":
		return newPGSource(ctx, db)
	case "sqlite":
		if p, ok := db.(interface{ Path() string }); ok {
			return &sqliteSource{path: p.Path()}, nil
		}
	}
	if db.Dialect().SQLFamily() == driver.FamilyMySQL {
		return newMySQLSource(ctx, db)
	}
	return nil, nil
}

// pgSource reads PostgreSQL's statistics views on a dedicated connection: two small queries a
// second (counted in commits/s themselves: 2 of them). Counters are cumulative and turned into
// rates; pg_stat_activity is a snapshot of the sessions at the instant of reading. The server
// publishes backends' counters at most once a second (PostgreSQL 15+), so per-second rates are
// lumpy; their mean over the window is exact.
type pgSource struct {
	statsSession
	checkpointer bool // PostgreSQL 17+: checkpoints are in pg_stat_checkpointer
	prev         *pgCounters
	prevAt       time.Time
	noActivity   bool // pg_stat_activity could not be read (reported once, then skipped)
	faults       serverFaults
}

// statsSession is the dedicated connection a statistics source reads the server on, opened again
// after it was lost, at most once every reconnectEvery.
type statsSession struct {
	db      driver.DB
	conn    driver.Conn
	retryAt time.Time // after a failed connect, the next attempt waits until then
	// setup runs on each new connection before it is used (nil: nothing to do); its failure
	// counts as a failed connect.
	setup func(ctx context.Context, c driver.Conn) error
}

// reconnectEvery spaces the attempts to reconnect to a server that does not answer, so that a
// stalled server does not cost a connect timeout every second.
const reconnectEvery = 5 * time.Second

func (s *statsSession) connect(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := s.db.Connect(ctx)
	if err != nil {
		s.retryAt = time.Now().Add(reconnectEvery)
		return fmt.Errorf("connecting for statistics: %w", err)
	}
	if s.setup != nil {
		if err := s.setup(ctx, c); err != nil {
			c.Close()
			s.retryAt = time.Now().Add(reconnectEvery)
			return err
		}
	}
	s.conn = c
	return nil
}

// ready reports whether the session is connected for the sample at now, connecting if the last
// failed attempt is old enough; false without an error means the failure was reported already.
func (s *statsSession) ready(ctx context.Context, now time.Time) (bool, error) {
	if s.conn != nil {
		return true, nil
	}
	if now.Before(s.retryAt) {
		return false, nil
	}
	if err := s.connect(ctx, dbTimeout); err != nil {
		return false, err
	}
	return true, nil
}

func (s *statsSession) close() {
	if s.conn != nil {
		s.conn.Close()
		s.conn = nil
	}
}

// lost drops the connection after a failure that may have broken it (a timeout interrupts the
// query by closing it) and reports whether it did: the next sample reconnects, and rates must
// restart from its reading.
func (s *statsSession) lost(err error) bool {
	if s.db.Classify(err) == driver.ErrConnLost || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		s.close()
		return true
	}
	return false
}

type pgCounters struct {
	commits, rollbacks, deadlocks, hit, read, wal, ckTimed, ckReq, ckBuffers float64
}

func newPGSource(ctx context.Context, db driver.DB) (*pgSource, error) {
	s := &pgSource{statsSession: statsSession{db: db}, faults: serverFaults{find: findPostgres}}
	s.setup = func(ctx context.Context, c driver.Conn) error {
		var num float64
		if err := c.QueryRow(ctx, "SELECT current_setting('server_version_num')::float8").Scan(&num); err != nil {
			return fmt.Errorf("reading server_version_num: %w", err)
		}
		s.checkpointer = num >= 170000
		return nil
	}
	if err := s.connect(ctx, 3*dbTimeout); err != nil {
		return s, err // keep trying on later samples
	}
	return s, nil
}

func (s *pgSource) name() string { return "db" }

const pgCountersSQL = `SELECT d.xact_commit::float8, d.xact_rollback::float8, d.deadlocks::float8,
  d.blks_hit::float8, d.blks_read::float8,
  (coalesce(CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END, '0/0') - '0/0'::pg_lsn)::float8,
  c.timed::float8, c.req::float8, c.buf::float8
FROM pg_stat_database d CROSS JOIN (%s) c
WHERE d.datname = current_database()`

const (
	pgBgwriterSQL     = "SELECT checkpoints_timed AS timed, checkpoints_req AS req, buffers_checkpoint AS buf FROM pg_stat_bgwriter"
	pgCheckpointerSQL = "SELECT num_timed AS timed, num_requested AS req, buffers_written AS buf FROM pg_stat_checkpointer"
)

// pgActivitySQL counts the client sessions that are not idle by what they wait on: a
// wait_event_type (Lock, LWLock, IO, IPC, Client, ...) or "running" when they wait on nothing.
// Sessions idle in a transaction count too (they wait on Client: on the driver).
const pgActivitySQL = `SELECT coalesce(wait_event_type, 'running'), count(*)::float8 FROM pg_stat_activity
WHERE backend_type = 'client backend' AND state <> 'idle' AND pid <> pg_backend_pid() GROUP BY 1`

// pgWaitTypes are always written (0 when no session waits so), so a plot shows zeros, not gaps.
var pgWaitTypes = []string{"running", "Lock", "LWLock", "IO", "IPC", "Client", "BufferPin", "Timeout", "Extension", "Activity"}

func (s *pgSource) sample(ctx context.Context, now time.Time, v map[string]float64) error {
	if ok, err := s.ready(ctx, now); !ok {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, dbTimeout)
	defer cancel()
	ck := pgBgwriterSQL
	if s.checkpointer {
		ck = pgCheckpointerSQL
	}
	var c pgCounters
	err := s.conn.QueryRow(ctx, fmt.Sprintf(pgCountersSQL, ck)).Scan(&c.commits, &c.rollbacks, &c.deadlocks,
		&c.hit, &c.read, &c.wal, &c.ckTimed, &c.ckReq, &c.ckBuffers)
	if err != nil {
		s.lost(err)
		return fmt.Errorf("reading pg_stat_database: %w", err)
	}
	if p := s.prev; p != nil {
		if dt := now.Sub(s.prevAt).Seconds(); dt > 0 && !c.lessThan(p) {
			v["db.commits_per_s"] = (c.commits - p.commits) / dt
			v["db.rollbacks_per_s"] = (c.rollbacks - p.rollbacks) / dt
			v["db.deadlocks"] = c.deadlocks - p.deadlocks
			v["db.blks_hit_per_s"] = (c.hit - p.hit) / dt
			v["db.blks_read_per_s"] = (c.read - p.read) / dt
			v["db.wal_bytes_per_s"] = (c.wal - p.wal) / dt
			v["db.checkpoints_timed"] = c.ckTimed - p.ckTimed
			v["db.checkpoints_req"] = c.ckReq - p.ckReq
			v["db.buffers_checkpoint_per_s"] = (c.ckBuffers - p.ckBuffers) / dt
		}
	}
	s.prev, s.prevAt = &c, now
	var actErr error
	if !s.noActivity {
		actErr = s.activity(ctx, v)
	}
	if s.conn == nil {
		return actErr
	}
	return errors.Join(actErr, s.faults.sample(ctx, s.conn, now, v))
}

func (s *pgSource) activity(ctx context.Context, v map[string]float64) error {
	rows, err := s.conn.Query(ctx, pgActivitySQL)
	if err != nil {
		s.lost(err)
		return fmt.Errorf("reading pg_stat_activity: %w", err)
	}
	defer rows.Close()
	counts := map[string]float64{}
	var total float64
	for rows.Next() {
		var typ string
		var n float64
		if err := rows.Scan(&typ, &n); err != nil {
			return fmt.Errorf("reading pg_stat_activity: %w", err)
		}
		counts[typ] += n
		total += n
	}
	if err := rows.Err(); err != nil {
		s.lost(err)
		return fmt.Errorf("reading pg_stat_activity: %w", err)
	}
	for _, t := range pgWaitTypes {
		v["db.wait."+t] = 0
	}
	for t, n := range counts {
		v["db.wait."+t] = n
	}
	v["db.sessions_active"] = total
	return nil
}

// lost drops the connection after a failure that may have broken it (a timeout cancels the query
// by closing it); the next sample reconnects. Counters restart from the next reading.
func (s *pgSource) lost(err error) {
	if s.statsSession.lost(err) {
		s.prev = nil
	}
}

func (c *pgCounters) lessThan(p *pgCounters) bool {
	return c.commits < p.commits || c.rollbacks < p.rollbacks || c.deadlocks < p.deadlocks || c.hit < p.hit ||
		c.read < p.read || c.wal < p.wal || c.ckTimed < p.ckTimed || c.ckReq < p.ckReq || c.ckBuffers < p.ckBuffers
}

// sqliteSource follows the size of a SQLite database file and of its write-ahead log (which grows
// until a checkpoint copies it back).
type sqliteSource struct{ path string }

func (s *sqliteSource) name() string { return "db" }
func (s *sqliteSource) close()       {}

func (s *sqliteSource) sample(_ context.Context, _ time.Time, v map[string]float64) error {
	fi, err := os.Stat(s.path)
	if err != nil {
		return err
	}
	v["db.file_bytes"] = float64(fi.Size())
	v["db.wal_bytes"] = 0
	if wi, err := os.Stat(s.path + "-wal"); err == nil {
		v["db.wal_bytes"] = float64(wi.Size())
	}
	return nil
}
