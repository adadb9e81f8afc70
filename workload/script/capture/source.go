package capture

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
)

// Stat is one statement's cumulative counters in a snapshot.
type Stat struct {
	ID      string  // pg_stat_statements' queryid, or performance_schema's digest
	Text    string  // the normalized text
	Calls   int64   // executions
	TotalMS float64 // server time, milliseconds
	Rows    int64
}

// Snapshot is the statement statistics of the connected database at one moment.
type Snapshot struct {
	At    time.Time
	Stats map[string]Stat
	// Evicted counts statements the statistics dropped for lack of room (pg_stat_statements_info's
	// dealloc, MySQL's Performance_schema_digest_lost), -1 when the server does not say.
	Evicted int64
	// Reset is when PostgreSQL's statistics were last reset (zero when unknown).
	Reset time.Time
	// Executes counts MariaDB's executions of prepared statements (statement/com/Execute, every
	// schema), which its digests do not hold; -1 when not read.
	Executes int64
}

// source reads an engine's statement statistics.
type source interface {
	// name is what the statistics are called, for messages.
	name() string
	// qmark: the texts' placeholders are "?" (MySQL digests), else $n.
	qmark() bool
	check(ctx context.Context, c driver.Conn) error
	snapshot(ctx context.Context, c driver.Conn) (Snapshot, error)
	// own reports whether a text is capture's own reading of the statistics or the catalog.
	own(text string) bool
}

func sourceFor(db driver.DB) (source, error) {
	d := db.Dialect()
	switch {
	case d.Name == "postgres":
		return &pgSource{}, nil
	case d.SQLFamily() == driver.FamilyMySQL && (d.Name == "mysql" || d.Name == "mariadb"):
		return mysqlSource{mariadb: new(bool)}, nil // MariaDB is told apart by its version (check)
	}
	return nil, userr.Errorf("candor capture reads PostgreSQL's pg_stat_statements or MySQL's and MariaDB's performance_schema; %s has neither: point --db at a postgres:// or mysql:// (mariadb://) URL", d.Name)
}

// pgSource reads pg_stat_statements (PostgreSQL 13 and later: total_exec_time), top-level
// statements only from PostgreSQL 14 (with pg_stat_statements.track = all, the statements run
// inside functions are counted too, and replaying them beside their callers would run them twice).
type pgSource struct{ topLevel bool }

func (*pgSource) name() string { return "pg_stat_statements" }
func (*pgSource) qmark() bool  { return false }
func (*pgSource) own(text string) bool {
	t := strings.ToLower(text)
	return strings.Contains(t, "pg_stat_statements")
}

const pgHowTo = "add it to the server's preload list (shared_preload_libraries = 'pg_stat_statements' in postgresql.conf, then restart the server) and create it in this database (CREATE EXTENSION pg_stat_statements, as a superuser)"

func (p *pgSource) check(ctx context.Context, c driver.Conn) error {
	var num string
	if err := c.QueryRow(ctx, "SHOW server_version_num").Scan(&num); err == nil {
		var v int
		fmt.Sscan(num, &v)
		if v > 0 && v < 130000 {
			return userr.Errorf("candor capture reads pg_stat_statements' total_exec_time, which PostgreSQL 13 added; this server is %s", num)
		}
		p.topLevel = v >= 140000
	}
	var n int64
	err := c.QueryRow(ctx, "SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'").Scan(&n)
	if err != nil {
		return fmt.Errorf("reading pg_extension: %w", err)
	}
	if n == 0 {
		return userr.Errorf("pg_stat_statements is not installed in this database: %s", pgHowTo)
	}
	if _, err := c.Exec(ctx, "SELECT 1 FROM pg_stat_statements LIMIT 1"); err != nil {
		if strings.Contains(err.Error(), "shared_preload_libraries") {
			return userr.Errorf("pg_stat_statements is installed but the server does not load it: %s", pgHowTo)
		}
		return userr.Errorf("cannot read pg_stat_statements: %v (the user needs the pg_read_all_stats role to see other users' statements)", err)
	}
	return nil
}

