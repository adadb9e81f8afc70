package tpcc

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
)

// TestDialectProcedures: the procedure mode by dialect, known before connecting: MySQL and MariaDB
// have it (with the MySQL family's procedures); TiDB, Dolt and SQLite are refused with a user error
// naming the engine, the reason and the fix.
func TestDialectProcedures(t *testing.T) {
	my := func(name string, procs bool) driver.Dialect {
		return driver.Dialect{Name: name, Family: driver.FamilyMySQL, Procedures: procs}
	}
	for _, d := range []driver.Dialect{my("mysql", true), my("mariadb", true),
		{Name: "postgres", Family: driver.FamilyPostgres, Arrays: true, Procedures: true}} {
		if err := DialectProcedures(d); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
	}
	for _, c := range []struct {
		d   driver.Dialect
		say string
	}{
		{my("tidb", false), "TiDB does not support stored procedures"},
		{my("dolt", false), "Dolt supports stored procedures only in part"},
		{driver.Dialect{Name: "sqlite", SingleWriter: true}, "SQLite is embedded"},
		{driver.Dialect{Name: "cockroachdb", Family: driver.FamilyPostgres}, "does not run the server-side procedures"},
	} {
		err := DialectProcedures(c.d)
		if err == nil || !userr.Is(err) {
			t.Errorf("%s: %v, want a user error", c.d.Name, err)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "not available on "+c.d.Name+":") || !strings.Contains(msg, c.say) || !strings.Contains(msg, "drop --procedures") {
			t.Errorf("%s: %q does not name the engine, the reason (%q) and the fix", c.d.Name, msg, c.say)
		}
	}
}
