package merge

import (
	"bufio"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
)

// TestMergeRateSteps: an open-loop run of 2 steps in 2 shards. The merged steps' counts are the
// shards' sums, and each step's response percentiles are those of the shards' intervals inside the
// step, histograms added bucket by bucket (read back from the shards' own logs here); the lag's
// split into timer lateness and connection wait over the window is the shards' histograms added,
// and stays per shard step by step (empty, PerShard, a note each).
func TestMergeRateSteps(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	from := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	const secs = 6
	want := [2]*measure.Totals{measure.NewTotals([]string{"read"}), measure.NewTotals([]string{"read"})}
	wantLate, wantWait := measure.NewHistogram(), measure.NewHistogram()
	var dirs []string
	for i := range 2 {
		d := filepath.Join(dir, "shard-"+string(rune('0'+i)))
		fakeShard(t, d, i, 2, from.Add(time.Duration(i)*10*time.Millisecond), secs, rng)
		dirs = append(dirs, d)
		// The shard's result: 2 steps of 3 s with their counts (its own percentiles, which the
		// merge must not use, set to nonsense).
		b, err := os.ReadFile(filepath.Join(d, report.ResultFile))
		if err != nil {
			t.Fatal(err)
		}
		r, err := report.Parse(b, d)
		if err != nil {
			t.Fatal(err)
		}
		r.Shard = &report.Shard{Index: i, Count: 2, RootSeed: 7}
		late, wait := measure.NewHistogram(), measure.NewHistogram()
		for range 500 {
			late.RecordValue(int64(10 + rng.IntN(200*(i+1))))
			wait.RecordValue(int64(rng.IntN(5000 * (i + 1))))
		}
		measure.Merge(wantLate, late)
		measure.Merge(wantWait, wait)
		r.Rate = &report.RateResult{Arrivals: "poisson", TargetRate: 100, Arrived: 600, Sustained: true,
			TimerLatenessMs: measure.Percentiles{P99: 0.5}, TimerLatenessHist: measure.EncodeHist(late), ConnectionWaitHist: measure.EncodeHist(wait)}
		for k := range 2 {
			r.Rate.Steps = append(r.Rate.Steps, report.RateStep{Step: k + 1, StartSeconds: float64(k * secs / 2), Seconds: secs / 2,
				TargetRate: float64(50 * (k + 1)), Arrived: int64(100 * (k + 1)), Completed: int64(100 * (k + 1)), Sustained: true,
				Transactions: map[string]*report.StepTx{"read": {Count: int64(90 * (k + 1)), ResponseMs: measure.Percentiles{P99: 1e6}}}})
		}
		if err := report.Write(d, r); err != nil {
			t.Fatal(err)
		}
		// What each step holds, from the shard's log: its intervals beginning inside the step.
		f, err := os.Open(filepath.Join(d, report.LogFile))
		if err != nil {
			t.Fatal(err)
		}
		err = measure.ScanLog(bufio.NewReader(f), func(e measure.LogEntry) error {
			if e.Measured || e.Op != "read" || e.Kind != measure.Response {
				return nil
			}
			k := int(e.Start.Sub(from).Round(time.Second) / time.Second / (secs / 2))
			if k >= 0 && k < 2 {
				return measure.Merge(want[k].Hist[0][measure.Response], e.Hist)
			}
			return nil
		})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	res, err := Merge(dirs, Options{Out: filepath.Join(dir, "merged")})
	if err != nil {
		t.Fatal(err)
	}
	rr := res.Rate
	if rr == nil || len(rr.Steps) != 2 || !rr.PerShard {
		t.Fatalf("merged rate %+v", rr)
	}
	for k, st := range rr.Steps {
		if st.Arrived != int64(200*(k+1)) || st.TargetRate != float64(100*(k+1)) || st.Transactions["read"].Count != int64(180*(k+1)) {
			t.Errorf("step %d: arrived %d, target %.0f, reads %d: not the shards' sums", k+1, st.Arrived, st.TargetRate, st.Transactions["read"].Count)
		}
		w := measure.Summarize(want[k].Hist[0][measure.Response])
		if want[k].Hist[0][measure.Response].TotalCount() == 0 {
			t.Fatalf("step %d: no intervals in the shards' logs", k+1)
		}
		if got := st.Transactions["read"].ResponseMs; got != w {
			t.Errorf("step %d read response %+v, want the step's intervals summed %+v", k+1, got, w)
		}
	}
	// The window's split: the shards' histograms added; each step's stays per shard.
	if got, w := rr.TimerLatenessMs, measure.Summarize(wantLate); got != w {
		t.Errorf("timer lateness %+v, want the shards' histograms added %+v", got, w)
	}
	if got, w := rr.ConnectionWaitMs, measure.Summarize(wantWait); got != w {
		t.Errorf("connection wait %+v, want the shards' histograms added %+v", got, w)
	}
	if rr.Steps[0].TimerLatenessMs != (measure.Percentiles{}) {
		t.Errorf("step 1's timer lateness %+v: a merged step's split stays per shard", rr.Steps[0].TimerLatenessMs)
	}
}
