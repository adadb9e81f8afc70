package loadstate

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/userr"
)

// TestLock: the fault pass's two runs on one database at once both exited 0, and a load --drop
// during a run dropped its tables. Candor's lock on a database is taken once: a second process
// (here: a second handle) is refused with a user error naming the database, until the first frees
// it; another database is not concerned.
func TestLock(t *testing.T) {
	ctx := context.Background()
	sqlitePath := filepath.Join(t.TempDir(), "lock.db")
	for _, e := range []struct {
		name string
		urls func(t *testing.T) (same, other string)
	}{
		{"sqlite", func(t *testing.T) (string, string) {
			return "sqlite:" + sqlitePath, "sqlite:" + filepath.Join(t.TempDir(), "other.db")
		}},
		{"postgres", func(t *testing.T) (string, string) {
			return dbtest.FreshPostgresURL(t, "candor_lock"), dbtest.FreshPostgresURL(t, "candor_lock")
		}},
		{"mysql", func(t *testing.T) (string, string) {
			return dbtest.FreshMySQLURL(t, "candor_lock"), dbtest.FreshMySQLURL(t, "candor_lock")
		}},
	} {
		t.Run(e.name, func(t *testing.T) {
			same, other := e.urls(t)
			open := func(u string) driver.DB {
				db, err := driver.Open(ctx, u)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db.Close() })
				return db
			}
			a, b, c := open(same), open(same), open(other)
			unlock, err := Lock(ctx, a, "run")
			if err != nil {
				t.Fatal(err)
			}
			_, err = Lock(ctx, b, "load")
			if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), "another candor run, load or check is using "+b.Redacted()) || !strings.Contains(err.Error(), "before this load") {
				t.Fatalf("a second Lock on the same database: %v, want a user error", err)
			}
			unlockOther, err := Lock(ctx, c, "run")
			if err != nil {
				t.Fatalf("Lock on another database: %v", err)
			}
			unlockOther()
			unlock()
			unlock2, err := Lock(ctx, b, "load")
			if err != nil {
				t.Fatalf("Lock after the first was freed: %v", err)
			}
			unlock2()
		})
	}
}

// TestLockShared: the shards of one load or run hold candor's lock together (LockShared), and an
// unsharded load, run or check is refused while they do, as shards are while it holds the lock.
// MySQL has no shared named lock: its shards only refuse to start under an exclusive holder.
func TestLockShared(t *testing.T) {
	ctx := context.Background()
	for _, e := range []struct {
		name         string
		url          func(t *testing.T) string
		sharedBlocks bool // shards holding the lock refuse an exclusive taker
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "shared.db") }, true},
		{"postgres", func(t *testing.T) string { return dbtest.FreshPostgresURL(t, "candor_lock") }, true},
		{"mysql", func(t *testing.T) string { return dbtest.FreshMySQLURL(t, "candor_lock") }, false},
	} {
		t.Run(e.name, func(t *testing.T) {
			u := e.url(t)
			open := func() driver.DB {
				db, err := driver.Open(ctx, u)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db.Close() })
				return db
			}
			s1, s2, x := open(), open(), open()
			un1, err := LockShared(ctx, s1, "run")
			if err != nil {
				t.Fatal(err)
			}
			un2, err := LockShared(ctx, s2, "run")
			if err != nil {
				t.Fatalf("a second shard: %v, want the lock shared", err)
			}
			unx, err := Lock(ctx, x, "check")
			if e.sharedBlocks && (err == nil || !userr.Is(err)) {
				t.Fatalf("an unsharded check while shards hold the lock: %v, want a user error", err)
			}
			if err == nil {
				unx()
			}
			un1()
			un2()
			unx, err = Lock(ctx, x, "check")
			if err != nil {
				t.Fatalf("Lock once the shards are done: %v", err)
			}
			if _, err := LockShared(ctx, s1, "run"); err == nil || !userr.Is(err) {
				t.Fatalf("a shard while an unsharded check holds the lock: %v, want a user error", err)
			}
			unx()
		})
	}
}
