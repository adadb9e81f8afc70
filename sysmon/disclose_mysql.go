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

// discloseMySQL reads the settings, the database's size (its tables' data and indexes, as
// information_schema estimates them) and whether the server runs on this host.
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
	q := "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('" + strings.Join(MySQLSettings, "','") + "')"
	if d.Settings, err = readSettings(ctx, c, q); err != nil {
		return err
	}
	var size sql.NullInt64
	if err := c.QueryRow(ctx, "SELECT CAST(SUM(data_length + index_length) AS SIGNED) FROM information_schema.tables WHERE table_schema = DATABASE()").Scan(&size); err != nil {
		return fmt.Errorf("reading the database size: %w", err)
	}
	d.SizeBytes = size.Int64
	return nil
}
