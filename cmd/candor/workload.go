package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/null"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/run"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/loadstate"
	"strconv"
)

// One command tree per registered workload, built from the workload contract alone:
//
//	candor NAME            the one-shot: load when needed, peak probe, then open loop at 50% and 80%
//	candor NAME load       the initial data
//	candor NAME run        one run in any of the workload's modes
//	candor NAME check      the workload's consistency check (when it has one)
//	candor NAME search     the highest rate meeting latency budgets
//
// The core's flags (database, mode, window, rate, results) are bound here; the workload binds its own
// (Workload.Flags). extraCommands adds a workload's own subcommands (TPC-C's procedures).

// extraCommands are the subcommands only one workload has, by workload name.
var extraCommands = map[string]func(out run.Out, reg workload.Registration) []*cobra.Command{
	"tpcc": func(out run.Out, reg workload.Registration) []*cobra.Command {
		return []*cobra.Command{newProcedures(out), newCompareEngines(out, reg)}
	},
	// compare-engines: engines.go (engineSuites names the workloads it knows)
	"sysbench": func(out run.Out, reg workload.Registration) []*cobra.Command {
		return []*cobra.Command{newCompareEngines(out, reg)}
	},
}

// runFlags are the flags shared by `candor NAME` and `candor NAME run`.
type runFlags struct {
	plan    run.RunPlan
	db      dbFlags // --db (repeatable) and --dialect: dbflags.go
	mode    string
	defMode string // the mode when --mode is not given (or given empty)
	seed    uint64
	noCheck bool
	fullChk bool
	// maxFailures is --max-failures (percent).
	maxFailures float64
}

func addRunFlags(c *cobra.Command, f *runFlags, in workload.Info, oneShot bool) {
	fs := c.Flags()
	dbDefault := ""
	if oneShot {
		dbDefault = in.DefaultDB
	}
	f.db.add(c, dbDefault, true)
	f.defMode = string(in.Modes[0])
	if oneShot {
		f.defMode = string(workload.ModeThroughput)
	}
	modes := make([]string, len(in.Modes))
	for i, m := range in.Modes {
		modes[i] = string(m) + " (" + modeHelp[m] + ")"
	}
	// The one-shot's comparison runs in two modes (the peak probe in throughput mode, the open-loop
	// runs in rate mode): its --mode has no default, and given, it asks for one run instead.
	comparison := oneShot && !in.Finite && in.HasMode(workload.ModeRate)
	switch {
	case comparison:
		fs.StringVar(&f.mode, "mode", "", "one run in this mode instead of the peak probe and the open-loop runs: "+strings.Join(modes, ", "))
	default:
		fs.StringVar(&f.mode, "mode", f.defMode, strings.Join(modes, ", "))
	}
	termHelp := "terminals (closed loop), or the terminal states arrivals are drawn from (rate mode); default: " + orWorkloads(in.TerminalsHelp)
	if comparison {
		termHelp = "terminals of the peak probe (closed loop), and the terminal states the open-loop runs draw arrivals from; default: " + orWorkloads(in.TerminalsHelp)
	}
	fs.IntVar(&f.plan.Terminals, "terminals", 0, termHelp)
	fs.IntVar(&f.plan.Connections, "connections", 0, "database connections the terminals share (default: "+orWorkloads(in.ConnectionsHelp)+")")
	if in.HasMode(workload.ModeRate) {
		addRateFlags(c, &f.plan) // rate.go
	}
	if in.Finite {
		// A finite workload's terminals and connections are its streams: not the user's to set
		// (Validate refuses them), so not shown.
		_ = fs.MarkHidden("terminals")
		_ = fs.MarkHidden("connections")
	}
	defDur, defWarm := 10*time.Minute, 2*time.Minute
	durHelp, warmHelp := "measurement interval", "warm-up before the measurement (excluded from the results)"
	switch {
	case in.Finite:
		// the run ends when the workload's sequences do (TPC-H's tests)
		defDur, defWarm, durHelp = workload.FiniteBound, 0, "the longest the run may last: it ends when the workload's streams are done"
	case comparison:
		defDur, defWarm = 45*time.Second, 10*time.Second // each open-loop run of the one-shot
		durHelp = "each open-loop run's measurement (the peak probe's is --peak-duration), or the one run's with --mode"
		warmHelp = "each open-loop run's warm-up (excluded from the results; the peak probe's is --peak-warmup), or the one run's with --mode"
	case oneShot:
		defDur, defWarm = 45*time.Second, 10*time.Second
	}
	fs.DurationVar(&f.plan.Duration, "duration", defDur, durHelp)
	fs.DurationVar(&f.plan.Warmup, "warmup", defWarm, warmHelp)
	fs.DurationVar(&f.plan.Grace, "grace", 30*time.Second, "how long to wait for operations in flight when the measurement ends")
	fs.DurationVar(&f.plan.OutageWindow, "outage-window", workload.DefaultOutageWindow, "how long to wait for a database that cannot be reached (a restart) before the run ends as partial; the outage is counted and shown")
	fs.DurationVar(&f.plan.Interval, "interval", 5*time.Second, "length of a progress and log interval")
	fs.StringVar(&f.plan.Out, "out", "", "directory for result.json and the HdrHistogram interval log (default results/"+in.Name+"-TIMESTAMP)")
	fs.BoolVar(&f.plan.Replace, "replace", false, "replace the run saved in --out (without it, an --out that holds a run is refused)")
	fs.Uint64Var(&f.seed, "seed", 0, "root seed of the run's random inputs (default: a fresh one, printed and stored)")
	fs.StringVar(&f.plan.Isolation, "isolation", "", "read-committed, repeatable-read or serializable (default: the engine's; stored in the results)")
	fs.BoolVar(&f.noCheck, "no-check", false, "skip the consistency check after the run")
	fs.BoolVar(&f.fullChk, "check-full", false, "run every consistency condition after the run, including the expensive ones")
	fs.BoolVarP(&f.plan.Quiet, "quiet", "q", false, "no progress lines")
	fs.Float64Var(&f.maxFailures, "max-failures", report.DefaultMaxFailuresPct, "the share of an operation's attempts, in percent, that may fail: above it the run fails (exit status 1) and its headline figure is not qualified")
	fs.StringVar(&f.plan.MetricsAddr, "metrics-addr", "", "serve live Prometheus metrics at http://HOST:PORT/metrics during the run (for example 127.0.0.1:9464; default: none)")
}

