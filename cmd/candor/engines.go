package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/report/html"
	"github.com/candor-bench/candor/run"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/sysbench"
	"github.com/candor-bench/candor/workload/tpcc"
)

// `candor NAME compare-engines`: two engines on the same tests, each test run on A then on B, each
// run a normal result directory under --out, then the table of their latencies and B/A multiples
// (printed, engines.json, index.html). Workload-neutral but for engineSuites: a workload names its
// tests' flag, its suites and what its load needs for them, or, when its runs are rounds of one mix
// (TPC-C), the operations compared one by one beside each run's headline figure.

// engineSuite is what compare-engines needs to know of a workload.
type engineSuite struct {
	// testFlag is the workload's flag that picks one test (sysbench's --test).
	testFlag string
	// suites are the named lists of tests; defSuite the one run when neither --tests nor --suite
	// is given.
	suites   map[string][]string
	defSuite string
	// loadArgs are the workload's load flags the tests need (sysbench's --dolt-tables).
	loadArgs func(tests []string) []string
	// group is a test's group in the table's means ("" for none).
	group func(test string) string

	// ops, for a workload without tests to pick (no testFlag): its runs are --rounds rounds of the
	// same mix, each compared by its headline figure and by each of ops' latency, failures and
	// retries; opWord names them in the table ("transaction").
	ops    []string
	opWord string
	// opNotes say what the table cannot (how an operation is timed).
	opNotes []string
	// mode is the runs' mode unless --mode is given ("": the workload's first; the flag hidden).
	mode workload.Mode
}

// rounds says the runs are rounds of one mix rather than tests.
func (es engineSuite) rounds() bool { return es.testFlag == "" }

var engineSuites = map[string]engineSuite{
	"sysbench": {testFlag: "test", suites: sysbench.Suites(), defSuite: "dolt", loadArgs: sysbench.LoadArgs, group: sysbench.Group},
	// TPC-C in throughput mode by default: terminals without keying and think times, so tpmC is
	// what each engine sustains (spec mode's is capped at 12.86 per warehouse).
	"tpcc": {ops: tpcc.OpNames, opWord: "transaction", mode: workload.ModeThroughput, opNotes: []string{
		"delivery is the time to queue the deferred Delivery; delivery_deferred is its work on the database, timed from when it was queued (clause 2.7.2)"}},
}

