package main

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/run"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

// Open-loop flags (--mode rate), the one-shot's comparison of loads, and `candor NAME search`.

// addRateFlags adds the open-loop flags of `candor NAME run` (and the one-shot's open-loop runs).
func addRateFlags(c *cobra.Command, p *run.RunPlan) {
	fs := c.Flags()
	fs.StringVar(&p.Rate, "rate", "", "mode rate: operations per second, all types together (500), or a range (100..1000) with --step and --step-every")
	fs.Float64Var(&p.Step, "step", 0, "mode rate: how much the rate rises (or falls) from one step of a --rate range to the next")
	fs.DurationVar(&p.StepEvery, "step-every", 0, "mode rate: how long each step of a --rate range lasts (the measurement is all the steps)")
	fs.BoolVar(&p.Ramp, "ramp", false, "mode rate: a --rate range (100..1000) rises linearly over --duration instead of in steps")
	fs.StringVar(&p.Arrivals, "arrivals", "poisson", "mode rate: poisson (independent arrivals) or constant (evenly spaced)")
	fs.IntVar(&p.MaxBacklog, "max-backlog", run.DefaultMaxBacklog, "mode rate: arrivals that may wait for a free connection; past it they are dropped, counted, and the rate is not sustained")
}

// addOneShotFlags adds the flags of the one-shot's comparison of loads.
func addOneShotFlags(c *cobra.Command) {
	fs := c.Flags()
	fs.Duration("peak-duration", 20*time.Second, "the peak probe's measurement (throughput mode, at the terminals a sweep of short runs finds, within the probe's time, or at --terminals)")
	fs.Duration("peak-warmup", 5*time.Second, "the peak probe's warm-up")
	fs.String("loads", "50,80", "the open-loop runs, in percent of the peak, each --duration after --warmup")
}

// oneShotLoads is the one-shot's plan of loads from its flags.
func oneShotLoads(c *cobra.Command, p run.RunPlan) (*run.LoadsPlan, error) {
	fs := c.Flags()
	pd, _ := fs.GetDuration("peak-duration")
	pw, _ := fs.GetDuration("peak-warmup")
	loads, _ := fs.GetString("loads")
	pcts, err := run.ParsePercents(loads)
	if err != nil {
		return nil, userr.Errorf("%s", err.Error())
	}
	return &run.LoadsPlan{Base: p, PeakDuration: pd, PeakWarmup: pw, Percents: pcts}, nil
}

func newSearch(out run.Out, reg workload.Registration) *cobra.Command {
	w := reg.New()
	in := w.Info()
	f := &runFlags{}
	sp := run.SearchPlan{}
	c := &cobra.Command{
		Use:   "search",
		Short: "Find the highest arrival rate whose steady-state tails meet every latency budget (--slo)",
		Long: `Probe open-loop arrival rates, stepping up (x2 from --start-rate) while every budget is met and
the rate is sustained, then bisect between the highest rate that passed and the lowest that failed. The answer is then
confirmed: --confirm longer probes (--confirm-probe each) must all pass at it; while one fails the
rate steps down by twice --precision, so a short probe's luck is never the answer.
Each probe is an open-loop run with its own warm-up, saved like any run under --out; search.json
holds the budgets, the answer (max_rate, operations per second of all types together) and every
probe with its tails. Once the last probe has ended, the consistency conditions are checked (the
quick ones; --check-full for all, --no-check to skip): a violated one is exit status 1.

  candor ` + in.Name + ` search --db URL --slo '` + in.SLOExample + `'`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			p := f.resolve(c, w)
			if err := f.db.apply(&p); err != nil {
				return err
			}
			if !c.Flags().Changed("out") {
				p.Out = run.DefaultOut("search", time.Now())
			}
			sp.Base, sp.Out = p, p.Out
			_, err := run.Search(c.Context(), sp, out)
			return err
		},
	}
	f.db.add(c, "", true)
	fs := c.Flags()
	fs.StringArrayVar(&sp.SLOs, "slo", nil, "a budget, TYPE.PERCENTILE<=DURATION ("+in.SLOExample+"); repeat for several, all must be met; types: "+strings.Join(w.Ops(), ", "))
	fs.DurationVar(&f.plan.Duration, "probe", 20*time.Second, "each probe's measurement, after its warm-up")
	fs.DurationVar(&f.plan.Warmup, "warmup", 5*time.Second, "each probe's warm-up (excluded from its tails)")
	fs.Float64Var(&sp.StartRate, "start-rate", 50, "the first rate probed, per second (all types together)")
	fs.Float64Var(&sp.Precision, "precision", 0.05, "stop bisecting once the highest passing and lowest failing rates are this close (0.05: 5%)")
	fs.IntVar(&sp.MaxProbes, "max-probes", 12, "at most this many probes")
	fs.IntVar(&sp.Confirm, "confirm", 2, "confirm the answer: this many longer probes (--confirm-probe) must pass at it, stepping down while one fails (0: give the search's answer unconfirmed)")
	fs.DurationVar(&sp.ConfirmProbe, "confirm-probe", time.Minute, "each confirming probe's measurement, after its warm-up")
	fs.IntVar(&sp.ConfirmRounds, "confirm-rounds", 5, "at most this many rates tried by the confirmation")
	fs.IntVar(&f.plan.Connections, "connections", 0, "database connections (default: as in rate mode, "+orWorkloads(in.ConnectionsHelp)+")")
	fs.IntVar(&f.plan.Terminals, "terminals", 0, "terminal states arrivals are drawn from (default: "+orWorkloads(in.TerminalsHelp)+")")
	w.Flags(fs, workload.CmdRun)
	fs.StringVar(&f.plan.Arrivals, "arrivals", "poisson", "poisson or constant")
	fs.IntVar(&f.plan.MaxBacklog, "max-backlog", run.DefaultMaxBacklog, "arrivals that may wait for a connection; past it they are dropped and the probe fails")
	fs.DurationVar(&f.plan.Grace, "grace", 5*time.Second, "how long each probe waits for transactions in flight; what is left is incomplete and the probe fails")
	fs.DurationVar(&f.plan.Interval, "interval", 5*time.Second, "length of an interval of each probe's log")
	fs.StringVar(&f.plan.Out, "out", "", "directory for search.json and one result directory per probe (default results/search-TIMESTAMP)")
	fs.BoolVar(&f.plan.Replace, "replace", false, "replace the search saved in --out (without it, an --out that holds a run is refused)")
	fs.Uint64Var(&f.seed, "seed", 0, "root seed of every probe's random inputs (default: a fresh one, stored)")
	fs.StringVar(&f.plan.Isolation, "isolation", "", "read-committed, repeatable-read or serializable (default: the engine's)")
	fs.BoolVar(&f.noCheck, "no-check", false, "skip the consistency check after the last probe")
	fs.BoolVar(&f.fullChk, "check-full", false, "check every consistency condition after the last probe, including the expensive ones")
	fs.StringVar(&f.plan.MetricsAddr, "metrics-addr", "", "serve live Prometheus metrics at http://HOST:PORT/metrics during the whole search, each probe in turn (for example 127.0.0.1:9464; default: none)")
	f.mode = "rate"
	return c
}
