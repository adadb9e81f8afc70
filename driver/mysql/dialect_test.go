package mysql_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/candor-bench/candor/driver"
	_ "github.com/candor-bench/candor/driver/postgres" // a dialect of another wire protocol
	"github.com/candor-bench/candor/userr"
)

// The engines of the MySQL wire protocol as dialects (engines.go): named by the URL's scheme or
// by --dialect, all of the MySQL family, stored procedures on MySQL and MariaDB only.

var mysqlEngines = []struct {
	name, title string
	procedures  bool
}{
	{"mysql", "MySQL", true},
	{"mariadb", "MariaDB", true},
	{"tidb", "TiDB", false},
	{"dolt", "Dolt", false},
}

// TestMySQLDialectsFromURL: each scheme names its dialect without connecting (driver.URLDialect),
// with its family and capabilities, and --dialect accepts each name.
func TestMySQLDialectsFromURL(t *testing.T) {
	names := driver.Dialects()
	for _, e := range mysqlEngines {
		d, ok := driver.URLDialect(e.name + "://u:pw@127.0.0.1:1/db")
		if !ok || d.Name != e.name || d.Family != driver.FamilyMySQL || d.SQLFamily() != "mysql" ||
			d.Procedures != e.procedures || d.Arrays || d.SingleWriter || d.IsPostgresFamily() {
			t.Errorf("URLDialect(%s://...) = %+v, %v", e.name, d, ok)
		}
		if f := driver.FamilyOf(e.name); f != driver.FamilyMySQL {
			t.Errorf("FamilyOf(%s) = %q, want mysql", e.name, f)
		}
		if !slices.Contains(names, e.name) {
			t.Errorf("Dialects() = %v lacks %s", names, e.name)
		}
	}
	if d, ok := driver.URLDialect("TIDB://h/db"); !ok || d.Name != "tidb" {
		t.Errorf("an upper-case scheme: %+v, %v", d, ok)
	}
	if _, ok := driver.URLDialect("oracle://h/db"); ok {
		t.Error("URLDialect knows oracle://")
	}
	if f := driver.FamilyOf("cockroachdb"); f != driver.FamilyPostgres {
		t.Errorf("FamilyOf(cockroachdb) = %q", f)
	}
}

// TestMySQLEnginesOnMariaDB: every scheme of the MySQL wire opens the test server (MariaDB: the
// only one here, so tidb:// and dolt:// take the path their engines would, against MariaDB), and
// the opened database names the engine the URL gave, not the one the server says it is.
func TestMySQLEnginesOnMariaDB(t *testing.T) {
	raw := freshURL(t, "")
	for _, e := range mysqlEngines {
		u, err := driver.ApplyDialect(raw, e.name)
		if err != nil {
			t.Fatal(err)
		}
		db := openURL(t, u)
		d := db.Dialect()
		if db.Kind() != e.name || d.Name != e.name || d.SQLFamily() != "mysql" || d.Procedures != e.procedures {
			t.Errorf("%s: Kind %q, Dialect %+v", e.name, db.Kind(), d)
		}
		// the described Dialect has the engine's batches; the opened one only with batches=on
		if want, _ := driver.URLDialect(u); d.Batches || func() bool { d.Batches = want.Batches; return d != want }() {
			t.Errorf("%s: the opened Dialect %+v differs from the described %+v (without batches=on)", e.name, d, want)
		}
		if !strings.HasPrefix(db.Redacted(), e.name+"://") || strings.Contains(db.Redacted(), passwordOf(t, raw)) {
			t.Errorf("%s: Redacted %q", e.name, db.Redacted())
		}
		if v, _ := db.Version(testCtx(t)); !strings.HasPrefix(v, "MariaDB ") && !strings.HasPrefix(v, "MySQL ") {
			t.Errorf("%s: Version %q is not the server's own", e.name, v)
		}
		var one int64
		if err := connect(t, db).QueryRow(testCtx(t), "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Errorf("%s: SELECT 1 = %d, %v", e.name, one, err)
		}
		// Messages name the engine of the URL.
		_, err = driver.Open(testCtx(t), strings.Replace(u, "/candor_drv_", "/candor_nodb_", 1))
		if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), e.title+" at ") {
			t.Errorf("%s: opening a missing database: %v, want a user error naming %s", e.name, err, e.title)
		}
	}
}
