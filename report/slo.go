package report

import (
	"fmt"
	"io"
)

// Budget is one latency budget of `run --slo` (TYPE.PERCENTILE<=DURATION, package search's syntax)
// judged on the run's measurement window: the operation's percentile from the window's histogram
// against the limit.
type Budget struct {
	SLO     string  `json:"slo"`
	ValueMs float64 `json:"value_ms"`
	LimitMs float64 `json:"limit_ms"`
	// Count is the operation's completions in the window the percentile was read from.
	Count int64 `json:"count"`
	Met   bool  `json:"met"`
	// NoData: no operation of the type completed in the window, so the budget could not be judged
	// (not met).
	NoData bool `json:"no_data,omitempty"`
}

// BudgetsMet says whether every budget of r was met (true when there are none).
func BudgetsMet(r *Result) bool {
	for _, b := range r.Budgets {
		if !b.Met {
			return false
		}
	}
	return true
}

// PrintBudgets prints one verdict line per budget of --slo.
func PrintBudgets(w io.Writer, r *Result) {
	if len(r.Budgets) == 0 {
		return
	}
	fmt.Fprintf(w, "\nlatency budgets (--slo, on the measurement window):\n")
	for _, b := range r.Budgets {
		status := "met"
		if !b.Met {
			status = "BREACHED"
		}
		if b.NoData {
			fmt.Fprintf(w, "  %-8s %-32s no completed operation to judge (limit %s ms)\n", status, b.SLO, ms(b.LimitMs))
			continue
		}
		fmt.Fprintf(w, "  %-8s %-32s %10s ms (limit %s ms, %d operations)\n", status, b.SLO, ms(b.ValueMs), ms(b.LimitMs), b.Count)
	}
}
