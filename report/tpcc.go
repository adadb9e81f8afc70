package report

// This file is result format 1's compatibility layer: format 1 was TPC-C's alone, and this is the
// only file of package report that knows TPC-C. It holds the builders of TPC-C's sections (the
// TPC-C workload fills its Sections with them, and upgrade does the same for a file of format 1, so
// an old result renders as a new one) and what readers of the envelope need to know of format 1's
// keys (FormatOneKeys, FormatOneFigures).

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// FormatOneKeyOp is the key operation of a file written before results named theirs: every such
// file is TPC-C's (result.json of format 1, search.json without key_op).
const FormatOneKeyOp = "new_order"

// formatOneOps are TPC-C's operations in its order: the five transaction types (clause 5.2.3's
// order), then the deferred part of Delivery.
var formatOneOps = []string{"new_order", "payment", "order_status", "delivery", "stock_level", deferredOp}

// deferredOp is the deferred part of Delivery (clause 2.7.2), and deliveryOp the type it is a
// part of.
const (
	deferredOp = "delivery_deferred"
	deliveryOp = "delivery"
)

// auditMinTransactions is the transactions below which the run-time audit's shares are indicative
// only (workload/tpcc.AuditMinTransactions; report cannot import the workload).
const auditMinTransactions = 10000

// TPCCSetup is TPC-C's Setup line: "1 warehouse, interactive", "10 warehouses, stored procedures"
// (TxPath). The TPC-C workload and upgrade both use it, so a result of format 1 and one of format 2
// of the same run compare equal.
func TPCCSetup(warehouses int, procedures bool) string {
	return fmt.Sprintf("%d warehouse%s, %s", warehouses, plural(warehouses), TxPath(procedures))
}

// TPCCSetupLine is TPCCSetup and, when Stock-Level runs at another level than the run (clause 2.8.2.1
// allows a weaker one), that level.
func TPCCSetupLine(warehouses int, procedures bool, isolation, stockLevel string) string {
	s := TPCCSetup(warehouses, procedures)
	if stockLevel != "" && stockLevel != isolation {
		s += "; stock_level at " + stockLevel + " (clause 2.8.2.1 allows a weaker level)"
	}
	return s
}

// TPCCHeadline is TPC-C's headline: tpmC, and efficiency in spec mode (eff not nil).
func TPCCHeadline(tpmC float64, eff *float64) []Figure {
	f := Figure{Name: "tpmC", Value: tpmC, Unit: "new-orders per minute"}
	if eff == nil {
		f.Note = "efficiency applies only in spec mode"
		return []Figure{f}
	}
	return []Figure{f, {Name: "efficiency", Value: *eff, Unit: "%", Note: "of the 12.86 x W spec ceiling", Bad: *eff > 100}}
}

// TPCCVerdictRule is a verdict's rule with the clause it comes from (5.2.5.3 when it names none).
func TPCCVerdictRule(rule string) string {
	if strings.Contains(rule, "clause") {
		return rule
	}
	return rule + " (clause 5.2.5.3)"
}

// DeferredSection is the section of the deferred Delivery (clause 2.7.2): the districts it
// processed, those it skipped for want of an undelivered order, its failures, the ones unfinished
// within the grace period, and the Delivery result file (clause 2.7.4.2) when the run wrote one.
// Its completion times are the operation delivery_deferred's.
func DeferredSection(d *Deferred) Section {
	s := Section{Title: "deferred Delivery (clause 2.7.2)"}
	if d == nil {
		return s
	}
	skipped := 0.0
	if d.Districts > 0 {
		skipped = 100 * float64(d.SkippedDistricts) / float64(d.Districts)
	}
	s.Columns = []string{"deliveries", "districts processed", "skipped: no undelivered order", "failed", "not finished within the grace period"}
	row := []string{count(d.Count), count(d.Districts), fmt.Sprintf("%s (%.2f%%)", count(d.SkippedDistricts), skipped), count(d.Errors), count(d.Incomplete)}
	if d.File != "" {
		s.Columns = append(s.Columns, "result file (clause 2.7.4.2)")
		row = append(row, fmt.Sprintf("%s, %s line%s", d.File, count(d.Lines), plural(int(min(d.Lines, 2)))))
	}
	s.Rows = [][]string{row}
	s.Notes = []string{deferredOp + " is the deferred part of " + deliveryOp + ": its response time runs from the queueing of the deferred work to its completion (clause 2.7.2.1)."}
	if d.File != "" {
		s.Notes = append(s.Notes, "The result file has a line for every deferred Delivery that ran, warm-up and drain included; its measured column tells the ones counted here.")
	}
	return s
}

