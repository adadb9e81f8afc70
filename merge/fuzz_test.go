package merge

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
)

// FuzzMergeShard: whatever a shard's directory holds (its result.json and latency.hlog bytes),
// `candor merge` reading it never panics, and refuses what it cannot merge with a user error
// (exit status 2) saying which file; a merge that succeeds writes the merged run. The seeds are a
// whole shard of a 1-shard run (fakeShard), damaged copies of it (testdata/fuzz/FuzzMergeShard has
// more), and garbage.
func FuzzMergeShard(f *testing.F) {
	dir := filepath.Join(f.TempDir(), "seed")
	fakeShard(f, dir, 0, 1, time.Date(2026, 11, 26, 13, 0, 0, 0, time.UTC), 3, rand.New(rand.NewPCG(1, 2)))
	res, err := os.ReadFile(filepath.Join(dir, report.ResultFile))
	if err != nil {
		f.Fatal(err)
	}
	log, err := os.ReadFile(filepath.Join(dir, report.LogFile))
	if err != nil {
		f.Fatal(err)
	}
	// The whole seed merges: the fuzzer starts from a shard that reaches every step.
	if _, err := Merge([]string{dir}, Options{Out: filepath.Join(f.TempDir(), "merged")}); err != nil {
		f.Fatalf("the seed shard does not merge: %v", err)
	}
	f.Add(res, log)
	f.Add(res, log[:len(log)/2])
	f.Add(res[:len(res)/2], log)
	f.Add(res, []byte{})
	f.Add([]byte("{}"), log)
	f.Add([]byte(`{"format_version": 2, "shard": {"index": 0, "count": 1}}`), log)
	f.Add(res, []byte("#[StartTime: 0 (seconds since epoch)]\nTag=read.response,0.000,1.000,1.0,HISTFAAAACR4nJNpmSzMwMDAxQABzFCaEUzMmNZg/wEiAAEAGywBzg==\n"))
	f.Fuzz(func(t *testing.T, result, hlog []byte) {
		dir := filepath.Join(t.TempDir(), "shard")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, report.ResultFile), result, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, report.LogFile), hlog, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "merged")
		hang := time.AfterFunc(10*time.Second, func() { panic("merging a shard of a few kilobytes did not end in 10 s") })
		defer hang.Stop()
		if _, err := Merge([]string{dir}, Options{Out: out}); err != nil {
			if !userr.Is(err) {
				t.Fatalf("merging a damaged shard: %v is not a user error", err)
			}
			if _, serr := os.Stat(filepath.Join(out, report.ResultFile)); serr == nil {
				t.Fatalf("a refused merge (%v) left a result.json in --out", err)
			}
		}
	})
}
