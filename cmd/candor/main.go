// Command candor is a benchmark driver for transactional databases that tells the truth about tail
// latency. This file is the CLI only: flags into typed plans, then a call into package run.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/driver"
	_ "github.com/candor-bench/candor/driver/mysql"
	_ "github.com/candor-bench/candor/driver/postgres"
	_ "github.com/candor-bench/candor/driver/sqlite"
	"github.com/candor-bench/candor/report"
	htmlreport "github.com/candor-bench/candor/report/html"
	"github.com/candor-bench/candor/run"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/version"
	"github.com/candor-bench/candor/workload/tpcc"
)

func main() {
	os.Exit(execute(os.Args[1:]))
}

// execute runs the command line args and returns the exit status: 0 success, 1 a failed run or
// check (or partial results), 2 bad input (usage, URL, unreachable server, mismatched data).
func execute(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		// After the first Ctrl-C the run winds down and saves what it measured; a second one
		// ends the process at once.
		stop()
	}()
	out := run.Out{Stdout: os.Stdout, Stderr: os.Stderr, Terminal: isTerminal(os.Stderr)}
	root := newRoot(out)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, run.ErrCheckFailed):
		fmt.Fprintln(os.Stderr, "candor: a consistency condition is violated (see above)")
		return 1
	case errors.Is(err, run.ErrNoRate):
		fmt.Fprintln(os.Stderr, "candor: "+err.Error()+" (see the table above)")
		return 1
	case errors.Is(err, run.ErrPartial):
		fmt.Fprintln(os.Stderr, "candor: "+err.Error())
		return 1
	case userr.Is(err) || isUsage(err):
		fmt.Fprintln(os.Stderr, "candor: "+err.Error())
		return 2
	default:
		fmt.Fprintln(os.Stderr, "candor: error: "+err.Error())
		return 1
	}
}

// usageError marks flag-parsing problems (unknown flags, bad values) so they exit with status 2.
type usageError struct{ error }

func isUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}

func newRoot(out run.Out) *cobra.Command {
	root := &cobra.Command{
		Use:           "candor",
		Short:         "A benchmark driver for transactional databases that tells the truth about tail latency",
		Version:       version.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%v: see `%s --help`", err, c.CommandPath())}
	})
	var cpuProfile string
	root.PersistentFlags().StringVar(&cpuProfile, "cpuprofile", "", "write a Go CPU profile of candor itself to this file (for candor's developers)")
	_ = root.PersistentFlags().MarkHidden("cpuprofile")
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		if cpuProfile == "" {
			return nil
		}
		f, err := os.Create(cpuProfile)
		if err != nil {
			return userr.Errorf("cannot write the CPU profile %s: %v", cpuProfile, err)
		}
		return pprof.StartCPUProfile(f)
	}
	root.PersistentPostRun = func(*cobra.Command, []string) { pprof.StopCPUProfile() }
	root.AddCommand(newTPCC(out), newReport(out), newCompare(out))
	return root
}

// runFlags are the flags shared by `candor tpcc` and `candor tpcc run`.
type runFlags struct {
	plan     run.RunPlan
	db       dbFlags // --db (repeatable) and --dialect: dbflags.go
	mode     string
	seed     uint64
	noCheck  bool
	fullChk  bool
	warmSet  bool
	outGiven bool
}

func addRunFlags(c *cobra.Command, f *runFlags, oneShot bool) {
	fs := c.Flags()
	dbDefault := ""
	if oneShot {
		dbDefault = run.DefaultSQLite
	}
	f.db.add(c, dbDefault, true)
	fs.IntVar(&f.plan.Warehouses, "warehouses", 0, "warehouses (default: what was loaded)")
	defMode, defTerms := "spec", 0
	if oneShot {
		defMode, defTerms = "throughput", 4
	}
	fs.StringVar(&f.mode, "mode", defMode, "spec (10 terminals per warehouse, keying and think times), throughput (no waits, closed loop) or rate (open-loop arrivals at --rate)")
	fs.IntVar(&f.plan.Terminals, "terminals", defTerms, "terminals in throughput mode (spec mode has 10 per warehouse; default 4); in rate mode the terminal states arrivals are drawn from (default 10 per warehouse)")
	addRateFlags(c, &f.plan) // rate.go
	fs.IntVar(&f.plan.Connections, "connections", 0, "database connections the terminals share (default: one per terminal in throughput mode, 2 per warehouse and at least 4 in spec mode)")
	defDur, defWarm := 10*time.Minute, 2*time.Minute
	if oneShot {
		defDur, defWarm = 45*time.Second, 10*time.Second // each open-loop run of the one-shot
	}
	fs.DurationVar(&f.plan.Duration, "duration", defDur, "measurement interval")
	fs.DurationVar(&f.plan.Warmup, "warmup", defWarm, "warm-up before the measurement (excluded from the results)")
	fs.DurationVar(&f.plan.Grace, "grace", 30*time.Second, "how long to wait for transactions in flight when the measurement ends")
	fs.DurationVar(&f.plan.Interval, "interval", 5*time.Second, "length of a progress and log interval")
	fs.StringVar(&f.plan.Out, "out", "", "directory for result.json and the HdrHistogram interval log (default results/tpcc-TIMESTAMP)")
	fs.Uint64Var(&f.seed, "seed", 0, "root seed of the run's random inputs (default: a fresh one, printed and stored)")
	fs.StringVar(&f.plan.Isolation, "isolation", "", "read-committed, repeatable-read or serializable (default: the engine's; stored in the results)")
	fs.BoolVar(&f.plan.Procedures, "procedures", false, "run each transaction as one call of a stored procedure (PostgreSQL, MySQL, MariaDB; create them with load --procedures or candor tpcc procedures)")
	fs.BoolVar(&f.noCheck, "no-check", false, "skip the consistency check after the run")
	fs.BoolVar(&f.fullChk, "check-full", false, "run every consistency condition after the run, including the expensive ones")
	fs.BoolVarP(&f.plan.Quiet, "quiet", "q", false, "no progress lines")
	fs.StringVar(&f.plan.MetricsAddr, "metrics-addr", "", "serve live Prometheus metrics at http://HOST:PORT/metrics during the run (for example 127.0.0.1:9464; default: none)")
}

