package tpcc

import (
	"strconv"
)

// The MySQL dialect's schema (MySQL, MariaDB and engines speaking their SQL): the exact types of
// clause 1.3 (DECIMAL(p,s) for money and rates, INT, VARCHAR/CHAR, DATETIME(6) for dates: no time
// zone conversion and no 2038 limit, unlike TIMESTAMP), InnoDB tables in utf8mb4 with a binary
// collation, so that c_last compares and c_first sorts byte by byte as on PostgreSQL (C collation)
// and SQLite, whatever the server's default collation. These table options are understood by
// MySQL, MariaDB, TiDB and Dolt alike.

const dialectMySQL = "mysql"

const mysqlTableOptions = " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"

// mysqlKeysFirst: the tables are created with their primary keys and loaded in key order. InnoDB
// clusters a table by its primary key, so a key added after the load (ALTER TABLE ... ADD PRIMARY
// KEY) rebuilds the whole table, while rows loaded in key order go to the right end of each unit's
// key range. Measured on MariaDB 10.11 with 2 warehouses (1.1 M rows, 2 loaders, LOAD DATA LOCAL,
// this project's 2-core machine, shared): keys first 2.87 s and 2.82 s (server CPU 4.0 s), keys
// afterwards 4.31 s and 4.99 s (rows 3.1 s, then 1.1-1.9 s of rebuilding; server CPU 6.4 s).
var mysqlKeysFirst = true

func (c column) mysqlType() string {
	switch c.kind {
	case kInt:
		return "INT"
	case kMoney:
		return "DECIMAL(" + strconv.Itoa(c.n) + ",2)"
	case kRate:
		return "DECIMAL(4,4)"
	case kVarchar:
		return "VARCHAR(" + strconv.Itoa(c.n) + ")"
	case kChar:
		return "CHAR(" + strconv.Itoa(c.n) + ")"
	}
	return "DATETIME(6)"
}

// mysqlTablesSQL lists which of the named tables exist in the connection's database.
func mysqlTablesSQL(names string) string {
	return "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE' AND table_name IN (" +
		names + ") ORDER BY 1"
}