func (p *pgSource) snapshot(ctx context.Context, c driver.Conn) (Snapshot, error) {
	s := Snapshot{At: time.Now(), Stats: map[string]Stat{}, Evicted: -1, Executes: -1}
	top := ""
	if p.topLevel {
		top = " AND toplevel"
	}
	rows, err := c.Query(ctx, `SELECT queryid::text, min(query), sum(calls)::bigint, sum(total_exec_time)::float8, sum(rows)::bigint
FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND queryid IS NOT NULL`+top+`
GROUP BY queryid`)
	if err != nil {
		return s, fmt.Errorf("reading pg_stat_statements: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var st Stat
		var text *string
		if err := rows.Scan(&st.ID, &text, &st.Calls, &st.TotalMS, &st.Rows); err != nil {
			return s, fmt.Errorf("reading pg_stat_statements: %w", err)
		}
		if text == nil {
			st.Text = "" // hidden: another user's statement without pg_read_all_stats
		} else {
			st.Text = *text
		}
		s.Stats[st.ID] = st
	}
	if err := rows.Err(); err != nil {
		return s, fmt.Errorf("reading pg_stat_statements: %w", err)
	}
	rows.Close()
	// pg_stat_statements_info is PostgreSQL 14's; without it evictions are unknown.
	var dealloc int64
	var reset time.Time
	if err := c.QueryRow(ctx, "SELECT dealloc, stats_reset FROM pg_stat_statements_info").Scan(&dealloc, &reset); err == nil {
		s.Evicted, s.Reset = dealloc, reset
	}
	return s, nil
}

// mysqlSource reads performance_schema.events_statements_summary_by_digest (MySQL 5.6+, MariaDB
// 10.0+), this schema's digests only. MariaDB (10.11 tried) keeps no digest of a statement run
// through the binary protocol's prepared statements (COM_STMT_EXECUTE, what candor's driver and
// many others send), and its prepared_statements_instances counts no execution of them either:
// on MariaDB those executions are counted (statement/com/Execute, every schema) and said.
type mysqlSource struct{ mariadb *bool }

func (mysqlSource) name() string { return "performance_schema.events_statements_summary_by_digest" }
func (mysqlSource) qmark() bool  { return true }
func (mysqlSource) own(text string) bool {
	t := strings.ToLower(text)
	return strings.Contains(t, "performance_schema") || strings.Contains(t, "information_schema")
}

func (m mysqlSource) check(ctx context.Context, c driver.Conn) error {
	var version string
	if err := c.QueryRow(ctx, "SELECT VERSION()").Scan(&version); err == nil {
		*m.mariadb = strings.Contains(strings.ToLower(version), "mariadb")
	}
	var on int64
	if err := c.QueryRow(ctx, "SELECT @@performance_schema").Scan(&on); err != nil {
		return fmt.Errorf("reading @@performance_schema: %w", err)
	}
	if on != 1 {
		return userr.Errorf("performance_schema is OFF on this server, and capture reads its statement digests: set performance_schema = ON in the server's configuration ([mysqld] or [mariadbd] in my.cnf) and restart the server (it cannot be turned on at run time)")
	}
	var enabled string
	err := c.QueryRow(ctx, "SELECT enabled FROM performance_schema.setup_consumers WHERE name = 'statements_digest'").Scan(&enabled)
	if err != nil {
		return userr.Errorf("cannot read performance_schema.setup_consumers: %v (the user needs SELECT on performance_schema)", err)
	}
	if !strings.EqualFold(enabled, "YES") {
		return userr.Errorf("performance_schema's statements_digest consumer is disabled: enable it with UPDATE performance_schema.setup_consumers SET enabled = 'YES' WHERE name = 'statements_digest' (or performance-schema-consumer-statements-digest = ON in my.cnf)")
	}
	return nil
}

func (m mysqlSource) snapshot(ctx context.Context, c driver.Conn) (Snapshot, error) {
	s := Snapshot{At: time.Now(), Stats: map[string]Stat{}, Evicted: -1, Executes: -1}
	rows, err := c.Query(ctx, `SELECT digest, digest_text, count_star, sum_timer_wait / 1e9, sum_rows_sent + sum_rows_affected
FROM performance_schema.events_statements_summary_by_digest
WHERE schema_name = DATABASE() AND digest IS NOT NULL`)
	if err != nil {
		return s, fmt.Errorf("reading performance_schema.events_statements_summary_by_digest: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var st Stat
		var text *string
		if err := rows.Scan(&st.ID, &text, &st.Calls, &st.TotalMS, &st.Rows); err != nil {
			return s, fmt.Errorf("reading performance_schema's digests: %w", err)
		}
		if text != nil {
			st.Text = *text
		}
		s.Stats[st.ID] = st
	}
	if err := rows.Err(); err != nil {
		return s, fmt.Errorf("reading performance_schema's digests: %w", err)
	}
	rows.Close()
	var name, value string
	if err := c.QueryRow(ctx, "SHOW GLOBAL STATUS LIKE 'Performance_schema_digest_lost'").Scan(&name, &value); err == nil {
		fmt.Sscan(value, &s.Evicted)
	}
	if m.mariadb != nil && *m.mariadb {
		if err := preparedExecutes(ctx, c, &s); err != nil {
			return s, fmt.Errorf("reading performance_schema.events_statements_summary_global_by_event_name: %w", err)
		}
	}
	return s, nil
}

// preparedExecutes reads MariaDB's count of prepared statements' executions (every schema).
func preparedExecutes(ctx context.Context, c driver.Conn, s *Snapshot) error {
	return c.QueryRow(ctx, "SELECT count_star FROM performance_schema.events_statements_summary_global_by_event_name WHERE event_name = 'statement/com/Execute'").Scan(&s.Executes)
}
