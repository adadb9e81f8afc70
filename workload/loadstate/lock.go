package loadstate

import (
	"context"
	"errors"
	"os"
	"syscall"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/null"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// lockKey is the key of candor's advisory lock on PostgreSQL ("candor" in ASCII); PostgreSQL's
// advisory locks belong to one database, so runs on other databases of the server never meet it.
const lockKey int64 = 0x63616e646f72

// lockFileSuffix names the file beside a SQLite database that candor locks (flock): not the
// database file itself, since closing any descriptor of it would drop SQLite's own POSIX locks.
const lockFileSuffix = ".candor-lock"

// Lock takes candor's lock on db for one load, run or check (the one-shot and a search take it for
// each of theirs, one after the other), so that two of them never work on one database at once:
// two runs distort each other's figures, and a load --drop during a run drops the tables under it
// (the fault pass: 75% errors and a false consistency failure). It is the engine's own lock, freed
// by the engine when the process ends however it ends: an advisory lock on PostgreSQL
// (pg_try_advisory_lock), a named lock on MySQL and MariaDB (GET_LOCK, named after the database),
// a file lock beside a SQLite file. A taken lock is a user error; an engine without such a lock
// (CockroachDB) is not protected, and Lock returns a no-op. unlock frees it; call it once.
func Lock(ctx context.Context, db driver.DB, what string) (unlock func(), err error) {
	return lock(ctx, db, what, false)
}

// LockShared takes candor's lock on db for one shard of a sharded load or run (`--shard i/N`):
// the shards hold it together, and an unsharded load, run or check (which takes it exclusively)
// is refused while they do, as they are while it does. On PostgreSQL it is the shared mode of the
// same advisory lock (pg_try_advisory_lock_shared), on SQLite a shared flock. MySQL's named locks
// have no shared mode: a shard there checks that no exclusive holder is present (IS_FREE_LOCK)
// and takes nothing, so an unsharded run started while shards run on MySQL is not refused.
func LockShared(ctx context.Context, db driver.DB, what string) (unlock func(), err error) {
	return lock(ctx, db, what, true)
}

func lock(ctx context.Context, db driver.DB, what string, shared bool) (unlock func(), err error) {
	nop := func() {}
	if null.Is(db) {
		return nop, nil // no database to protect: each process has its own null engine
	}
	if p, ok := db.(interface{ Path() string }); ok {
		return lockFile(db, p.Path()+lockFileSuffix, what, shared)
	}
	if p, ok := db.(interface{ TransactionPooled() bool }); ok && p.TransactionPooled() {
		// Behind a pooler in transaction pooling an advisory lock stays with the server connection
		// that took it, which goes back to the pool and may serve anyone: go on unprotected.
		return nop, nil
	}
	fam := db.Dialect().SQLFamily()
	var take, free string
	switch {
	case fam == sqlexec.FamilyPostgres && shared:
		take, free = "SELECT pg_try_advisory_lock_shared($1)", "SELECT pg_advisory_unlock_shared($1)"
	case fam == sqlexec.FamilyPostgres:
		take, free = "SELECT pg_try_advisory_lock($1)", "SELECT pg_advisory_unlock($1)"
	case fam == driver.FamilyMySQL && shared:
		take, free = "SELECT IS_FREE_LOCK(CONCAT('candor:', LEFT(DATABASE(), 50)))", ""
	case fam == driver.FamilyMySQL:
		// A lock name is at most 64 characters, and a database name too.
		take, free = "SELECT GET_LOCK(CONCAT('candor:', LEFT(DATABASE(), 50)), 0)", "SELECT RELEASE_LOCK(CONCAT('candor:', LEFT(DATABASE(), 50)))"
	default:
		return nop, nil
	}
	c, err := db.Connect(ctx)
	if err != nil {
		return nil, err
	}
	var args []any
	if fam == sqlexec.FamilyPostgres {
		args = []any{lockKey}
	}
	var v any
	err = c.QueryRow(ctx, take, args...).Scan(&v)
	got, known := truth(v)
	if err != nil || !known {
		// The engine has no such lock (CockroachDB has no advisory locks; a MySQL-protocol engine
		// may lack GET_LOCK): go on unprotected.
		c.Close()
		return nop, nil
	}
	if !got {
		c.Close()
		return nil, taken(db, what)
	}
	if free == "" { // checked, nothing held
		c.Close()
		return nop, nil
	}
	// The lock lives as long as this session; unlock frees it (closing the session would too).
	return func() {
		ctx := context.WithoutCancel(ctx)
		var x any
		_ = c.QueryRow(ctx, free, args...).Scan(&x)
		c.Close()
	}, nil
}

// truth reads a lock function's answer as the engines return it: a boolean (PostgreSQL), 1 or 0
// (MySQL's GET_LOCK, as a number or its text); NULL or anything else is not known.
func truth(v any) (value, known bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case int64:
		return x == 1, x == 0 || x == 1
	case []byte:
		return truth(string(x))
	case string:
		switch x {
		case "1", "t", "true":
			return true, true
		case "0", "f", "false":
			return false, true
		}
	}
	return false, false
}

// lockFile takes an exclusive (or shared) flock on path, created for the purpose and removed
// again by the last holder's unlock, so no lock file stays beside the database after candor ends
// (only a killed process leaves it, harmless: a flock dies with its holder). A holder whose file
// was removed and replaced between its open and its flock holds a lock nobody else sees: it
// checks that path is still the file it locked, and starts again when not.
func lockFile(db driver.DB, path, what string, shared bool) (func(), error) {
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return func() {}, nil // a read-only directory: go on unprotected
		}
		if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, taken(db, what)
			}
			return func() {}, nil
		}
		if !samePath(f, path) {
			f.Close() // removed by the holder before us: lock the file now there
			continue
		}
		return func() {
			// The last holder removes the file while it holds it exclusively; a shared holder
			// that cannot have it alone leaves it to the others.
			if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
				os.Remove(path)
			}
			syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			f.Close()
		}, nil
	}
}

// samePath reports whether path names the open file f.
func samePath(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// taken is the user error for a database another candor process is using.
func taken(db driver.DB, what string) error {
	return userr.Errorf("another candor run, load or check is using %s (it holds candor's lock on that database): wait for it to end or stop it before this %s; two at once distort each other's figures, and a load drops the tables under a run", db.Redacted(), what)
}