func newCompareEngines(out run.Out, reg workload.Registration) *cobra.Command {
	tmpl := reg.New()
	in := tmpl.Info()
	es := engineSuites[in.Name]
	f := &runFlags{}
	var tests, suite string
	var rounds int
	var loaders int
	var loadSeed uint64
	var reload bool
	wfs := pflag.NewFlagSet(in.Name, pflag.ContinueOnError)
	c := &cobra.Command{
		Use:   "compare-engines",
		Short: es.short(),
		Long:  es.help(in),
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			urls, err := f.db.all()
			if err != nil {
				return err
			}
			if len(urls) != 2 {
				return userr.Errorf("compare-engines takes two --db, A and B (got %d): give --db URL-A --db URL-B", len(urls))
			}
			var list []string
			var name string
			switch {
			case es.rounds() && (c.Flags().Changed("tests") || c.Flags().Changed("suite")):
				return userr.Errorf("%s's compare-engines has no tests to pick: each round runs its whole mix; drop --tests and --suite (--rounds N runs it N times)", in.Name)
			case es.rounds() && rounds < 1:
				return userr.Errorf("--rounds must be at least 1 (got %d): give how many times to run the mix on A then on B", rounds)
			case es.rounds():
				for i := range rounds {
					list = append(list, fmt.Sprint(i+1))
				}
			default:
				if list, name, err = es.pick(tests, suite, c.Flags().Changed("tests")); err != nil {
					return err
				}
				if wfs.Lookup(es.testFlag).Changed {
					return userr.Errorf("compare-engines runs the tests of --tests or --suite: give --tests %s instead of --%s", wfs.Lookup(es.testFlag).Value, es.testFlag)
				}
			}
			var wargs []string                  // the workload's flags as given, for every load and run
			wfs.VisitAll(func(fl *pflag.Flag) { // parsed on c's flags: Changed is the flag's own
				if fl.Changed {
					wargs = append(wargs, "--"+fl.Name+"="+fl.Value.String())
				}
			})
			dir := f.plan.Out
			if dir == "" {
				dir = run.DefaultOut(in.Name+"-engines", time.Now())
			}
			if _, err := os.Stat(filepath.Join(dir, report.EnginesFile)); err == nil && !f.plan.Replace {
				return userr.Errorf("%s already holds a comparison of engines: give another --out, or --replace", dir)
			}
			newW := func(cmd workload.Command, extra ...string) (workload.Workload, error) {
				w := reg.New()
				fs := pflag.NewFlagSet(in.Name, pflag.ContinueOnError)
				w.Flags(fs, cmd)
				var args []string
				for _, a := range append(slices.Clone(wargs), extra...) {
					if fs.Lookup(strings.SplitN(strings.TrimPrefix(a, "--"), "=", 2)[0]) != nil {
						args = append(args, a)
					}
				}
				if err := fs.Parse(args); err != nil {
					return nil, userr.Errorf("%v", err)
				}
				return w, nil
			}
			// Every run's plan, validated before anything connects.
			type job struct {
				test string
				side int
				plan run.RunPlan
			}
			var jobs []job
			for i, t := range list {
				for side, url := range urls {
					var testArgs []string
					dirName := "round"
					if !es.rounds() {
						testArgs, dirName = []string{"--" + es.testFlag + "=" + t}, t
					}
					w, err := newW(workload.CmdRun, testArgs...)
					if err != nil {
						return err
					}
					p := f.resolve(c, w)
					p.DB, p.ExtraDB = url, nil
					p.Out = filepath.Join(dir, fmt.Sprintf("%02d-%s-%s", i+1, dirName, "AB"[side:side+1]))
					if err := p.Validate(); err != nil {
						return err
					}
					jobs = append(jobs, job{test: t, side: side, plan: p})
				}
			}
			ctx := c.Context()
			rout := out // each run's summary is in its directory; the table is the command's output
			rout.Stdout = io.Discard
			var loadArgs []string
			if es.loadArgs != nil {
				loadArgs = es.loadArgs(list)
			}
			for _, url := range urls {
				lw, err := newW(workload.CmdLoad, loadArgs...)
				if err != nil {
					return err
				}
				lp := run.LoadPlan{Workload: lw, DB: url, Loaders: loaders, Seed: loadSeed, Drop: reload, Quiet: f.plan.Quiet}
				if !reload {
					loaded, err := run.Loaded(ctx, lw, url)
					if err != nil {
						return err
					}
					if loaded {
						fmt.Fprintf(out.Stderr, "using the %s data already loaded in %s\n", in.Name, driver.Redact(url))
						continue
					}
				}
				if err := run.Load(ctx, lp, rout); err != nil {
					return err
				}
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return userr.Errorf("cannot make --out %s: %v", dir, err)
			}
			cmp := &report.EngineComparison{Workload: in.Name, Suite: name, KeyOp: in.KeyOp, Ops: es.ops, OpWord: es.opWord, OpNotes: es.opNotes}
			var setups [2]string // each engine's first run's setup ("1 warehouse, interactive")
			for side, url := range urls {
				d, _ := driver.URLDialect(url)
				cmp.Engines[side] = report.Engine{Label: "AB"[side : side+1], DB: driver.Redact(url), Dialect: d.Name}
			}
			var first *report.Result
			for _, j := range jobs {
				if j.side == 0 {
					et := report.EngineTest{Name: j.test}
					if es.group != nil {
						et.Group = es.group(j.test)
					}
					cmp.Tests = append(cmp.Tests, et)
				}
				t := &cmp.Tests[len(cmp.Tests)-1]
				rel, _ := filepath.Rel(dir, j.plan.Out)
				er := report.EngineRun{Dir: filepath.ToSlash(rel)}
				fmt.Fprintf(out.Stderr, "%s%s on %s (%s)\n", map[bool]string{true: "round "}[es.rounds()], j.test, cmp.Engines[j.side].Label, cmp.Engines[j.side].DB)
				res, err := run.Run(ctx, j.plan, rout)
				if ctx.Err() != nil {
					return err
				}
				if res == nil && userr.Is(err) {
					// Input the run refuses against the loaded data (spec mode's --terminals against
					// the warehouses loaded): every later run would be refused the same way.
					return userr.Errorf("%s on %s: %v (compare-engines stopped: the other runs would be refused the same way)", map[bool]string{true: "round ", false: "test "}[es.rounds()]+j.test, cmp.Engines[j.side].Label, err)
				}
				if res != nil {
					// the run's own figures, as its result.json gives them
					res, err = runResult(j.plan.Out, err)
				}
				switch {
				case res == nil && err != nil:
					er.Failed = err.Error()
				case res != nil:
					if first == nil {
						first = res
					}
					if setups[j.side] == "" {
						setups[j.side] = res.Setup
					}
					if e := &cmp.Engines[j.side]; e.Server == "" {
						e.Server = cmpOr(res.Database.Version, res.Database.Kind) // "MariaDB 10.11.6", "PostgreSQL 16.4"
					}
					if op := res.Operations[in.KeyOp]; op != nil && op.Count > 0 {
						er.Count, er.Errors = op.Count, op.Errors
						er.Ms = report.Latency{P50: op.ResponseMs.P50, P95: op.ResponseMs.P95, Mean: op.ResponseMs.Mean}
					} else {
						er.Failed = "no " + in.KeyOp + " completed"
					}
					if len(es.ops) > 0 && len(res.Headline) > 0 {
						h := res.Headline[0]
						er.Headline = &h
						for _, op := range es.ops {
							er.Ops = append(er.Ops, report.EngineOpOf(res, op))
						}
					}
					if err != nil && er.Failed == "" {
						er.Failed = err.Error()
					}
				}
				t.Runs[j.side] = er
			}
			cmp.Finish()
			cmp.Conditions = engineConditions(first, jobs[0].plan, list, es.rounds())
			if setups[0] != setups[1] && setups[0] != "" && setups[1] != "" {
				cmp.Conditions = append(cmp.Conditions, fmt.Sprintf("the engines' runs differ: A %s, B %s", setups[0], setups[1]))
			}
			b, err := json.MarshalIndent(cmp, "", "  ")
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, report.EnginesFile), append(b, '\n'), 0o644); err != nil {
				return fmt.Errorf("writing %s: %w", report.EnginesFile, err)
			}
			if err := html.WriteEngines(filepath.Join(dir, report.EnginesHTML), cmp); err != nil {
				return fmt.Errorf("writing %s: %w", report.EnginesHTML, err)
			}
			cmp.WriteText(out.Stdout)
			fmt.Fprintf(out.Stdout, "saved in %s (%s, %s, one directory per run)\n", dir, report.EnginesFile, report.EnginesHTML)
			failed := 0
			for _, t := range cmp.Tests {
				for _, r := range t.Runs {
					if r.Failed != "" {
						failed++
					}
				}
			}
			if failed > 0 {
				return fmt.Errorf("%d of the %d runs gave no figures or failed: see the lines above the conditions", failed, len(jobs))
			}
			return nil
		},
	}
	fin := in // the runs' mode first: the --mode flag's default
	if es.mode != "" {
		fin.Modes = []workload.Mode{es.mode}
		for _, m := range in.Modes {
			if m != es.mode {
				fin.Modes = append(fin.Modes, m)
			}
		}
	}
	addRunFlags(c, f, fin, false)
	tmpl.Flags(wfs, workload.CmdRun)
	c.Flags().AddFlagSet(wfs)
	if es.rounds() {
		c.Flags().IntVar(&rounds, "rounds", 1, "how many times to run the mix on A then on B, round after round")
		c.Flags().StringVar(&tests, "tests", "", "")
		c.Flags().StringVar(&suite, "suite", "", "")
		_ = c.Flags().MarkHidden("tests") // refused: another workload's (sysbench's) choice of tests
		_ = c.Flags().MarkHidden("suite")
	} else {
		c.Flags().StringVar(&tests, "tests", "", "the tests to run, comma-separated (default: --suite's)")
		c.Flags().StringVar(&suite, "suite", es.defSuite, "a named list of tests: "+suiteNames(es))
	}
	c.Flags().IntVar(&loaders, "loaders", 2, "parallel loaders, when a database must be loaded first")
	c.Flags().Uint64Var(&loadSeed, "load-seed", 1, "root seed of the initial data, when a database must be loaded first")
	c.Flags().BoolVar(&reload, "reload", false, "load each database again (dropping its data) even when it holds a load that fits")
	if es.mode == "" {
		_ = c.Flags().MarkHidden("mode") // the tests run in the workload's first mode (sysbench's throughput mode)
	}
	if !es.rounds() {
		_ = c.Flags().MarkHidden(es.testFlag)
	}
	c.Flags().Lookup("out").Usage = fmt.Sprintf("directory for %s, %s and one result directory per run (default results/%s-engines-TIMESTAMP)", report.EnginesFile, report.EnginesHTML, in.Name)
	c.Flags().Lookup("db").Usage = "a database URL (" + strings.TrimPrefix(dbUsage, "database URL: ") + "): give it twice, A then B"
	return c
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// pick is the tests to run: --tests, else the suite's.
func (es engineSuite) pick(tests, suite string, given bool) ([]string, string, error) {
	if given {
		var list []string
		for _, t := range strings.Split(tests, ",") {
			if t = strings.TrimSpace(t); t != "" {
				list = append(list, t)
			}
		}
		if len(list) == 0 {
			return nil, "", userr.Errorf("--tests is empty: give tests separated by commas, or --suite %s", es.defSuite)
		}
		return list, "", nil
	}
	list, ok := es.suites[suite]
	if !ok {
		return nil, "", userr.Errorf("--suite %q is not a suite: give one of %s", suite, suiteNames(es))
	}
	return list, suite, nil
}

