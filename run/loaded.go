package run

import (
	"context"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/null"
	"github.com/candor-bench/candor/workload"
)

// Loaded reports whether the database at url already holds a complete load of w matching its
// options, so the one-shot can skip loading (Workload.Loaded says what a mismatch means).
func Loaded(ctx context.Context, w workload.Workload, url string) (bool, error) {
	db, err := driver.Open(ctx, url)
	if err != nil {
		return false, err
	}
	defer db.Close()
	if null.Is(db) {
		return true, nil // the null engine needs no load: the run takes its options as given
	}
	return w.Loaded(ctx, db)
}
