package kv

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/workload/sqlexec"
)

// The statements, per SQL family (driver.Dialect.SQLFamily), written with $n parameters and
// rewritten once by sqlexec.Placeholders. CockroachDB's own (kv.go, Ops) are:
//
//	read:   SELECT k, v FROM kv WHERE k IN ($1, ...)
//	write:  UPSERT INTO kv (k, v) VALUES ($1, $2), ...
//	scan:   SELECT count(v) FROM [SELECT v FROM kv WHERE k >= $1 ORDER BY k LIMIT n]   (no WHERE and
//	        no LIMIT with --span-limit 0)
//	delete: DELETE FROM kv WHERE k IN ($1, ...)
//
// candor sends the same, with each engine's upsert (CockroachDB keeps its UPSERT; PostgreSQL and
// YugabyteDB INSERT ... ON CONFLICT (k) DO UPDATE; MySQL INSERT ... ON DUPLICATE KEY UPDATE; SQLite
// INSERT ... ON CONFLICT (k) DO UPDATE) and a standard subquery for CockroachDB's [ ... ].
//
// Doltgres (1.2.0) differs where it must: it types a parameter in a list (k IN ($1)) as unknown
// (OID 705) rather than as k's type, so each is cast ($1::BIGINT), and its ON CONFLICT ... DO UPDATE
// has no excluded row, so the new value is the parameter itself (v = $2::BYTEA), or for several
// rows a CASE on the conflicting row's key (v = CASE kv.k WHEN $1::BIGINT THEN $2::BYTEA ... END).

const table = "kv"

// createSQL is the table's DDL. The value column is each family's bytes type: BYTEA (PostgreSQL;
// CockroachDB takes it as BYTES), LONGBLOB (MySQL: values up to --max-block-bytes, stored off the
// row when large), BLOB (SQLite, whose INTEGER PRIMARY KEY makes k the rowid, the table's own key).
func createSQL(family string) string {
	switch family {
	case sqlexec.FamilyMySQL:
		return "CREATE TABLE kv (\n  k BIGINT NOT NULL PRIMARY KEY,\n  v LONGBLOB NOT NULL\n) ENGINE=InnoDB"
	case sqlexec.FamilySQLite:
		return "CREATE TABLE kv (\n  k INTEGER NOT NULL PRIMARY KEY,\n  v BLOB NOT NULL\n)"
	}
	return "CREATE TABLE kv (\n  k BIGINT NOT NULL PRIMARY KEY,\n  v BYTEA NOT NULL\n)"
}

const dropSQL = "DROP TABLE IF EXISTS kv"

// statements are one engine's statements for a batch size.
type statements struct {
	family, engine string
	batch          int
	read, del      string // batch keys
	scan           string // one parameter (the start key), or none with spanLimit 0
	scanArgs       int
}

func newStatements(family, engine string, batch, spanLimit int) *statements {
	s := &statements{family: family, engine: engine, batch: batch}
	s.read = s.in("SELECT k, v FROM kv WHERE k IN (", batch)
	s.del = s.in("DELETE FROM kv WHERE k IN (", batch)
	s.scan, s.scanArgs = scanSQL(spanLimit), 1
	if spanLimit == 0 {
		s.scanArgs = 0
	}
	s.scan = sqlexec.Placeholders(family, s.scan)
	return s
}

func (s *statements) in(prefix string, n int) string {
	var b strings.Builder
	b.WriteString(prefix)
	if s.engine == sqlexec.EngineDoltgres {
		for i := 1; i <= n; i++ {
			if i > 1 {
				b.WriteString(", ")
			}
			b.WriteString("$" + strconv.Itoa(i) + "::BIGINT")
		}
	} else {
		sqlexec.Params(&b, 1, n)
	}
	b.WriteByte(')')
	return sqlexec.Placeholders(s.family, b.String())
}

// scanSQL counts the rows of a bounded scan from $1 on, or of the whole table with limit 0.
func scanSQL(limit int) string {
	if limit == 0 {
		return "SELECT count(v) FROM kv"
	}
	return "SELECT count(v) FROM (SELECT v FROM kv WHERE k >= $1 ORDER BY k LIMIT " + strconv.Itoa(limit) + ") AS s"
}

// write is the upsert of n rows (k, v): parameters $1, $2 for the first row, and so on.
func (s *statements) write(n int) string {
	var b strings.Builder
	if s.engine == sqlexec.EngineCockroach {
		b.WriteString("UPSERT INTO kv (k, v) VALUES ")
	} else {
		b.WriteString("INSERT INTO kv (k, v) VALUES ")
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		sqlexec.Params(&b, 2*i+1, 2)
		b.WriteByte(')')
	}
	switch {
	case s.engine == sqlexec.EngineCockroach:
	case s.engine == sqlexec.EngineDoltgres:
		return doltgresUpsert(n)
	case s.family == sqlexec.FamilyMySQL:
		// VALUES(v) rather than MySQL 8's row alias, which MariaDB does not have.
		b.WriteString(" ON DUPLICATE KEY UPDATE v = VALUES(v)")
	default:
		b.WriteString(" ON CONFLICT (k) DO UPDATE SET v = excluded.v")
	}
	return sqlexec.Placeholders(s.family, b.String())
}

// lengthSQL is the byte length of v (SQLite's length counts characters of a TEXT value).
func lengthSQL(family string) string {
	if family == sqlexec.FamilySQLite {
		return "length(CAST(v AS BLOB))"
	}
	return "length(v)"
}

// doltgresUpsert is the upsert of n rows on Doltgres, which has no excluded row: the new value is
// named by its parameter, typed, as are the keys.
func doltgresUpsert(n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO kv (k, v) VALUES ")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "($%d::BIGINT, $%d::BYTEA)", 2*i+1, 2*i+2)
	}
	if n == 1 {
		b.WriteString(" ON CONFLICT (k) DO UPDATE SET v = $2::BYTEA")
		return b.String()
	}
	b.WriteString(" ON CONFLICT (k) DO UPDATE SET v = CASE kv.k")
	for i := range n {
		fmt.Fprintf(&b, " WHEN $%d::BIGINT THEN $%d::BYTEA", 2*i+1, 2*i+2)
	}
	b.WriteString(" END")
	return b.String()
}
