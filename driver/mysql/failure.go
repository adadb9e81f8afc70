package mysql

import (
	"errors"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/candor-bench/candor/driver"
)

// Server error numbers of the failure classes (driver.FailureOf) besides those classify knows.
const (
	erLockWaitTimeoutClass = erLockWaitTimeout // 1205: a lock wait timed out
	erQueryTimeout         = 3024              // MySQL: max_execution_time exceeded
	erStatementTimeout     = 1969              // MariaDB: max_statement_time exceeded
)

// FailureClass classifies an error by its number: a lock wait or statement timeout is a timeout,
// SQLSTATE 23000 (duplicate key, foreign key, not null, check) a constraint; other errors are left
// to driver.FailureOf.
func (db *DB) FailureClass(err error) (driver.FailureClass, bool) {
	var me *gomysql.MySQLError
	if !errors.As(err, &me) {
		return driver.FailNone, false
	}
	switch me.Number {
	case erLockWaitTimeoutClass, erQueryTimeout, erStatementTimeout:
		return driver.FailTimeout, true
	}
	if string(me.SQLState[:]) == "23000" {
		return driver.FailConstraint, true
	}
	return driver.FailNone, false
}
