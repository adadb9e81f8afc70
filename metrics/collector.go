// Package metrics serves a run's live figures to Prometheus (--metrics-addr): transactions per type
// and outcome, latency histograms per type and kind, the achieved rate, the run's phase and, in an
// open-loop run, the target rate and the backlog; in a search, which probe is running.
//
// Nothing here is on the transaction path. The run's recorder already merges every event into one
// Interval per tick; Collector.Observe adds that interval into cumulative counters and cumulative
// HdrHistograms (once per tick, a few milliseconds of work at most), and a scrape turns the
// HdrHistograms into Prometheus histograms with fixed bounds (ConstHistogram) at that moment.
package metrics

import (
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/measure"
)

// BoundsSeconds are the latency histograms' upper bounds: a 1-2-5 series from 0.5 ms to 50 s
// (+Inf is implicit). A latency counts under a bound only when its whole HdrHistogram bucket
// (3 significant digits) is under it, so a bucket count is at most 0.1% of a bound off, and never
// in the flattering direction.
var BoundsSeconds = []float64{
	0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50,
}

// boundsMicros are BoundsSeconds in whole microseconds (the histograms' unit).
var boundsMicros = func() []int64 {
	b := make([]int64, len(BoundsSeconds))
	for i, s := range BoundsSeconds {
		b[i] = int64(s*1e6 + 0.5)
	}
	return b
}()

// Phases are the values of the phase label of candor_run_phase; exactly one is 1 at a time.
var Phases = []string{"starting", "warmup", "measure", "drain", "done"}

// Outcomes are the values of the outcome label of candor_transactions_total. They are counts of
// different things, not a partition: rollback counts business rollbacks among the completed, retry
// counts attempts beyond the first, dropped counts open-loop arrivals that found the backlog full.
var Outcomes = []string{"completed", "error", "retry", "rollback", "incomplete", "dropped"}

// latencyKinds are the histograms exposed (lag is the difference of the two).
var latencyKinds = []measure.Kind{measure.Response, measure.Service}

// RateStats are an open-loop run's pacing figures at the end of one interval.
type RateStats struct {
	// TargetPerSec is the arrival rate the schedule asks for now, all types together.
	TargetPerSec float64
	// Backlog is the number of arrivals waiting for a connection at the end of the interval;
	// BacklogMax the deepest it was during the interval; BacklogLimit the bound past which arrivals
	// are dropped (--max-backlog).
	Backlog, BacklogMax, BacklogLimit int
}

// RateObserver receives an open-loop run's pacing figures once per interval. *Collector
// implements it; the run feeds it from the scheduler's backlog samples.
type RateObserver interface {
	ObserveRate(RateStats)
}

// Info labels candor_run_info: which run the figures belong to.
type Info struct {
	Workload, Mode, Out, Version string
}

// Collector is a prometheus.Collector of one run's figures. Observe, ObserveRate and SetPhase may
// be called from any goroutine, concurrently with scrapes.
type Collector struct {
	info Info

	mu        sync.Mutex
	ops       []string
	counts    []measure.Counts
	hist      [][]*hdr.Histogram // [op][index in latencyKinds], cumulative, microseconds
	rate      []float64          // per op, completions per second in the last interval
	phase     string
	lastEnd   time.Time
	rateStats RateStats
	hasRate   bool
	// A search's probe now running (SetProbe): its number from 1 (0: not a search) and rate.
	probe     int
	probeRate float64
}

var _ prometheus.Collector = (*Collector)(nil)
var _ RateObserver = (*Collector)(nil)

// NewCollector returns an empty collector in phase "starting".
func NewCollector(info Info) *Collector {
	return &Collector{info: info, phase: Phases[0]}
}

