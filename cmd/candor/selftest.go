package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/run"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

// newSelftest is `candor selftest`: the driver's own ceiling, against the null engine
// (run/selftest.go).
func newSelftest(out run.Out) *cobra.Command {
	sp := run.SelftestPlan{NewWorkload: newWorkloadWith}
	var noRate, noSpec bool
	c := &cobra.Command{
		Use:   "selftest",
		Short: "Measure how much load this driver process generates before it, not the database, is the bottleneck",
		Long: `Runs short probes against the null engine (--db null:, no database: every operation completes
after --service) inside this process and prints (a) the highest open-loop arrival rate it sustains
with the timer lateness p99 within --max-lag, and (b) the most spec-mode TPC-C terminals (10 per
warehouse) it runs with the dispatch lag p99 within --max-lag; so you know how many driver processes
a run needs: for W warehouses, ceil(10W / terminals). Each answer is found by stepping up, then
bisecting, then confirmed by a repeat (--confirm); the defaults take about 3 minutes. The figures depend on the host: run it on the machine
that will drive the benchmark, with nothing else busy.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			sp.Rate, sp.Spec = !noRate, !noSpec
			if !c.Flags().Changed("seed") {
				sp.Seed = freshSeed()
			}
			_, err := run.Selftest(c.Context(), sp, out)
			return err
		},
	}
	fs := c.Flags()
	fs.StringVar(&sp.Workload, "workload", "tpcc", "the workload of the open-loop probes ("+strings.Join(workload.Names(), ", ")+")")
	fs.StringVar(&sp.Service, "service", "none", "the null engine's service time: none, fixed:1ms, exp:2ms (exponential, mean 2 ms) or uniform:1ms..3ms")
	fs.DurationVar(&sp.MaxLag, "max-lag", time.Millisecond, "the budget of the timer lag's p99")
	fs.DurationVar(&sp.Probe, "probe", 5*time.Second, "open loop: each probe's measurement")
	fs.DurationVar(&sp.Warmup, "warmup", 2*time.Second, "open loop: each probe's warm-up")
	fs.Float64Var(&sp.StartRate, "start-rate", 2000, "open loop: the first rate probed (arrivals per second), multiplied by 4 while probes pass")
	fs.IntVar(&sp.RateProbes, "rate-probes", 6, "open loop: the most probes")
	fs.DurationVar(&sp.SpecProbe, "spec-probe", 10*time.Second, "spec mode: each probe's measurement")
	fs.DurationVar(&sp.SpecWarmup, "spec-warmup", 5*time.Second, "spec mode: each probe's warm-up (the terminals start in steady state; this covers the process's own start)")
	fs.IntVar(&sp.StartWarehouses, "start-warehouses", 250, "spec mode: the first warehouse count probed, multiplied by 4 while probes pass (250 warehouses make about 1,000 operations in a 10 s probe, enough for a p99)")
	fs.IntVar(&sp.MaxWarehouses, "max-warehouses", 100000, "spec mode: the most warehouses probed (a million terminals; each holds about 110 bytes)")
	fs.IntVar(&sp.SpecProbes, "spec-probes", 6, "spec mode: the most probes (250 warehouses times 4 per passing probe reach 64,000 in five)")
	fs.IntVar(&sp.Confirm, "confirm", 1, "repeats (inputs from seeds of their own) that must pass at each answer before it is given, stepping down by a quarter while one fails; 0 gives the answers unconfirmed")
	fs.BoolVar(&noRate, "no-rate", false, "skip the open-loop search")
	fs.BoolVar(&noSpec, "no-spec", false, "skip the spec-mode search")
	fs.Uint64Var(&sp.Seed, "seed", 0, "root seed of the probes' inputs and service times (default: a fresh one)")
	fs.StringVar(&sp.Out, "out", "", "also write the result as JSON to this file")
	return c
}

// newWorkloadWith makes a fresh workload of the name, its flags at their defaults but for set, as
// `candor NAME run --FLAG VALUE` would have them.
func newWorkloadWith(name string, set map[string]string) (workload.Workload, error) {
	reg, ok := workload.Lookup(name)
	if !ok {
		return nil, userr.Errorf("--workload %s is not a workload candor has: use one of %s", name, strings.Join(workload.Names(), ", "))
	}
	w := reg.New()
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	w.Flags(fs, workload.CmdRun)
	for k, v := range set {
		if err := fs.Set(k, v); err != nil {
			return nil, fmt.Errorf("selftest: setting %s's --%s %s: %w", name, k, v, err)
		}
	}
	return w, nil
}
