package sysmon

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/candor-bench/candor/driver"
)

// MySQLSettings are the MySQL/MariaDB system variables a result discloses: durability
// (innodb_flush_log_at_trx_commit, innodb_doublewrite, the binary log and its sync), memory
// (innodb_buffer_pool_size), the flush method and the connection limit. A server without one of them
// (another engine speaking the protocol) leaves it out.
var MySQLSettings = []string{"innodb_flush_log_at_trx_commit", "innodb_doublewrite", "log_bin", "sync_binlog",
	"innodb_buffer_pool_size", "innodb_flush_method", "max_connections"}

// DoltSettings are the settings a result discloses on Dolt, which has InnoDB's variables but honours
// none of them (its storage is its own): whether every SQL commit is also a Dolt commit
// (dolt_transaction_commit), its automatic garbage collection and statistics, and the MySQL
// variables it does honour: autocommit, the default isolation level, the connection limit. A
// server without one of them (go-mysql-server alone has none of Dolt's) leaves it out.
var DoltSettings = []string{"dolt_transaction_commit", "dolt_auto_gc_enabled", "dolt_stats_enabled", "autocommit",
	"transaction_isolation", "max_connections"}

// isDolt: db is Dolt, by its URL (the dolt dialect) or because it answered dolt_version()
// (driver/mysql's DoltVersion, a mysql:// URL reaching Dolt).
func isDolt(db driver.DB) bool {
	if db.Dialect().Name == "dolt" {
		return true
	}
	d, ok := db.(interface{ DoltVersion() string })
	return ok && d.DoltVersion() != ""
}

// discloseMySQL reads the settings (DoltSettings on Dolt), the database's size (its tables' data
// and indexes, as information_schema estimates them), whether the server runs on this host, and
// the status counters the server does not keep (notKept).
func discloseMySQL(ctx context.Context, db driver.DB, d *Disclosure) error {
	if a, ok := db.(interface{ ServerHost() string }); ok {
		d.OnDriverHost = isLocalAddr(a.ServerHost())
	}
	c, err := db.Connect(ctx)
	if err != nil {
		return fmt.Errorf("connecting to read the settings: %w", err)
	}
	defer c.Close()
	// SHOW GLOBAL VARIABLES rather than information_schema.global_variables, which MySQL 8 removed
	// (MariaDB and TiDB have both).
	settings, dolt := MySQLSettings, isDolt(db)
	if dolt {
		settings = DoltSettings
	}
	q := "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('" + strings.Join(settings, "','") + "')"
	if d.Settings, err = readSettings(ctx, c, q); err != nil {
		return err
	}
	if d.NotKept, err = notKept(ctx, c, dolt); err != nil {
		return err
	}
	var size sql.NullInt64
	if err := c.QueryRow(ctx, "SELECT CAST(SUM(data_length + index_length) AS SIGNED) FROM information_schema.tables WHERE table_schema = DATABASE()").Scan(&size); err != nil {
		return fmt.Errorf("reading the database size: %w", err)
	}
	d.SizeBytes = size.Int64
	return nil
}

// notKept are the db.* series of the status counters the server does not keep, which the samples
// leave out rather than show as 0: those whose variable the server lacks, and on Dolt every one but
// the thread gauges (Dolt has MySQL's status variables, but counts none of commits, row locks,
// buffer pool, fsyncs or redo log: they stay 0 whatever runs).
func notKept(ctx context.Context, c driver.Conn, dolt bool) ([]string, error) {
	rows, err := c.Query(ctx, myStatusSQL)
	if err != nil {
		return nil, fmt.Errorf("reading SHOW GLOBAL STATUS: %w", err)
	}
	defer rows.Close()
	var have [numMyStatus]bool
	var name, val string
	for rows.Next() {
		if err := rows.Scan(&name, &val); err != nil {
			return nil, fmt.Errorf("reading SHOW GLOBAL STATUS: %w", err)
		}
		if i, ok := myStatusIndex[strings.ToLower(name)]; ok {
			have[i] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading SHOW GLOBAL STATUS: %w", err)
	}
	kept := func(i int) bool { return have[i] && !(dolt && !doltKeeps[i]) }
	var out []string
	for _, r := range myRates {
		if !kept(r.i) {
			out = append(out, r.series)
		}
	}
	if !kept(myDeadlocks) {
		out = append(out, "db.deadlocks")
	}
	if !kept(myBPPagesDirty) {
		out = append(out, "db.buffer_pool_dirty_pages")
	}
	return out, nil
}
