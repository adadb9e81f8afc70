package tpcc

import (
	"fmt"
	"math"
	"strings"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/workload"
)

// Finish adds TPC-C's part of the result: tpmC and efficiency (the headline), the 90th-percentile
// verdicts of clause 5.2.5.3, the deferred Delivery and the run-time audit (sections), the
// warnings only TPC-C has, and the keys of result format 1 (report.TPCC).
func (s *session) Finish(f *workload.Finished) {
	lo, hi := s.o.home() // a shard drives its own warehouses only (shard.go)
	in := figures{
		warehouses: s.o.Warehouses, home: hi - lo + 1, procedures: s.o.Procedures, stockLevel: string(s.stockLevel),
		newOrdersInWindow: f.Totals.Counts[NewOrder].CompletedInWindow,
		constants:         map[string]Constants{"load": s.consts.Load, "run": s.consts.Run},
		steady:            s.steady,
	}
	if s.dq != nil {
		in.districts, in.skipped = s.dq.districts.Load(), s.dq.skipped.Load()
	}
	if ex := s.ex; ex != nil {
		in.audit = ex.mergedAudit()
	}
	in.deliveriesLines, in.deliveriesFile, in.deliveriesErr = s.finishDeliveries()
	finish(f, in)
	r := f.Result
	if sec := placementSection(s.info.Placement); sec != nil { // tablespace.go
		r.Sections = append(r.Sections, *sec)
	}
	if eps := s.spread.counts(s.ex.slots, s.dq); len(eps) > 1 {
		for i, e := range eps {
			url := ""
			if i < len(s.cfg.EndpointURLs) {
				url = s.cfg.EndpointURLs[i]
			}
			r.Endpoints = append(r.Endpoints, report.Endpoint{URL: url, Terminals: e.Terminals, Connections: e.Connections,
				Transactions: e.Transactions, Errors: e.Errors, Retries: e.Retries,
				DeferredDeliveries: e.DeferredDeliveries, DeferredErrors: e.DeferredErrors, DeferredRetries: e.DeferredRetries})
		}
	}
}

// figures are what TPC-C's part of a result is computed from besides the measured totals: the
// options, and the counters only TPC-C keeps. A run's session gathers them (Finish); a merge of
// shards sums them over the shards (MergeFinish, merge.go), so both go through finish.
type figures struct {
	warehouses int
	// home is the warehouses whose terminals ran: all of them, or a shard's own; its deck ceiling
	// and efficiency are of them, so the shards' tpmC add up against 12.86 x W.
	home       int
	procedures bool
	stockLevel string
	// newOrdersInWindow: New-Orders completed inside the window (clause 5.4), for tpmC.
	newOrdersInWindow int64
	// districts and skipped are the deferred Delivery's districts and those it found no order in.
	districts, skipped int64
	// audit is the run-time audit's counters (nil: none).
	audit     *Audit
	constants any
	// steady is each interval's New-Orders, for spec mode's steady-state test.
	steady []ivCount
	// deliveriesFile says the Delivery result file was written, with deliveriesLines lines;
	// deliveriesErr is its first failed write.
	deliveriesFile  bool
	deliveriesLines int64
	deliveriesErr   error
}

// Details is TPC-C's "details" in result.json: the counters a merge of shards sums (candor merge).
type Details struct {
	NewOrdersInWindow int64  `json:"new_orders_in_window"`
	AuditCounts       *Audit `json:"audit_counts,omitempty"`
}

