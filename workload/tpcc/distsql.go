package tpcc

import (
	"context"
	"fmt"
	"strings"

	"github.com/candor-bench/candor/driver"
)

// The distributed SQL engines of the PostgreSQL family, CockroachDB and YugabyteDB, run PostgreSQL's
// statements (sql_postgres.go, check_sql.go; Dialect.Family is "postgres") and differ only where
// their SQL or their way of loading must. Those overrides are all here, chosen by the engine's
// Dialect.Name, which comes from configuration (URL scheme or --dialect), never from a guess.
//
// What differs, and why:
//   - Keys at CREATE TABLE. Neither engine can add a primary key cheaply once data is in: a table
//     created without one gets a hidden row-id key (CockroachDB rowid, YugabyteDB ybctid), and
//     ALTER TABLE ... ADD PRIMARY KEY rewrites the table (CockroachDB) or is not supported
//     (YugabyteDB); CREATE UNIQUE INDEX ... + ADD CONSTRAINT ... USING INDEX, PostgreSQL's fast path
//     after the load, exists on neither. So the tables are created with their keys, and only the
//     secondary indexes are built after the load (an online backfill on both).
//   - History's key. Clause 1.3 gives history no key. CockroachDB wants one in every table (else a
//     hidden unique_rowid(), which grows monotonically and makes every insert hit the last range),
//     so it gets a surrogate h_id UUID DEFAULT gen_random_uuid(), spread over the key space.
//     YugabyteDB's hidden ybctid key is random already: history stays without a key there.
//   - Sharding on YugabyteDB. PRIMARY KEY (a, b, c) written the PostgreSQL way means (a HASH, b ASC,
//     c ASC) there: every TPC-C key starts with its warehouse, so rows are hashed by warehouse over
//     the tablets and kept in key order within it, which the range reads want (oldest new order,
//     the last 20 orders, a customer's latest order). The secondary indexes get the same shape.
//     Chosen over all-ASC range keys, which would start every table on one tablet.
//   - Load. Each COPY runs on its own, not in an explicit transaction: CockroachDB commits a COPY
//     atomically by itself (copy_from_atomic_enabled, on by default since v22.2), YugabyteDB
//     commits every yb_default_copy_from_rows_per_transaction rows (20,000 by default), and neither
//     does well with one large distributed transaction per load unit. A failed load still shows:
//     candor_load.completed_at stays null until every row, key and index is in.
//   - No VACUUM (neither has it; YugabyteDB ignores it with a warning): ANALYZE instead, which both
//     take (CockroachDB as an alias of CREATE STATISTICS).
//   - No PostgreSQL session tuning (synchronous_commit, maintenance_work_mem, work_mem,
//     enable_nestloop): CockroachDB rejects settings it does not have; YugabyteDB takes them but they
//     do not mean there what they mean in PostgreSQL.
//   - Catalog. The TPC-C tables are looked up in information_schema, which both implement as
//     PostgreSQL does, rather than pg_class with pg_table_is_visible.
//   - Transactions. No implicit single-statement transactions (Client.txConn): every transaction is
//     explicit, at the level asked for, and retried whole on SQLSTATE 40001 (driver.Retry), which
//     both engines return for serialization conflicts and which CockroachDB returns at any statement
//     or at COMMIT. SELECT ... FOR UPDATE, data-modifying CTEs, unnest and numeric are used as on
//     PostgreSQL; statements avoid PostgreSQL-only forms both engines lack or read differently
//     (SELECT with no select list, integer / integer, which is a decimal on CockroachDB, implicit
//     casts in ||).

// Engine names (driver.Dialect.Name) of the distributed engines of the PostgreSQL family.
const (
	dialectCockroach = "cockroachdb"
	dialectYugabyte  = "yugabytedb"
)

// distributed reports whether engine (a driver.Dialect.Name) is CockroachDB or YugabyteDB.
func distributed(engine string) bool { return engine == dialectCockroach || engine == dialectYugabyte }

// engineName is db's engine, the name per-engine overrides are chosen by.
func engineName(db driver.DB) string { return db.Dialect().Name }

// keysAtCreate reports whether the engine's tables get their primary keys in CREATE TABLE.
func keysAtCreate(dialect, engine string) bool { return keysFirst(dialect) || ownKeys(engine) }

// ownKeys reports whether engine, of the PostgreSQL family, creates its tables with their keys, each
// statement on its own, and follows the load with ANALYZE rather than VACUUM: the distributed engines
// and Doltgres (doltgres.go).
func ownKeys(engine string) bool { return distributed(engine) || engine == dialectDoltgres }

// historyKeyColumn is the surrogate key CockroachDB's history table gets (see above).
const historyKeyColumn = "h_id UUID NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY"

// createTableSQL is t's CREATE TABLE for an engine of a dialect.
func createTableSQL(t *table, dialect, engine string) string {
	sql := t.createSQL(dialect, keysAtCreate(dialect, engine))
	if engine == dialectCockroach && len(t.pk) == 0 {
		// createSQL starts "CREATE TABLE name (\n  col ...": the key becomes the first column.
		if i := strings.Index(sql, "(\n"); i >= 0 {
			sql = sql[:i+2] + "  " + historyKeyColumn + ",\n" + sql[i+2:]
		}
	}
	return sql
}

// EngineSchemaSQL returns the statements that create the TPC-C schema on an engine as a load
// leaves it: SchemaSQL's, with the overrides of the distributed engines.
func EngineSchemaSQL(dialect, engine string) ([]string, error) {
	if !ownKeys(engine) {
		return SchemaSQL(dialect)
	}
	if err := checkDialect(dialect); err != nil {
		return nil, err
	}
	var out []string
	for _, t := range tables {
		out = append(out, createTableSQL(t, dialect, engine))
	}
	for _, x := range indexes {
		out = append(out, x.sql())
	}
	return out, nil
}

// createSchemaDistributed creates the tables with their keys and candor_load with its row, each
// statement on its own: YugabyteDB's DDL does not join a transaction (each statement commits by
// itself), and a CockroachDB schema change inside a transaction with writes is best avoided. A
// failure leaves tables without a candor_load row, which load refuses without --drop and run sees
// as no data.
func createSchemaDistributed(ctx context.Context, c driver.Conn, dialect, engine string, info LoadInfo) error {
	for _, t := range tables {
		if _, err := c.Exec(ctx, createTableSQL(t, dialect, engine)); err != nil {
			return err
		}
	}
	if _, err := c.Exec(ctx, metaCreateSQL(dialect)); err != nil {
		return err
	}
	return insertMeta(ctx, c, dialect, info)
}

// loadUnitAutocommit copies a unit's rows with one COPY per table, each committed by itself.
func loadUnitAutocommit(ctx context.Context, c driver.Conn, steps []step, progress func(int64)) error {
	for _, s := range steps {
		src := &counting{RowSource: s.src, report: progress}
		_, err := c.CopyFrom(ctx, s.t.name, s.t.colNames, src)
		src.flush()
		if err != nil {
			return fmt.Errorf("copying into %s: %w", s.t.name, err)
		}
	}
	return nil
}

// analyzeSQL is what prepares the distributed engines' tables for the run: planner statistics.
func analyzeSQL() []string {
	var out []string
	for _, t := range bySize {
		out = append(out, "ANALYZE "+t.name)
	}
	return out
}

// tablesInSchemaSQL finds the TPC-C tables (names is their quoted, comma-separated list) through
// information_schema, in the schema unqualified names resolve to.
func tablesInSchemaSQL(names string) string {
	return "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()" +
		" AND table_type = 'BASE TABLE' AND table_name IN (" + names + ") ORDER BY 1"
}
