package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/candor-bench/candor/run"
)

// dbFlags are a command's --db (repeatable: several endpoints of one database) and --dialect.
type dbFlags struct {
	urls    []string
	dialect string
}

const dbUsage = "database URL: postgres://USER:PASS@HOST:PORT/DB, mysql://... or sqlite:PATH (also cockroachdb://, yugabytedb://, doltgres://, mariadb://, tidb://, dolt://; null: runs no database, to measure candor itself)"

// add declares --db and --dialect on c. many: run takes several --db, one per endpoint (node) of
// the database; load and check use the first.
func (d *dbFlags) add(c *cobra.Command, def string, many bool) {
	var defs []string
	if def != "" {
		defs = []string{def}
	}
	usage := dbUsage
	if many {
		usage = dbUsage + "; repeat it for several nodes of one database: the terminals are spread over them"
	}
	c.Flags().StringArrayVar(&d.urls, "db", defs, usage)
	c.Flags().StringVar(&d.dialect, "dialect", "", "the engine, when the URL's scheme does not name it: postgres, cockroachdb, yugabytedb or doltgres (PostgreSQL wire protocol); mysql, mariadb, tidb or dolt (MySQL wire protocol)")
}

// all returns every --db with --dialect applied.
func (d *dbFlags) all() ([]string, error) { return run.DialectURLs(d.dialect, d.urls) }

// first returns the first --db with --dialect applied ("" when none was given); more are noted.
func (d *dbFlags) first(out run.Out, cmd string) (string, error) {
	urls, err := d.all()
	if err != nil || len(urls) == 0 {
		return "", err
	}
	if len(urls) > 1 {
		fmt.Fprintf(out.Stderr, "%s uses the first of the %d --db endpoints (they reach one database)\n", cmd, len(urls))
	}
	return urls[0], nil
}

// apply puts every --db, with --dialect applied, into a run plan: the first is the plan's DB.
func (d *dbFlags) apply(p *run.RunPlan) error {
	urls, err := d.all()
	if err != nil {
		return err
	}
	p.DB, p.ExtraDB = "", nil
	if len(urls) > 0 {
		p.DB, p.ExtraDB = urls[0], urls[1:]
	}
	return nil
}
