package run

import (
	"errors"
	"math"
	"strings"

	"github.com/candor-bench/candor/report"
)

// ErrFailures is returned after a run in which an operation failed more often than --max-failures
// allows (exit status 1): its results are saved, with a failed failure verdict.
var ErrFailures = errors.New("operations failed more often than --max-failures allows")

// failureLimit is the plan's --max-failures in percent (report.DefaultMaxFailuresPct when unset).
func (r *RunPlan) failureLimit() float64 {
	if r.MaxFailures == nil {
		return report.DefaultMaxFailuresPct
	}
	return *r.MaxFailures
}

// validateFailures checks --max-failures.
func (r *RunPlan) validateFailures(p *problems) {
	if v := r.failureLimit(); math.IsNaN(v) || v < 0 || v > 100 {
		p.add("--max-failures must be a percentage from 0 to 100 (got %g): for example --max-failures 5", v)
	}
}

// judgeFailures sets the result's failure verdict (every workload's operations against
// --max-failures) and, when it fails, the FAILURES_ABOVE_LIMIT warning. The workload's Finish
// reads the verdict (TPC-C: tpmC is then not qualified).
func judgeFailures(res *report.Result, limit float64) { JudgeFailures(res, limit) }

// JudgeFailures is judgeFailures for a result built elsewhere (package merge).
func JudgeFailures(res *report.Result, limit float64) {
	v := report.JudgeFailures(res, limit)
	res.FailureVerdict = v
	if !v.Pass {
		res.Warnings = append(res.Warnings, report.Warning{Code: "FAILURES_ABOVE_LIMIT",
			Message: strings.Join(v.Reasons(), "; ") + ": see the failures by class and message; the figures are not a valid result"})
	}
}

// failuresError is ErrFailures with the reasons, for the exit line.
func failuresError(res *report.Result) error {
	if res == nil || res.FailureVerdict == nil || res.FailureVerdict.Pass {
		return nil
	}
	return &failuresErr{reasons: res.FailureVerdict.Reasons()}
}

type failuresErr struct{ reasons []string }

func (e *failuresErr) Error() string {
	return "the run failed its failure verdict: " + strings.Join(e.reasons, "; ")
}

func (e *failuresErr) Is(target error) bool { return target == ErrFailures }
