package merge

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/report"
	htmlreport "github.com/candor-bench/candor/report/html"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/loadstate"
)

// CheckAfter runs the workload's consistency check once, after every shard has finished (`candor
// merge --check --db URL`): the shards of a run must not check on their own, since the others are
// still writing. The checks go into the merged result (res, saved in out), which is written again.
func CheckAfter(ctx context.Context, res *report.Result, out, url string, full bool) error {
	reg, ok := workload.Lookup(res.Workload)
	if !ok {
		return userr.Errorf("workload %s is not known to this candor: merge with the candor that ran it", res.Workload)
	}
	ck, ok := reg.New().(workload.Checker)
	if !ok {
		return userr.Errorf("%s has no consistency check: drop --check", res.Workload)
	}
	db, err := driver.Open(ctx, url)
	if err != nil {
		return err
	}
	defer db.Close()
	if db.Redacted() != res.Database.URL {
		return userr.Errorf("--db %s is not the database the shards ran on (%s): check the one they ran on", db.Redacted(), res.Database.URL)
	}
	unlock, err := loadstate.Lock(ctx, db, "check")
	if err != nil {
		return err
	}
	defer unlock()
	checks, err := ck.Check(ctx, db, full)
	res.Checks = checks
	if err != nil {
		res.Warnings = append(res.Warnings, report.Warning{Code: "CHECK_FAILED_TO_RUN", Message: "the consistency check could not run: " + err.Error()})
	}
	if werr := report.Write(out, res); werr != nil {
		return werr
	}
	if herr := htmlreport.Write(out); herr != nil {
		return fmt.Errorf("writing %s: %w", filepath.Join(out, htmlreport.File), herr)
	}
	return nil
}
