package run

import (
	"fmt"
	"time"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/metrics"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/version"
	"github.com/candor-bench/candor/workload"
)

// liveMetrics serves a run's figures to Prometheus while it runs (--metrics-addr). A nil
// *liveMetrics (no --metrics-addr) does nothing.
type liveMetrics struct {
	col *metrics.Collector
	srv *metrics.Server
}

// validateMetrics checks --metrics-addr's form before anything connects.
func (r *RunPlan) validateMetrics(p *problems) {
	if r.MetricsAddr == "" {
		return
	}
	if err := metrics.CheckAddr(r.MetricsAddr); err != nil {
		p.add("%s", err.Error())
	}
}

// startMetrics starts listening on p.MetricsAddr (nil, nil without it). It listens only on the
// address the user gave; when the address cannot be listened on, that is the user's to fix.
func startMetrics(p *RunPlan, out Out) (*liveMetrics, error) {
	return listenMetrics(p.MetricsAddr, p.info().Name, p.Workload.Ops(), string(p.Mode), p.Out, "the run", out)
}

// startSearchMetrics starts one listener for a whole search (nil, nil without --metrics-addr): each
// probe feeds it in turn (probe says which), and Search stops it once the search has ended.
func startSearchMetrics(sp *SearchPlan, out Out) (*liveMetrics, error) {
	return listenMetrics(sp.Base.MetricsAddr, sp.Base.info().Name, sp.Base.Workload.Ops(), string(workload.ModeRate), sp.Out, "the search (every probe in turn)", out)
}

func listenMetrics(addr, name string, ops []string, mode, dir, during string, out Out) (*liveMetrics, error) {
	if addr == "" {
		return nil, nil
	}
	col := metrics.NewCollector(metrics.Info{Workload: name, Mode: mode, Out: dir, Version: version.String()})
	col.Expect(ops)
	srv, err := metrics.Listen(addr, col)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out.Stderr, "serving Prometheus metrics at %s during %s\n", srv.URL(), during)
	return &liveMetrics{col: col, srv: srv}, nil
}

// probe marks the start of a search's probe n at rate arrivals per second: the phase goes back to
// starting until the probe's first interval.
func (m *liveMetrics) probe(n int, rate float64) {
	if m != nil {
		m.col.SetProbe(n, rate)
		m.col.SetPhase(metrics.Phases[0])
	}
}

// observe takes one interval (from OnTick).
func (m *liveMetrics) observe(iv *measure.Interval) {
	if m != nil {
		m.col.Observe(iv)
	}
}

// rate adds the backlog samples of an open-loop run to o, with the target rate of the moment.
func (m *liveMetrics) rate(o workload.RateOptions, warmup time.Duration) workload.RateOptions {
	if m == nil || len(o.Steps) == 0 {
		return o
	}
	prev := o.OnBacklog
	o.OnBacklog = func(s schedule.BacklogSample) {
		if prev != nil {
			prev(s)
		}
		m.col.ObserveRate(metrics.RateStats{
			TargetPerSec: targetAt(o.Steps, warmup, s.At), Backlog: s.Depth, BacklogMax: s.Max, BacklogLimit: o.MaxBacklog,
		})
	}
	return o
}

// targetAt is the arrival rate asked for at elapsed time at: the first step's during the warm-up,
// then each step's in turn, and 0 once the last step has ended (no more arrivals).
func targetAt(steps []schedule.Step, warmup, at time.Duration) float64 {
	if at < warmup {
		return steps[0].Rate
	}
	end := warmup
	for _, s := range steps {
		end += s.Duration
		if at < end {
			return s.Rate
		}
	}
	return 0
}

// done marks the run finished (its figures stay until stop).
func (m *liveMetrics) done() {
	if m != nil {
		m.col.SetPhase("done")
	}
}

// stop stops listening.
func (m *liveMetrics) stop() {
	if m != nil {
		_ = m.srv.Close()
	}
}
