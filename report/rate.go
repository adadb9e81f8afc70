package report

import (
	"fmt"
	"io"

	"github.com/candor-bench/candor/measure"
)

// RateResult is what an open-loop run (mode rate) measured besides the per-type figures: the rate
// asked for, offered and achieved, what was dropped, the backlog over time, each step on its own,
// and the lag split into the driver's lateness and the database's queue.
type RateResult struct {
	// Arrivals is the arrival process: poisson or constant.
	Arrivals string `json:"arrivals"`
	// TargetRate is the rate asked for (operations per second, all of them; the steps' mean
	// weighted by their length); OfferedRate the arrivals the schedule drew per second of the
	// window; AchievedRate the operations completed (without error) per second of the window.
	TargetRate   float64 `json:"target_rate"`
	OfferedRate  float64 `json:"offered_rate"`
	AchievedRate float64 `json:"achieved_rate"`
	// Arrived, Dropped and Incomplete count the window's arrivals: dropped ones found the backlog
	// full and never ran; incomplete ones did not finish within the grace period.
	Arrived    int64 `json:"arrived"`
	Dropped    int64 `json:"dropped"`
	Incomplete int64 `json:"incomplete"`
	// MaxBacklog is the bound (--max-backlog); MaxBacklogSeen the deepest the backlog was.
	MaxBacklog     int `json:"max_backlog"`
	MaxBacklogSeen int `json:"max_backlog_seen"`
	// Sustained: every step was sustained (see RateStep.Sustained).
	Sustained bool       `json:"sustained"`
	Steps     []RateStep `json:"steps"`
	// Backlog is the depth sampled at the end of each interval, since the run's start.
	Backlog []BacklogSample `json:"backlog"`
	// LagMs is dispatch minus intended arrival, all types; it is the sum of TimerLatenessMs (a
	// connection was free but the driver had not started the transaction: the driver's fault)
	// and ConnectionWaitMs (no connection was free: the database's queue).
	LagMs            measure.Percentiles `json:"lag_ms"`
	TimerLatenessMs  measure.Percentiles `json:"timer_lateness_ms"`
	ConnectionWaitMs measure.Percentiles `json:"connection_wait_ms"`
	// The warm-up's arrivals, outside the figures above.
	WarmupArrived int64 `json:"warmup_arrived"`
	WarmupDropped int64 `json:"warmup_dropped"`
	// ScheduleBehind, when set, says the driver fell behind its own schedule: by the window's end
	// it had made the arrivals of only the first ReachedSeconds of the window, lagging the clock
	// by BehindSeconds, at ScheduledRate arrivals per second (what it could schedule).
	ScheduleBehind *ScheduleBehind `json:"schedule_behind,omitempty"`
	// PerShard: the run was merged from shards (candor merge). The counts and rates are the
	// shards' sums; the steps' response, service and lag percentiles come from the merged intervals
	// inside each step, and the window's lag split from the shards' TimerLatenessHist and
	// ConnectionWaitHist, histograms added bucket by bucket; each step's split is kept by the
	// shards as percentiles only, so it is empty here (and the window's too when a shard did not
	// keep its histograms): each shard's own are in the shards' section.
	PerShard bool `json:"per_shard,omitempty"`
	// TimerLatenessHist and ConnectionWaitHist are the window's histograms of the lag's split
	// (measure.EncodeHist: HdrHistogram's compressed encoding, as in an interval log), so that a
	// merge of shards adds them bucket by bucket.
	TimerLatenessHist  string `json:"timer_lateness_hist,omitempty"`
	ConnectionWaitHist string `json:"connection_wait_hist,omitempty"`
}

// ScheduleBehind is an open-loop run whose driver could not keep its own schedule.
type ScheduleBehind struct {
	ReachedSeconds float64 `json:"reached_seconds"`
	WindowSeconds  float64 `json:"window_seconds"`
	BehindSeconds  float64 `json:"behind_seconds"`
	ScheduledRate  float64 `json:"scheduled_rate"`
}

