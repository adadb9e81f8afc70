package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/blockconn"
	"github.com/candor-bench/candor/driver/null"
	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/version"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/loadstate"
)

// ErrCheckFailed is returned when a consistency condition is violated (exit status 1).
var ErrCheckFailed = errors.New("consistency check failed")

// ErrIncomplete is returned when a run's files could not all be written (a full disk): the summary
// is printed, and each incomplete file named (exit status 1).
var ErrIncomplete = errors.New("the results could not be saved completely (the files are named above)")

// ErrPartial is returned after an interrupted run whose partial results were saved (exit status 1).
var ErrPartial = errors.New("the run was interrupted: its results are partial")

// Out is where commands write: the summary to Stdout, progress and notes to Stderr.
type Out struct {
	Stdout, Stderr io.Writer
	// Terminal: Stderr is a terminal, so progress may redraw one line.
	Terminal bool
	// Hurry is the second Ctrl-C (interrupt.go); nil never fires.
	Hurry *Hurry
}

// Load executes a load plan.
func Load(ctx context.Context, p LoadPlan, out Out) error {
	if err := p.Validate(); err != nil {
		return err
	}
	w := p.Workload
	lock, shard := loadstate.Lock, workload.Shard{}
	if p.Shard != nil {
		// The shards of one load hold candor's lock together (shard.go).
		lock, shard = loadstate.LockShared, workload.Shard{Index: p.Shard.Index, Count: p.Shard.Count}
	}
	if _, ok := w.(workload.Sharder); !ok {
		shard = workload.Shard{} // shard 0 of a workload that cannot split its load loads it all
	}
	// Load safety (loadsafety.go): the time and memory before anything connects, the disk before
	// anything is dropped or created.
	est, estimated := estimateLoad(w, p.Loaders, shard)
	var estLine string
	if estimated && !strings.HasPrefix(p.DB, "null:") {
		var err error
		if estLine, err = judgeLoad(p, est); err != nil {
			return err
		}
	}
	db, err := driver.Open(ctx, p.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	if null.Is(db) {
		return userr.Errorf("%s holds no data, so there is nothing to load: `candor %s run --db %s` runs without a load, taking the workload's options as given", null.Describe(db), p.Workload.Info().Name, db.Redacted())
	}
	unlock, err := lock(ctx, db, "load") // one load, run or check on a database at a time
	if err != nil {
		return err
	}
	defer unlock()
	if estimated {
		disk, err := judgeDisk(ctx, db, est, w.Info().Name, p.AllowLarge, w)
		if err != nil {
			return err
		}
		fmt.Fprintf(out.Stderr, "%s; %s\n", estLine, disk)
	}
	var expected int64
	if e, ok := w.(workload.RowEstimator); ok {
		expected = e.ExpectedRows()
	}
	if sh, ok := w.(workload.Sharder); ok && shard.Sharded() {
		expected = sh.ShardRows(shard) // shard.go: this shard's part only
	}
	part := ""
	if shard.Sharded() {
		part = " (shard " + shard.String() + "'s part)"
	}
	fmt.Fprintf(out.Stderr, "loading %s%s into %s with %d loader%s, seed %d\n",
		w.Info().Name, part, db.Redacted(), p.Loaders, plural(p.Loaders), p.Seed)
	bar := newProgressBar(out, expected)
	bar.start()
	start := time.Now()
	info, err := w.Load(ctx, db, workload.LoadOptions{
		Loaders: p.Loaders, Seed: p.Seed, Drop: p.Drop, ToolVersion: version.String(), Progress: bar.add,
		Note: func(line string) { fmt.Fprintln(out.Stderr, line) }, Shard: shard, ShardWait: p.ShardWait,
	})
	bar.stop()
	if err != nil {
		if ctx.Err() != nil {
			return userr.Errorf("the load was interrupted after %d rows: the database is marked as incompletely loaded; reload with candor %s load --drop", bar.rows.Load(), w.Info().Name)
		}
		return err
	}
	el := time.Since(start)
	rows := bar.rows.Load()
	if bn, ok := db.(interface{ BulkNote() string }); ok && bn.BulkNote() != "" {
		// the engine's bulk path changed during the load (PostgreSQL's wire: COPY refused)
		fmt.Fprintln(out.Stderr, bn.BulkNote())
	}
	via := "" // the engine's bulk path, when it has a choice (MySQL; PostgreSQL's wire with INSERT)
	if info.BulkPath != "" {
		via = " via " + info.BulkPath
	}
	facts := ""
	if info.Facts != "" {
		facts = ", " + info.Facts
	}
	fmt.Fprintf(out.Stderr, "loaded %s: %d rows%s in %.1f s (%.0f rows/s)%s\n",
		info.Summary, rows, via, el.Seconds(), float64(rows)/el.Seconds(), facts)
	return nil
}

// Check executes `candor WORKLOAD check`; it prints each condition and returns ErrCheckFailed when
// one is violated.
func Check(ctx context.Context, w workload.Workload, url string, full bool, out Out) error {
	ck, ok := w.(workload.Checker)
	if !ok {
		return userr.Errorf("%s has no consistency check", w.Info().Name)
	}
	db, err := driver.Open(driver.ExistingOnly(ctx, w.Info().Name), url) // nor a check
	if err != nil {
		return err
	}
	defer db.Close()
	if null.Is(db) {
		return userr.Errorf("%s holds no data, so there is nothing to check: check a run's consistency on a real database", null.Describe(db))
	}
	unlock, err := loadstate.Lock(ctx, db, "check")
	if err != nil {
		return err
	}
	defer unlock()
	checks, err := ck.Check(ctx, db, full)
	r := &report.Result{Workload: w.Info().Name, Checks: checks}
	if err != nil {
		// what was evaluated before the check stopped, the condition it stopped at not run
		report.PrintChecks(out.Stdout, r)
		return err
	}
	report.PrintChecks(out.Stdout, r)
	if failed(checks) {
		return ErrCheckFailed
	}
	return nil
}

// checkAfterWork runs the workload's consistency check (quick or full) once the workload has
// stopped: after a run, or after a search's last probe. It goes on when ctx is cancelled meanwhile,
// since the workload is over and the check is what says whether it left the data consistent. A
// check that cannot run is a warning (CHECK_FAILED_TO_RUN), not a violation. A workload without a
// check has none.
func checkAfterWork(ctx context.Context, w workload.Workload, db driver.DB, full bool) ([]report.Check, []report.Warning) {
	ck, ok := w.(workload.Checker)
	if !ok || null.Is(db) { // the null engine holds no data to check (NULL_ENGINE says so)
		return nil, nil
	}
	checks, err := ck.Check(context.WithoutCancel(ctx), db, full)
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

// Run executes a run plan: it opens the workload's session on the loaded database, runs it in the
// plan's mode, optionally checks consistency, writes result.json and the interval log to p.Out, and
// prints the summary. An interrupted run saves what it measured and returns ErrPartial.
func Run(ctx context.Context, p RunPlan, out Out) (*report.Result, error) {
	return runWith(ctx, p, out, nil)
}

// runWith executes p. A search passes the metrics listener that serves all its probes (shared);
// with nil, the run starts its own for --metrics-addr and stops it when it ends.
func runWith(ctx context.Context, p RunPlan, out Out, shared *liveMetrics) (*report.Result, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	// Every input is checked, --out included, before anything connects; the directory and its
	// files are created only once the session's connections are open (outdir.go).
	if err := checkOut(p.Out, p.Replace, false); err != nil {
		return nil, err
	}
	w, in := p.Workload, p.info()
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
	db, err := driver.Open(driver.ExistingOnly(ctx, in.Name), p.DB) // a run never creates the database
	if err != nil {
		return nil, err
	}
	defer db.Close()
	lock := loadstate.Lock
	if p.Shard != nil {
		lock = loadstate.LockShared // the shards of one run hold candor's lock together (shard.go)
	}
	unlock, err := lock(ctx, db, "run")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if iso == driver.IsolationDefault {
		iso = db.DefaultIsolation()
	}
	eps, err := openEndpoints(ctx, &p, db) // distsql.go: --db given more than once
	if err != nil {
		return nil, err
	}
	defer closeEndpoints(eps)
	od := newOutDir(p.Out, p.Replace, out.Stderr)
	note := func(line string) { fmt.Fprintln(out.Stderr, line) }
	cfg := workload.SessionConfig{
		Mode: p.Mode, Terminals: p.Terminals, Connections: p.Connections, Seed: p.Seed, Isolation: iso,
		Endpoints: eps, EndpointURLs: p.Endpoints, Warmup: p.Warmup, Measure: p.Duration, Grace: p.Grace,
		Out: p.Out, Note: note, Shard: p.shard(),
	}
	if p.Shard != nil {
		cfg.RootSeed = p.Shard.RootSeed
	}
	if od != nil {
		cfg.Create = od.createWriter
	}
	sess, err := w.Open(ctx, db, cfg)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	setup := sess.Setup()
	p.resolve(setup, db)
	isoFacts := probeIsolation(ctx, db, iso) // the level the engine really runs (distsql.go)
	dbVersion, err := db.Version(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the database version: %w", err)
	}
	mon := newMonitor(ctx, &p, db) // monitor.go: the disclosure now, resource samples from started on
	defer mon.stop()
	fmt.Fprintf(out.Stderr, "running %s on %s: mode %s, %s, %s over %s, %s, seed %d\n",
		in.Title, dbVersion, p.Mode, setup.Describe, report.Count(int64(p.Terminals), "terminal", "terminals"),
		report.Count(int64(p.Connections), "connection", "connections"), p.windowText(in), p.Seed) // window.go
	if p.Mode == workload.ModeRate {
		fmt.Fprintln(out.Stderr, p.rateLine())
	}
	if p.Shard != nil {
		fmt.Fprintf(out.Stderr, "shard %d/%d: seed %d derived from the root seed %d; the consistency check runs once after every shard has ended (candor %s check), not in a shard\n",
			p.Shard.Index, p.Shard.Count, p.Seed, p.Shard.RootSeed, in.Name)
	}

	if setup.KeyOp != "" {
		in.KeyOp = setup.KeyOp
	}
	prog := newProgress(out, p.Quiet, in, w.Ops())
	var (
		started time.Time
		logFile *outFile
		logw    *measure.LogWriter
		logErr  error
	)
	// ready runs once the session's connections are open: the files, then the run's clock.
	ready := func() error {
		var err error
		if logFile, err = od.create(report.LogFile); err != nil {
			return err
		}
		resources, err := od.create(report.ResourcesFile)
		if err != nil {
			return err
		}
		if resources != nil {
			mon.writeTo(resources)
		}
		if !p.StartAt.IsZero() { // shard.go: every shard's window on the same wall-clock interval
			if err := waitStart(ctx, p.StartAt, wallClock{}, note); err != nil {
				return err
			}
		}
		started = time.Now()
		mon.begin(started)
		if logFile != nil {
			// A failed write is said by the file and kept in logErr; the run goes on.
			logw, logErr = measure.NewLogWriter(logFile, started, fmt.Sprintf("candor %s %s %s", version.String(), in.Name, p.Mode))
		}
		return nil
	}
	defer out.Hurry.listen()() // interrupt.go: a second Ctrl-C ends the waits and saves at once
	saidInterrupt := sayInterrupt(ctx, out, p.Grace, out.Hurry)
	cancels0 := serverCancels(db) // cancels.go
	// The workload's own connections, opened as the session starts, are held when the engine's
	// socket variable asks for held sockets and the run has few enough (blockconn.ForRun: scoped to
	// this context, so the lock's and the sampler's connections, opened above, and a check's after
	// the run stay on the netpoller).
	o, err := workload.Drive(blockconn.ForRun(ctx, p.Connections), in.Name, w.Ops(), sess, workload.DriveOptions{
		Mode: p.Mode, Warmup: p.Warmup, Measure: p.Duration, Grace: p.Grace, Tick: p.Interval, Seed: p.Seed,
		OutageWindow: p.OutageWindow,
		Rate:         mx.rate(p.rateOptions(), p.Warmup), // rate.go; metrics.go feeds the backlog to --metrics-addr
		Parts:        in.Parts,
		Ready:        ready, Hurry: out.Hurry.C(),
		OnTick: func(iv *measure.Interval) {
			prog.line(iv, started)
			mx.observe(iv)
			if logw != nil && logErr == nil {
				logErr = logw.Write(iv)
			}
		},
	})
	saidInterrupt()
	if err != nil {
		return nil, err
	}
	mx.done()
	res := buildResult(&p, db, dbVersion, iso, started, o)
	res.Setup = setup.Describe
	res.KeyOp = in.KeyOp
	res.Shard, res.Clock = p.Shard, p.clockResult(o.Summary.MeasureStart) // shard.go
	sess.Finish(&workload.Finished{Result: res, Totals: o.Totals, Summary: o.Summary, Mode: p.Mode, Minutes: res.MeasureSeconds / 60})
	// The warnings every workload shares, once the workload has said which operations are parts of
	// others (TxResult.PartOf), so none is counted twice.
	res.Warnings = append(warnings(res, &p), res.Warnings...)
	if rt, ok := sess.(workload.RoundTripper); ok {
		if trips, ops, counted := rt.RoundTrips(); counted && ops > 0 {
			res.Driver.RoundTrips, res.Driver.RoundTripsPerTx = trips, float64(trips)/float64(ops)
		}
	}
	sess.Close()
	if w := cancelledWarning(db, cancels0); w != nil {
		res.Warnings = append(res.Warnings, *w)
	}
	addEngineFacts(res, &p, isoFacts, dbVersion)
	mon.finish(res)
	if logw != nil && logErr == nil {
		// The measured totals, tagged apart, so a report rebuilt from the log alone has exactly the
		// window's events (intervals at the window's edges also hold warm-up or drain events).
		logErr = logw.WriteTotals(o.Totals, o.Summary.MeasureStart, o.Summary.MeasureEnd)
	}
	if logFile != nil {
		if cerr := logFile.Close(); logErr == nil {
			logErr = cerr
		}
	}
	if logErr != nil {
		res.Warnings = append(res.Warnings, report.Warning{Code: "LOG_WRITE_FAILED", Message: "the interval log could not be written completely: " + logErr.Error()})
	}
	if p.Check && p.Shard == nil && !res.Partial && !out.Hurry.Fired() {
		var ws []report.Warning
		res.Checks, ws = checkAfterWork(ctx, w, db, p.CheckFull)
		res.Warnings = append(res.Warnings, ws...)
	}
	incomplete := saveResults(od, res) // outdir.go: the files that could not be written, named
	report.Summary(out.Stdout, res)
	if od != nil {
		printSaved(out, od.path, incomplete)
	}
	switch {
	case res.Partial && o.Aborted != "":
		return res, &stoppedErr{reason: o.Aborted} // the database was lost, or every attempt failed
	case res.Partial:
		return res, ErrPartial
	case failed(res.Checks):
		return res, ErrCheckFailed
	case len(incomplete) > 0:
		return res, ErrIncomplete
	}
	if err := failuresError(res); err != nil {
		return res, err // failures.go: exit status 1
	}
	if err := slosError(res); err != nil {
		return res, err // slo.go: a budget of --slo breached, exit status 1
	}
	return res, nil
}

// stoppedErr is ErrPartial for a run the core stopped early, with the reason (an outage longer
// than --outage-window, or every attempt failing).
type stoppedErr struct{ reason string }

func (e *stoppedErr) Error() string {
	return "the run stopped early and its results are partial: " + e.reason
}

func (e *stoppedErr) Is(target error) bool { return target == ErrPartial }

// buildResult turns a run's outcome into result.json's envelope: the conditions, every operation's
// figures over the window, the rate, the warnings every workload shares. The workload adds its own
// part (Session.Finish).
func buildResult(p *RunPlan, db driver.DB, dbVersion string, iso driver.Isolation, started time.Time, o *workload.Outcome) *report.Result {
	in := p.info()
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
		FormatVersion:  report.FormatVersion,
		Tool:           report.Tool{Name: "candor", Version: version.String()},
		Workload:       in.Name,
		Disclaimer:     in.Disclaimer,
		Mode:           string(p.Mode),
		Partial:        sum.Partial,
		Terminals:      p.Terminals,
		Connections:    p.Connections,
		Seed:           p.Seed,
		Isolation:      string(iso),
		StartedAt:      started.UTC(),
		WarmupSeconds:  p.Warmup.Seconds(),
		MeasureSeconds: measured.Seconds(),
		Database:       report.Database{Kind: db.Kind(), Version: dbVersion, URL: db.Redacted()},
		Driver: report.Host{Hostname: host, CPUs: runtime.NumCPU(), GoOS: runtime.GOOS, GoArch: runtime.GOARCH,
			CPUSeconds: o.CPU.Seconds()},
		Operations: map[string]*report.TxResult{},
		OpOrder:    append([]string(nil), p.Workload.Ops()...),
		KeyOp:      in.KeyOp,
		Plan:       p,
		Warnings:   []report.Warning{},
	}
	if tl := sum.TimerLag; tl != nil && tl.Count > 0 {
		ms := tl.Ms
		r.Driver.TimerLagMs, r.Driver.TimerLagCount = &ms, tl.Count
	}
	if o.Completed > 0 {
		r.Driver.CPUMicrosPerTx = float64(o.CPU.Microseconds()) / float64(o.Completed)
	}
	if sum.Partial {
		r.PartialReason = "interrupted before the end of the measurement interval"
		if o.Aborted != "" {
			r.PartialReason = o.Aborted
		}
	}
	t := o.Totals
	for op, name := range r.OpOrder {
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
		// failures.go: by class, first messages
		tx.Failures = report.FailuresOf(t, op)
		tx.RetryCauses = report.RetryCausesOf(t, op)
		if of, ok := in.Parts[name]; ok { // workload/parts.go
			tx.PartOf, tx.PartNote = of, in.PartNote
		}
		r.Operations[name] = tx
	}
	r.Rate = rateResult(o.Rate, r.MeasureSeconds, r.OpOrder)                       // rate.go
	r.Outages, r.Warnings = outageResults(o.Outages, sum.Start, p.OutageWindow, t) // outage.go
	judgeFailures(r, p.failureLimit())                                             // failures.go: after the warnings above
	judgeSLOs(r, p)                                                                // slo.go: --slo's budgets
	return r
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
