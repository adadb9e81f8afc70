package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/run"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload/tpcc"
)

// newProcedures is `candor tpcc procedures`: (re)create the stored procedures on a loaded database.
func newProcedures(out run.Out) *cobra.Command {
	var url string
	c := &cobra.Command{
		Use:   "procedures",
		Short: "Create (or replace) the stored procedures that `run --procedures` calls, on a loaded database",
		Long: `Creates the five TPC-C transactions as server-side procedures (PL/pgSQL functions on PostgreSQL,
stored procedures on MySQL and MariaDB) on a database that holds a candor load, and records their
version in candor_load. With them,
candor tpcc run --procedures sends each transaction as one call (one round trip at read committed).
Running it again replaces them; load --procedures does the same right after a load.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return createProcedures(c.Context(), url, out)
		},
	}
	c.Flags().StringVar(&url, "db", "", "database URL: postgres://user:pass@host:port/db or mysql://user:pass@host:port/db")
	return c
}

// createProcedures refuses an engine known from its URL to have no procedure mode before anything
// connects, then creates the procedures (tpcc.Workload.CreateProcedures).
func createProcedures(ctx context.Context, url string, out run.Out) error {
	if url == "" {
		return userr.Errorf("no database given: pass --db URL")
	}
	if d, ok := driver.URLDialect(url); ok {
		if err := tpcc.DialectProcedures(d); err != nil {
			return err
		}
	}
	db, err := driver.Open(ctx, url)
	if err != nil {
		return err
	}
	defer db.Close()
	w := tpcc.Workload{}
	return w.CreateProcedures(ctx, db, func(line string) { fmt.Fprintln(out.Stderr, line) })
}
