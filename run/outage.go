package run

import (
	"fmt"
	"time"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/workload"
)

// outageResults turns the run's outages (workload.Outages, recorded by workload/sqlexec while it
// reconnected) into result.json's outages and a warning: figures measured across an outage hold
// its wait in their response times and its failures in their errors.
func outageResults(list []workload.Outage, start time.Time, window time.Duration, t *measure.Totals) ([]report.Outage, []report.Warning) {
	if len(list) == 0 {
		return nil, []report.Warning{}
	}
	var out []report.Outage
	var longest float64
	for _, o := range list {
		end, ongoing := o.End, o.End.IsZero()
		if ongoing {
			end = time.Now()
		}
		r := report.Outage{Endpoint: o.Endpoint, StartSeconds: o.Start.Sub(start).Seconds(), Seconds: end.Sub(o.Start).Seconds(),
			Ongoing: ongoing, Attempts: o.Attempts}
		longest = max(longest, r.Seconds)
		out = append(out, r)
	}
	var reconnects int64
	for _, c := range t.Counts {
		reconnects += c.Reconnects
	}
	msg := fmt.Sprintf("the database refused new connections %d time%s during the run, the longest for %.1f s (first at %.1f s into the run; outage window %s): operations waited and reconnected (%d reconnects in the window), so their response times include the outage and the errors around it are counted",
		len(out), plural(len(out)), longest, out[0].StartSeconds, window, reconnects)
	return out, []report.Warning{{Code: "DATABASE_OUTAGE", Message: msg}}
}
