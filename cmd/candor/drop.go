package main

import (
	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/run"
	"github.com/candor-bench/candor/workload"
)

// newDrop is `candor NAME drop`: the workload's tables and load record removed (sysbench's and
// go-tpc's cleanup), under candor's lock.
func newDrop(out run.Out, reg workload.Registration) *cobra.Command {
	w := reg.New()
	var db dbFlags
	c := &cobra.Command{
		Use:   "drop",
		Short: "Drop the " + w.Info().Name + " workload's tables and load record from a database (refused while a load, run or check uses it)",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			url, err := db.first(out, "drop")
			if err != nil {
				return err
			}
			return run.Drop(c.Context(), w, url, out)
		},
	}
	db.add(c, "", false)
	return c
}
