package run

import (
	"context"
	"fmt"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/null"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/loadstate"
)

// Drop removes w's load from the database at url (`candor NAME drop`): its tables and its load
// record, under candor's lock, so a database a load, run or check is using is refused. A database
// without w's data is no error: there is nothing to drop, and Drop says so.
func Drop(ctx context.Context, w workload.Workload, url string, out Out) error {
	name := w.Info().Name
	d, ok := w.(workload.Dropper)
	if !ok {
		return userr.Errorf("%s keeps no tables of its own, so there is nothing to drop", name)
	}
	if url == "" {
		return userr.Errorf("candor %s drop needs the database: give --db URL", name)
	}
	db, err := driver.Open(driver.ExistingOnly(ctx, name), url) // a mistyped SQLite path is not created
	if err != nil {
		return err
	}
	defer db.Close()
	if null.Is(db) {
		return userr.Errorf("%s holds no data, so there is nothing to drop", null.Describe(db))
	}
	unlock, err := loadstate.Lock(ctx, db, "drop")
	if err != nil {
		return err
	}
	defer unlock()
	found, err := d.Drop(ctx, db)
	if err != nil {
		return fmt.Errorf("dropping the %s data in %s: %w", name, db.Redacted(), err)
	}
	if !found {
		fmt.Fprintf(out.Stderr, "the database at %s holds no %s data: nothing to drop\n", db.Redacted(), name)
		return nil
	}
	fmt.Fprintf(out.Stderr, "dropped the %s tables and load record from %s\n", name, db.Redacted())
	return nil
}