var (
	descTx = prometheus.NewDesc("candor_transactions_total",
		"Transactions (operations) of the run by type and outcome, warm-up included: completed (business rollbacks included), error, retry (attempts beyond the first), rollback (among completed), incomplete (never finished), dropped (open-loop arrivals that found the backlog full).",
		[]string{"type", "outcome"}, nil)
	descLatency = prometheus.NewDesc("candor_latency_seconds",
		"Latency of completed transactions by type and kind, warm-up included: response (from the intended start, waiting included) or service (from dispatch). Built from HdrHistograms at scrape time; a value counts under a bound only when its whole 3-digit bucket is.",
		[]string{"type", "kind"}, nil)
	descFailures = prometheus.NewDesc("candor_failures_total",
		"Failed transactions (operations) of the run by type and failure class, warm-up included: serialization (serialization failure or deadlock after the retries), constraint, connection_lost, timeout, statement (any other error of the database), check (the driver found the answer wrong). The classes of one type add up to its error outcome.",
		[]string{"type", "class"}, nil)
	descRate = prometheus.NewDesc("candor_achieved_rate_per_second",
		"Transactions completed per second in the last interval, by type.",
		[]string{"type"}, nil)
	descPhase = prometheus.NewDesc("candor_run_phase",
		"1 for the phase the run is in (starting, warmup, measure, drain, done), 0 for the others.",
		[]string{"phase"}, nil)
	descInfo = prometheus.NewDesc("candor_run_info",
		"Always 1; its labels say which run the figures belong to.",
		[]string{"workload", "mode", "out", "version"}, nil)
	descLastEnd = prometheus.NewDesc("candor_last_interval_end_timestamp_seconds",
		"When the last interval the figures include ended (Unix time).", nil, nil)
	descTarget = prometheus.NewDesc("candor_target_rate_per_second",
		"Open loop: the arrival rate the schedule asks for now, all types together.", nil, nil)
	descBacklog = prometheus.NewDesc("candor_backlog",
		"Open loop: arrivals waiting for a connection at the end of the last interval.", nil, nil)
	descBacklogMax = prometheus.NewDesc("candor_backlog_max",
		"Open loop: the deepest the backlog was during the last interval.", nil, nil)
	descBacklogLimit = prometheus.NewDesc("candor_backlog_limit",
		"Open loop: the backlog bound (--max-backlog) past which arrivals are dropped.", nil, nil)
	descProbe = prometheus.NewDesc("candor_search_probe",
		"candor WORKLOAD search: the probe running now (or last run), from 1 in the order tried. The counters and histograms add up every probe so far.", nil, nil)
	descProbeRate = prometheus.NewDesc("candor_search_probe_rate_per_second",
		"candor WORKLOAD search: the arrival rate the probe running now (or last run) offers, all types together.", nil, nil)
)

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descTx, descFailures, descLatency, descRate, descPhase, descInfo, descLastEnd,
		descTarget, descBacklog, descBacklogMax, descBacklogLimit, descProbe, descProbeRate} {
		ch <- d
	}
}

// Observe adds one interval (a measure.Recorder tick) to the cumulative figures and takes its phase
// and achieved rates. It does not keep iv.
func (c *Collector) Observe(iv *measure.Interval) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expect(iv.Ops)
	secs := iv.End.Sub(iv.Start).Seconds()
	for op := range c.ops {
		if op >= len(iv.Counts) {
			break
		}
		c.counts[op].Add(iv.Counts[op])
		c.rate[op] = 0
		if secs > 0 {
			c.rate[op] = float64(iv.Counts[op].Completed) / secs
		}
		for k, kind := range latencyKinds {
			// Same geometry everywhere (measure.NewHistogram), so nothing can be dropped.
			_ = measure.Merge(c.hist[op][k], iv.Hist[op][kind])
		}
	}
	c.phase = iv.Phase.String()
	c.lastEnd = iv.End
}

// Expect declares the run's operations before its first interval, so that every series exists
// (at zero) from the first scrape instead of appearing with the first tick.
func (c *Collector) Expect(ops []string) {
	c.mu.Lock()
	c.expect(ops)
	c.mu.Unlock()
}

// expect sets up the cumulative figures for ops once; c.mu is held.
func (c *Collector) expect(ops []string) {
	if c.ops != nil {
		return
	}
	c.ops = append([]string(nil), ops...)
	c.counts = make([]measure.Counts, len(c.ops))
	c.rate = make([]float64, len(c.ops))
	c.hist = make([][]*hdr.Histogram, len(c.ops))
	for op := range c.hist {
		c.hist[op] = make([]*hdr.Histogram, len(latencyKinds))
		for k := range latencyKinds {
			c.hist[op][k] = measure.NewHistogram()
		}
	}
}

