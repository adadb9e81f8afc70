package run

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/report"
)

// TestScheduleBehindWarning: a run whose driver fell behind its own schedule
// says so first, with the figures, and is not sustained.
func TestScheduleBehindWarning(t *testing.T) {
	r := &report.Result{Rate: &report.RateResult{TargetRate: 800000, Sustained: false,
		Steps:          []report.RateStep{{Step: 1, Seconds: 5, TargetRate: 800000}},
		ScheduleBehind: &report.ScheduleBehind{ReachedSeconds: 0, WindowSeconds: 5, BehindSeconds: 6.5, ScheduledRate: 412000}}}
	ws := rateWarnings(r)
	if len(ws) == 0 || ws[0].Code != "SCHEDULE_BEHIND" || !strings.Contains(ws[0].Message, "only the first 0.0 s of the 5.0 s window") ||
		!strings.Contains(ws[0].Message, "scheduling 412000 arrivals/s at most") {
		t.Fatalf("warnings: %+v", ws)
	}
}
