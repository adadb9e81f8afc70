package tpcc

import "math"

import "strconv"

// The run-time audit (the digest's clause 9.2, "Run-time audit"): the shares of the randomly chosen
// inputs a run actually generated, against the bounds auditors and other implementations use. It is
// computed from the inputs, so it shows whether the input generation is faithful, whatever the
// database did. Each worker keeps its own Audit and they are merged at the end.

// AuditMinTransactions: below this many transactions the shares are too noisy to judge (clause 9.2
// asks for at least 10,000); the values are still reported.
const AuditMinTransactions = 10000

// Audit counts the generated inputs. The zero value is ready; it is not safe for concurrent use.
type Audit struct {
	// Warehouses is the number of warehouses of the run. With one warehouse there are no remote
	// order lines or payments (clauses 2.4.1.5, 2.5.1.2), so those checks do not apply; 0 means
	// unknown, and the checks are judged as if W > 1.
	Warehouses int `json:"warehouses"`

	NewOrders   int64 `json:"new_orders"`
	Rollbacks   int64 `json:"rollbacks"`    // New-Orders with an unused last item (clause 2.4.1.4)
	OrderLines  int64 `json:"order_lines"`  // lines of all New-Orders
	RemoteLines int64 `json:"remote_lines"` // lines supplied by another warehouse (clause 2.4.1.5)
	// LineCounts[n] is the number of New-Orders with n lines (5..15, clause 2.4.1.3).
	LineCounts [MaxLines + 1]int64 `json:"line_counts"`

	Payments       int64 `json:"payments"`
	RemotePayments int64 `json:"remote_payments"`  // customer of another warehouse (clause 2.5.1.2)
	PaymentsByName int64 `json:"payments_by_name"` // customer chosen by last name (clause 2.5.1.2)

	OrderStatuses     int64 `json:"order_statuses"`
	OrderStatusByName int64 `json:"order_status_by_name"` // clause 2.6.1.2

	Deliveries       int64 `json:"deliveries"`
	SkippedDistricts int64 `json:"skipped_districts"` // districts without a new order (clause 2.7.4.2)

	StockLevels int64 `json:"stock_levels"`
}

// AddNewOrder counts a New-Order's input.
func (a *Audit) AddNewOrder(in *NewOrderInput) {
	a.NewOrders++
	if in.Rollback {
		a.Rollbacks++
	}
	a.OrderLines += int64(in.OLCnt)
	a.RemoteLines += int64(in.RemoteLines)
	if in.OLCnt >= 0 && in.OLCnt <= MaxLines {
		a.LineCounts[in.OLCnt]++
	}
}

// AddPayment counts a Payment's input.
func (a *Audit) AddPayment(in *PaymentInput) {
	a.Payments++
	if in.Remote {
		a.RemotePayments++
	}
	if in.ByName {
		a.PaymentsByName++
	}
}

// AddOrderStatus counts an Order-Status's input.
func (a *Audit) AddOrderStatus(in *OrderStatusInput) {
	a.OrderStatuses++
	if in.ByName {
		a.OrderStatusByName++
	}
}

// AddDelivery counts a completed Delivery and the districts it skipped (DeliveryResult.Skipped).
func (a *Audit) AddDelivery(skipped int) {
	a.Deliveries++
	a.SkippedDistricts += int64(skipped)
}

// AddStockLevel counts a Stock-Level (it has no audited input; it counts towards the total).
func (a *Audit) AddStockLevel() { a.StockLevels++ }

// Merge adds other's counts to a. Warehouses becomes the larger of the two.
func (a *Audit) Merge(other *Audit) {
	a.Warehouses = max(a.Warehouses, other.Warehouses)
	a.NewOrders += other.NewOrders
	a.Rollbacks += other.Rollbacks
	a.OrderLines += other.OrderLines
	a.RemoteLines += other.RemoteLines
	for i := range a.LineCounts {
		a.LineCounts[i] += other.LineCounts[i]
	}
	a.Payments += other.Payments
	a.RemotePayments += other.RemotePayments
	a.PaymentsByName += other.PaymentsByName
	a.OrderStatuses += other.OrderStatuses
	a.OrderStatusByName += other.OrderStatusByName
	a.Deliveries += other.Deliveries
	a.SkippedDistricts += other.SkippedDistricts
	a.StockLevels += other.StockLevels
}

// Transactions is the number of transactions counted.
func (a *Audit) Transactions() int64 {
	return a.NewOrders + a.Payments + a.OrderStatuses + a.Deliveries + a.StockLevels
}

// Audit check statuses.
const (
	AuditPass          = "pass"
	AuditFail          = "fail"
	AuditNotEnough     = "not enough transactions"
	AuditNotApplicable = "not applicable"
)

// AuditCheck is one measured share against its bounds.
type AuditCheck struct {
	Name   string `json:"name"`
	Clause string `json:"clause"` // the clause that defines the random choice
	// Value is Count / Of in Unit ("%" or "lines" for the average line count).
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Count int64   `json:"count"`
	Of    int64   `json:"of"`
	// MinSample is the sample (Of) below which the bounds are narrower than three standard errors of
	// the draw itself, so that a correct generator would fail by chance: the check then says "not
	// enough transactions" rather than pass or fail. See minSample.
	MinSample int64 `json:"min_sample"`
	// InBounds: Min <= Value <= Max (with a sample to measure).
	InBounds bool `json:"in_bounds"`
	// Status is pass, fail, "not enough transactions" (fewer than AuditMinTransactions in the run,
	// or nothing to measure) or "not applicable" (remote choices with one warehouse).
	Status string `json:"status"`
}

