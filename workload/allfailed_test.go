package workload

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/schedule"
)

func missingTable(int64) (error, driver.FailureClass) {
	return errors.New("no such table: nothere"), driver.FailStatement
}

// A run whose every attempt fails stops within seconds, its cause the first error and what to do,
// in the closed loop and the open loop alike.
func TestDriveAllFailedStops(t *testing.T) {
	for _, mode := range []Mode{ModeThroughput, ModeRate} {
		t.Run(string(mode), func(t *testing.T) {
			s := &fakeSession{service: time.Millisecond, terms: 2, fail: missingTable}
			o := DriveOptions{Mode: mode, Warmup: 10 * time.Second, Measure: time.Minute, Grace: time.Second, Tick: 500 * time.Millisecond}
			if mode == ModeRate {
				o.Rate = RateOptions{Steps: []schedule.Step{{Rate: 500, Duration: time.Minute}}, MaxBacklog: 1000, Process: schedule.Constant}
			}
			t0 := time.Now()
			out, err := Drive(context.Background(), "fake", []string{"a", "b"}, s, o)
			if err != nil {
				t.Fatal(err)
			}
			el := time.Since(t0)
			if !out.Summary.Partial || el > 20*time.Second {
				t.Fatalf("every attempt failing: partial %v after %s, want a partial run stopped within seconds of a 70 s run", out.Summary.Partial, el)
			}
			if el < AllFailedAfter {
				t.Errorf("stopped after %s, before AllFailedAfter (%s)", el, AllFailedAfter)
			}
			for _, want := range []string{"every attempt failed and none succeeded", "no such table: nothere", "statement error", "candor fake load"} {
				if !strings.Contains(out.Aborted, want) {
					t.Errorf("the cause %q does not say %q", out.Aborted, want)
				}
			}
		})
	}
}

// The rule never stops a run that has had one success, nor one riding out an outage, nor one whose
// failures are lost connections (an outage's).
func TestDriveAllFailedSpares(t *testing.T) {
	cases := []struct {
		name   string
		fail   func(int64) (error, driver.FailureClass)
		outage bool
	}{
		{"one success in fifty", func(n int64) (error, driver.FailureClass) {
			if n%50 == 7 {
				return nil, driver.FailNone
			}
			return missingTable(n)
		}, false},
		{"an outage going on", missingTable, true},
		{"connections lost", func(int64) (error, driver.FailureClass) {
			return errors.New("connection reset by peer"), driver.FailConnLost
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &fakeSession{service: time.Millisecond, terms: 2, fail: c.fail, outage: c.outage}
			measure := AllFailedAfter + 2*time.Second
			out, err := Drive(context.Background(), "fake", []string{"a"}, s, DriveOptions{Mode: ModeThroughput,
				Measure: measure, Grace: time.Second, Tick: 500 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if out.Summary.Partial || out.Aborted != "" {
				t.Fatalf("stopped: partial %v, %q", out.Summary.Partial, out.Aborted)
			}
			if got := out.Totals.Counts[0].Errors; got < AllFailedMin {
				t.Errorf("%d failures in the window, want at least %d (the rule had its chance to fire)", got, AllFailedMin)
			}
		})
	}
}
