package loadstate

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/candor-bench/candor/driver"
)

// TestLockFileRemoved: the file candor locks beside a SQLite database is gone once the last holder
// unlocks (a shard's unlock leaves it to the other shards still holding it), so no lock file stays
// behind after a run; the next holder makes a new one.
func TestLockFileRemoved(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gone.db")
	open := func() driver.DB {
		db, err := driver.Open(ctx, "sqlite:"+path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	lockPath := path + lockFileSuffix
	exists := func() bool { _, err := os.Stat(lockPath); return err == nil }
	a, b := open(), open()
	unlock, err := Lock(ctx, a, "run")
	if err != nil || !exists() {
		t.Fatalf("Lock: %v, lock file there: %v", err, exists())
	}
	unlock()
	if exists() {
		t.Fatalf("%s stays after the unlock", lockPath)
	}
	un1, err := LockShared(ctx, a, "run")
	if err != nil {
		t.Fatal(err)
	}
	un2, err := LockShared(ctx, b, "run")
	if err != nil {
		t.Fatal(err)
	}
	un1()
	if !exists() {
		t.Fatal("a shard's unlock removed the lock file another shard still holds")
	}
	if _, err := Lock(ctx, a, "check"); err == nil {
		t.Fatal("an exclusive Lock while a shard still holds the lock")
	}
	un2()
	if exists() {
		t.Fatalf("%s stays after the last shard's unlock", lockPath)
	}
	again, err := Lock(ctx, b, "load")
	if err != nil {
		t.Fatalf("Lock after the file was removed: %v", err)
	}
	again()
}
