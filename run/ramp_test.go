package run

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/workload"
)

// TestRampPlan: --ramp needs a range and no steps, and only in rate mode; each problem is one
// sentence naming the fix.
func TestRampPlan(t *testing.T) {
	base := RunPlan{Workload: tpccW(0, false), DB: "sqlite:x.db", Mode: workload.ModeRate, Duration: time.Minute, Interval: time.Second}
	for _, c := range []struct {
		rate  string
		step  float64
		every time.Duration
		mode  workload.Mode
		want  string // "" when valid
	}{
		{"100..1000", 0, 0, workload.ModeRate, ""},
		{"500", 0, 0, workload.ModeRate, "--ramp needs a range"},
		{"100..1000", 100, 10 * time.Second, workload.ModeRate, "drop --step and --step-every"},
		{"", 0, 0, workload.ModeThroughput, "add --mode rate"},
	} {
		p := base
		p.Rate, p.Step, p.StepEvery, p.Mode, p.Ramp = c.rate, c.step, c.every, c.mode, true
		err := p.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("--rate %q --ramp: %v", c.rate, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("--rate %q --ramp (mode %s): %v, want a problem saying %q", c.rate, c.mode, err, c.want)
		}
	}
}

// TestRampRun: a ramp from 20/s to 100/s over 4 s offers the integral of its rate, 240 arrivals
// (their mean, 60/s, over 4 s), and its one step's target is that mean.
func TestRampRun(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "kv.db")
	quiet := Out{Stdout: io.Discard, Stderr: io.Discard}
	if err := Load(context.Background(), LoadPlan{Workload: tpccW(1, false), DB: url, Loaders: 2, Seed: 1}, quiet); err != nil {
		t.Fatal(err)
	}
	p := RunPlan{Workload: tpccW(0, false), DB: url, Mode: workload.ModeRate, Rate: "20..100", Ramp: true, Arrivals: "constant",
		Duration: 4 * time.Second, Warmup: 0, Grace: 10 * time.Second, Interval: 2 * time.Second, Seed: 3, MaxBacklog: 1000, Quiet: true}
	res, err := Run(context.Background(), p, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rate == nil || res.Rate.Arrived < 230 || res.Rate.Arrived > 250 {
		t.Fatalf("a 20..100/s ramp over 4 s: %v arrivals, want about 240", res.Rate)
	}
	if s := res.Rate.Steps; len(s) != 1 || s[0].TargetRate != 60 {
		t.Errorf("steps %+v, want one at the ramp's mean rate 60/s", s)
	}
}
