package run

import (
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/workload"
)

// TestOutageResults: the outages a run rode out are in result.json (from the run's start, their
// length, whether the run ended first) and said in a DATABASE_OUTAGE warning with the reconnects;
// a run without one has neither.
func TestOutageResults(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tot := measure.NewTotals([]string{"read", "write"})
	tot.Counts[0].Reconnects, tot.Counts[1].Reconnects = 3, 1
	if out, ws := outageResults(nil, t0, time.Minute, tot); out != nil || len(ws) != 0 || ws == nil {
		t.Errorf("no outage: %v, %v", out, ws)
	}
	out, ws := outageResults([]workload.Outage{
		{Endpoint: "postgres://h/db", Start: t0.Add(5 * time.Second), End: t0.Add(6200 * time.Millisecond), Attempts: 9},
		{Endpoint: "postgres://h/db", Start: t0.Add(20 * time.Second), Attempts: 2},
	}, t0, time.Minute, tot)
	if len(out) != 2 || out[0].StartSeconds != 5 || out[0].Seconds < 1.19 || out[0].Seconds > 1.21 || out[0].Ongoing || !out[1].Ongoing || out[0].Attempts != 9 {
		t.Errorf("outages %+v", out)
	}
	if len(ws) != 1 || ws[0].Code != "DATABASE_OUTAGE" || !strings.Contains(ws[0].Message, "refused new connections 2 times") ||
		!strings.Contains(ws[0].Message, "4 reconnects") || !strings.Contains(ws[0].Message, "first at 5.0 s") {
		t.Errorf("warnings %+v", ws)
	}
}
