package dbtest

import (
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/candor-bench/candor/driver"
	_ "github.com/candor-bench/candor/driver/mysql" // the MySQL/MariaDB engine the tests open
)

// EnvMySQL is the variable that names the test MySQL or MariaDB server (scripts/test starts a
// throwaway MariaDB, see scripts/mariadb-throwaway).
const EnvMySQL = "CANDOR_TEST_MYSQL_URL"

// MySQLURL returns the test server's URL, failing the test when it is not set.
func MySQLURL(t testing.TB) string {
	t.Helper()
	raw := os.Getenv(EnvMySQL)
	if raw == "" {
		t.Fatalf("%s is not set: this integration test needs MySQL or MariaDB; run it through scripts/test, which starts a throwaway MariaDB, or export %s=mysql://user:pass@127.0.0.1:PORT/db", EnvMySQL, EnvMySQL)
	}
	return raw
}

// FreshMySQLURL creates an empty database named prefix_<random> on the test server and returns its
// URL; the database is dropped when the test ends.
func FreshMySQLURL(t testing.TB, prefix string) string {
	t.Helper()
	raw := MySQLURL(t)
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	name := prefix + "_" + hex.EncodeToString(b[:])
	if err := adminExec(raw, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("creating the test database %s on %s: %v", name, driver.Redact(raw), err)
	}
	t.Cleanup(func() {
		if err := adminExec(raw, "DROP DATABASE IF EXISTS "+name); err != nil {
			t.Errorf("dropping the test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// FreshMySQL opens a fresh database (see FreshMySQLURL), closed when the test ends.
func FreshMySQL(t testing.TB, prefix string) driver.DB {
	t.Helper()
	return open(t, FreshMySQLURL(t, prefix))
}