// applyRunDefaults applies a workload preset's duration, warm-up and terminals (workload.RunDefaulter)
// where their flags were not given.
func applyRunDefaults(c *cobra.Command, w workload.Workload, p *run.RunPlan) {
	rd, ok := w.(workload.RunDefaulter)
	if !ok {
		return
	}
	dur, warm, terms, ok := rd.RunDefaults()
	if !ok {
		return
	}
	if dur > 0 && !c.Flags().Changed("duration") {
		p.Duration, p.DurationGiven = dur, true
	}
	if !c.Flags().Changed("warmup") {
		p.Warmup = warm
	}
	if terms > 0 && !p.TerminalsGiven {
		p.Terminals, p.TerminalsGiven = terms, true
	}
}

var modeHelp = map[workload.Mode]string{
	workload.ModeSpec:       "the standard's terminals with keying and think times",
	workload.ModeThroughput: "no waits, closed loop",
	workload.ModeRate:       "open-loop arrivals at --rate",
}

// fullHelp names a workload's expensive conditions in `check --full`'s help.
var fullHelp = map[string]string{"tpcc": " (5, 6, 7, 10, 12)"}

// orWorkloads is a workload's own words on a default, or "the workload's".
func orWorkloads(help string) string {
	if help == "" {
		return "the workload's"
	}
	return help
}

// resolve turns the flags into a plan (the parts known without a database).
func (f *runFlags) resolve(c *cobra.Command, w workload.Workload) run.RunPlan {
	p := f.plan
	p.Workload = w
	mode := f.mode
	if mode == "" && !c.Flags().Changed("mode") {
		mode = f.defMode
	}
	p.Mode = workload.Mode(strings.ToLower(mode))
	if c.Flags().Changed("seed") {
		p.Seed, p.SeedGiven = f.seed, true
	} else {
		p.Seed = freshSeed()
	}
	if p.Out == "" {
		p.Out = run.DefaultOut(w.Info().Name, time.Now())
	}
	p.Check = !f.noCheck
	p.CheckFull = f.fullChk
	p.DurationGiven = c.Flags().Changed("duration")
	p.TerminalsGiven, p.ConnectionsGiven = c.Flags().Changed("terminals"), c.Flags().Changed("connections")
	applyRunDefaults(c, w, &p)
	mf := f.maxFailures
	p.MaxFailures = &mf
	return p
}

