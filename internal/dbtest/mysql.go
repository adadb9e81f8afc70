package dbtest

import (
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
	return freshDatabase(t, MySQLURL(t), prefix, "")
}

// FreshMySQL opens a fresh database (see FreshMySQLURL), closed when the test ends.
func FreshMySQL(t testing.TB, prefix string) driver.DB {
	t.Helper()
	return open(t, FreshMySQLURL(t, prefix))
}
