package merge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --out is refused when it is a shard by any path to it (a symbolic link, "..") or contains one,
// before anything is removed: a link to a shard given with --replace removed that shard's log.
func TestCheckOutResolvesPaths(t *testing.T) {
	root := t.TempDir()
	shard := filepath.Join(root, "runs", "a0")
	other := filepath.Join(root, "runs", "a1")
	for _, d := range []string{shard, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "result.json"), []byte("{}"), 0o644)
	}
	link := filepath.Join(root, "L")
	if err := os.Symlink(shard, link); err != nil {
		t.Fatal(err)
	}
	linkParent := filepath.Join(root, "R")
	if err := os.Symlink(filepath.Join(root, "runs"), linkParent); err != nil {
		t.Fatal(err)
	}
	dirs := []string{shard, other}
	for _, tc := range []struct {
		out, want string
	}{
		{shard, "is the shard"},
		{link, "is the shard"},
		{filepath.Join(linkParent, "a0"), "is the shard"},
		{filepath.Join(root, "runs", "x", "..", "a1"), "is the shard"},
		{filepath.Join(root, "runs"), "contains the shard"},
		{linkParent, "contains the shard"},
		{root, "contains the shard"},
	} {
		err := checkOut(Options{Out: tc.out, Replace: true}, dirs)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--out %s: %v, want an error saying %q", tc.out, err, tc.want)
		}
	}
	for _, ok := range []string{filepath.Join(root, "merged"), filepath.Join(root, "new", "deeper"), filepath.Join(link, "merged")} {
		if err := checkOut(Options{Out: ok, Replace: true}, dirs); err != nil {
			t.Errorf("--out %s: %v", ok, err)
		}
	}
	// A relative shard and an absolute --out name the same directory.
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(root)
	if err := checkOut(Options{Out: link, Replace: true}, []string{"runs/a0"}); err == nil {
		t.Error("a link to the relative shard runs/a0 was accepted")
	}
}
