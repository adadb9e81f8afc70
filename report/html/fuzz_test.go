package html

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
)

// FuzzRenderResult: whatever result.json holds, `candor report --html` renders a page or returns
// a user error, never panics (the fault pass's tables.go panicked on a null transaction type).
// The seeds are the real results of report/testdata/results.
func FuzzRenderResult(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "testdata", "results", "*.json"))
	if len(paths) == 0 {
		f.Fatal("no seed results in report/testdata/results")
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add([]byte(strings.Replace(string(b), `"new_order": {`, `"new_order": null, "x": {`, 1)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, report.ResultFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := Render(io.Discard, dir); err != nil && !userr.Is(err) {
			t.Fatalf("Render: %v is not a user error", err)
		}
	})
}
