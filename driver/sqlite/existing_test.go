package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
)

// TestExistingOnly: a run or a check (driver.ExistingOnly) on a SQLite file that does not exist is
// refused with a user error saying to load it, and leaves no file behind; a load creates it.
func TestExistingOnly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nothere.db")
	_, err := driver.Open(driver.ExistingOnly(context.Background(), "kv"), "sqlite:"+path)
	if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), "does not exist: load it first (candor kv load --db sqlite:"+path) {
		t.Fatalf("a run's open of a missing file: %v, want a user error saying to load it", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("the refused open left %v behind", left)
	}
	db, err := driver.Open(context.Background(), "sqlite:"+path) // a load's
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = driver.Open(driver.ExistingOnly(context.Background(), "kv"), "sqlite:"+path)
	if err != nil {
		t.Fatalf("a run's open of an existing file: %v", err)
	}
	db.Close()
}
