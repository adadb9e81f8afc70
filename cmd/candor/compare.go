package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/compare"
	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/run"
	"github.com/candor-bench/candor/userr"
)

// errGate is the exit status 1 of a comparison that breached a --fail-on rule: the lines are
// already printed.
type errGate struct{ n int }

func (e errGate) Error() string {
	return fmt.Sprintf("the comparison breached %d --fail-on rule(s): see the FAIL lines", e.n)
}

// newCompare is `candor compare A B`: two saved runs side by side, with what is noise and what is not.
func newCompare(out run.Out) *cobra.Command {
	var asJSON bool
	var kind string
	var failOn []string
	var o compare.Options
	var minChange string
	c := &cobra.Command{
		Use:   "compare A B | compare A1 A2... -- B1 B2...",
		Short: "Compare saved runs (their --out directories) per type, say which differences are larger than the noise, and gate on them",
		Long: `Puts two runs side by side per transaction type: throughput per minute and the response-time
percentiles p50, p90, p99 and p99.9, the relative change from A to B, its 95% interval and whether it
is significant. The figures are each run's own, as candor report gives them (its window's count and
histograms, from latency.hlog); their noise comes from the run's measured intervals: throughput's
standard error from the intervals' rates corrected for autocorrelation, the percentiles' from the
intervals' own values at each percentile (a Hodges-Lehmann shift with Mann-Whitney's interval), or
a bootstrap over intervals where they hold too few events (reproducible: a fixed seed). Conditions that differ between the runs (mode,
terminals, database version and settings, seeds...) are listed first, rounded: the comparison may be
apples to oranges. Runs of different workloads are refused.

Several runs per side, A1 A2 A3 -- B1 B2 B3 (a directory whose subdirectories are runs counts as
its runs; flags go before the --): the noise is then the spread between runs of a side, which is what
a nightly job faces.

--fail-on RULE (repeatable) makes the comparison a gate: [TYPE.]METRIC>+N% or [TYPE.]METRIC<-N%,
METRIC one of throughput, p50, p90, p99, p99.9; without TYPE every operation. The exit status is 1
when a rule is breached, that is when the change is significant and beyond N% in the rule's
direction (one line per breach), 0 otherwise, 2 for a bad rule. See docs/compare.md.`,
		Example: `  candor compare results/base results/cand
  candor compare results/base results/cand --fail-on 'new_order.p99>+10%' --fail-on 'throughput<-5%'
  candor compare --fail-on 'throughput<-5%' base1 base2 base3 -- cand1 cand2 cand3`,
		Args: func(c *cobra.Command, args []string) error {
			if dash := c.ArgsLenAtDash(); dash >= 0 {
				if dash == 0 || dash == len(args) {
					return usageError{fmt.Errorf("candor compare A... -- B... takes runs on both sides of -- (got %d before and %d after)", dash, len(args)-dash)}
				}
				return nil
			}
			if len(args) != 2 {
				return usageError{fmt.Errorf("candor compare takes two directories, the --out of two runs, or several runs per side around -- (got %d arguments)", len(args))}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			k, ok := measure.ParseKind(kind)
			if !ok || k == measure.ErrorResponse {
				return userr.Errorf("--kind %q is not a latency: use response, service or lag", kind)
			}
			o.Kind = k
			mc, err := parseMinChange(minChange)
			if err != nil {
				return err
			}
			o.MinChange = mc
			rules, err := compare.ParseRules(failOn)
			if err != nil {
				return err
			}
			sideA, sideB := args[:1], args[1:]
			many := c.ArgsLenAtDash() >= 0
			if many {
				sideA, sideB = args[:c.ArgsLenAtDash()], args[c.ArgsLenAtDash():]
			}
			as, err := compare.LoadSide(sideA, many)
			if err != nil {
				return err
			}
			bs, err := compare.LoadSide(sideB, many)
			if err != nil {
				return err
			}
			if err := compare.Comparable(as, bs); err != nil {
				return err
			}
			cmp := compare.CompareMany(as, bs, o)
			var breaches []string
			if len(rules) > 0 {
				if cmp.Verdicts, err = compare.Judge(cmp, rules); err != nil {
					return err
				}
				breaches = compare.Breaches(cmp.Verdicts)
				cmp.Failed = len(breaches) > 0
			}
			if asJSON {
				enc := json.NewEncoder(out.Stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(cmp); err != nil {
					return err
				}
			} else {
				compare.Print(out.Stdout, cmp)
				if len(rules) > 0 {
					compare.PrintVerdicts(out.Stdout, cmp.Verdicts)
				}
			}
			if len(breaches) > 0 {
				for _, l := range breaches {
					fmt.Fprintln(out.Stderr, l)
				}
				return errGate{len(breaches)}
			}
			return nil
		},
	}
	fs := c.Flags()
	fs.BoolVar(&asJSON, "json", false, "print the comparison as JSON (with every condition that differs, unrounded, and the --fail-on verdicts)")
	fs.StringVar(&kind, "kind", "response", "latency compared: response (from the intended start), service or lag")
	fs.StringArrayVar(&failOn, "fail-on", nil, "a rule, [TYPE.]METRIC>+N% or [TYPE.]METRIC<-N% (new_order.p99>+10%, throughput<-5%): exit 1 when the change is significant and beyond it; repeat for several")
	fs.StringVar(&minChange, "min-change", fmt.Sprintf("%g%%", 100*compare.DefaultMinChange), "the least change called significant, in percent: a change within it never is, however narrow its interval (runs made one after the other on a shared host drift by a few percent); 0 for none")
	fs.IntVar(&o.Bootstrap.Resamples, "resamples", compare.DefaultResamples, "bootstrap resamples per run")
	fs.Uint64Var(&o.Bootstrap.Seed, "bootstrap-seed", compare.DefaultSeed, "seed of the bootstrap's resampling (the same seed gives the same intervals)")
	return c
}

// parseMinChange reads --min-change: a percent (5% or 5), at least 0 and below 100.
func parseMinChange(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%")), 64)
	if err != nil || math.IsNaN(v) || v < 0 || v >= 100 {
		return 0, userr.Errorf("--min-change %q is not a percent from 0 to below 100: write for example --min-change 5%%, or 0 for none", s)
	}
	return v / 100, nil
}
