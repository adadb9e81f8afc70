package tpcc

import (
	"encoding/json"
	"strings"
	"testing"
)

// goodAudit is a run whose every share sits in the middle of its bounds.
func goodAudit() Audit {
	a := Audit{Warehouses: 10}
	// 110,000 New-Orders, 10,000 of each line count 5..15: average 10 lines, 1/11 each. Every
	// sample is above its check's MinSample (remote lines need 356,400 lines, rollbacks 89,100 orders).
	a.NewOrders = 110000
	for n := MinLines; n <= MaxLines; n++ {
		a.LineCounts[n] = 10000
	}
	a.OrderLines = 1100000
	a.Rollbacks = 1100    // 1%
	a.RemoteLines = 11000 // 1%
	a.Payments = 100000   // remote 15%, by name 60%
	a.RemotePayments = 15000
	a.PaymentsByName = 60000
	a.OrderStatuses = 10000
	a.OrderStatusByName = 6000
	a.Deliveries = 10000
	a.SkippedDistricts = 50 // 0.05%
	a.StockLevels = 10000
	return a
}

func statusOf(rep AuditReport, name string) string {
	for _, c := range rep.Checks {
		if c.Name == name {
			return c.Status
		}
	}
	return "missing"
}

func TestAuditPass(t *testing.T) {
	a := goodAudit()
	rep := a.Report()
	if !rep.Pass || !rep.Enough || rep.Transactions != 240000 {
		t.Fatalf("good audit: pass %v, enough %v, transactions %d", rep.Pass, rep.Enough, rep.Transactions)
	}
	if len(rep.Checks) != 2+11+5 {
		t.Errorf("%d checks, want 18", len(rep.Checks))
	}
	for _, c := range rep.Checks {
		if c.Status != AuditPass || !c.InBounds {
			t.Errorf("%s: %s (%.3f in %.3f..%.3f)", c.Name, c.Status, c.Value, c.Min, c.Max)
		}
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"enough_transactions":true`, `"name":"remote_payments"`, `"in_bounds":true`, `"status":"pass"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s: %s", key, b)
		}
	}
}

func TestAuditFailures(t *testing.T) {
	cases := []struct {
		check string
		edit  func(a *Audit)
	}{
		{"new_order_rollbacks", func(a *Audit) { a.Rollbacks = 980 }},      // 0.89%
		{"new_order_rollbacks", func(a *Audit) { a.Rollbacks = 1220 }},     // 1.11%
		{"average_order_lines", func(a *Audit) { a.OrderLines = 1040000 }}, // 9.45
		{"orders_with_15_lines", func(a *Audit) { a.LineCounts[15] = 12000 }},
		{"remote_order_lines", func(a *Audit) { a.RemoteLines = 10400 }}, // 0.945%
		{"remote_payments", func(a *Audit) { a.RemotePayments = 16200 }},
		{"payments_by_last_name", func(a *Audit) { a.PaymentsByName = 56500 }},
		{"order_status_by_last_name", func(a *Audit) { a.OrderStatusByName = 6400 }},
		{"skipped_delivery_districts", func(a *Audit) { a.SkippedDistricts = 1010 }}, // 1.01%
	}
	for _, tc := range cases {
		a := goodAudit()
		tc.edit(&a)
		rep := a.Report()
		if rep.Pass {
			t.Errorf("%s: report passes", tc.check)
		}
		if s := statusOf(rep, tc.check); s != AuditFail {
			t.Errorf("%s: status %q, want fail", tc.check, s)
		}
	}
	// bounds are inclusive
	a := goodAudit()
	a.Rollbacks, a.SkippedDistricts = 990, 1000 // 0.9% and 1%
	if rep := a.Report(); !rep.Pass {
		t.Errorf("values on the bounds fail: %+v", rep)
	}
}

func TestAuditNotEnoughAndNotApplicable(t *testing.T) {
	var a Audit
	for i := 0; i < 100; i++ {
		a.AddNewOrder(&NewOrderInput{OLCnt: 10})
	}
	rep := a.Report()
	if rep.Pass || rep.Enough {
		t.Fatalf("100 transactions judged enough: %+v", rep)
	}
	for _, c := range rep.Checks {
		if c.Status != AuditNotEnough {
			t.Errorf("%s: status %q with 100 transactions", c.Name, c.Status)
		}
	}
	if c := rep.Checks[1]; c.Name != "average_order_lines" || c.Value != 10 {
		t.Errorf("values must still be shown: %+v", c)
	}

	// one warehouse: no remote choices exist, the checks do not apply and do not fail the audit
	g := goodAudit()
	g.Warehouses, g.RemoteLines, g.RemotePayments = 1, 0, 0
	rep = g.Report()
	if !rep.Pass {
		t.Errorf("W=1 audit fails: %+v", rep)
	}
	for _, n := range []string{"remote_order_lines", "remote_payments"} {
		if s := statusOf(rep, n); s != AuditNotApplicable {
			t.Errorf("W=1 %s: status %q", n, s)
		}
	}
}

func TestAuditAddAndMerge(t *testing.T) {
	var a, b Audit
	no := NewOrderInput{OLCnt: 7, Rollback: true, RemoteLines: 2}
	a.AddNewOrder(&no)
	a.AddPayment(&PaymentInput{Remote: true, ByName: true})
	b.AddPayment(&PaymentInput{})
	b.AddOrderStatus(&OrderStatusInput{ByName: true})
	b.AddDelivery(3)
	b.AddStockLevel()
	b.Warehouses = 4
	a.Merge(&b)
	want := Audit{Warehouses: 4, NewOrders: 1, Rollbacks: 1, OrderLines: 7, RemoteLines: 2, Payments: 2,
		RemotePayments: 1, PaymentsByName: 1, OrderStatuses: 1, OrderStatusByName: 1, Deliveries: 1,
		SkippedDistricts: 3, StockLevels: 1}
	want.LineCounts[7] = 1
	if a != want {
		t.Errorf("merged %+v\nwant   %+v", a, want)
	}
	if a.Transactions() != 6 {
		t.Errorf("transactions %d, want 6", a.Transactions())
	}
}

// TestAuditSmallSampleIsNotAFailure: a correct generator drifts outside narrow bounds by chance in a
// small sample (0.87% rollbacks among 11,000 New-Orders is 1 standard error from 1%); the check must
// say "not enough transactions", not fail, until the sample makes the bounds three standard errors wide.
func TestAuditSmallSampleIsNotAFailure(t *testing.T) {
	a := goodAudit()
	a.NewOrders, a.OrderLines, a.Rollbacks = 11000, 110000, 96
	for n := MinLines; n <= MaxLines; n++ {
		a.LineCounts[n] = 1000
	}
	rep := a.Report()
	if s := statusOf(rep, "new_order_rollbacks"); s != AuditNotEnough {
		t.Errorf("0.87%% rollbacks of 11,000 orders: status %q, want %q", s, AuditNotEnough)
	}
	if s := statusOf(rep, "average_order_lines"); s != AuditPass {
		t.Errorf("average lines of 11,000 orders: status %q, want pass", s)
	}
	if got := minSample("new_order_rollbacks", "%", 0.9, 1.1); got != 89100 {
		t.Errorf("minSample for 1%% +- 0.1%% = %d, want 89100", got)
	}
}
