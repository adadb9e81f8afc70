package tpcc

import (
	"testing"

	"github.com/candor-bench/candor/gen"
)

// Clause 2.1.6: NURand(A, x, y) stays in [x, y] for every A and C candor uses, and reaches both ends.
func TestNURandBounds(t *testing.T) {
	cases := []struct{ a, x, y, cmax int }{{255, 0, 999, 255}, {1023, 1, 3000, 1023}, {8191, 1, 100000, 8191}}
	for _, tc := range cases {
		for _, c := range []int{0, 1, tc.cmax / 2, tc.cmax} {
			r := gen.New(gen.Derive(3, "nurand", tc.a, c))
			lo, hi := tc.y, tc.x
			for i := 0; i < 200000; i++ {
				v := NURand(r, tc.a, tc.x, tc.y, c)
				if v < tc.x || v > tc.y {
					t.Fatalf("NURand(%d, %d, %d) with C=%d gave %d", tc.a, tc.x, tc.y, c, v)
				}
				lo, hi = min(lo, v), max(hi, v)
			}
			if tc.y-tc.x < 5000 && (lo != tc.x || hi != tc.y) {
				t.Errorf("NURand(%d, %d, %d) with C=%d covered only %d..%d", tc.a, tc.x, tc.y, c, lo, hi)
			}
		}
	}
}

// Clause 2.1.6.1: |C_run - C_load| for last names in 65..119, and neither 96 nor 112.
func TestValidCRun(t *testing.T) {
	for load := 0; load <= 255; load++ {
		for run := 0; run <= 255; run++ {
			d := run - load
			if d < 0 {
				d = -d
			}
			want := d >= 65 && d <= 119 && d != 96 && d != 112
			if got := ValidCRun(run, load); got != want {
				t.Fatalf("ValidCRun(%d, %d) = %v, want %v", run, load, got, want)
			}
		}
	}
	for _, tc := range []struct {
		run, load int
		ok        bool
	}{{65, 0, true}, {64, 0, false}, {119, 0, true}, {120, 0, false}, {96, 0, false}, {112, 0, false}, {0, 96, false}, {100, 200, true}, {200, 100, true}, {30, 200, false}, {255, 0, false}} {
		if got := ValidCRun(tc.run, tc.load); got != tc.ok {
			t.Errorf("ValidCRun(%d, %d) = %v, want %v", tc.run, tc.load, got, tc.ok)
		}
	}
}

// RunConstants finds a valid C for every possible load value, whatever the seed.
func TestRunConstantsAlwaysValid(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		for cl := 0; cl <= 255; cl++ {
			load := Constants{CLast: cl, CID: 5, OLIID: 7}
			run := RunConstants(seed, load)
			if !ValidCRun(run.CLast, cl) {
				t.Fatalf("seed %d: RunConstants gave C_last %d for load %d", seed, run.CLast, cl)
			}
			if run.CLast < 0 || run.CLast > 255 || run.CID < 0 || run.CID > 1023 || run.OLIID < 0 || run.OLIID > 8191 {
				t.Fatalf("seed %d: RunConstants out of range: %+v", seed, run)
			}
		}
	}
}

const inputDraws = 200000

// checkAudit fails the test for every audit check that is not within its bounds (with enough
// transactions) or not applicable.
func checkAudit(t *testing.T, a *Audit, names ...string) {
	t.Helper()
	rep := a.Report()
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	seen := 0
	for _, c := range rep.Checks {
		if !want[c.Name] {
			continue
		}
		seen++
		if c.Status != AuditPass && c.Status != AuditNotApplicable {
			t.Errorf("%s = %.4f%s (%d of %d), want %.4g..%.4g: %s", c.Name, c.Value, c.Unit, c.Count, c.Of, c.Min, c.Max, c.Status)
		}
	}
	if seen != len(names) {
		t.Errorf("audit has %d of the checks %v", seen, names)
	}
}

func TestGenNewOrder(t *testing.T) {
	for _, W := range []int{1, 10} {
		c := RunConstants(1, LoadConstants(1))
		r := gen.New(gen.Derive(11, "new-order", W))
		a := Audit{Warehouses: W}
		var in NewOrderInput
		w := 1 + W/2
		for n := 0; n < inputDraws; n++ {
			GenNewOrder(r, c, w, W, &in)
			if in.WID != w || in.DID < 1 || in.DID > 10 || in.CID < 1 || in.CID > 3000 || in.OLCnt < 5 || in.OLCnt > 15 {
				t.Fatalf("bad New-Order input %+v", in)
			}
			remote := 0
			for i := 0; i < in.OLCnt; i++ {
				l := in.Lines[i]
				last := i == in.OLCnt-1
				switch {
				case in.Rollback && last:
					if l.ItemID != UnusedItemID {
						t.Fatalf("rollback order's last item %d, want unused %d", l.ItemID, UnusedItemID)
					}
				case l.ItemID < 1 || l.ItemID > Items:
					t.Fatalf("item %d out of range", l.ItemID)
				}
				if l.Quantity < 1 || l.Quantity > 10 || l.SupplyWID < 1 || l.SupplyWID > W {
					t.Fatalf("bad line %+v (W=%d)", l, W)
				}
				if l.SupplyWID != w {
					remote++
				}
			}
			if remote != in.RemoteLines || in.AllLocal() != (remote == 0) {
				t.Fatalf("RemoteLines %d, counted %d", in.RemoteLines, remote)
			}
			for i := in.OLCnt; i < MaxLines; i++ {
				if in.Lines[i] != (NewOrderLine{}) {
					t.Fatalf("line %d beyond OLCnt %d not cleared: %+v", i, in.OLCnt, in.Lines[i])
				}
			}
			a.AddNewOrder(&in)
		}
		checkAudit(t, &a, "new_order_rollbacks", "average_order_lines", "remote_order_lines",
			"orders_with_5_lines", "orders_with_10_lines", "orders_with_15_lines")
		if W == 1 && a.RemoteLines != 0 {
			t.Errorf("W=1: %d remote lines", a.RemoteLines)
		}
		if W > 1 && a.RemoteLines == 0 {
			t.Errorf("W=%d: no remote lines", W)
		}
		for n := MinLines; n <= MaxLines; n++ {
			checkAudit(t, &a, orderLineCheckNames[n])
		}
	}
}

