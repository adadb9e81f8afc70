package driver_test

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/driver"
	_ "github.com/candor-bench/candor/driver/mysql"
	_ "github.com/candor-bench/candor/driver/postgres"
	_ "github.com/candor-bench/candor/driver/sqlite"
	"github.com/candor-bench/candor/userr"
)

func TestApplyDialect(t *testing.T) {
	ok := []struct{ raw, dialect, want string }{
		{"postgres://u:pw@h:5432/db", "", "postgres://u:pw@h:5432/db"},
		{"postgres://u:pw@h:5432/db?sslmode=disable", "cockroachdb", "cockroachdb://u:pw@h:5432/db?sslmode=disable"},
		{"postgresql://h/db", "yugabytedb", "yugabytedb://h/db"},
		{"POSTGRES://h/db", "CockroachDB", "cockroachdb://h/db"},
		{"postgres://h/db", "postgres", "postgres://h/db"},
		{"postgresql://h/db", "postgres", "postgresql://h/db"},
		{"cockroachdb://h/db", "cockroachdb", "cockroachdb://h/db"},
		{"sqlite:x.db", "sqlite", "sqlite:x.db"},
		{"mysql://u:pw@h:3306/db", "tidb", "tidb://u:pw@h:3306/db"},
		{"mysql://u:pw@h:3306/db?bulk=insert", "dolt", "dolt://u:pw@h:3306/db?bulk=insert"},
		{"mysql://h/db", "mariadb", "mariadb://h/db"},
		{"MYSQL://h/db", "TiDB", "tidb://h/db"},
		{"mysql://h/db", "mysql", "mysql://h/db"},
		{"tidb://h/db", "tidb", "tidb://h/db"},
		{"mariadb://h/db", "", "mariadb://h/db"},
	}
	for _, c := range ok {
		got, err := driver.ApplyDialect(c.raw, c.dialect)
		if err != nil || got != c.want {
			t.Errorf("ApplyDialect(%q, %q) = %q, %v; want %q", c.raw, c.dialect, got, err, c.want)
		}
	}
	bad := []struct{ raw, dialect, say string }{
		{"postgres://u:secret@h/db", "oracle", "not a dialect candor knows"},
		{"sqlite:x.db", "cockroachdb", "wire protocol"},
		{"cockroachdb://u:secret@h/db", "yugabytedb", "drop one of them"},
		{"yugabytedb://h/db", "postgres", "drop one of them"},
		{"mariadb://u:secret@h/db", "tidb", "drop one of them"},
		{"tidb://u:secret@h/db", "mysql", "drop one of them"},
		{"dolt://h/db", "mariadb", "drop one of them"},
		{"postgres://u:secret@h/db", "tidb", "wire protocol"},
		{"mysql://u:secret@h/db", "cockroachdb", "wire protocol"},
		{"mysql://h/db", "mssql", "not a dialect candor knows"},
	}
	for _, c := range bad {
		_, err := driver.ApplyDialect(c.raw, c.dialect)
		if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), c.say) {
			t.Errorf("ApplyDialect(%q, %q): error %v, want a user error saying %q", c.raw, c.dialect, err, c.say)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("ApplyDialect(%q, %q) printed the password: %v", c.raw, c.dialect, err)
		}
	}
}

func TestDialectFamily(t *testing.T) {
	cases := []struct {
		d      driver.Dialect
		family string
		pg     bool
	}{
		{driver.Dialect{Name: "postgres"}, "postgres", true},
		{driver.Dialect{Name: "cockroachdb", Family: "postgres"}, "postgres", true},
		{driver.Dialect{Name: "yugabytedb", Family: "postgres"}, "postgres", true},
		{driver.Dialect{Name: "sqlite"}, "sqlite", false},
	}
	for _, c := range cases {
		if c.d.SQLFamily() != c.family || c.d.IsPostgresFamily() != c.pg {
			t.Errorf("%+v: family %q, postgres family %v; want %q, %v", c.d, c.d.SQLFamily(), c.d.IsPostgresFamily(), c.family, c.pg)
		}
	}
	for _, name := range []string{"postgres", "cockroachdb", "yugabytedb"} {
		found := false
		for _, d := range driver.Dialects() {
			found = found || d == name
		}
		if !found {
			t.Errorf("dialect %s is not registered (Dialects() = %v)", name, driver.Dialects())
		}
	}
}
