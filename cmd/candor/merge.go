package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/merge"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/run"
	"github.com/candor-bench/candor/userr"
)

// newMerge is `candor merge DIR... --out DIR`: one result from the shards of one run.
func newMerge(out run.Out) *cobra.Command {
	var o merge.Options
	var check, checkFull bool
	var db string
	c := &cobra.Command{
		Use:   "merge DIR... --out DIR",
		Short: "Merge the results of the shards of one run (--shard i/N) into one result",
		Long: `Reads each shard's --out directory (result.json and latency.hlog), checks that they are the shards
of one run (same workload, mode, database, flags apart from --shard and --out, root seed, shard count,
each index once, finished), adds their histograms bucket by bucket (no percentile is ever averaged),
sums their counts and rates, recomputes the workload's figures, verdicts and warnings from the merged
totals (TPC-C: tpmC, efficiency, the 90th-percentile limits), and writes result.json, latency.hlog and
report.html into --out, in the shape of a single run's: candor report and candor compare read it.
The consistency check runs once, after all shards: --check --db URL.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{fmt.Errorf("candor merge takes the --out directory of each shard (got none)")}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if (check || checkFull) && db == "" {
				return userr.Errorf("--check needs --db URL: the database the shards ran on")
			}
			if db != "" && !check && !checkFull {
				return userr.Errorf("--db is only for --check: pass --check too, or drop --db")
			}
			res, err := merge.Merge(args, o)
			if err != nil {
				return err
			}
			if check || checkFull {
				if err := merge.CheckAfter(c.Context(), res, o.Out, db, checkFull); err != nil {
					return err
				}
			}
			report.Summary(out.Stdout, res)
			fmt.Fprintf(out.Stderr, "merged %d shard%s into %s: %s, %s, %s\n", len(res.Shards), plural(len(res.Shards)), o.Out,
				report.ResultFile, report.LogFile, "report.html")
			switch {
			case res.Partial:
				return run.ErrPartial
			case checkFailed(res.Checks):
				return run.ErrCheckFailed
			case res.FailureVerdict != nil && !res.FailureVerdict.Pass:
				return run.ErrFailures
			case !report.BudgetsMet(res): // the shards' --slo on the merged window
				return run.SLOsError(res)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&o.Out, "out", "", "directory the merged run is written into (required)")
	f.BoolVar(&o.Replace, "replace", false, "let --out hold a saved run, which the merged one replaces")
	f.BoolVar(&o.Partial, "partial", false, "merge although shards are missing or partial (the merged result is then partial and says which)")
	f.BoolVar(&check, "check", false, "run the workload's consistency check once on --db after merging")
	f.BoolVar(&checkFull, "check-full", false, "like --check, with the expensive conditions too")
	f.StringVar(&db, "db", "", "the database the shards ran on, for --check")
	return c
}

func checkFailed(checks []report.Check) bool {
	for _, c := range checks {
		if !c.Skipped && !c.OK {
			return true
		}
	}
	return false
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
