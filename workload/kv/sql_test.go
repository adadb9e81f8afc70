package kv

import (
	"testing"

	"github.com/candor-bench/candor/workload/sqlexec"
)

func TestStatementsPerFamily(t *testing.T) {
	for _, tc := range []struct {
		family, engine                         string
		read, write2, write1, del, scan, scan0 string
	}{
		{
			family: sqlexec.FamilyPostgres, engine: "postgres",
			read:   "SELECT k, v FROM kv WHERE k IN ($1, $2)",
			write2: "INSERT INTO kv (k, v) VALUES ($1, $2), ($3, $4) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
			write1: "INSERT INTO kv (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
			del:    "DELETE FROM kv WHERE k IN ($1, $2)",
			scan:   "SELECT count(v) FROM (SELECT v FROM kv WHERE k >= $1 ORDER BY k LIMIT 10) AS s",
			scan0:  "SELECT count(v) FROM kv",
		},
		{
			family: sqlexec.FamilyPostgres, engine: sqlexec.EngineCockroach,
			read:   "SELECT k, v FROM kv WHERE k IN ($1, $2)",
			write2: "UPSERT INTO kv (k, v) VALUES ($1, $2), ($3, $4)",
			write1: "UPSERT INTO kv (k, v) VALUES ($1, $2)",
			del:    "DELETE FROM kv WHERE k IN ($1, $2)",
			scan:   "SELECT count(v) FROM (SELECT v FROM kv WHERE k >= $1 ORDER BY k LIMIT 10) AS s",
			scan0:  "SELECT count(v) FROM kv",
		},
		{
			family: sqlexec.FamilyPostgres, engine: sqlexec.EngineDoltgres,
			read:   "SELECT k, v FROM kv WHERE k IN ($1::BIGINT, $2::BIGINT)",
			write2: "INSERT INTO kv (k, v) VALUES ($1::BIGINT, $2::BYTEA), ($3::BIGINT, $4::BYTEA) ON CONFLICT (k) DO UPDATE SET v = CASE kv.k WHEN $1::BIGINT THEN $2::BYTEA WHEN $3::BIGINT THEN $4::BYTEA END",
			write1: "INSERT INTO kv (k, v) VALUES ($1::BIGINT, $2::BYTEA) ON CONFLICT (k) DO UPDATE SET v = $2::BYTEA",
			del:    "DELETE FROM kv WHERE k IN ($1::BIGINT, $2::BIGINT)",
			scan:   "SELECT count(v) FROM (SELECT v FROM kv WHERE k >= $1 ORDER BY k LIMIT 10) AS s",
			scan0:  "SELECT count(v) FROM kv",
		},
		{
			family: sqlexec.FamilyMySQL, engine: "mariadb",
			read:   "SELECT k, v FROM kv WHERE k IN (?, ?)",
			write2: "INSERT INTO kv (k, v) VALUES (?, ?), (?, ?) ON DUPLICATE KEY UPDATE v = VALUES(v)",
			write1: "INSERT INTO kv (k, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = VALUES(v)",
			del:    "DELETE FROM kv WHERE k IN (?, ?)",
			scan:   "SELECT count(v) FROM (SELECT v FROM kv WHERE k >= ? ORDER BY k LIMIT 10) AS s",
			scan0:  "SELECT count(v) FROM kv",
		},
		{
			family: sqlexec.FamilySQLite, engine: "sqlite",
			read:   "SELECT k, v FROM kv WHERE k IN (?1, ?2)",
			write2: "INSERT INTO kv (k, v) VALUES (?1, ?2), (?3, ?4) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
			write1: "INSERT INTO kv (k, v) VALUES (?1, ?2) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
			del:    "DELETE FROM kv WHERE k IN (?1, ?2)",
			scan:   "SELECT count(v) FROM (SELECT v FROM kv WHERE k >= ?1 ORDER BY k LIMIT 10) AS s",
			scan0:  "SELECT count(v) FROM kv",
		},
	} {
		s := newStatements(tc.family, tc.engine, 2, 10)
		s0 := newStatements(tc.family, tc.engine, 2, 0)
		for _, c := range []struct{ what, got, want string }{
			{"read", s.read, tc.read}, {"write of 2", s.write(2), tc.write2}, {"write of 1", s.write(1), tc.write1},
			{"delete", s.del, tc.del}, {"scan", s.scan, tc.scan}, {"whole scan", s0.scan, tc.scan0},
		} {
			if c.got != c.want {
				t.Errorf("%s/%s %s:\n got %s\nwant %s", tc.family, tc.engine, c.what, c.got, c.want)
			}
		}
		if s.scanArgs != 1 || s0.scanArgs != 0 {
			t.Errorf("%s: scan arguments %d and %d, want 1 and 0", tc.family, s.scanArgs, s0.scanArgs)
		}
	}
}

func TestDDLPerFamily(t *testing.T) {
	for fam, want := range map[string]string{
		sqlexec.FamilyPostgres: "CREATE TABLE kv (\n  k BIGINT NOT NULL PRIMARY KEY,\n  v BYTEA NOT NULL\n)",
		sqlexec.FamilyMySQL:    "CREATE TABLE kv (\n  k BIGINT NOT NULL PRIMARY KEY,\n  v LONGBLOB NOT NULL\n) ENGINE=InnoDB",
		sqlexec.FamilySQLite:   "CREATE TABLE kv (\n  k INTEGER NOT NULL PRIMARY KEY,\n  v BLOB NOT NULL\n)",
	} {
		if got := createSQL(fam); got != want {
			t.Errorf("%s DDL:\n got %s\nwant %s", fam, got, want)
		}
	}
}
