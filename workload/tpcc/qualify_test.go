package tpcc

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/report"
)

// The deck's ceiling: 10 terminals, mean cycle (10x30 + 10x15 + 12 + 7 + 7)/23 s, 10 of 23 cards
// New-Order: 12.605 tpmC per warehouse, below the customary 12.86 (the mix at clause 5.2.3's
// minimums: 45% New-Order).
func TestDeckCeiling(t *testing.T) {
	want := 60 / (476.0 / 23) * 10 / 23 * 10
	if got := DeckCeilingPerWarehouse(); math.Abs(got-want) > 1e-9 || math.Abs(got-12.605) > 0.001 {
		t.Fatalf("DeckCeilingPerWarehouse = %.4f, want %.4f", got, want)
	}
	if DeckCeilingPerWarehouse() >= MaxTpmCPerWarehouse {
		t.Fatal("the deck's ceiling must be below the customary 12.86")
	}
}

func TestMixShortfalls(t *testing.T) {
	// The deck's own mix passes: 10/23 Payment (43.5%), 1/23 each (4.35%).
	deck := []int64{1000, 1000, 100, 100, 100}
	if got := mixShortfalls(deck, 2300); got != nil {
		t.Errorf("the deck's mix: %v", got)
	}
	// Payments failing: 900 of 2,200 completed is 40.9%; Delivery at 50 is 2.3%.
	short := []int64{1000, 900, 100, 50, 150}
	got := mixShortfalls(short, 2200)
	if len(got) != 2 || !strings.HasPrefix(got[0], "payment 40.91% < 43%") || !strings.HasPrefix(got[1], "delivery 2.27% < 4%") {
		t.Errorf("short mix: %v", got)
	}
	if mixShortfalls([]int64{10, 0, 0, 0, 0}, 10) != nil {
		t.Error("a mix of fewer than MixMinTransactions is not judged")
	}
}

func TestSteadyState(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	iv := func(from, to int, n int64) ivCount {
		return ivCount{start: t0.Add(time.Duration(from) * time.Second), end: t0.Add(time.Duration(to) * time.Second), n: n}
	}
	// A 20 s window in 5 s intervals; the interval 7.5..12.5 straddles the middle, split evenly.
	ivs := []ivCount{iv(0, 5, 100), iv(5, 7, 40), iv(7, 13, 120), iv(13, 15, 40), iv(15, 20, 100)}
	first, second := halves(ivs, t0, t0.Add(20*time.Second))
	if math.Abs(first-200) > 1e-9 || math.Abs(second-200) > 1e-9 {
		t.Fatalf("halves %v %v, want 200 and 200", first, second)
	}
	if ws := specInterval(20.0/60, ivs, t0, t0.Add(20*time.Second)); len(ws) != 1 || ws[0].Code != "SPEC_INTERVAL_SHORT" {
		t.Errorf("a steady 20 s spec run: %v, want SPEC_INTERVAL_SHORT alone", ws)
	}
	// The second half 5% slower: not steady. A 2-hour run has no SPEC_INTERVAL_SHORT.
	slow := []ivCount{iv(0, 10, 1000), iv(10, 20, 950)}
	ws := specInterval(120, slow, t0, t0.Add(20*time.Second))
	if len(ws) != 1 || ws[0].Code != "NOT_STEADY" || !strings.Contains(ws[0].Message, "-5.1%") {
		t.Errorf("a slowing run: %v, want NOT_STEADY at -5.1%%", ws)
	}
	if d, ok := steadyDiffPct(1000, 1015); !ok || math.Abs(d) > SteadyStateTolerancePct {
		t.Errorf("1.5%% apart is steady: %v %v", d, ok)
	}
	if _, ok := steadyDiffPct(0, 10); ok {
		t.Error("an empty half has no verdict")
	}
}

func TestQualification(t *testing.T) {
	r := &report.Result{TPCC: &report.TPCC{DeliveryDeferred: &report.Deferred{Districts: 1000, SkippedDistricts: 5}}}
	if why := qualification(r, nil); len(why) != 0 {
		t.Fatalf("a clean run is qualified: %v", why)
	}
	r.Verdicts = []report.Verdict{report.NewVerdict(report.TPCCVerdictRule("new_order p90 response time"), 5000, 6200, 100),
		report.NewVerdict(report.TPCCVerdictRule("payment p90 response time"), 5000, 100, 100)}
	r.DeliveryDeferred.SkippedDistricts = 20
	r.FailureVerdict = &report.FailureVerdict{LimitPct: 5, Over: []report.OpFailures{{Operation: "new_order", Failed: 436, Attempts: 1000, Pct: 43.6}}}
	why := qualification(r, []string{"payment 40.91% < 43%"})
	want := []string{"failures above --max-failures: new_order failed 43.6% of 1,000 times (limit 5%)",
		"90th-percentile limit failed: new_order p90 response time",
		"2.00% of deferred Delivery districts skipped (over 1%)",
		"mix below clause 5.2.3's minimums: payment 40.91% < 43%"}
	if strings.Join(why, "|") != strings.Join(want, "|") {
		t.Errorf("reasons:\n%s\nwant:\n%s", strings.Join(why, "\n"), strings.Join(want, "\n"))
	}
}

// EFFICIENCY_ABOVE_100 allows what chance gives a faithful run, and no more: 4 standard deviations
// of the window's New-Order count.
func TestCeilingByChance(t *testing.T) {
	ceiling := DeckCeilingPerWarehouse() * 100000
	limit := ceilingByChance(ceiling, 3)
	if rel := limit/ceiling - 1; rel < 0.0019 || rel > 0.0022 {
		t.Fatalf("100,000 warehouses over 3 minutes: limit %.3f%% above the ceiling, want about 0.21%%", 100*rel)
	}
	one := DeckCeilingPerWarehouse()
	if rel := ceilingByChance(one, 10)/one - 1; rel < 0.35 || rel > 0.37 {
		t.Fatalf("one warehouse over 10 minutes: limit %.1f%% above the ceiling, want about 36%%", 100*rel)
	}
	if ceilingByChance(one, 0) != one {
		t.Fatal("an empty window's limit is the ceiling itself")
	}
	// The old start's bias (+1.28% over 3 minutes, TestSteadyStart) is far beyond chance there.
	if ceiling*1.0128 <= limit {
		t.Fatal("a 1.28% excess on 100,000 warehouses should be flagged")
	}
}
