package mysql

import "github.com/candor-bench/candor/driver"

// The engines this driver reaches over MySQL's wire protocol, each named by its URL scheme (or by
// --dialect, which rewrites a mysql:// URL's scheme): the engine is taken from configuration, never
// guessed from the server's version string, which is only shown (and compared in a warning when it
// names another engine, see run/distsql.go).
//
//	mysql://     MySQL, and any server speaking its protocol that candor has no other name for
//	mariadb://   MariaDB
//	tidb://      TiDB
//	dolt://      Dolt
//
// All four run the statements of the MySQL family (workload/tpcc/sql_mysql.go); they differ in
// what they can do, which the Dialect says.
type engine struct {
	dialect driver.Dialect
	title   string // "MySQL", "MariaDB", "TiDB", "Dolt": the engine in messages
	// pipelines: the server takes several commands in one write (Conn.Pipe). MySQL and MariaDB
	// read a session's commands one after another from the socket. Dolt 2.3.1 does not: it watches
	// the socket while a statement runs and, when the client has written meanwhile ("client wrote
	// to connection while a query was executing"), ends the statement with "connection was closed"
	// (by hand: 6 of 924 New-Orders failed so in a 30 s run). TiDB has not been tried.
	pipelines bool
}

var (
	// MySQL and MariaDB run the stored procedures of --procedures (workload/tpcc/proc_mysql.go).
	engineMySQL   = &engine{title: "MySQL", dialect: mysqlDialect("mysql", true, true), pipelines: true}
	engineMariaDB = &engine{title: "MariaDB", dialect: mysqlDialect("mariadb", true, true), pipelines: true}
	// TiDB does not support stored procedures (CREATE PROCEDURE is not available there).
	engineTiDB = &engine{title: "TiDB", dialect: mysqlDialect("tidb", false, true)}
	// Dolt supports stored procedures only in part, and candor's procedures have never run on it:
	// there is no Dolt server to test them against here, so the mode is refused rather than left
	// to fail half-way through a load or a run.
	// Dolt's engine (go-mysql-server on dolthub/vitess) goes on with the statements of a
	// multi-statement query after one fails (the rest of a batch, its COMMIT included, would run
	// and commit half a transaction), so it gets no batches: one statement per round trip.
	engineDolt = &engine{title: "Dolt", dialect: mysqlDialect("dolt", false, false)}

	engines = []*engine{engineMySQL, engineMariaDB, engineTiDB, engineDolt}
)

// mysqlDialect is the Dialect of an engine of the MySQL family: no array parameters, concurrent
// writers, stored procedures where the engine runs candor's, batches (multi-statements) where a
// failing statement ends the batch.
func mysqlDialect(name string, procedures, batches bool) driver.Dialect {
	return driver.Dialect{Name: name, Family: driver.FamilyMySQL, Procedures: procedures, Batches: batches}
}

func init() {
	for _, e := range engines {
		driver.Register(e.dialect.Name, open)
		driver.RegisterDialect(e.dialect.Name, driver.FamilyMySQL)
		driver.DescribeDialect(e.dialect)
	}
}

// engineFor returns the engine a (lower-case) URL scheme names; a scheme of none is MySQL.
func engineFor(scheme string) *engine {
	for _, e := range engines {
		if e.dialect.Name == scheme {
			return e
		}
	}
	return engineMySQL
}