// newWorkloadCommand is `candor NAME` and its subcommands.
func newWorkloadCommand(out run.Out, reg workload.Registration) *cobra.Command {
	w := reg.New()
	in := w.Info()
	f := &runFlags{}
	var loaders int
	var loadSeed uint64
	var allowLarge bool
	var sf shardFlags
	c := &cobra.Command{
		Use:   in.Name,
		Short: "Run " + in.Short, // as every command's, a verb first
		Long:  oneShotHelp(in),
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			p := f.resolve(c, w)
			if err := f.db.apply(&p); err != nil {
				return err
			}
			shard, at, err := sf.resolve(c) // shard.go
			if err != nil {
				return err
			}
			p.SetShard(shard)
			p.StartAt = at
			lp := run.LoadPlan{Workload: w, DB: p.DB, Loaders: loaders, Seed: loadSeed, OneShot: true, ShardWait: sf.wait, AllowLarge: allowLarge}
			if shard.Sharded() || !at.IsZero() {
				if !c.Flags().Changed("mode") {
					return userr.Errorf("--shard and --start-at split one run: give --mode (the one-shot's peak probe and open-loop runs at fractions of it cannot be split over shards)")
				}
				return shardedOneShot(c.Context(), out, p, lp, shard)
			}
			var loads *run.LoadsPlan // the peak and open-loop comparison, unless --mode asks for one run
			if !c.Flags().Changed("mode") && !in.Finite && in.HasMode(workload.ModeRate) {
				lp, err := oneShotLoads(c, p) // rate.go
				if err != nil {
					return err
				}
				loads = lp
			}
			return oneShot(c.Context(), out, p, lp, loads)
		},
	}
	addRunFlags(c, f, in, true)
	w.Flags(c.Flags(), workload.CmdOneShot)
	c.Flags().IntVar(&loaders, "loaders", 2, "parallel loaders, when the database must be loaded first")
	c.Flags().Uint64Var(&loadSeed, "load-seed", 1, "root seed of the initial data, when the database must be loaded first")
	c.Flags().BoolVar(&allowLarge, "allow-large", false, allowLargeHelp)
	if in.HasMode(workload.ModeRate) && !in.Finite {
		addOneShotFlags(c) // rate.go
	}
	addShardFlags(c, &sf, true, true)
	c.AddCommand(newLoad(out, reg), newRun(out, reg))
	if in.HasMode(workload.ModeRate) {
		c.AddCommand(newSearch(out, reg))
	}
	if _, ok := w.(workload.Checker); ok {
		c.AddCommand(newCheck(out, reg))
	}
	if _, ok := w.(workload.Dropper); ok {
		c.AddCommand(newDrop(out, reg)) // drop.go
	}
	if extra := extraCommands[in.Name]; extra != nil {
		c.AddCommand(extra(out, reg)...)
	}
	annotateWorkloadFlags(c, in.Name) // help.go: the flags in groups
	for _, sub := range c.Commands() {
		annotateWorkloadFlags(sub, in.Name)
	}
	return c
}

// oneShotHelp is `candor NAME --help`'s description.
func oneShotHelp(in workload.Info) string {
	file := strings.TrimPrefix(in.DefaultDB, "sqlite:")
	if in.Finite || !in.HasMode(workload.ModeRate) {
		return fmt.Sprintf(`With no subcommand: load %s into the embedded SQLite file %s (if it is not
loaded yet), then one run of its tests, printed and saved with report.html. Flags override
everything; the subcommands load, run, check and drop do one part each.`, in.Name, file)
	}
	return fmt.Sprintf(`With no subcommand: load %s into the embedded SQLite file %s (if it is not
loaded yet), find the peak's concurrency in short throughput-mode runs (doubling the terminals while
the throughput rises by more than 5%%; --terminals fixes it), measure the peak there (20 s), then run
open-loop arrivals at 50%% and 80%% of that peak (45 s each) and print them side by side, with a
consistency check at the end; each run is saved in its own directory. With --mode, one run of that
mode instead. Flags override everything; the subcommands load, run, check, search and drop do one
part each.`, in.Name, file)
}

// oneShot loads the database unless it already holds a complete load that matches, then runs:
// the peak and open-loop comparison of loads, or one run of p when loads is nil.
func oneShot(ctx context.Context, out run.Out, p run.RunPlan, lp run.LoadPlan, loads *run.LoadsPlan) error {
	if loads != nil {
		if err := loads.Validate(); err != nil {
			return err
		}
	} else if err := p.Validate(); err != nil {
		return err
	}
	if err := oneShotLoad(ctx, out, p, lp); err != nil {
		return err
	}
	if loads != nil {
		_, err := run.Loads(ctx, *loads, out)
		return err
	}
	_, err := run.Run(ctx, p, out)
	return err
}

// shardedOneShot is the one-shot of one shard (--shard): its part of the load unless it is
// complete, then a wait until every shard's part is, then its part of the run.
func shardedOneShot(ctx context.Context, out run.Out, p run.RunPlan, lp run.LoadPlan, shard workload.Shard) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if shard.Sharded() {
		if err := run.ShardLoad(ctx, lp, shard, true, out); err != nil {
			return err
		}
	} else if err := oneShotLoad(ctx, out, p, lp); err != nil {
		return err
	}
	_, err := run.Run(ctx, p, out)
	return err
}