// finish computes TPC-C's part of f.Result from the totals and in: tpmC, efficiency, verdicts,
// sections, warnings, qualification.
func finish(f *workload.Finished, in figures) {
	r, t := f.Result, f.Totals
	tx := make(map[string]*report.TxResult, NumTxTypes)
	for op := 0; op < NumTxTypes; op++ {
		tx[TxNames[op]] = r.Operations[TxNames[op]]
	}
	dc := t.Counts[DeliveryDeferred]
	if d := r.Operations[OpNames[DeliveryDeferred]]; d != nil {
		d.PartOf = TxNames[Delivery] // its response time runs from when the Delivery queued it
	}
	tp := &report.TPCC{
		Warehouses: in.warehouses, Procedures: in.procedures, StockLevelIsolation: in.stockLevel,
		Transactions: tx,
		DeliveryDeferred: &report.Deferred{Count: dc.Completed, Errors: dc.Errors, Incomplete: dc.Incomplete,
			Districts: in.districts, SkippedDistricts: in.skipped,
			CompletionMs: t.Percentiles(DeliveryDeferred, measure.Response)},
		Constants: in.constants,
	}
	r.TPCC = tp
	r.Details = Details{NewOrdersInWindow: in.newOrdersInWindow, AuditCounts: in.audit}
	if r.Rate != nil { // the steps' types, as format 1 had them: the deferred part is no arrival
		for i := range r.Rate.Steps {
			delete(r.Rate.Steps[i].Transactions, OpNames[DeliveryDeferred])
		}
	}
	// tpmC: New-Orders completed inside the measurement interval per minute of it, business
	// rollbacks included (clause 5.4: completed in the interval, whenever they were meant to
	// start; the table's per-minute figures and response times stay by intended start).
	if f.Minutes > 0 {
		tp.TpmC = float64(in.newOrdersInWindow) / f.Minutes
	}
	ceiling := DeckCeilingPerWarehouse() * float64(in.home)
	limit := ceilingByChance(ceiling, f.Minutes)
	if f.Mode == ModeSpec {
		eff := 100 * tp.TpmC / (MaxTpmCPerWarehouse * float64(in.home))
		tp.Efficiency = &eff
		r.Verdicts = verdicts(t)
	}
	r.Headline = report.TPCCHeadline(tp.TpmC, tp.Efficiency)
	if len(r.Headline) > 1 { // efficiency keeps 12.86 x W; a faithful run cannot pass the deck's ceiling
		r.Headline[1].Bad = tp.TpmC > limit
	}
	counts, total := f.Completed(NumTxTypes)
	mixShort := mixShortfalls(counts, total)
	if in.audit != nil {
		tp.Audit = auditReport(in.audit)
	}
	if in.deliveriesFile {
		tp.DeliveryDeferred.File, tp.DeliveryDeferred.Lines = report.DeliveriesFile, in.deliveriesLines
		if in.deliveriesErr != nil {
			r.Warnings = append(r.Warnings, report.Warning{Code: "DELIVERIES_WRITE_FAILED",
				Message: "the Delivery result file " + report.DeliveriesFile + " could not be written completely: " + in.deliveriesErr.Error()})
		}
	}
	r.Sections = append(r.Sections, report.DeferredSection(tp.DeliveryDeferred))
	if tp.Audit != nil {
		r.Sections = append(r.Sections, report.AuditSection(tp.Audit))
	}
	r.Warnings = append(r.Warnings, warnings(r, ceiling, limit)...)
	if len(mixShort) > 0 {
		r.Warnings = append(r.Warnings, report.Warning{Code: "MIX_BELOW_MINIMUM", Message: fmt.Sprintf(
			"the completed transactions' mix is below clause 5.2.3's minimums (%s) over %d transactions: failures of those types skew it", strings.Join(mixShort, ", "), total)})
	}
	if f.Mode == ModeSpec && !r.Partial {
		r.Warnings = append(r.Warnings, specInterval(f.Minutes, in.steady, f.Summary.MeasureStart, f.Summary.MeasureEnd)...)
	}
	// qualify.go: tpmC is the result only when the run qualifies; else it says why not.
	why := qualification(r, mixShort)
	q := len(why) == 0
	tp.Qualified, tp.NotQualifiedReasons = &q, why
	if len(why) > 0 {
		r.Headline[0].NotQualified = strings.Join(why, "; ")
		r.Headline[0].Bad = true
		r.Warnings = append(r.Warnings, report.Warning{Code: "TPMC_NOT_QUALIFIED", Message: fmt.Sprintf(
			"tpmC %.1f is not a qualified result: %s", tp.TpmC, strings.Join(why, "; "))})
	}
}