// ObserveRate takes an open-loop run's pacing figures (RateObserver).
func (c *Collector) ObserveRate(s RateStats) {
	c.mu.Lock()
	c.rateStats, c.hasRate = s, true
	c.mu.Unlock()
}

// SetPhase sets the phase shown (one of Phases), for the moments no interval says it: "done" at
// the end of the run.
func (c *Collector) SetPhase(phase string) {
	c.mu.Lock()
	c.phase = phase
	c.mu.Unlock()
}

// SetProbe says which probe of a search (candor WORKLOAD search) feeds the collector now: its number
// from 1 and its arrival rate. One collector serves the whole search, each probe in turn, so its
// counters and histograms keep adding up across probes (they never go down, as Prometheus expects);
// these two gauges tell the probes apart on a time axis.
func (c *Collector) SetProbe(n int, ratePerSec float64) {
	c.mu.Lock()
	c.probe, c.probeRate = n, ratePerSec
	// The previous probe's last rates, target and backlog are not this one's: zero until its first
	// interval (the series stay, so that none disappears between probes).
	clear(c.rate)
	c.rateStats = RateStats{}
	c.mu.Unlock()
}

// Collect sends the current figures.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(descInfo, 1, c.info.Workload, c.info.Mode, c.info.Out, c.info.Version)
	for _, p := range Phases {
		v := 0.0
		if p == c.phase {
			v = 1
		}
		gauge(descPhase, v, p)
	}
	if !c.lastEnd.IsZero() {
		gauge(descLastEnd, float64(c.lastEnd.UnixNano())/1e9)
	}
	for op, name := range c.ops {
		cn := c.counts[op]
		for i, v := range []int64{cn.Completed, cn.Errors, cn.Retries, cn.Rollbacks, cn.Incomplete, cn.Dropped} {
			if Outcomes[i] == "dropped" && !c.hasRate && v == 0 {
				continue // closed loop: nothing can be dropped, so no series
			}
			ch <- prometheus.MustNewConstMetric(descTx, prometheus.CounterValue, float64(v), name, Outcomes[i])
		}
		for _, cl := range driver.FailureClasses {
			v := cn.Failures[cl]
			if cl == driver.FailStatement {
				v += cn.Failures[driver.FailNone] // recorded without a class
			}
			ch <- prometheus.MustNewConstMetric(descFailures, prometheus.CounterValue, float64(v), name, cl.String())
		}
		for k, kind := range latencyKinds {
			count, sum, buckets := promBuckets(c.hist[op][k])
			ch <- prometheus.MustNewConstHistogram(descLatency, count, sum, buckets, name, kind.String())
		}
		gauge(descRate, c.rate[op], name)
	}
	if c.hasRate {
		gauge(descTarget, c.rateStats.TargetPerSec)
		gauge(descBacklog, float64(c.rateStats.Backlog))
		gauge(descBacklogMax, float64(c.rateStats.BacklogMax))
		gauge(descBacklogLimit, float64(c.rateStats.BacklogLimit))
	}
	if c.probe > 0 {
		gauge(descProbe, float64(c.probe))
		gauge(descProbeRate, c.probeRate)
	}
}

// promBuckets turns a histogram in microseconds into a Prometheus histogram in seconds: the count,
// the sum (count x mean, the mean taken at each bucket's middle) and the cumulative count under
// each of BoundsSeconds.
func promBuckets(h *hdr.Histogram) (count uint64, sum float64, buckets map[float64]uint64) {
	buckets = make(map[float64]uint64, len(BoundsSeconds))
	n := h.TotalCount()
	if n == 0 {
		for _, b := range BoundsSeconds {
			buckets[b] = 0
		}
		return 0, 0, buckets
	}
	bs := measure.NonEmptyBuckets(h)
	var cum int64
	i := 0
	for j, bound := range boundsMicros {
		for i < len(bs) && bs[i].Value <= bound {
			cum += bs[i].Count
			i++
		}
		buckets[BoundsSeconds[j]] = uint64(cum)
	}
	return uint64(n), h.Mean() * float64(n) / 1e6, buckets
}