// AuditSection is the section of the run-time audit of the generated inputs (clause 9.2): each
// audited share with its value, bounds, clause and status.
func AuditSection(a *Audit) Section {
	s := Section{Title: "run-time audit of the generated inputs (clause 9.2)"}
	if a == nil {
		return s
	}
	s.Columns = []string{"share", "value", "bounds", "clause", "status"}
	for _, it := range a.Items {
		value := fmt.Sprintf("%.3f", it.Value)
		if it.Unit != "" {
			value += " " + it.Unit
		}
		s.Rows = append(s.Rows, []string{it.Name, value, fmt.Sprintf("%.3f..%.3f", it.Low, it.High), it.Clause, it.Status})
	}
	note := fmt.Sprintf("%s transactions audited.", count(a.Transactions))
	if !a.Enough {
		note = fmt.Sprintf("%s transactions audited: fewer than %s, so the shares are indicative only.", count(a.Transactions), count(auditMinTransactions))
	}
	s.Notes = []string{note}
	return s
}

// count writes an integer with commas between thousands (1,234,567).
func count(n int64) string { return Grouped(n, ",") }

// FormatOneFigures are the top-level keys of format 1 (TPC-C's, kept in format 2) whose content the
// envelope carries again: transactions and delivery_deferred in Operations, tpmC and efficiency in
// Headline, delivery_deferred and audit in Sections. A reader of the envelope need not show them.
var FormatOneFigures = []string{"tpmC", "efficiency", "transactions", "delivery_deferred", "audit"}

// FormatOneKeys are the top-level keys of TPC-C's part of result.json (the fields of TPCC): the
// workload's own, which a workload-neutral reader does not interpret; their conditions are in the
// envelope's Setup and the plan. Read from TPCC's tags, so they follow the type.
func FormatOneKeys() []string {
	formatOneKeysOnce.Do(func() {
		t := reflect.TypeOf(TPCC{})
		for i := 0; i < t.NumField(); i++ {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if name != "" && name != "-" {
				formatOneKeys = append(formatOneKeys, name)
			}
		}
	})
	return append([]string(nil), formatOneKeys...)
}

var (
	formatOneKeysOnce sync.Once
	formatOneKeys     []string
)

// upgrade fills the envelope of a result of format 1 (TPC-C only) from its keys, so every reader
// sees format 2: the operations (the deferred Delivery among them, as a part of delivery), their
// order and key operation, the headline (tpmC, then efficiency in spec mode), the Setup line, the
// sections of the deferred Delivery and of the audit, and the clause in the verdicts' rules (format
// 1 said it in a heading).
func (r *Result) upgrade() {
	if r.FormatVersion >= 2 || r.TPCC == nil {
		return
	}
	if r.Operations == nil {
		r.Operations = map[string]*TxResult{}
		for k, v := range r.Transactions {
			r.Operations[k] = v
		}
		if d := r.DeliveryDeferred; d != nil {
			t := &TxResult{Count: d.Count, Errors: d.Errors, Incomplete: d.Incomplete, ResponseMs: d.CompletionMs, PartOf: deliveryOp}
			if r.MeasureSeconds > 0 {
				t.PerMinute = float64(d.Count) / (r.MeasureSeconds / 60)
			}
			r.Operations[deferredOp] = t
		}
	}
	if len(r.OpOrder) == 0 {
		r.OpOrder = append([]string(nil), formatOneOps...)
	}
	if r.KeyOp == "" {
		r.KeyOp = FormatOneKeyOp
	}
	if r.Setup == "" {
		r.Setup = TPCCSetupLine(r.Warehouses, r.Procedures, r.Isolation, r.StockLevelIsolation)
	}
	if len(r.Headline) == 0 {
		r.Headline = TPCCHeadline(r.TpmC, r.Efficiency)
	}
	if len(r.Sections) == 0 {
		if r.DeliveryDeferred != nil {
			r.Sections = append(r.Sections, DeferredSection(r.DeliveryDeferred))
		}
		if r.Audit != nil {
			r.Sections = append(r.Sections, AuditSection(r.Audit))
		}
	}
	for i, v := range r.Verdicts {
		r.Verdicts[i].Rule = TPCCVerdictRule(v.Rule)
	}
	r.FormatVersion = FormatVersion
}

// searchKeyOp is s's key operation, FormatOneKeyOp for a search.json written before it was named.
func (s *SearchResult) searchKeyOp() string {
	if s.KeyOp == "" {
		return FormatOneKeyOp
	}
	return s.KeyOp
}
