package run

import (
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/workload"
)

// TestWindowText: the run header of a finite workload (TPC-H's tests) does not claim a 24-hour
// measurement: it says the run ends when its streams are done, bounded by --duration.
func TestWindowText(t *testing.T) {
	p := RunPlan{Duration: workload.FiniteBound}
	if got := p.windowText(workload.Info{Finite: true}); got != "no warm-up, measured until its streams are done (at most --duration 24h0m0s)" {
		t.Errorf("finite: %q", got)
	}
	p = RunPlan{Duration: 10 * time.Minute, Warmup: 2 * time.Minute}
	if got := p.windowText(workload.Info{}); got != "warm-up 2m0s, measure 10m0s" {
		t.Errorf("timed: %q", got)
	}
}

// TestProgressSliver: the run's last tick, a sliver of an interval with nothing in it just after a
// full one, prints no second line at the same elapsed time; an empty full interval (an outage)
// still prints.
func TestProgressSliver(t *testing.T) {
	var b strings.Builder
	p := newProgress(Out{Stderr: &b}, false, workload.Info{KeyOp: "q1"}, []string{"q1"})
	start := time.Unix(1_800_000_000, 0)
	iv := func(from, to time.Duration, done int64) *measure.Interval {
		var h [measure.NumKinds]*hdr.Histogram
		for k := range h {
			h[k] = hdr.New(1, 60_000_000, 3)
		}
		return &measure.Interval{Start: start.Add(from), End: start.Add(to), Phase: measure.PhaseMeasure, Ops: []string{"q1"},
			Hist: [][measure.NumKinds]*hdr.Histogram{h}, Counts: []measure.Counts{{Completed: done}}}
	}
	p.line(iv(0, time.Second, 5), start)
	p.line(iv(time.Second, 2*time.Second, 0), start)
	p.line(iv(2*time.Second, 2*time.Second+20*time.Millisecond, 0), start)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "1s measure") || !strings.Contains(lines[2], "2s measure") {
		t.Errorf("progress lines:\n%s\nwant the header, 1s and 2s, and no sliver after 2s", b.String())
	}
	// A short last interval with work in it, ending in the same whole second as the line before,
	// keeps its line and says its elapsed time to a tenth.
	p.line(iv(2*time.Second, 2*time.Second+400*time.Millisecond, 3), start)
	lines = strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 || !strings.Contains(lines[3], "2.4s measure") {
		t.Errorf("progress lines:\n%s\nwant a last line labelled 2.4s", b.String())
	}
}
