package run

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/report"
)

// TestOutFileFullDisk: a write to a full device fails, is said at once and once,
// and names the file among the incomplete ones; nothing is written after it.
func TestOutFileFullDisk(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("this test writes to /dev/full (Linux): %v", err)
	}
	var warn bytes.Buffer
	od := newOutDir(t.TempDir(), false, &warn)
	f := &outFile{f: full, name: "latency.hlog", warn: &warn}
	od.files = append(od.files, f)
	for range 3 {
		if _, err := f.Write([]byte("x")); err == nil {
			t.Fatal("a write to /dev/full succeeded")
		}
	}
	if got := strings.Count(warn.String(), "warning: writing latency.hlog failed (no space left on device)"); got != 1 {
		t.Errorf("the failed write was said %d times, want once: %q", got, warn.String())
	}
	f.Close()
	if got := od.failed(); len(got) != 1 || got[0] != "latency.hlog (no space left on device)" {
		t.Errorf("failed() = %q", got)
	}
}

// TestSaveResultsFails: when result.json cannot be written, it is named as
// incomplete with report.html (rendered from it), its temporary file is not left behind, and the
// saved-files line never names either as saved.
func TestSaveResultsFails(t *testing.T) {
	dir := t.TempDir()
	var warn bytes.Buffer
	od := newOutDir(dir, false, &warn)
	lf, err := od.create(report.LogFile)
	if err != nil {
		t.Fatal(err)
	}
	lf.Write([]byte("#log\n"))
	lf.Close()
	// A directory where result.json must go: its rename fails (the temporary file is written).
	if err := os.Mkdir(filepath.Join(dir, report.ResultFile), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, report.ResultFile, "x"), nil, 0o644)
	res := &report.Result{Workload: "tpcc", Warnings: []report.Warning{}}
	incomplete := saveResults(od, res)
	if len(incomplete) != 2 || !strings.HasPrefix(incomplete[0], "result.json (") || !strings.HasPrefix(incomplete[1], "report.html (not written") {
		t.Fatalf("incomplete = %q", incomplete)
	}
	if _, err := os.Stat(filepath.Join(dir, report.ResultFile+".tmp")); err == nil {
		t.Error("result.json.tmp was left behind")
	}
	var stderr bytes.Buffer
	printSaved(Out{Stdout: &bytes.Buffer{}, Stderr: &stderr}, dir, incomplete)
	line := stderr.String()
	if strings.Contains(line, "results saved in") || !strings.Contains(line, "complete: latency.hlog; incomplete: result.json") {
		t.Errorf("saved line: %q", line)
	}
}

// TestCheckOut: --out's checks before anything connects create nothing.
func TestCheckOut(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	if err := checkOut(file, false, false); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("--out a file: %v", err)
	}
	if err := checkOut(filepath.Join(file, "sub"), false, false); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("--out under a file: %v", err)
	}
	deep := filepath.Join(dir, "a", "b")
	if err := checkOut(deep, false, false); err != nil {
		t.Errorf("--out to be created: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); err == nil {
		t.Error("checkOut created a directory")
	}
	held := filepath.Join(dir, "held")
	os.MkdirAll(filepath.Join(held, "probe-01-50"), 0o755)
	os.WriteFile(filepath.Join(held, "probe-01-50", report.ResultFile), []byte("{}"), 0o644)
	if err := checkOut(held, false, true); err == nil || !strings.Contains(err.Error(), "probe-01-50/result.json") {
		t.Errorf("a search's --out holding a probe: %v", err)
	}
	if err := checkOut(held, true, true); err != nil {
		t.Errorf("--replace: %v", err)
	}
	if err := checkOut(held, false, false); err != nil {
		t.Errorf("a run's --out beside other runs' directories: %v", err)
	}
}

// A search with --replace leaves one search in its directory: the earlier search's probes it does
// not name go, unless they hold a file candor did not write.
func TestRemoveStaleProbes(t *testing.T) {
	dir := t.TempDir()
	mk := func(sub string, files ...string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, sub, f)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, sub, f), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk("probe-01-100", report.ResultFile, report.LogFile)                       // this search's: kept
	mk("probe-02-200", report.ResultFile, report.LogFile, report.ResourcesFile) // the earlier one's: removed
	mk("probe-03-400-confirm", report.ResultFile, "plans/q1.txt")               // the earlier one's: removed
	mk("probe-04-800", report.ResultFile, "notes.txt")                          // a file of the user's: kept
	mk("other", report.ResultFile)                                              // not a probe: kept
	var warn strings.Builder
	removeStaleProbes(dir, &report.SearchResult{Probes: []report.SearchProbe{{Dir: "probe-01-100"}}}, &warn)
	for sub, want := range map[string]bool{"probe-01-100": true, "probe-02-200": false, "probe-03-400-confirm": false, "probe-04-800": true, "other": true} {
		_, err := os.Stat(filepath.Join(dir, sub))
		if got := err == nil; got != want {
			t.Errorf("%s: exists %v, want %v", sub, got, want)
		}
	}
	if !strings.Contains(warn.String(), "probe-04-800") || strings.Contains(warn.String(), "probe-02") {
		t.Errorf("warnings: %q, want one naming probe-04-800 only", warn.String())
	}
}
