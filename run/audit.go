package run

import (
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/workload/tpcc"
)

// auditReport converts the workload's run-time audit (clause 9.2) into the result's form.
func auditReport(a *tpcc.Audit) *report.Audit {
	if a == nil {
		return nil
	}
	rep := a.Report()
	out := &report.Audit{Transactions: rep.Transactions, Enough: rep.Enough}
	for _, c := range rep.Checks {
		out.Items = append(out.Items, report.AuditItem{Name: c.Name, Clause: c.Clause, Value: c.Value, Unit: c.Unit,
			Low: c.Min, High: c.Max, Status: c.Status, Pass: c.Status == tpcc.AuditPass})
	}
	return out
}
