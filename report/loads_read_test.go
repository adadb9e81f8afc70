package report

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadLoads: a one-shot's directory is read as its peak, then its open-loop runs by increasing
// percentage (12.5 before 50 before 80, not in name order); a rate directory without a result (an
// interrupted run) or with another name is left out; a run's directory is not a one-shot's.
func TestReadLoads(t *testing.T) {
	dir := t.TempDir()
	write := func(sub string) {
		d := filepath.Join(dir, sub)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, ResultFile), []byte(`{"workload":"tpcc","mode":"`+sub+`"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, sub := range []string{PeakDir, "rate-80", "rate-12.5", "rate-x", "other"} {
		write(sub)
	}
	if err := os.MkdirAll(filepath.Join(dir, "rate-50"), 0o755); err != nil {
		t.Fatal(err)
	}
	runs, ok, err := ReadLoads(dir)
	if err != nil || !ok {
		t.Fatalf("ReadLoads = %v, %v", ok, err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, r.Label+"="+r.R.Mode)
	}
	want := []string{"peak=peak", "12.5% of peak=rate-12.5", "80% of peak=rate-80"}
	if len(got) != len(want) {
		t.Fatalf("runs %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("runs %v, want %v", got, want)
		}
	}
	if _, ok, err := ReadLoads(filepath.Join(dir, PeakDir)); ok || err != nil {
		t.Errorf("a run's own directory read as a one-shot's: %v, %v", ok, err)
	}
}
