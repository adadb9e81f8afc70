package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	htmlreport "github.com/candor-bench/candor/report/html"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/version"
	"github.com/candor-bench/candor/workload/tpcc"
)

// ErrCheckFailed is returned when a consistency condition is violated (exit status 1).
var ErrCheckFailed = errors.New("consistency check failed")

// ErrPartial is returned after an interrupted run whose partial results were saved (exit status 1).
var ErrPartial = errors.New("the run was interrupted: its results are partial")

// Out is where commands write: the summary to Stdout, progress and notes to Stderr.
type Out struct {
	Stdout, Stderr io.Writer
	// Terminal: Stderr is a terminal, so progress may redraw one line.
	Terminal bool
}

// Load executes a load plan.
func Load(ctx context.Context, p LoadPlan, out Out) error {
	if err := p.Validate(); err != nil {
		return err
	}
	db, err := driver.Open(ctx, p.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	if p.Procedures {
		if err := tpcc.ProceduresSupported(db); err != nil {
			return err
		}
	}
	fmt.Fprintf(out.Stderr, "loading %d warehouse%s into %s with %d loader%s, seed %d\n",
		p.Warehouses, plural(p.Warehouses), db.Redacted(), p.Loaders, plural(p.Loaders), p.Seed)
	bar := newProgressBar(out, tpcc.ExpectedRows(p.Warehouses))
	bar.start()
	start := time.Now()
	info, err := tpcc.Load(ctx, db, tpcc.LoadOptions{
		Warehouses: p.Warehouses, Loaders: p.Loaders, Seed: p.Seed, Drop: p.Drop,
		ToolVersion: version.String(), Progress: bar.add,
	})
	bar.stop()
	if err != nil {
		if ctx.Err() != nil {
			return userr.Errorf("the load was interrupted after %d rows: the database is marked as incompletely loaded; reload with candor tpcc load --drop", bar.rows.Load())
		}
		return err
	}
	el := time.Since(start)
	via := "" // the engine's bulk path, when it has a choice (MySQL)
	if info.BulkPath != "" {
		via = " via " + info.BulkPath
	}
	fmt.Fprintf(out.Stderr, "loaded %d warehouse%s: %d rows%s in %.1f s (%.0f rows/s), keys and indexes built; load C constants: c_last %d, c_id %d, ol_i_id %d\n",
		info.Warehouses, plural(info.Warehouses), bar.rows.Load(), via, el.Seconds(), float64(bar.rows.Load())/el.Seconds(), info.C.CLast, info.C.CID, info.C.OLIID)
	if p.Procedures {
		return createProcedures(ctx, db, out) // procedures.go
	}
	return nil
}

// Check executes `candor tpcc check`; it prints each condition and returns ErrCheckFailed when one
// is violated.
func Check(ctx context.Context, url string, full bool, out Out) error {
	db, err := driver.Open(ctx, url)
	if err != nil {
		return err
	}
	defer db.Close()
	checks, err := runChecks(ctx, db, full)
	if err != nil {
		return err
	}
	r := &report.Result{Workload: "tpcc", Checks: checks}
	report.PrintChecks(out.Stdout, r)
	if failed(checks) {
		return ErrCheckFailed
	}
	return nil
}

func runChecks(ctx context.Context, db driver.DB, full bool) ([]report.Check, error) {
	res, err := tpcc.Check(ctx, db, tpcc.CheckOptions{Full: full})
	if err != nil {
		return nil, err
	}
	out := make([]report.Check, len(res))
	for i, c := range res {
		out[i] = report.Check{Condition: c.Condition, Name: c.Name, Skipped: c.Skipped, Reason: c.Reason,
			OK: c.OK, Violations: c.Violations, Seconds: c.Duration.Seconds()}
	}
	return out, nil
}

// checkAfterWork runs the consistency check (clause 3.3.2, quick or full) once the workload has
// stopped: after a run, or after a search's last probe. It goes on when ctx is cancelled meanwhile,
// since the workload is over and the check is what says whether it left the data consistent. A
// check that cannot run is a warning (CHECK_FAILED_TO_RUN), not a violation.
func checkAfterWork(ctx context.Context, db driver.DB, full bool) ([]report.Check, []report.Warning) {
	checks, err := runChecks(context.WithoutCancel(ctx), db, full)
	if err != nil {
		return checks, []report.Warning{{Code: "CHECK_FAILED_TO_RUN", Message: "the consistency check could not run: " + err.Error()}}
	}
	return checks, nil
}

func failed(checks []report.Check) bool {
	for _, c := range checks {
		if !c.Skipped && !c.OK {
			return true
		}
	}
	return false
}

// Run executes a run plan: it checks the database is fully loaded and matches the plan, runs the mix,
// optionally checks consistency, writes result.json and the interval log to p.Out, and prints the
// summary. An interrupted run saves what it measured and returns ErrPartial.
func Run(ctx context.Context, p RunPlan, out Out) (*report.Result, error) {
	return runWith(ctx, p, out, nil)
}

// runWith executes p. A search passes the metrics listener that serves all its probes (shared);
// with nil, the run starts its own for --metrics-addr and stops it when it ends.
func runWith(ctx context.Context, p RunPlan, out Out, shared *liveMetrics) (*report.Result, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	mx := shared
	if mx == nil {
		var err error
		mx, err = startMetrics(&p, out) // metrics.go: --metrics-addr, listening until the run ends
		if err != nil {
			return nil, err
		}
		defer mx.stop()
	}
	iso, _ := ParseIsolation(p.Isolation)
	db, err := driver.Open(ctx, p.DB)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	info, err := tpcc.ReadLoadInfo(ctx, db)
	if err != nil {
		return nil, err
	}
	if !info.Completed {
		return nil, userr.Errorf("the load of %s never completed (started %s): it is half-loaded and must not be benchmarked; reload with candor tpcc load --drop --db URL --warehouses N", db.Redacted(), info.StartedAt.Format(time.RFC3339))
	}
	if err := p.resolve(info, db); err != nil {
		return nil, err
	}
	eps, err := openEndpoints(ctx, &p, db, info, out) // distsql.go: --db given more than once
	if err != nil {
		return nil, err
	}
	defer closeEndpoints(eps)
	if p.Procedures {
		if err := tpcc.CheckProcedures(ctx, db); err != nil {
			return nil, err
		}
	}
	if iso == driver.IsolationDefault {
		iso = db.DefaultIsolation()
	}
	isoFacts := probeIsolation(ctx, db, iso) // the levels the engine really runs (distsql.go)
	var logw *measure.LogWriter
	var logFile *os.File
	if p.Out != "" {
		if err := os.MkdirAll(p.Out, 0o755); err != nil {
			return nil, userr.Errorf("cannot create the results directory %s: %v: choose another --out", p.Out, err)
		}
		logFile, err = os.Create(filepath.Join(p.Out, report.LogFile))
		if err != nil {
			return nil, userr.Errorf("cannot write into %s: %v: choose another --out", p.Out, err)
		}
		defer logFile.Close()
	}
	deliveries, err := createDeliveries(p.Out) // deliveries.go: the result file of clause 2.7.4.2
	if err != nil {
		return nil, err
	}
	defer deliveries.close()
	dbVersion, err := db.Version(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the database version: %w", err)
	}
	if err := tpcc.MarkRun(ctx, db); err != nil {
		return nil, err
	}
	mon := newMonitor(ctx, &p, db) // monitor.go: the disclosure now, resource samples from started on
	defer mon.stop()
	started := time.Now()
	mon.begin(started)
	if logFile != nil {
		logw, err = measure.NewLogWriter(logFile, started, fmt.Sprintf("candor %s tpcc %s", version.String(), p.Mode))
		if err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(out.Stderr, "running TPC-C (derived, not audited) on %s: mode %s, %s, %d warehouse%s, %d terminals over %d connections, warm-up %s, measure %s, seed %d\n",
		dbVersion, p.Mode, report.TxPath(p.Procedures), p.Warehouses, plural(p.Warehouses), p.Terminals, p.Connections, p.Warmup, p.Duration, p.Seed)
	if p.Mode == tpcc.ModeRate {
		fmt.Fprintln(out.Stderr, p.rateLine())
	}

	prog := newProgress(out, p.Quiet)
	var logErr error
	o, err := tpcc.Run(ctx, db, info, tpcc.RunOptions{
		Mode: p.Mode, Warehouses: p.Warehouses, Terminals: p.Terminals, Connections: p.Connections,
		DeliveryWorkers: max(1, p.Warehouses/10+1),
		Warmup:          p.Warmup, Measure: p.Duration, Grace: p.Grace, Tick: p.Interval,
		Seed: p.Seed, Isolation: iso, Procedures: p.Procedures,
		Rate:       mx.rate(p.rateOptions(), p.Warmup), // rate.go; metrics.go feeds the backlog to --metrics-addr
		Endpoints:  eps,
		Deliveries: deliveries.writer(),
		OnTick: func(iv *measure.Interval) {
			prog.line(iv, started)
			mx.observe(iv)
			if logw != nil && logErr == nil {
				logErr = logw.Write(iv)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	mx.done()
	res := buildResult(&p, info, db, dbVersion, iso, started, o)
	addEngineFacts(res, &p, o, isoFacts, dbVersion)
	mon.finish(res)
	deliveries.finish(o, res)
	if logw != nil && logErr == nil {
		// The measured totals, tagged apart, so a report rebuilt from the log alone has exactly the
		// window's events (intervals at the window's edges also hold warm-up or drain events).
		logErr = logw.WriteTotals(o.Totals, o.Summary.MeasureStart, o.Summary.MeasureEnd)
	}
	if logErr != nil {
		res.Warnings = append(res.Warnings, report.Warning{Code: "LOG_WRITE_FAILED", Message: "the interval log could not be written completely: " + logErr.Error()})
	}
	if p.Check && !res.Partial {
		var ws []report.Warning
		res.Checks, ws = checkAfterWork(ctx, db, p.CheckFull)
		res.Warnings = append(res.Warnings, ws...)
	}
	if p.Out != "" {
		if err := report.Write(p.Out, res); err != nil {
			return res, err
		}
		if err := htmlreport.Write(p.Out); err != nil {
			fmt.Fprintf(out.Stderr, "could not write %s (the results are saved; candor report %s --html FILE retries): %v\n", htmlreport.File, p.Out, err)
		}
	}
	report.Summary(out.Stdout, res)
	if p.Out != "" {
		fmt.Fprintf(out.Stderr, "results saved in %s (%s, %s, %s, %s)\n", p.Out, report.ResultFile, report.LogFile, report.DeliveriesFile, htmlreport.File)
	}
	switch {
	case res.Partial:
		return res, ErrPartial
	case failed(res.Checks):
		return res, ErrCheckFailed
	}
	return res, nil
}

// buildResult turns a run's output into result.json's content, with verdicts and warnings.
func buildResult(p *RunPlan, info tpcc.LoadInfo, db driver.DB, dbVersion string, iso driver.Isolation, started time.Time, o *tpcc.RunOutput) *report.Result {
	host, _ := os.Hostname()
	sum := o.Summary
	measured := sum.MeasureEnd.Sub(sum.MeasureStart)
	if sum.End.Before(sum.MeasureEnd) {
		measured = sum.End.Sub(sum.MeasureStart)
	}
	if measured < 0 {
		measured = 0
	}
	minutes := measured.Minutes()
	r := &report.Result{
		Tool:           report.Tool{Name: "candor", Version: version.String()},
		Workload:       "tpcc",
		Disclaimer:     "derived from TPC-C, not audited: not comparable to published TPC-C results",
		Mode:           string(p.Mode),
		Partial:        sum.Partial,
		Warehouses:     p.Warehouses,
		Terminals:      p.Terminals,
		Connections:    p.Connections,
		Seed:           p.Seed,
		Isolation:      string(iso),
		Procedures:     p.Procedures,
		StartedAt:      started.UTC(),
		WarmupSeconds:  p.Warmup.Seconds(),
		MeasureSeconds: measured.Seconds(),
		Database:       report.Database{Kind: db.Kind(), Version: dbVersion, URL: db.Redacted()},
		Driver: report.Host{Hostname: host, CPUs: runtime.NumCPU(), GoOS: runtime.GOOS, GoArch: runtime.GOARCH,
			CPUSeconds: o.CPU.Seconds()},
		Transactions: map[string]*report.TxResult{},
		Constants:    map[string]tpcc.Constants{"load": o.Constants.Load, "run": o.Constants.Run},
		Plan:         p,
		Warnings:     []report.Warning{},
	}
	if o.Completed > 0 {
		r.Driver.CPUMicrosPerTx = float64(o.CPU.Microseconds()) / float64(o.Completed)
	}
	if o.RoundTripsCounted && o.CompletedTx > 0 {
		r.Driver.RoundTrips = o.RoundTrips
		r.Driver.RoundTripsPerTx = float64(o.RoundTrips) / float64(o.CompletedTx)
	}
	if sum.Partial {
		r.PartialReason = "interrupted before the end of the measurement interval"
		if o.Aborted != "" {
			r.PartialReason = o.Aborted
		}
	}
	t := o.Totals
	for op := 0; op < tpcc.NumTxTypes; op++ {
		c := t.Counts[op]
		tx := &report.TxResult{
			Count: c.Completed, Errors: c.Errors, Retries: c.Retries, Rollbacks: c.Rollbacks,
			Reconnects: c.Reconnects, Incomplete: c.Incomplete, Overflow: c.Overflow,
			ResponseMs: t.Percentiles(op, measure.Response),
			ServiceMs:  t.Percentiles(op, measure.Service),
			LagMs:      t.Percentiles(op, measure.Lag),
			Dropped:    c.Dropped,
		}
		if minutes > 0 {
			tx.PerMinute = float64(c.Completed) / minutes
		}
		r.Transactions[tpcc.TxNames[op]] = tx
	}
	dc := t.Counts[tpcc.DeliveryDeferred]
	r.DeliveryDeferred = &report.Deferred{Count: dc.Completed, Errors: dc.Errors, Incomplete: dc.Incomplete,
		Districts: o.Districts, SkippedDistricts: o.SkippedDistricts,
		CompletionMs: t.Percentiles(tpcc.DeliveryDeferred, measure.Response)}
	// tpmC: completed New-Orders per minute of measurement, business rollbacks included (clause 5.4.1).
	r.TpmC = r.Transactions["new_order"].PerMinute
	if p.Mode == tpcc.ModeSpec {
		eff := 100 * r.TpmC / (tpcc.MaxTpmCPerWarehouse * float64(p.Warehouses))
		r.Efficiency = &eff
		r.Verdicts = verdicts(r, t)
	}
	r.Audit = auditReport(o.Audit)
	r.Rate = rateResult(o.Rate, r.MeasureSeconds) // rate.go
	r.Warnings = append(r.Warnings, warnings(r, p)...)
	return r
}

// verdicts checks the 90th-percentile response-time limits of clause 5.2.5.3 and the deferred
// Delivery's completion limit of clause 2.7.2.1. Transactions that failed or never finished count
// as above the limit: the 90th percentile is taken over all of them, not over the successes only.
func verdicts(r *report.Result, t *measure.Totals) []report.Verdict {
	var vs []report.Verdict
	for op := 0; op < tpcc.NumTxTypes; op++ {
		limit := float64(tpcc.Timings[op].Limit90.Milliseconds())
		vs = append(vs, verdict(tpcc.TxNames[op]+" p90 response time", limit, t, op))
	}
	limit := float64(tpcc.DeliveryCompletionLimit.Milliseconds())
	vs = append(vs, verdict("deferred delivery p90 completion (clause 2.7.2.1)", limit, t, tpcc.DeliveryDeferred))
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

// progressBar shows rows loaded and rows/s while loading: one redrawn line on a terminal, a line
// every 5 s otherwise.
type progressBar struct {
	out   Out
	total int64
	rows  atomic.Int64
	done  chan struct{}
	ended chan struct{}
	t0    time.Time
}

func newProgressBar(out Out, total int64) *progressBar {
	return &progressBar{out: out, total: total, done: make(chan struct{}), ended: make(chan struct{})}
}

func (b *progressBar) add(n int64) { b.rows.Add(n) }

func (b *progressBar) start() {
	b.t0 = time.Now()
	every := 5 * time.Second
	if b.out.Terminal {
		every = 250 * time.Millisecond
	}
	go func() {
		defer close(b.ended)
		tk := time.NewTicker(every)
		defer tk.Stop()
		for {
			select {
			case <-b.done:
				if b.out.Terminal {
					b.draw()
					fmt.Fprintln(b.out.Stderr)
				}
				return
			case <-tk.C:
				b.draw()
				if !b.out.Terminal {
					fmt.Fprintln(b.out.Stderr)
				}
			}
		}
	}()
}

func (b *progressBar) draw() {
	n := b.rows.Load()
	el := time.Since(b.t0).Seconds()
	frac := float64(n) / float64(b.total)
	if frac > 1 {
		frac = 1
	}
	const width = 30
	fill := int(frac * width)
	bar := make([]byte, width)
	for i := range bar {
		switch {
		case i < fill:
			bar[i] = '='
		case i == fill:
			bar[i] = '>'
		default:
			bar[i] = ' '
		}
	}
	rate := 0.0
	if el > 0 {
		rate = float64(n) / el
	}
	eta := "-"
	if rate > 0 && n < b.total {
		eta = time.Duration(float64(b.total-n) / rate * float64(time.Second)).Round(time.Second).String()
	}
	prefix := ""
	if b.out.Terminal {
		prefix = "\r"
	}
	fmt.Fprintf(b.out.Stderr, "%sloading [%s] %3.0f%%  %d rows  %.0f rows/s  %5.1f s  eta %s   ", prefix, bar, 100*frac, n, rate, el, eta)
}

func (b *progressBar) stop() {
	close(b.done)
	<-b.ended
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