// resolve turns the flags into a plan (the parts known without a database).
func (f *runFlags) resolve(c *cobra.Command) run.RunPlan {
	p := f.plan
	p.Mode = tpcc.Mode(strings.ToLower(f.mode))
	if c.Flags().Changed("seed") {
		p.Seed, p.SeedGiven = f.seed, true
	} else {
		p.Seed = freshSeed()
	}
	if p.Mode == tpcc.ModeSpec && !c.Flags().Changed("terminals") {
		p.Terminals = 0
	}
	if p.Out == "" {
		p.Out = "results/tpcc-" + time.Now().Format("20060102-150405")
	}
	p.Check = !f.noCheck
	p.CheckFull = f.fullChk
	p.DurationGiven = c.Flags().Changed("duration")
	return p
}

// freshSeed draws a root seed when the user gave none; it is printed and stored, so the run can be
// repeated with --seed.
func freshSeed() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return uint64(time.Now().UnixNano())
	}
	return binary.LittleEndian.Uint64(b[:]) >> 1 // fits a signed 64-bit column too
}

func newTPCC(out run.Out) *cobra.Command {
	f := &runFlags{}
	var loaders int
	var loadSeed uint64
	c := &cobra.Command{
		Use:   "tpcc",
		Short: "TPC-C (derived, not audited): load, run, check and summarize; subcommands for each part",
		Long: `With no subcommand: load 1 warehouse into the embedded SQLite file candor-tpcc.db (if it is not
loaded yet), find the peak in a short throughput-mode probe (20 s), then run open-loop arrivals at
50% and 80% of that peak (45 s each) and print them side by side, with a consistency check at the
end; each run is saved in its own directory. With --mode, one run of that mode instead. Flags
override everything; the subcommands load, run, check and search do one part each.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			p := f.resolve(c)
			if err := f.db.apply(&p); err != nil {
				return err
			}
			w := p.Warehouses
			if w == 0 {
				w = 1
			}
			var loads *run.LoadsPlan // the peak and open-loop comparison, unless --mode asks for one run
			if !c.Flags().Changed("mode") {
				lp, err := oneShotLoads(c, p) // rate.go
				if err != nil {
					return err
				}
				loads = lp
			}
			return oneShot(c.Context(), out, p, run.LoadPlan{DB: p.DB, Warehouses: w, Loaders: loaders, Seed: loadSeed, Procedures: p.Procedures}, loads)
		},
	}
	addRunFlags(c, f, true)
	c.Flags().IntVar(&loaders, "loaders", 2, "parallel loaders, when the database must be loaded first")
	c.Flags().Uint64Var(&loadSeed, "load-seed", 1, "root seed of the initial data, when the database must be loaded first")
	addOneShotFlags(c) // rate.go
	c.AddCommand(newLoad(out), newRun(out), newCheck(out), newProcedures(out), newSearch(out))
	return c
}

// oneShot loads the database unless it already holds a complete load of the same size, then runs:
// the peak and open-loop comparison of loads, or one run of p when loads is nil.
func oneShot(ctx context.Context, out run.Out, p run.RunPlan, lp run.LoadPlan, loads *run.LoadsPlan) error {
	if loads != nil {
		if err := loads.Validate(); err != nil {
			return err
		}
	} else if err := p.Validate(); err != nil {
		return err
	}
	loaded, err := run.Loaded(ctx, p.DB, lp.Warehouses)
	if err != nil {
		return err
	}
	if !loaded {
		if err := run.Load(ctx, lp, out); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(out.Stderr, "using the TPC-C data already loaded in %s (%d warehouses)\n", driver.Redact(p.DB), lp.Warehouses)
		if lp.Procedures {
			if err := run.Procedures(ctx, p.DB, out); err != nil {
				return err
			}
		}
	}
	if loads != nil {
		_, err = run.Loads(ctx, *loads, out)
		return err
	}
	_, err = run.Run(ctx, p, out)
	return err
}

func newLoad(out run.Out) *cobra.Command {
	var p run.LoadPlan
	var db dbFlags
	c := &cobra.Command{
		Use:   "load",
		Short: "Load the TPC-C initial population (clause 4.3) into a database",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			var err error
			if p.DB, err = db.first(out, "load"); err != nil {
				return err
			}
			return run.Load(c.Context(), p, out)
		},
	}
	db.add(c, "", false)
	c.Flags().IntVar(&p.Warehouses, "warehouses", 1, "warehouses to load")
	c.Flags().IntVar(&p.Loaders, "loaders", 2, "parallel loaders (changes the speed, never the rows)")
	c.Flags().Uint64Var(&p.Seed, "seed", 1, "root seed of the initial data: the same seed gives the same rows")
	c.Flags().BoolVar(&p.Drop, "drop", false, "replace existing TPC-C tables (without it, load refuses to touch them)")
	c.Flags().BoolVar(&p.Procedures, "procedures", false, "also create the stored procedures that run --procedures uses (PostgreSQL, MySQL, MariaDB)")
	return c
}

func newRun(out run.Out) *cobra.Command {
	f := &runFlags{}
	c := &cobra.Command{
		Use:   "run",
		Short: "Run the TPC-C mix against a loaded database and measure it",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			p := f.resolve(c)
			if err := f.db.apply(&p); err != nil {
				return err
			}
			_, err := run.Run(c.Context(), p, out)
			return err
		},
	}
	addRunFlags(c, f, false)
	return c
}

func newCheck(out run.Out) *cobra.Command {
	var db dbFlags
	var full bool
	c := &cobra.Command{
		Use:   "check",
		Short: "Check the consistency conditions of clause 3.3.2 (exit 1 and name the violated ones)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			url, err := db.first(out, "check")
			if err != nil {
				return err
			}
			return run.Check(c.Context(), url, full, out)
		},
	}
	db.add(c, "", false)
	c.Flags().BoolVar(&full, "full", false, "also the expensive conditions (5, 6, 7, 10, 12)")
	return c
}

func newReport(out run.Out) *cobra.Command {
	var htmlFile string
	c := &cobra.Command{
		Use:   "report DIR",
		Short: "Print the summary of a saved run (its --out directory) without a database",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{fmt.Errorf("candor report takes one directory, the --out of a run (got %d arguments)", len(args))}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			// The results directory of a one-shot holds its runs (peak, rate-50, ...): side by side.
			if runs, ok, err := report.ReadLoads(args[0]); ok {
				if err != nil {
					return err
				}
				return reportLoads(out, runs, htmlFile)
			}
			r, err := report.Read(args[0])
			if err != nil {
				return err
			}
			if htmlFile != "" {
				if err := htmlreport.WriteFile(args[0], htmlFile); err != nil {
					return err
				}
				fmt.Fprintf(out.Stderr, "report written to %s\n", htmlFile)
				return nil
			}
			report.Summary(out.Stdout, r)
			return nil
		},
	}
	c.Flags().StringVar(&htmlFile, "html", "", "write the run's report as one self-contained HTML page to this file instead of printing the summary")
	return c
}

// reportLoads prints a one-shot's runs side by side, or writes their page (index.html's) to
// htmlFile, its links to each run's report.html relative to where the file goes.
func reportLoads(out run.Out, runs []report.LoadRun, htmlFile string) error {
	if htmlFile == "" {
		report.PrintLoads(out.Stdout, runs)
		return nil
	}
	abs, err := filepath.Abs(htmlFile)
	if err != nil {
		return userr.Errorf("cannot write %s: %v", htmlFile, err)
	}
	for i := range runs {
		if runs[i].Dir, err = filepath.Abs(runs[i].Dir); err != nil {
			return userr.Errorf("cannot resolve %s: %v", runs[i].Dir, err)
		}
	}
	var buf bytes.Buffer
	if err := htmlreport.RenderLoads(&buf, filepath.Dir(abs), runs); err != nil {
		return err
	}
	if err := os.WriteFile(htmlFile, buf.Bytes(), 0o644); err != nil {
		return userr.Errorf("cannot write %s: %v: choose another file", htmlFile, err)
	}
	fmt.Fprintf(out.Stderr, "report written to %s\n", htmlFile)
	return nil
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
