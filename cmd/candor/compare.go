package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/compare"
	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/run"
	"github.com/candor-bench/candor/userr"
)

// newCompare is `candor compare A B`: two saved runs side by side, with what is noise and what is not.
func newCompare(out run.Out) *cobra.Command {
	var asJSON bool
	var kind string
	var o compare.Options
	c := &cobra.Command{
		Use:   "compare A B",
		Short: "Compare two saved runs (their --out directories) per type, and say which differences are larger than the noise",
		Long: `Puts two runs side by side per transaction type: throughput per minute and the response-time
percentiles p50, p90, p99 and p99.9, the relative change from A to B, its 95% interval and whether it
is significant. Everything comes from the intervals inside each run's measurement window in its
latency.hlog: throughput from per-interval rates with standard errors corrected for autocorrelation,
percentiles from a bootstrap over intervals (reproducible: a fixed seed). Conditions that differ
between the runs (mode, warehouses, terminals, database version and settings, seeds...) are listed
first: the comparison may be apples to oranges.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageError{fmt.Errorf("candor compare takes two directories, the --out of two runs (got %d arguments)", len(args))}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			k, ok := measure.ParseKind(kind)
			if !ok || k == measure.ErrorResponse {
				return userr.Errorf("--kind %q is not a latency: use response, service or lag", kind)
			}
			o.Kind = k
			a, err := compare.Load(args[0])
			if err != nil {
				return err
			}
			b, err := compare.Load(args[1])
			if err != nil {
				return err
			}
			cmp := compare.Compare(a, b, o)
			if asJSON {
				enc := json.NewEncoder(out.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(cmp)
			}
			compare.Print(out.Stdout, cmp)
			return nil
		},
	}
	fs := c.Flags()
	fs.BoolVar(&asJSON, "json", false, "print the comparison as JSON")
	fs.StringVar(&kind, "kind", "response", "latency compared: response (from the intended start), service or lag")
	fs.IntVar(&o.Bootstrap.Resamples, "resamples", compare.DefaultResamples, "bootstrap resamples per run")
	fs.Uint64Var(&o.Bootstrap.Seed, "bootstrap-seed", compare.DefaultSeed, "seed of the bootstrap's resampling (the same seed gives the same intervals)")
	return c
}
