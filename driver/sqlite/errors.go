package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/mattn/go-sqlite3"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
)

// classify: SQLITE_BUSY and SQLITE_LOCKED (with their extended codes, such as BUSY_SNAPSHOT) mean
// another connection held a lock; the transaction is retried. Anything else is fatal.
func classify(err error) driver.ErrorClass {
	var se sqlite3.Error
	if errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked) {
		return driver.ErrRetry
	}
	return driver.ErrFatal
}

// Modes of access(2).
const (
	accessR = 4
	accessW = 2
	accessX = 1
)

// mustExist refuses a database file that does not exist (driver.ExistingOnly: a run, a check),
// rather than creating it empty; workload names what loads it ("" for any).
func mustExist(path, workload string) error {
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if workload == "" {
		workload = "WORKLOAD"
	}
	return userr.Errorf("the SQLite database %s does not exist: load it first (candor %s load --db sqlite:%s, or the one-shot candor %s --db sqlite:%s, which loads it), or fix the path in --db",
		path, workload, path, workload, path)
}

// checkPath finds the usual mistakes before SQLite reports them as "unable to open database file":
// a missing directory, a directory in place of the file, missing permissions. SQLite needs to write
// the directory too, for the -wal and -shm files.
func checkPath(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return userr.Errorf("the directory %s for the SQLite database does not exist: create it (mkdir -p %s) or fix --db", dir, dir)
	case err != nil:
		return pathError(path, err)
	case !fi.IsDir():
		return userr.Errorf("%s is not a directory, so it cannot hold the SQLite database %s: fix --db", dir, path)
	}
	if err := syscall.Access(dir, accessW|accessX); err != nil {
		return pathError(dir, err)
	}
	fi, err = os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // SQLite creates it
	case err != nil:
		return pathError(path, err)
	case fi.IsDir():
		return userr.Errorf("%s is a directory, not a SQLite database file: name a file in --db, for example sqlite:%s", path, filepath.Join(path, "candor-tpcc.db"))
	}
	if err := syscall.Access(path, accessR|accessW); err != nil {
		return pathError(path, err)
	}
	return nil
}

// pathError words a file system error about path as a user error.
func pathError(path string, err error) error {
	switch {
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return userr.Errorf("cannot write %s (permission denied): fix its permissions or choose another path in --db", path)
	case errors.Is(err, syscall.EROFS):
		return userr.Errorf("cannot write %s (read-only file system): choose a writable path in --db", path)
	}
	return userr.Errorf("cannot use %s for the SQLite database (%v): fix --db", path, err)
}

// openError words an error of SQLite opening or first reading the database as a user error.
func openError(path string, err error) error {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return fmt.Errorf("sqlite: opening %s: %w", path, err)
	}
	switch se.Code {
	case sqlite3.ErrNotADB:
		return userr.Errorf("%s is not a SQLite database (file is not a database): point --db at a SQLite database or at a new file", path)
	case sqlite3.ErrCorrupt:
		return userr.Errorf("the SQLite database %s is corrupt (%v): restore it or load a new one", path, se)
	case sqlite3.ErrPerm, sqlite3.ErrReadonly, sqlite3.ErrAuth:
		return userr.Errorf("cannot write the SQLite database %s (%v): fix its permissions or choose another path in --db", path, se)
	case sqlite3.ErrCantOpen:
		return userr.Errorf("cannot open the SQLite database %s (%v): check the path and its permissions in --db", path, se)
	case sqlite3.ErrBusy, sqlite3.ErrLocked:
		return userr.Errorf("the SQLite database %s is locked by another program (%v): stop it or choose another path in --db", path, se)
	}
	return userr.Errorf("cannot open the SQLite database %s (%v): check --db", path, se)
}