// oneShotLoad loads unless the database already holds a complete load that matches.
func oneShotLoad(ctx context.Context, out run.Out, p run.RunPlan, lp run.LoadPlan) error {
	loaded, err := run.Loaded(ctx, lp.Workload, p.DB)
	if err != nil && loadstate.IsHalfLoaded(err) && p.DB == lp.Workload.Info().DefaultDB {
		// The one-shot's own file, which a load it started left half-done (Ctrl-C, a full disk):
		// load it again, as the first one-shot would have.
		fmt.Fprintf(out.Stderr, "the last load of %s did not complete: loading it again\n", driver.Redact(p.DB))
		lp.Drop = true
		return run.Load(ctx, lp, out)
	}
	if err != nil {
		return err
	}
	if !loaded {
		return run.Load(ctx, lp, out)
	}
	if d, ok := driver.URLDialect(p.DB); ok && d.Name == null.Name {
		fmt.Fprintf(out.Stderr, "no load: the null engine holds no data, and %s runs with its options as given\n", lp.Workload.Info().Name)
		return nil
	}
	if n, ok := lp.Workload.(interface{ NoLoad(db string) string }); ok { // a workload that needed no load says why
		if msg := n.NoLoad(driver.Redact(p.DB)); msg != "" {
			fmt.Fprintln(out.Stderr, msg)
			return nil
		}
	}
	fmt.Fprintf(out.Stderr, "using the %s data already loaded in %s\n", lp.Workload.Info().Name, driver.Redact(p.DB))
	return nil
}

func newLoad(out run.Out, reg workload.Registration) *cobra.Command {
	w := reg.New()
	p := run.LoadPlan{Workload: w}
	var db dbFlags
	var sf shardFlags
	c := &cobra.Command{
		Use:   "load",
		Short: "Load the " + w.Info().Name + " workload's initial data into a database",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			var err error
			if p.DB, err = db.first(out, "load"); err != nil {
				return err
			}
			shard, _, err := sf.resolve(c) // shard.go
			if err != nil {
				return err
			}
			if shard.Sharded() {
				p.ShardWait = sf.wait
				return run.ShardLoad(c.Context(), p, shard, false, out)
			}
			return run.Load(c.Context(), p, out)
		},
	}
	db.add(c, "", false)
	c.Flags().IntVar(&p.Loaders, "loaders", 2, "parallel loaders (changes the speed, never the rows)")
	c.Flags().Uint64Var(&p.Seed, "seed", 1, "root seed of the initial data: the same seed gives the same rows")
	c.Flags().BoolVar(&p.AllowLarge, "allow-large", false, allowLargeHelp)
	c.Flags().BoolVar(&p.Drop, "drop", false, "replace the workload's existing tables (without it, load refuses to touch them; with --shard, shard 0 drops them); candor "+w.Info().Name+" drop removes them without loading")
	addShardFlags(c, &sf, false, true)
	w.Flags(c.Flags(), workload.CmdLoad)
	return c
}

func newRun(out run.Out, reg workload.Registration) *cobra.Command {
	w := reg.New()
	f := &runFlags{}
	var sf shardFlags
	c := &cobra.Command{
		Use:   "run",
		Short: "Run the " + w.Info().Name + " workload against a loaded database and measure it",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			p := f.resolve(c, w)
			if err := f.db.apply(&p); err != nil {
				return err
			}
			shard, at, err := sf.resolve(c) // shard.go
			if err != nil {
				return err
			}
			p.SetShard(shard)
			p.StartAt = at
			_, err = run.Run(c.Context(), p, out)
			return err
		},
	}
	addRunFlags(c, f, w.Info(), false)
	c.Flags().StringArrayVar(&f.plan.SLOs, "slo", nil, "a latency budget judged on the measurement window, TYPE.PERCENTILE<=DURATION ("+w.Info().SLOExample+"); repeatable or comma-separated; one not met fails the run (exit status 1); types: "+strings.Join(w.Ops(), ", "))
	addShardFlags(c, &sf, true, false)
	w.Flags(c.Flags(), workload.CmdRun)
	return c
}

func newCheck(out run.Out, reg workload.Registration) *cobra.Command {
	w := reg.New()
	var db dbFlags
	var full bool
	c := &cobra.Command{
		Use:   "check",
		Short: "Check the " + w.Info().Name + " workload's consistency conditions (exit 1 and name the violated ones)",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			url, err := db.first(out, "check")
			if err != nil {
				return err
			}
			return run.Check(c.Context(), w, url, full, out)
		},
	}
	db.add(c, "", false)
	c.Flags().BoolVar(&full, "full", false, "also the expensive conditions"+fullHelp[w.Info().Name])
	return c
}

// allowLargeHelp is --allow-large's help, the load safety override (run/loadsafety.go).
var allowLargeHelp = "load even past the load safety bounds (more than " + strconv.Itoa(int(run.MaxLoadTime.Hours())) + " h at a fast load rate for the engine, more than half the memory candor may use, more than the disk's free space; docs/load-safety.md); the checks still print their figures"