func TestGenPayment(t *testing.T) {
	for _, W := range []int{1, 10} {
		c := RunConstants(2, LoadConstants(2))
		r := gen.New(gen.Derive(12, "payment", W))
		a := Audit{Warehouses: W}
		var in PaymentInput
		w := W
		var minAmt, maxAmt int64 = 1 << 62, 0
		for n := 0; n < inputDraws; n++ {
			GenPayment(r, c, w, W, &in)
			if in.WID != w || in.DID < 1 || in.DID > 10 || in.CDID < 1 || in.CDID > 10 || in.CWID < 1 || in.CWID > W {
				t.Fatalf("bad Payment input %+v", in)
			}
			if in.Remote != (in.CWID != w) || (!in.Remote && in.CDID != in.DID) {
				t.Fatalf("remote flag wrong: %+v", in)
			}
			if in.ByName && (in.CLast == "" || in.CID != 0) || !in.ByName && (in.CID < 1 || in.CID > 3000 || in.CLast != "") {
				t.Fatalf("bad customer choice %+v", in)
			}
			minAmt, maxAmt = min(minAmt, in.AmountCents), max(maxAmt, in.AmountCents)
			a.AddPayment(&in)
		}
		if minAmt < 100 || maxAmt > 500000 || minAmt > 200 || maxAmt < 499900 {
			t.Errorf("amounts span %d..%d cents, want 100..500000", minAmt, maxAmt)
		}
		checkAudit(t, &a, "remote_payments", "payments_by_last_name")
		if W == 1 && a.RemotePayments != 0 {
			t.Errorf("W=1: %d remote payments", a.RemotePayments)
		}
	}
}

func TestGenOrderStatusDeliveryStockLevel(t *testing.T) {
	c := RunConstants(3, LoadConstants(3))
	r := gen.New(gen.Derive(13, "others"))
	var a Audit
	var os OrderStatusInput
	var dl DeliveryInput
	var sl StockLevelInput
	names := map[string]bool{}
	var carriers, thresholds [21]int
	for n := 0; n < inputDraws; n++ {
		GenOrderStatus(r, c, 3, 10, &os)
		if os.WID != 3 || os.DID < 1 || os.DID > 10 || os.ByName && os.CLast == "" || !os.ByName && (os.CID < 1 || os.CID > 3000) {
			t.Fatalf("bad Order-Status input %+v", os)
		}
		if os.ByName {
			names[os.CLast] = true
		}
		a.AddOrderStatus(&os)
		GenDelivery(r, c, 3, 10, &dl)
		if dl.CarrierID < 1 || dl.CarrierID > 10 {
			t.Fatalf("carrier %d", dl.CarrierID)
		}
		carriers[dl.CarrierID]++
		GenStockLevel(r, c, 3, 10, &sl)
		if sl.Threshold < 10 || sl.Threshold > 20 {
			t.Fatalf("threshold %d", sl.Threshold)
		}
		thresholds[sl.Threshold]++
	}
	checkAudit(t, &a, "order_status_by_last_name")
	// NURand(255, 0, 999) reaches every one of the 1000 names in this many draws
	if len(names) < 990 {
		t.Errorf("only %d distinct last names drawn", len(names))
	}
	for v := 1; v <= 10; v++ {
		if carriers[v] == 0 {
			t.Errorf("carrier %d never drawn", v)
		}
	}
	for v := 10; v <= 20; v++ {
		if thresholds[v] == 0 {
			t.Errorf("threshold %d never drawn", v)
		}
	}
}

// The same seed gives the same inputs (design.md, "Randomness and reproducibility").
func TestInputsReproducible(t *testing.T) {
	c := RunConstants(4, LoadConstants(4))
	r1, r2 := gen.New(99), gen.New(99)
	var a, b NewOrderInput
	var p, q PaymentInput
	for i := 0; i < 1000; i++ {
		GenNewOrder(r1, c, 2, 5, &a)
		GenNewOrder(r2, c, 2, 5, &b)
		GenPayment(r1, c, 2, 5, &p)
		GenPayment(r2, c, 2, 5, &q)
		if a != b || p != q {
			t.Fatalf("draw %d differs for the same seed", i)
		}
	}
}

// Generating inputs allocates nothing.
func TestInputsDoNotAllocate(t *testing.T) {
	c := RunConstants(5, LoadConstants(5))
	r := gen.New(5)
	var no NewOrderInput
	var p PaymentInput
	var os OrderStatusInput
	allocs := testing.AllocsPerRun(1000, func() {
		GenNewOrder(r, c, 1, 10, &no)
		GenPayment(r, c, 1, 10, &p)
		GenOrderStatus(r, c, 1, 10, &os)
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per set of inputs, want 0", allocs)
	}
}
