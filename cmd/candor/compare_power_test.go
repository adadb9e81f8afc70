package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
)

// TestComparePowerNull: seeded null-engine runs, the statistics' two duties. An A/A pair (the same
// service time, other seeds) shows no significant change in read's throughput or p99; an A/B pair
// whose service time is half as long again (exp:10ms against exp:15ms, 40 terminals, closed loop)
// shows a significant fall in throughput and a significant rise in p99 (judged on the intervals'
// own p99s). The rates for a 10% change are scripts/compare-power's, over many pairs of separate
// processes (docs/compare.md); three runs of 10 s in one busy test process hide a 10% change too
// often for a test, not a 50% one.
func TestComparePowerNull(t *testing.T) {
	parallel(t)
	quietRuns(t) // its verdicts rest on the CPU the runs get
	dir := t.TempDir()
	runs := map[string]string{"a1": "exp:10ms&seed=11", "a2": "exp:10ms&seed=12", "b": "exp:15ms&seed=13"}
	seeds := map[string]string{"a1": "21", "a2": "22", "b": "23"}
	// The three runs, in this process at once, hold every call slot: the machine is theirs but for
	// other packages' tests.
	release := exclusively()
	defer release()
	var wg sync.WaitGroup
	codes := make(map[string]int)
	var mu sync.Mutex
	for name, service := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			code := executeTo([]string{"kv", "run", "--preset", "kv100", "--db", "null:?service=" + service, "--seed", seeds[name],
				"--terminals", "40", "--duration", "10s", "--warmup", "2s", "--interval", "250ms", "-q", "--out", filepath.Join(dir, name)}, &buf, &buf, false)
			mu.Lock()
			codes[name] = code
			mu.Unlock()
		}()
	}
	wg.Wait()
	release()
	for name, code := range codes {
		if code != 0 {
			t.Fatalf("run %s: exit %d", name, code)
		}
	}
	read := func(a, b string) (thr, p99 struct {
		Change      float64
		Significant bool
	}) {
		code, js := runCLI(t, "compare", "--json", filepath.Join(dir, a), filepath.Join(dir, b))
		var c struct {
			Types []struct {
				Type       string
				Throughput struct {
					Change      float64
					Significant bool
				}
				Percentiles []struct {
					Metric      string
					Change      float64
					Significant bool
				}
			}
		}
		if err := json.Unmarshal([]byte(js), &c); code != 0 || err != nil {
			t.Fatalf("compare %s %s: exit %d, %v", a, b, code, err)
		}
		for _, tc := range c.Types {
			if tc.Type != "read" {
				continue
			}
			thr.Change, thr.Significant = tc.Throughput.Change, tc.Throughput.Significant
			for _, p := range tc.Percentiles {
				if p.Metric == "p99" {
					p99.Change, p99.Significant = p.Change, p.Significant
				}
			}
		}
		return thr, p99
	}
	thr, p99 := read("a1", "a2")
	if thr.Significant || p99.Significant {
		t.Errorf("A/A: throughput %+.1f%% (significant %v), p99 %+.1f%% (significant %v): want no change", 100*thr.Change, thr.Significant, 100*p99.Change, p99.Significant)
	}
	thr, p99 = read("a1", "b")
	if !thr.Significant || thr.Change > -0.2 || thr.Change < -0.45 {
		t.Errorf("A/B, service 50%% longer: throughput %+.1f%% (significant %v), want a significant fall near a third", 100*thr.Change, thr.Significant)
	}
	if !p99.Significant || p99.Change < 0.2 {
		t.Errorf("A/B, service 50%% longer: p99 %+.1f%% (significant %v), want a significant rise", 100*p99.Change, p99.Significant)
	}
}
