package sqlite

import (
	"errors"

	"github.com/mattn/go-sqlite3"

	"github.com/candor-bench/candor/driver"
)

// FailureClass classifies an error by SQLite's result code: SQLITE_CONSTRAINT (unique, foreign
// key, not null, check, and a trigger's RAISE(ABORT, ...)) is a constraint; other errors are left
// to driver.FailureOf.
func (db *DB) FailureClass(err error) (driver.FailureClass, bool) {
	var se sqlite3.Error
	if errors.As(err, &se) && se.Code == sqlite3.ErrConstraint {
		return driver.FailConstraint, true
	}
	return driver.FailNone, false
}
