package run

import (
	"fmt"
	"time"

	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/workload/tpcc"
)

// SteadyStateMin is the shortest measurement interval candor takes as long enough for a steady
// state (caches warm, checkpoints and vacuum seen at least once); shorter runs are flagged.
const SteadyStateMin = 5 * time.Minute

// warnings lists the conditions that make r's numbers misleading, each with a stable code and one
// plain sentence (design.md: "Hide the conditions" is what the tool must never do).
func warnings(r *report.Result, p *RunPlan) []report.Warning {
	var ws []report.Warning
	add := func(code, format string, a ...any) {
		ws = append(ws, report.Warning{Code: code, Message: fmt.Sprintf(format, a...)})
	}
	if r.Partial {
		add("PARTIAL", "the run was interrupted (%s): figures cover %.1f s of measurement only", r.PartialReason, r.MeasureSeconds)
	}
	if p.Mode == tpcc.ModeThroughput {
		add("CLOSED_LOOP", "throughput mode is a closed loop without keying or think times: each terminal waits for its previous transaction, so these latencies are those of a saturated system and tpmC is not comparable to spec-mode tpmC")
	}
	if r.Efficiency != nil && *r.Efficiency > 100 {
		add("EFFICIENCY_ABOVE_100", "efficiency is %.1f%%, above the 100%% that spec timing allows: the timing was not spec-faithful, do not read it as a result", *r.Efficiency)
	}
	if time.Duration(r.MeasureSeconds*float64(time.Second)) < SteadyStateMin {
		add("SHORT_RUN", "the measurement lasted %.0f s, less than the %s a steady state needs (checkpoints, vacuum and cache effects may not have shown)", r.MeasureSeconds, SteadyStateMin)
	}
	var count, errs, retries, incomplete int64
	for _, t := range r.Transactions {
		count += t.Count + t.Errors
		errs += t.Errors
		retries += t.Retries
		incomplete += t.Incomplete
	}
	if count > 0 && float64(errs) > 0.01*float64(count) {
		add("ERROR_RATE", "%.2f%% of transactions failed (%d of %d): the throughput and latencies leave them out", 100*float64(errs)/float64(count), errs, count)
	}
	if count > 0 && float64(retries) > 0.01*float64(count) {
		add("RETRY_RATE", "%d retries for %d transactions (%.2f%%): contention is high and the latencies include the retried attempts", retries, count, 100*float64(retries)/float64(count))
	}
	if d := r.DeliveryDeferred; d != nil {
		count += d.Count + d.Errors
		errs += d.Errors
		incomplete += d.Incomplete
	}
	if incomplete > 0 {
		add("INCOMPLETE", "%d transactions (deferred Deliveries included) started in the window did not finish within the grace period; they are counted apart, are in no histogram, and count as too slow in the 90th-percentile verdicts", incomplete)
	}
	noData := 0
	for _, v := range r.Verdicts {
		if v.Status == "no data" {
			noData++
		}
		switch {
		case v.Status == "fail" && v.Unfinished:
			add("LIMIT_90_FAILED", "%s: more than 10%% of the transactions failed or did not finish, so the 90th percentile is above the %.0f ms limit", v.Rule, v.LimitMs)
		case v.Status == "fail":
			add("LIMIT_90_FAILED", "%s is %.1f ms, above the %.0f ms limit", v.Rule, v.ValueMs, v.LimitMs)
		}
	}
	if noData > 0 {
		add("NO_VERDICT", "%d of the 90th-percentile limits have no verdict: no transaction of that type completed in the window (run longer)", noData)
	}
	if d := r.DeliveryDeferred; d != nil && d.Districts > 0 && float64(d.SkippedDistricts) > 0.01*float64(d.Districts) {
		add("DELIVERY_SKIPPED", "%.2f%% of deferred Delivery districts found no undelivered order (more than the 1%% clause 2.7.4.2 tolerates)", 100*float64(d.SkippedDistricts)/float64(d.Districts))
	}
	if a := r.Audit; a != nil && a.Enough {
		for _, it := range a.Items {
			if it.Status == "fail" {
				add("AUDIT_FAILED", "run-time audit: %s is %.3f%s, outside %.3f..%.3f", it.Name, it.Value, it.Unit, it.Low, it.High)
			}
		}
	}
	// DRIVER_SATURATED (which replaced DRIVER_BUSY), DURABILITY_OFF and FITS_IN_MEMORY come from the
	// run's monitor, once its samples are in: see conditions.go.
	ws = append(ws, rateWarnings(r)...) // rate.go: RATE_NOT_SUSTAINED, DRIVER_LATE
	if r.Database.Kind == "sqlite" {
		add("SINGLE_WRITER", "SQLite runs one writer at a time: read-write transactions take the write lock up front and queue for it, which shows in response times")
	}
	return ws
}
