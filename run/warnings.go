package run

import (
	"fmt"
	"time"

	"github.com/candor-bench/candor/driver/null"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/workload"
)

// SteadyStateMin is the shortest measurement interval candor takes as long enough for a steady
// state (caches warm, checkpoints and vacuum seen at least once); shorter runs are flagged.
const SteadyStateMin = 5 * time.Minute

// warnings lists the conditions that make r's numbers misleading, each with a stable code and one
// plain sentence (design.md: "Hide the conditions" is what the tool must never do).
func warnings(r *report.Result, p *RunPlan) []report.Warning {
	var ws []report.Warning
	if r.Database.Kind == null.Name {
		svc := "none"
		if o, err := null.ParseURL(p.DB); err == nil {
			svc = o.Service.String()
		}
		ws = append(ws, report.Warning{Code: "NULL_ENGINE", Message: fmt.Sprintf("no database: these figures are the driver's own ceiling, service time %s (the null engine completes every operation without running it; nothing was loaded or checked)", svc)})
	}
	return append(ws, SharedWarnings(r, p.Mode, p.info())...)
}

// SharedWarnings are the warnings every workload shares, from the result's envelope alone (a run's,
// or one merged from shards by package merge); info is the workload's (its unit names one operation:
// "transactions").
func SharedWarnings(r *report.Result, mode workload.Mode, info workload.Info) []report.Warning {
	unit := info.Unit
	var ws []report.Warning
	add := func(code, format string, a ...any) {
		ws = append(ws, report.Warning{Code: code, Message: fmt.Sprintf(format, a...)})
	}
	if r.Partial {
		add("PARTIAL", "the run ended early (%s): figures cover %.1f s of measurement only", r.PartialReason, r.MeasureSeconds)
	}
	// A finite workload's tests (TPC-H's streams) are closed loops of the standard's own, and last
	// as long as their sequences: neither warning applies to them.
	finite := info.Finite
	if mode == workload.ModeThroughput && !finite {
		add("CLOSED_LOOP", "throughput mode is a closed loop without waits: each terminal waits for its previous operation, so these latencies are those of a saturated system and its throughput is not comparable to a paced (spec or rate) run's")
	}
	if time.Duration(r.MeasureSeconds*float64(time.Second)) < SteadyStateMin && !finite {
		add("SHORT_RUN", "the measurement lasted %.0f s, less than the %s a steady state needs (checkpoints, vacuum and cache effects may not have shown)", r.MeasureSeconds, SteadyStateMin)
	}
	if unit == "" {
		unit = "operations"
	}
	var count, errs, retries, incomplete int64
	for _, t := range r.Operations {
		incomplete += t.Incomplete
		if t.PartOf != "" {
			continue // a part of another operation (TPC-C's deferred Delivery): counted with it
		}
		count += t.Count + t.Errors
		errs += t.Errors
		retries += t.Retries
	}
	if count > 0 && float64(errs) > 0.01*float64(count) {
		add("ERROR_RATE", "%.2f%% of %s failed (%d of %d): the throughput and latencies leave them out", 100*float64(errs)/float64(count), unit, errs, count)
	}
	if count > 0 && float64(retries) > 0.01*float64(count) {
		cause := ""
		if top, ok := report.TopRetryCause(r); ok {
			cause = fmt.Sprintf("; %d of them after %q", top.Count, top.Message)
		}
		add("RETRY_RATE", "%d retries for %d %s (%.2f%%): contention is high and the latencies include the retried attempts%s", retries, count, unit, 100*float64(retries)/float64(count), cause)
	}
	if incomplete > 0 {
		add("INCOMPLETE", "%d %s started in the window did not finish within the grace period; they are counted apart, are in no histogram, and count as too slow in any percentile verdict", incomplete, unit)
	}
	// DRIVER_SATURATED (which replaced DRIVER_BUSY), DURABILITY_OFF, FITS_IN_MEMORY and CPU_STOLEN
	// come from the run's monitor, once its samples are in: see conditions.go.
	ws = append(ws, rateWarnings(r)...) // rate.go: RATE_NOT_SUSTAINED, DRIVER_LATE
	if r.Database.Kind == "sqlite" {
		add("SINGLE_WRITER", "SQLite runs one writer at a time: read-write transactions take the write lock up front and queue for it, which shows in response times")
	}
	return ws
}