// RateStep is one step of an open-loop run. Counts are of the arrivals intended inside the step;
// AchievedRate is the completions per second inside the step's time span.
type RateStep struct {
	Step         int     `json:"step"` // from 1
	StartSeconds float64 `json:"start_seconds"`
	Seconds      float64 `json:"seconds"`
	TargetRate   float64 `json:"target_rate"`
	OfferedRate  float64 `json:"offered_rate"`
	AchievedRate float64 `json:"achieved_rate"`
	Arrived      int64   `json:"arrived"`
	Dropped      int64   `json:"dropped"`
	Completed    int64   `json:"completed"`
	Errors       int64   `json:"errors"`
	Incomplete   int64   `json:"incomplete"`
	MaxBacklog   int     `json:"max_backlog"`
	// Sustained: nothing dropped or unfinished, and at least 95% of the offered rate achieved.
	Sustained bool `json:"sustained"`
	// Transactions are the figures per operation inside the step (the key keeps format 1's name).
	Transactions     map[string]*StepTx  `json:"transactions"`
	LagMs            measure.Percentiles `json:"lag_ms"`
	TimerLatenessMs  measure.Percentiles `json:"timer_lateness_ms"`
	ConnectionWaitMs measure.Percentiles `json:"connection_wait_ms"`
}

// StepTx is one operation's tails in one step.
type StepTx struct {
	Count      int64               `json:"count"`
	Errors     int64               `json:"errors"`
	PerSecond  float64             `json:"per_second"`
	ResponseMs measure.Percentiles `json:"response_ms"`
	ServiceMs  measure.Percentiles `json:"service_ms"`
}

// BacklogSample is the backlog's depth at a moment of the run, and the deepest it was since the
// previous sample.
type BacklogSample struct {
	Seconds float64 `json:"t_seconds"` // since the run's start (warm-up included)
	Depth   int     `json:"depth"`
	Max     int     `json:"max"`
}

// printRate prints the open-loop section of the summary.
func printRate(w io.Writer, r *Result) {
	rr := r.Rate
	if rr == nil {
		return
	}
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	verdict := "sustained"
	if !rr.Sustained {
		verdict = "NOT SUSTAINED"
	}
	p("\nopen loop: %s arrivals · target %.1f/s · offered %.1f/s · achieved %.1f/s · %d dropped · backlog bound %d, deepest %d · %s\n",
		rr.Arrivals, rr.TargetRate, rr.OfferedRate, rr.AchievedRate, rr.Dropped, rr.MaxBacklog, rr.MaxBacklogSeen, verdict)
	p("%-44s %7s %7s %7s %7s\n", "lag, ms (dispatch - intended arrival)", "p50", "p99", "p99.9", "max")
	for _, l := range []struct {
		name string
		v    measure.Percentiles
	}{
		{"  all of it", rr.LagMs},
		{"  timer lateness, a connection free (driver)", rr.TimerLatenessMs},
		{"  waiting for a connection (database queue)", rr.ConnectionWaitMs},
	} {
		if rr.PerShard && l.v == (measure.Percentiles{}) {
			p("%-44s %s\n", l.name, "each shard's own: see the shards")
			continue
		}
		p("%-44s %7s %7s %7s %7s\n", l.name, ms(l.v.P50), ms(l.v.P99), ms(l.v.P999), ms(l.v.Max))
	}
	if len(rr.Steps) < 2 {
		return
	}
	key := r.Key()
	p("\nsteps (each on its own; %s response time, ms, from the intended arrival):\n", key)
	p("%4s %9s %10s %10s %9s %8s %8s %7s %7s %7s  %s\n", "step", "target/s", "offered/s", "achieved/s", "dropped", "unfinish", "backlog", "p50", "p99", "p99.9", "verdict")
	for _, s := range rr.Steps {
		v := "sustained"
		if !s.Sustained {
			v = "NOT SUSTAINED"
		}
		var rs measure.Percentiles
		if t := s.Transactions[key]; t != nil {
			rs = t.ResponseMs
		}
		p50, p99, p999 := ms(rs.P50), ms(rs.P99), ms(rs.P999)
		if rr.PerShard && rs == (measure.Percentiles{}) {
			p50, p99, p999 = "-", "-", "-" // a merged step the logs do not cover
		}
		p("%4d %9.1f %10.1f %10.1f %9d %8d %8d %7s %7s %7s  %s\n", s.Step, s.TargetRate, s.OfferedRate, s.AchievedRate,
			s.Dropped, s.Incomplete, s.MaxBacklog, p50, p99, p999, v)
	}
}