// AuditReport is the run-time audit of a run.
type AuditReport struct {
	Transactions    int64 `json:"transactions"`
	MinTransactions int64 `json:"min_transactions"`
	Enough          bool  `json:"enough_transactions"`
	// Pass: enough transactions and every applicable check within its bounds.
	Pass   bool         `json:"pass"`
	Checks []AuditCheck `json:"checks"`
}

// lineShareTolerance: each line count 5..15 must be within one percentage point of 1/11.
const lineShareTolerance = 1.0

// Report computes the checks.
func (a *Audit) Report() AuditReport {
	rep := AuditReport{Transactions: a.Transactions(), MinTransactions: AuditMinTransactions}
	rep.Enough = rep.Transactions >= AuditMinTransactions
	single := a.Warehouses == 1
	add := func(name, clause, unit string, count, of int64, value, lo, hi float64, notApplicable bool) {
		c := AuditCheck{Name: name, Clause: clause, Unit: unit, Value: value, Min: lo, Max: hi, Count: count, Of: of}
		c.InBounds = of > 0 && value >= lo && value <= hi
		c.MinSample = minSample(name, unit, lo, hi)
		switch {
		case notApplicable:
			c.Status = AuditNotApplicable
		case !rep.Enough || of == 0 || of < c.MinSample:
			c.Status = AuditNotEnough
		case c.InBounds:
			c.Status = AuditPass
		default:
			c.Status = AuditFail
		}
		rep.Checks = append(rep.Checks, c)
	}
	pct := func(n, d int64) float64 {
		if d == 0 {
			return 0
		}
		return 100 * float64(n) / float64(d)
	}
	add("new_order_rollbacks", "2.4.1.4", "%", a.Rollbacks, a.NewOrders, pct(a.Rollbacks, a.NewOrders), 0.9, 1.1, false)
	avg := 0.0
	if a.NewOrders > 0 {
		avg = float64(a.OrderLines) / float64(a.NewOrders)
	}
	add("average_order_lines", "2.4.1.3", "lines", a.OrderLines, a.NewOrders, avg, 9.5, 10.5, false)
	share := 100.0 / float64(MaxLines-MinLines+1)
	for n := MinLines; n <= MaxLines; n++ {
		add(orderLineCheckNames[n], "2.4.1.3", "%", a.LineCounts[n], a.NewOrders, pct(a.LineCounts[n], a.NewOrders),
			share-lineShareTolerance, share+lineShareTolerance, false)
	}
	add("remote_order_lines", "2.4.1.5", "%", a.RemoteLines, a.OrderLines, pct(a.RemoteLines, a.OrderLines), 0.95, 1.05, single)
	add("remote_payments", "2.5.1.2", "%", a.RemotePayments, a.Payments, pct(a.RemotePayments, a.Payments), 14, 16, single)
	add("payments_by_last_name", "2.5.1.2", "%", a.PaymentsByName, a.Payments, pct(a.PaymentsByName, a.Payments), 57, 63, false)
	add("order_status_by_last_name", "2.6.1.2", "%", a.OrderStatusByName, a.OrderStatuses, pct(a.OrderStatusByName, a.OrderStatuses), 57, 63, false)
	districts := a.Deliveries * DistrictsPerWarehouse
	add("skipped_delivery_districts", "2.7.4.2", "%", a.SkippedDistricts, districts, pct(a.SkippedDistricts, districts), 0, 1, false)
	// Pass: enough transactions and no check outside its bounds. Checks whose own sample is too small
	// to judge say so ("not enough transactions") and neither pass nor fail the audit.
	rep.Pass = rep.Enough
	for _, c := range rep.Checks {
		if c.Status == AuditFail {
			rep.Pass = false
		}
	}
	return rep
}

// orderLineCheckNames[n] names the check of orders with n lines.
var orderLineCheckNames = func() [MaxLines + 1]string {
	var s [MaxLines + 1]string
	for n := MinLines; n <= MaxLines; n++ {
		s[n] = "orders_with_" + strconv.Itoa(n) + "_lines"
	}
	return s
}()

// minSample is the smallest sample for which the bounds [lo, hi] are at least three standard errors
// of the statistic wide on each side, so that a correct generator stays inside them with about 99.7%
// probability. For a share p (percent) with half-width h: n = 9 p (1-p) / h^2; for example remote
// order lines, 1% +- 0.05%, need 356,400 lines, and the 1% of rolled-back New-Orders (+- 0.1%) need
// 89,100 New-Orders. For the average of 5..15 uniform lines (variance (11^2-1)/12 = 10) with
// half-width 0.5: n = 9 x 10 / 0.25 = 360 orders. Skipped delivery districts are an outcome, not a
// draw: no minimum beyond the audit's own.
func minSample(name, unit string, lo, hi float64) int64 {
	switch {
	case name == "skipped_delivery_districts":
		return 0
	case unit == "lines":
		const variance = 10.0
		h := (hi - lo) / 2
		return int64(math.Ceil(9 * variance / (h * h)))
	}
	p := (lo + hi) / 2 / 100
	h := (hi - lo) / 2 / 100
	return int64(math.Ceil(9 * p * (1 - p) / (h * h)))
}
