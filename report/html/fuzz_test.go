package html

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
)

// FuzzRenderResult: whatever result.json holds, `candor report --html` renders a page or returns
// a user error, never panics (the fault pass's tables.go panicked on a null transaction type).
// The seeds are the real results of report/testdata/results.
var measureSeconds = regexp.MustCompile(`"measure_seconds":\s*[0-9.eE+-]+`)

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
		// the values that size what is drawn: a window of 1e15 s ran out of memory drawing its ticks
		for _, v := range []string{"1e15", "1e300", "0", "-1", "86400.5"} {
			f.Add(measureSeconds.ReplaceAll(b, []byte(`"measure_seconds": `+v)))
		}
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

// timeTicks stays about n ticks whatever the span: a window of 1e15 s drew one tick a day.
func TestTimeTicksBounded(t *testing.T) {
	for _, hi := range []float64{10, 3600, 86400 * 30, 1e9, 1e15, 1e300} {
		ts := timeTicks(0, hi, 8)
		if len(ts) == 0 || len(ts) > 20 {
			t.Errorf("timeTicks(0, %g, 8): %d ticks", hi, len(ts))
		}
	}
	if ts := timeTicks(0, math.Inf(1), 8); len(ts) != 0 {
		t.Errorf("timeTicks to +Inf: %d ticks", len(ts))
	}
}
