package run

import (
	"context"
	"fmt"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/workload/tpcc"
)

// Procedures executes `candor tpcc procedures`: it creates (or replaces) the stored procedures of
// the --procedures mode on a loaded database and records them in candor_load.
func Procedures(ctx context.Context, url string, out Out) error {
	if err := proceduresByURL(url); err != nil {
		return err
	}
	db, err := driver.Open(ctx, url)
	if err != nil {
		return err
	}
	defer db.Close()
	return createProcedures(ctx, db, out)
}

func createProcedures(ctx context.Context, db driver.DB, out Out) error {
	v, err := tpcc.CreateProcedures(ctx, db)
	if err != nil {
		return err
	}
	fmt.Fprintf(out.Stderr, "created the TPC-C stored procedures in %s (version %s): `candor tpcc run --procedures` runs each transaction as one call\n", db.Redacted(), v)
	return nil
}

// proceduresByURL refuses --procedures before anything connects when the engine the URL names (by
// its scheme, or --dialect) is known to have no procedure mode: the same user error as once the
// database is open (tpcc.ProceduresSupported), which still decides for an engine known only then.
func proceduresByURL(url string) error {
	if d, ok := driver.URLDialect(url); ok {
		return tpcc.DialectProcedures(d)
	}
	return nil
}
