package sysbench

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/workload/sqlexec"
)

// The statements are sysbench 1.0.20's (oltp_common.lua's stmt_defs, oltp_insert.lua,
// select_random_*.lua), with $n parameters rewritten per SQL family by sqlexec.Placeholders, so
// the server sees the statements sysbench's prepared statements send (pg_stat_statements counts
// them under the same query):
//
//	point_select      SELECT c FROM sbtestN WHERE id=?
//	simple_range      SELECT c FROM sbtestN WHERE id BETWEEN ? AND ?
//	sum_range         SELECT SUM(k) FROM sbtestN WHERE id BETWEEN ? AND ?
//	order_range       SELECT c FROM sbtestN WHERE id BETWEEN ? AND ? ORDER BY c
//	distinct_range    SELECT DISTINCT c FROM sbtestN WHERE id BETWEEN ? AND ? ORDER BY c
//	index_update      UPDATE sbtestN SET k=k+1 WHERE id=?
//	non_index_update  UPDATE sbtestN SET c=? WHERE id=?
//	delete            DELETE FROM sbtestN WHERE id=?
//	insert            INSERT INTO sbtestN (id, k, c, pad) VALUES (?, ?, ?, ?)
//
// oltp_insert inserts without an id where the engine numbers it (PostgreSQL's SERIAL, SQLite's
// rowid): INSERT INTO sbtestN (k, c, pad) VALUES (...); on MySQL with id 0, which AUTO_INCREMENT
// numbers. sysbench sends that one with its values inline, not prepared; candor binds them.

// tableName is sbtestN.
func tableName(n int) string { return fmt.Sprintf("sbtest%d", n) }

// statements are one table's statements, rewritten for the family; random* only for sbtest1.
type statements struct {
	byOp [numOps]string
}

func newStatements(family string, table int, o *Options) *statements {
	t := tableName(table)
	s := &statements{}
	set := func(op int, q string) { s.byOp[op] = sqlexec.Placeholders(family, q) }
	set(OpPointSelect, "SELECT c FROM "+t+" WHERE id=$1")
	set(OpSimpleRange, "SELECT c FROM "+t+" WHERE id BETWEEN $1 AND $2")
	set(OpSumRange, "SELECT SUM(k) FROM "+t+" WHERE id BETWEEN $1 AND $2")
	set(OpOrderRange, "SELECT c FROM "+t+" WHERE id BETWEEN $1 AND $2 ORDER BY c")
	set(OpDistinctRange, "SELECT DISTINCT c FROM "+t+" WHERE id BETWEEN $1 AND $2 ORDER BY c")
	set(OpIndexUpdate, "UPDATE "+t+" SET k=k+1 WHERE id=$1")
	set(OpNonIndexUpdate, "UPDATE "+t+" SET c=$1 WHERE id=$2")
	set(OpDelete, "DELETE FROM "+t+" WHERE id=$1")
	if o.Test == "oltp_insert" {
		if family == sqlexec.FamilyMySQL {
			set(OpInsert, "INSERT INTO "+t+" (id, k, c, pad) VALUES (0, $1, $2, $3)")
		} else {
			set(OpInsert, "INSERT INTO "+t+" (k, c, pad) VALUES ($1, $2, $3)")
		}
	} else {
		set(OpInsert, "INSERT INTO "+t+" (id, k, c, pad) VALUES ($1, $2, $3, $4)")
	}
	if table == 1 {
		var b strings.Builder
		b.WriteString("SELECT id, k, c, pad FROM sbtest1 WHERE k IN (")
		sqlexec.Params(&b, 1, o.RandomPoints)
		b.WriteString(")")
		set(OpRandomPoints, b.String())
		b.Reset()
		b.WriteString("SELECT count(k) FROM sbtest1 WHERE ")
		for i := range o.NumberOfRanges {
			if i > 0 {
				b.WriteString(" OR ")
			}
			fmt.Fprintf(&b, "k BETWEEN $%d AND $%d", 2*i+1, 2*i+2)
		}
		set(OpRandomRanges, b.String())
		for op, q := range doltStatements(family) {
			s.byOp[op] = q
		}
	}
	return s
}

// createSQL is oltp_common.lua's create_table for table n: SERIAL (PostgreSQL) or AUTO_INCREMENT
// (MySQL) ids, as sysbench's default --auto-inc=on makes them; SQLite's INTEGER primary key is its
// rowid, which numbers rows inserted without an id.
func createSQL(family string, n int) string {
	idDef, engine := "SERIAL", ""
	switch family {
	case sqlexec.FamilyMySQL:
		idDef, engine = "INTEGER NOT NULL AUTO_INCREMENT", " /*! ENGINE = innodb */"
	case sqlexec.FamilySQLite:
		idDef = "INTEGER NOT NULL"
	}
	return fmt.Sprintf("CREATE TABLE %s(\n  id %s,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n)%s",
		tableName(n), idDef, engine)
}

// indexSQL is the secondary index sysbench creates after the rows (--create-secondary, on by
// default).
func indexSQL(n int) string {
	return fmt.Sprintf("CREATE INDEX %s ON %s(k)", indexName(n), tableName(n))
}

// indexName is the name of table n's index on k, as sysbench's: k_n.
func indexName(n int) string { return "k_" + strconv.Itoa(n) }

// sequenceSQL moves table n's SERIAL sequence past the ids loaded, as sysbench's own inserts of
// the rows without ids leave it (a COPY with ids does not advance it), so oltp_insert's rows get
// new ids. Only PostgreSQL itself has it (CockroachDB's and YugabyteDB's SERIAL differ).
func sequenceSQL(n int) string {
	t := tableName(n)
	return fmt.Sprintf("SELECT setval(pg_get_serial_sequence('%s', 'id'), coalesce(max(id), 0) + 1, false) FROM %s", t, t)
}
