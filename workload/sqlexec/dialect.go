package sqlexec

import (
	"fmt"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
)

// The SQL families (driver.Dialect.SQLFamily) the workloads write statements for, and the engines
// (driver.Dialect.Name) of the PostgreSQL family whose statements or settings differ.
const (
	FamilyPostgres  = driver.FamilyPostgres
	FamilyMySQL     = driver.FamilyMySQL
	FamilySQLite    = "sqlite"
	EngineCockroach = "cockroachdb"
	EngineYugabyte  = "yugabytedb"
	EngineDoltgres  = "doltgres"
)

// Supported reports whether the workloads have statements for the SQL family.
func Supported(family string) bool {
	return family == FamilyPostgres || family == FamilyMySQL || family == FamilySQLite
}

// Dialect is db's SQL family and engine (its dialect's name), or a user error, naming workload, for
// an engine it has no SQL for.
func Dialect(db driver.DB, workload string) (family, engine string, err error) {
	d := db.Dialect()
	if p := dialectProblem(d, workload); p != "" {
		return "", "", userr.Errorf("%s", p)
	}
	return d.SQLFamily(), d.Name, nil
}

// DialectProblem is, for Validate, the sentence saying that workload has no SQL for the engine the
// database URL names; "" when it has, or when the URL does not tell (driver.URLDialect).
func DialectProblem(url, workload string) string {
	if url == "" {
		return ""
	}
	if d, ok := driver.URLDialect(url); ok {
		return dialectProblem(d, workload)
	}
	return ""
}

func dialectProblem(d driver.Dialect, workload string) string {
	if Supported(d.SQLFamily()) {
		return ""
	}
	return fmt.Sprintf("%s has no SQL for the database kind %q: use PostgreSQL (or CockroachDB, YugabyteDB), MySQL/MariaDB or SQLite", workload, d.Name)
}
