package tpcc

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/candor-bench/candor/report"
)

// This file qualifies the figures: whether tpmC may be read as a result (and why not), the
// measured mix against clause 5.2.3's minimums, the measurement interval's length and steady
// state in spec mode (clause 5.5), and the ceiling the deck implies.

// MixMinimums are clause 5.2.3's minimum shares of the completed transactions in the measurement
// interval, in percent: Payment at least 43%, Order-Status, Delivery and Stock-Level at least 4%
// each (New-Order has none: it is what remains).
var MixMinimums = [NumTxTypes]float64{Payment: 43, OrderStatus: 4, Delivery: 4, StockLevel: 4}

// MixMinTransactions is the completed transactions below which the mix is not judged: the deck
// (clause 5.2.4.2) keeps each terminal's mix exact over every pass of 23 cards, so a short run's
// shortfall is only its terminals' unfinished passes.
const MixMinTransactions = 1000

// SpecMinInterval is the shortest measurement interval of a reported result (clause 5.5: at least
// 120 minutes, in steady state).
const SpecMinInterval = 120 * time.Minute

// SteadyStateTolerancePct is how far apart the two halves of the measurement interval's New-Order
// throughput may be for the run to count as steady (clause 5.5 asks for steady state; this is
// candor's test of it).
const SteadyStateTolerancePct = 2.0

// DeckCeilingPerWarehouse is the most tpmC one warehouse can reach with spec timing and candor's
// deck, response times taken as zero: each terminal's mean cycle is the deck's mix of keying time
// plus mean think time (clause 5.2.5.7), 10 terminals per warehouse, New-Order 10 of 23 cards:
// 60 s / 20.70 s x 10/23 x 10 = 12.60. The customary 12.86 (MaxTpmCPerWarehouse) takes the mix at
// clause 5.2.3's minimums (45% New-Order); efficiency keeps it as its denominator for
// comparability, while EFFICIENCY_ABOVE_100 fires above this ceiling by more than chance allows
// (ceilingByChance), which a faithful run cannot pass.
func DeckCeilingPerWarehouse() float64 {
	var cycle, cards float64
	for tx := 0; tx < NumTxTypes; tx++ {
		n := float64(DeckCards[tx])
		cycle += n * (Timings[tx].Keying + Timings[tx].MeanThink).Seconds()
		cards += n
	}
	cycle /= cards
	return 60 / cycle * float64(DeckCards[NewOrder]) / cards * TerminalsPerWarehouse
}

// ceilingByChance is the highest tpmC a faithful run of minutes may show against the deck's
// ceiling (tpmC per minute): the New-Orders of a window are a count that varies from run to run,
// by less than a Poisson count of the same mean (terminals' cycles are regular) but by no more, so a
// run at the ceiling passes it by chance by up to a few standard deviations, sqrt(count). The limit
// is 4 of them: about 0.2% above the ceiling for 100,000 warehouses over 3 minutes, 36% for one
// warehouse over 10 minutes.
func ceilingByChance(ceiling, minutes float64) float64 {
	n := ceiling * minutes // New-Orders expected at the ceiling
	if n <= 0 {
		return ceiling
	}
	return ceiling * (1 + 4/math.Sqrt(n))
}

// mixShortfalls are the types whose share of completed (the five types' completions in the
// window) is below its clause 5.2.3 minimum, in words; none below MixMinTransactions.
func mixShortfalls(completed []int64, total int64) []string {
	if total < MixMinTransactions {
		return nil
	}
	var out []string
	for tx := 0; tx < NumTxTypes; tx++ {
		minPct := MixMinimums[tx]
		if minPct == 0 {
			continue
		}
		if pct := 100 * float64(completed[tx]) / float64(total); pct < minPct {
			out = append(out, fmt.Sprintf("%s %.2f%% < %g%%", TxNames[tx], pct, minPct))
		}
	}
	return out
}

// ivCount is one interval's New-Orders completed inside the measurement window.
type ivCount struct {
	start, end time.Time
	n          int64
}

// halves are the New-Orders completed in the first and second halves of the window [from, to),
// an interval straddling the middle split in proportion to its time on each side.
func halves(ivs []ivCount, from, to time.Time) (first, second float64) {
	mid := from.Add(to.Sub(from) / 2)
	for _, iv := range ivs {
		d := iv.end.Sub(iv.start)
		switch {
		case !iv.end.After(mid):
			first += float64(iv.n)
		case !iv.start.Before(mid) || d <= 0:
			second += float64(iv.n)
		default:
			f := float64(mid.Sub(iv.start)) / float64(d)
			first += f * float64(iv.n)
			second += (1 - f) * float64(iv.n)
		}
	}
	return first, second
}

// steadyDiffPct is how far the second half's New-Order throughput is from the first's, in percent
// of their mean; false when either half is empty.
func steadyDiffPct(first, second float64) (float64, bool) {
	if first <= 0 || second <= 0 {
		return 0, false
	}
	return 100 * (second - first) / ((first + second) / 2), true
}

// qualification is why tpmC is not a qualified result (none: it is): too many failures, a
// 90th-percentile limit failed (spec mode, where the limits are judged), more than 1% of the
// deferred Delivery's districts skipped (clause 2.7.4.2), the mix below clause 5.2.3's minimums.
func qualification(r *report.Result, mixShort []string) []string {
	var why []string
	if v := r.FailureVerdict; v != nil && !v.Pass {
		why = append(why, "failures above --max-failures: "+strings.Join(v.Reasons(), ", "))
	}
	var limits []string
	for _, v := range r.Verdicts {
		if v.Status == "fail" {
			limits = append(limits, strings.TrimSuffix(v.Rule, " (clause 5.2.5.3)"))
		}
	}
	if len(limits) > 0 {
		why = append(why, "90th-percentile limit failed: "+strings.Join(limits, ", "))
	}
	if d := r.DeliveryDeferred; d != nil && d.Districts > 0 && float64(d.SkippedDistricts) > 0.01*float64(d.Districts) {
		why = append(why, fmt.Sprintf("%.2f%% of deferred Delivery districts skipped (over 1%%)", 100*float64(d.SkippedDistricts)/float64(d.Districts)))
	}
	if len(mixShort) > 0 {
		why = append(why, "mix below clause 5.2.3's minimums: "+strings.Join(mixShort, ", "))
	}
	return why
}

// specInterval warns, in spec mode, of a measurement interval shorter than clause 5.5's 120
// minutes, and of one whose halves' New-Order throughput differ by more than
// SteadyStateTolerancePct.
func specInterval(minutes float64, ivs []ivCount, from, to time.Time) []report.Warning {
	var ws []report.Warning
	if minutes*float64(time.Minute) < float64(SpecMinInterval) {
		ws = append(ws, report.Warning{Code: "SPEC_INTERVAL_SHORT", Message: fmt.Sprintf(
			"the measurement interval is %.1f minutes; a reported TPC-C result measures at least %.0f minutes in steady state (clause 5.5): give --duration 120m or more", minutes, SpecMinInterval.Minutes())})
	}
	first, second := halves(ivs, from, to)
	if d, ok := steadyDiffPct(first, second); ok && math.Abs(d) > SteadyStateTolerancePct {
		ws = append(ws, report.Warning{Code: "NOT_STEADY", Message: fmt.Sprintf(
			"the second half of the measurement interval completed %+.1f%% New-Orders against the first (%.0f vs %.0f), outside ±%g%%: the run was not in steady state (clause 5.5); warm up longer or measure longer",
			d, second, first, SteadyStateTolerancePct)})
	}
	return ws
}
