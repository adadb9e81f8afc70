package run

import (
	"errors"
	"strings"
	"time"

	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/search"
)

// ErrBudgets is returned after a run in which a latency budget of --slo was not met (exit status
// 1): its results are saved, with each budget's verdict.
var ErrBudgets = errors.New("a latency budget of --slo was not met")

// sloTexts are the plan's budgets, a comma-separated list in one --slo split into its budgets.
func (r *RunPlan) sloTexts() []string { return SplitSLOs(r.SLOs) }

// SplitSLOs splits every comma-separated list of budgets into its budgets.
func SplitSLOs(given []string) []string {
	var out []string
	for _, s := range given {
		for _, t := range strings.Split(s, ",") {
			if t = strings.TrimSpace(t); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

// slos parses the plan's budgets against the workload's operations (package search's syntax).
func (r *RunPlan) slos() ([]search.SLO, error) {
	texts := r.sloTexts()
	if len(texts) == 0 || r.Workload == nil {
		return nil, nil
	}
	return search.ParseSLOs(texts, r.Workload.Ops())
}

// validateSLOs checks --slo before anything connects.
func (r *RunPlan) validateSLOs(p *problems) {
	if len(r.SLOs) > 0 && len(r.sloTexts()) == 0 {
		p.add("--slo is empty: write %s", search.Syntax(r.Workload.Ops()))
		return
	}
	if _, err := r.slos(); err != nil {
		p.add("%s", err.Error())
	}
}

// judgeSLOs judges the plan's budgets on the result's measurement window (JudgeBudgets).
func judgeSLOs(res *report.Result, p *RunPlan) {
	if p.Workload != nil {
		JudgeBudgets(res, p.sloTexts(), p.Workload.Ops())
	}
}

// JudgeBudgets judges every budget of texts (SplitSLOs's) on the result's measurement window: the
// operation's percentile of response (or service) time from the window's histogram. A budget whose
// operation completed nothing in the window is not met (NoData). Package merge judges a merged
// result's with it; bad budgets, refused before the run, are left out.
func JudgeBudgets(res *report.Result, texts []string, ops []string) {
	if len(texts) == 0 {
		return
	}
	slos, err := search.ParseSLOs(texts, ops)
	if err != nil {
		return
	}
	for _, s := range slos {
		b := report.Budget{SLO: strings.TrimSpace(s.Text), LimitMs: float64(s.Limit) / float64(time.Millisecond)}
		t := res.Operations[s.Type]
		switch {
		case t == nil || t.Count == 0:
			b.NoData = true
		case s.Kind == "service":
			b.ValueMs, b.Count = s.ValueMs(t.ServiceMs), t.Count
			b.Met = s.Met(b.ValueMs)
		default:
			b.ValueMs, b.Count = s.ValueMs(t.ResponseMs), t.Count
			b.Met = s.Met(b.ValueMs)
		}
		res.Budgets = append(res.Budgets, b)
	}
}

// SLOsError is the error a run whose budgets were not all met ends with (ErrBudgets), or nil.
func SLOsError(res *report.Result) error { return slosError(res) }

// slosError is ErrBudgets naming the budgets not met, for the exit line.
func slosError(res *report.Result) error {
	if res == nil || report.BudgetsMet(res) {
		return nil
	}
	var breached []string
	for _, b := range res.Budgets {
		if !b.Met {
			breached = append(breached, b.SLO)
		}
	}
	return &budgetsErr{breached: breached}
}

type budgetsErr struct{ breached []string }

func (e *budgetsErr) Error() string {
	return "the run did not meet its latency budgets: " + strings.Join(e.breached, ", ") + " (see the budgets above)"
}

func (e *budgetsErr) Is(target error) bool { return target == ErrBudgets }
