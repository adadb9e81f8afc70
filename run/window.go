package run

import (
	"fmt"

	"github.com/candor-bench/candor/workload"
)

// windowText is the run header's warm-up and measurement: "warm-up 2m0s, measure 10m0s", or for a
// finite workload (TPC-H's tests), which ends when its streams are done, what actually bounds it.
func (r *RunPlan) windowText(in workload.Info) string {
	if !in.Finite {
		return fmt.Sprintf("warm-up %s, measure %s", r.Warmup, r.Duration)
	}
	warm := "no warm-up"
	if r.Warmup > 0 {
		warm = "warm-up " + r.Warmup.String()
	}
	return fmt.Sprintf("%s, measured until its streams are done (at most --duration %s)", warm, r.Duration)
}