func suiteNames(es engineSuite) string {
	var n []string
	for k, v := range es.suites {
		n = append(n, fmt.Sprintf("%s (%d tests)", k, len(v)))
	}
	slices.Sort(n)
	return strings.Join(n, ", ")
}

// engineConditions are what the runs shared, from the first run's result and plan.
func engineConditions(r *report.Result, p run.RunPlan, tests []string, rounds bool) []string {
	var c []string
	if r != nil {
		c = append(c, fmt.Sprintf("host %s, %d CPUs, %s/%s", r.Driver.Hostname, r.Driver.CPUs, r.Driver.GoOS, r.Driver.GoArch),
			"started "+r.StartedAt.UTC().Format(time.DateTime)+" UTC",
			fmt.Sprintf("each run %s measured after %s of warm-up, %d terminal(s), %s mode", p.Duration, p.Warmup, r.Terminals, r.Mode))
		if r.Setup != "" {
			c = append(c, "first run: "+r.Setup)
		}
	}
	if rounds {
		return append(c, fmt.Sprintf("%d round%s of the same mix, each on A then on B", len(tests), map[bool]string{true: "", false: "s"}[len(tests) == 1]))
	}
	return append(c, fmt.Sprintf("%d tests, each on A then on B", len(tests)))
}

// runResult is the result a run saved in dir (its result.json), with the run's error err (a failed
// verdict: the run has figures); a result.json that cannot be read is the run's error.
func runResult(dir string, err error) (*report.Result, error) {
	r, rerr := report.Read(dir)
	if rerr != nil {
		return nil, rerr
	}
	return r, err
}

