package run

import (
	"fmt"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/report"
)

// cancelledWarning says how many statements were still running on the server when the run gave up
// on them (the grace period ended, or a second Ctrl-C) and were stopped there (CancelRequest, KILL
// QUERY), so that the server was left idle; nil when there were none. before is the count when the run
// began (a DB counts for its whole life).
func cancelledWarning(db driver.DB, before int64) *report.Warning {
	sc, ok := db.(driver.ServerCanceller)
	if !ok {
		return nil
	}
	n := sc.ServerCancels() - before
	if n <= 0 {
		return nil
	}
	return &report.Warning{Code: "STATEMENTS_CANCELLED", Message: fmt.Sprintf(
		"%d statement(s) still running when the run stopped waiting for them were cancelled on the server: their work is not in the results, and the server was left idle", n)}
}

// serverCancels is db's count of statements stopped on the server so far (0 for an engine that
// does not count them).
func serverCancels(db driver.DB) int64 {
	if sc, ok := db.(driver.ServerCanceller); ok {
		return sc.ServerCancels()
	}
	return 0
}