// finishDeliveries closes the Delivery result file (flushed by the drain) and returns its line
// count; ok is false without one. A line lost to a write error is err (DELIVERIES_WRITE_FAILED).
func (s *session) finishDeliveries() (lines int64, ok bool, err error) {
	if s.deliveries == nil {
		return 0, false, nil
	}
	lines, err = s.dq.log.result()
	if cerr := s.deliveries.Close(); err == nil {
		err = cerr
	}
	s.deliveries = nil
	return lines, true, err
}

// verdicts checks the 90th-percentile response-time limits of clause 5.2.5.3 and the deferred
// Delivery's completion limit of clause 2.7.2.1. Transactions that failed or never finished count
// as above the limit: the 90th percentile is taken over all of them, not over the successes only.
func verdicts(t *measure.Totals) []report.Verdict {
	var vs []report.Verdict
	for op := 0; op < NumTxTypes; op++ {
		limit := float64(Timings[op].Limit90.Milliseconds())
		vs = append(vs, verdict(report.TPCCVerdictRule(TxNames[op]+" p90 response time"), limit, t, op))
	}
	limit := float64(DeliveryCompletionLimit.Milliseconds())
	vs = append(vs, verdict("deferred delivery p90 completion (clause 2.7.2.1)", limit, t, DeliveryDeferred))
	return vs
}

// verdict judges op's 90th-percentile response time against limitMs. With n successes and m
// failed or incomplete transactions (taken as infinitely slow), the 90th percentile of all n+m is the
// successes' quantile 0.9(n+m)/n; above 1 it lies among the failures and the verdict fails.
func verdict(rule string, limitMs float64, t *measure.Totals, op int) report.Verdict {
	c := t.Counts[op]
	n, missing := c.Completed, c.Errors+c.Incomplete
	if n == 0 {
		if missing > 0 {
			return report.NewVerdict(rule+" (none completed)", limitMs, math.Inf(1), missing)
		}
		return report.NewVerdict(rule, limitMs, 0, 0)
	}
	q := 0.9 * float64(n+missing) / float64(n)
	if q > 1 {
		return report.NewVerdict(rule+" (over 10% failed or incomplete)", limitMs, math.Inf(1), n+missing)
	}
	v := float64(measure.ValueAt(t.Hist[op][measure.Response], measure.Quantile(q))) / 1000
	return report.NewVerdict(rule, limitMs, v, n+missing)
}

// auditReport converts the run-time audit (clause 9.2) into the result's form.
func auditReport(a *Audit) *report.Audit {
	rep := a.Report()
	out := &report.Audit{Transactions: rep.Transactions, Enough: rep.Enough}
	for _, c := range rep.Checks {
		out.Items = append(out.Items, report.AuditItem{Name: c.Name, Clause: c.Clause, Value: c.Value, Unit: c.Unit,
			Low: c.Min, High: c.Max, Status: c.Status, Pass: c.Status == AuditPass})
	}
	return out
}

// warnings are the conditions only TPC-C has that make its numbers misleading.
func warnings(r *report.Result, ceiling, limit float64) []report.Warning {
	var ws []report.Warning
	add := func(code, format string, a ...any) {
		ws = append(ws, report.Warning{Code: code, Message: fmt.Sprintf(format, a...)})
	}
	// DeckCeilingPerWarehouse (qualify.go): about 12.6 x W with candor's deck, below the 12.86 x W
	// that efficiency divides by; limit adds what chance allows a faithful run (ceilingByChance).
	if r.Efficiency != nil && r.TpmC > limit {
		add("EFFICIENCY_ABOVE_100", "tpmC %.1f is above the %.1f (%.2f x %d warehouses) that spec timing and the deck allow, by more than chance explains (%.1f; efficiency %.1f%% of the customary 12.86 x W): the timing was not spec-faithful, do not read it as a result", r.TpmC, ceiling, DeckCeilingPerWarehouse(), int(math.Round(ceiling/DeckCeilingPerWarehouse())), limit, *r.Efficiency)
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
	return ws
}