// short is compare-engines' one line of help.
func (es engineSuite) short() string {
	if es.rounds() {
		return "Run the same mix on two databases, A then B per round, and print each engine's headline figure and latency per " + es.opWord + " type, and B's as a multiple of A's"
	}
	return "Run the same tests on two databases, A then B per test, and print each test's latency on both and B's as a multiple of A's"
}

// help is compare-engines' long help: its tests and suites, or its rounds of one mix.
func (es engineSuite) help(in workload.Info) string {
	if es.rounds() {
		return fmt.Sprintf(`Run %s's mix on the first --db (A), then on the second (B), round after round (--rounds),
each run saved as a normal result directory under --out. Then print, per round and overall, A's and
B's headline figure as each run's result.json gives it and B's as a multiple of A's, with each
engine's failed and retried %ss; per %s type, A's and B's p95 and mean response time
(in ms, from the intended start) and B/A; and the conditions. They are written to %s and
%s too. The runs are in %s mode unless --mode says otherwise; --terminals, --duration,
--warmup and the workload's flags are as for run. Each database is loaded first unless it holds a
load that fits (--reload loads it again).`,
			in.Name, es.opWord, es.opWord, report.EnginesFile, report.EnginesHTML, es.mode)
	}
	return fmt.Sprintf(`Run each test on the first --db (A), then on the second (B), test after test, each run saved as a
normal result directory under --out; then print per test A's and B's latency (p50, p95 and mean of
the %s, in ms) and B's as a multiple of A's, the mean multiples per group, and the conditions, and
write them to %s and %s. Each database is loaded first unless it holds a load that fits
(--reload loads it again). Suites: %s.`, in.KeyOp, report.EnginesFile, report.EnginesHTML, suiteNames(es))
}
