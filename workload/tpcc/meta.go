package tpcc

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload/loadstate"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// candor's own table, candor_load, holds one row describing the load: what was loaded, with which
// seed and NURand constants (clause 2.1.6.1 wants the load's C recorded, since the run's must differ
// from it), when it started and whether it completed (completed_at is set only after every row is in
// and every key and index is built), and how many runs have used the data since.
const metaTable = "candor_load"

// TPC-C's claim on its tables (loadstate.Owners): a load is recorded when candor_load exists.
func init() {
	loadstate.Register(loadstate.Claim{Workload: "tpcc", Owns: loadstate.Names(TableNames...),
		Recorded: func(ctx context.Context, db driver.DB) (bool, error) {
			c, err := db.Connect(ctx)
			if err != nil {
				return false, err
			}
			defer c.Close()
			return loadstate.TableExists(ctx, c, db.Dialect().SQLFamily(), metaTable)
		}})
}

// LoadInfo is the content of candor_load.
type LoadInfo struct {
	Warehouses  int
	Seed        uint64
	C           Constants // the load's NURand constants
	ToolVersion string
	Loaders     int
	// StartedAt is the load's timestamp: c_since, o_entry_d, h_date and the delivered ol_delivery_d
	// of the initial population all carry it.
	StartedAt   time.Time
	CompletedAt time.Time // zero while the load has not completed
	Completed   bool
	Runs        int // runs started on this data (MarkRun)
	// BulkPath is how the rows went in, when the engine tells (MySQL: LOAD DATA LOCAL or multi-row
	// INSERT); set by Load, not stored.
	BulkPath string
	// Resumed: shard 0, restarted, finished a sharded load whose part was in (shard.go); set by
	// Load, not stored.
	Resumed bool
	// Placement is where --tablespaces put the tables and indexes (tablespace.go); nil: the
	// database's default place.
	Placement *Placement
}

// metaCreateSQL creates candor_load. The seed is stored as decimal text (a uint64 does not fit a
// signed 64-bit column and should read the same as on the command line).
func metaCreateSQL(dialect string) string {
	ts := "timestamp"
	if dialect == dialectSQLite {
		ts = "TIMESTAMP"
	}
	if dialect == dialectMySQL {
		ts = "DATETIME(6)" // MySQL's TIMESTAMP converts time zones and may update itself
	}
	return "CREATE TABLE " + metaTable + ` (
  workload text NOT NULL,
  warehouses integer NOT NULL,
  seed text NOT NULL,
  c_last integer NOT NULL,
  c_id integer NOT NULL,
  ol_i_id integer NOT NULL,
  tool_version text NOT NULL,
  loaders integer NOT NULL,
  started_at ` + ts + ` NOT NULL,
  completed_at ` + ts + `,
  runs integer NOT NULL
)`
}

const metaInsertSQL = "INSERT INTO " + metaTable +
	" (workload, warehouses, seed, c_last, c_id, ol_i_id, tool_version, loaders, started_at, completed_at, runs)" +
	" VALUES ('tpcc', $1, $2, $3, $4, $5, $6, $7, $8, NULL, 0)"

const metaSelectSQL = "SELECT warehouses, seed, c_last, c_id, ol_i_id, tool_version, loaders, started_at," +
	" completed_at, runs FROM " + metaTable + " WHERE workload = 'tpcc'"

// placeholders rewrites $n parameters to the dialect's form (sqlexec.Placeholders: SQLite takes
// ?NNN, which also keeps the numbering; MySQL plain ?, in order; quoted text is left alone).
func placeholders(dialect, sql string) string { return sqlexec.Placeholders(dialect, sql) }

// noDataError is the user error for a database without (complete) candor TPC-C tables.
func noDataError(db driver.DB) error {
	u := db.Redacted()
	return userr.Errorf("the database at %s has no candor TPC-C data: run `candor tpcc load --db %s --warehouses N` first", u, u)
}

// existingTables returns which of the nine TPC-C tables and candor_load exist (as unqualified
// names resolve them), asked in the SQL of d's family; the distributed engines of the PostgreSQL
// family are asked through information_schema (distsql.go).
func existingTables(ctx context.Context, c driver.Conn, d driver.Dialect) ([]string, error) {
	names := "'" + strings.Join(append(append([]string{}, TableNames...), metaTable), "', '") + "'"
	q := "SELECT c.relname FROM pg_class c WHERE c.relkind IN ('r', 'p') AND pg_table_is_visible(c.oid) AND c.relname IN (" + names + ") ORDER BY 1"
	if d.SQLFamily() == dialectSQLite {
		q = "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (" + names + ") ORDER BY 1"
	}
	if d.SQLFamily() == dialectMySQL {
		q = mysqlTablesSQL(names) // schema_mysql.go
	}
	if distributed(d.Name) {
		q = tablesInSchemaSQL(names)
	}
	return queryStrings(ctx, c, q) // tablespace.go
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// ReadLoadInfo reads candor_load. A database without it or without the TPC-C tables is a user
// error telling to load first; an incomplete load is reported by Completed = false (the caller
// decides what that means).
func ReadLoadInfo(ctx context.Context, db driver.DB) (LoadInfo, error) {
	c, err := db.Connect(ctx)
	if err != nil {
		return LoadInfo{}, err
	}
	defer c.Close()
	return readLoadInfo(ctx, db, c)
}

func readLoadInfo(ctx context.Context, db driver.DB, c driver.Conn) (LoadInfo, error) {
	dialect := db.Dialect().SQLFamily()
	if err := checkDialect(dialect); err != nil {
		return LoadInfo{}, err
	}
	have, err := existingTables(ctx, c, db.Dialect())
	if err != nil {
		return LoadInfo{}, err
	}
	if len(have) != len(TableNames)+1 {
		return LoadInfo{}, noDataError(db)
	}
	var li LoadInfo
	var seed string
	var completed *time.Time
	err = c.QueryRow(ctx, metaSelectSQL).Scan(&li.Warehouses, &seed, &li.C.CLast, &li.C.CID, &li.C.OLIID,
		&li.ToolVersion, &li.Loaders, &li.StartedAt, &completed, &li.Runs)
	if errors.Is(err, driver.ErrNoRows) {
		return LoadInfo{}, noDataError(db)
	}
	if err != nil {
		return LoadInfo{}, err
	}
	if li.Seed, err = strconv.ParseUint(seed, 10, 64); err != nil {
		return LoadInfo{}, userr.Errorf("the seed %q in %s's table %s is not a number: reload with candor tpcc load --drop", seed, db.Redacted(), metaTable)
	}
	li.StartedAt = li.StartedAt.UTC()
	if completed != nil {
		li.Completed, li.CompletedAt = true, completed.UTC()
	}
	if li.Placement, err = readPlacement(ctx, db, c); err != nil { // tablespace.go
		return LoadInfo{}, err
	}
	return li, nil
}

// MarkRun counts one more run on the loaded data (`run` calls it before its first transaction, so
// that condition 11 of clause 3.3.2, which holds only on the initial population, is skipped later).
func MarkRun(ctx context.Context, db driver.DB) error {
	if loadstate.IsNull(db) {
		return nil // the null engine records nothing
	}
	c, err := db.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := readLoadInfo(ctx, db, c); err != nil {
		return err
	}
	_, err = c.Exec(ctx, "UPDATE "+metaTable+" SET runs = runs + 1 WHERE workload = 'tpcc'")
	return err
}

// warehousesText is "1 warehouse" or "N warehouses".
func warehousesText(n int) string {
	if n == 1 {
		return "1 warehouse"
	}
	return strconv.Itoa(n) + " warehouses"
}
