package run

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Two runs started in the same second get directories of their own.
func TestDefaultOut(t *testing.T) {
	t.Chdir(t.TempDir())
	now := time.Date(2026, 11, 26, 15, 4, 5, 0, time.UTC)
	first := DefaultOut("tpcc", now)
	if want := filepath.Join("results", "tpcc-20261126-150405"); first != want {
		t.Fatalf("DefaultOut = %s, want %s", first, want)
	}
	if err := os.MkdirAll(first, 0o755); err != nil {
		t.Fatal(err)
	}
	second := DefaultOut("tpcc", now)
	if second != first+"-2" {
		t.Fatalf("the second run of the same second got %s, want %s-2", second, first)
	}
	os.MkdirAll(second, 0o755)
	if third := DefaultOut("tpcc", now); third != first+"-3" {
		t.Fatalf("the third got %s", third)
	}
	if other := DefaultOut("kv", now); other != filepath.Join("results", "kv-20261126-150405") {
		t.Fatalf("another workload's name got %s", other)
	}
}
