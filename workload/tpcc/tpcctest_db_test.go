package tpcc

import (
	"context"
	"testing"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
)

// pgTestDB creates a fresh database on the PostgreSQL server of CANDOR_TEST_PG_URL for one test
// and drops it when the test ends, so tests never share (or clobber) data.
func pgTestDB(t testing.TB) driver.DB { return dbtest.FreshPostgres(t, "candor_test") }

// mysqlTestDB creates a fresh database on the MySQL/MariaDB server of CANDOR_TEST_MYSQL_URL.
func mysqlTestDB(t testing.TB) driver.DB { return dbtest.FreshMySQL(t, "candor_test") }

// mysqlBatchesTestDB is mysqlTestDB with batches=on (several statements per round trip).
func mysqlBatchesTestDB(t testing.TB) driver.DB {
	t.Helper()
	db, err := driver.Open(context.Background(), dbtest.FreshMySQLURL(t, "candor_test")+"?batches=on")
	if err != nil {
		t.Fatalf("opening MySQL with batches=on: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if !db.Dialect().Batches {
		t.Fatalf("batches=on: the dialect %s has no batches", db.Dialect().Name)
	}
	return db
}

// sqliteTestDB opens a new SQLite database file in the test's temporary directory.
func sqliteTestDB(t testing.TB) driver.DB { return dbtest.SQLite(t) }

// testDBs are the engines every integration test runs on.
var testDBs = []struct {
	name string
	open func(testing.TB) driver.DB
}{
	{"postgres", pgTestDB},
	{"sqlite", sqliteTestDB},
	{"mysql", mysqlTestDB},
}
