package report

import (
	"strings"
	"testing"
)

// TestPrintAnswer: the search's answer says whether longer probes confirmed it, what it rests on
// and the spread, that a stepped-down answer is not the search's, and that no rate held.
func TestPrintAnswer(t *testing.T) {
	slo := []string{"new_order.p99<=100ms"}
	cases := []struct {
		name string
		s    SearchResult
		want []string
		not  []string
	}{
		{"unconfirmed", SearchResult{SLO: slo, MaxRate: 2000, SearchRate: 2000, FailRate: 2100, Converged: true, ProbeSeconds: 20},
			[]string{"max rate: 2000.0 operations/s", "2100.0/s does not", "not confirmed: the answer rests on one 20 s probe (--confirm 0)"}, []string{"confirmed by"}},
		{"confirmed", SearchResult{SLO: slo, MaxRate: 2000, SearchRate: 2000, FailRate: 2100, Converged: true,
			Confirmation: &SearchConfirmation{Repeats: 2, ProbeSeconds: 60, StepDown: 0.1, Rounds: 1, Confirmed: true, RestsOn: 3,
				Spread: []BudgetSpread{{SLO: slo[0], MinMs: 41, MaxMs: 88}}, AchievedMin: 1990, AchievedMax: 2004}},
			[]string{"max rate: 2000.0", "confirmed by 2 probe(s) of 60 s; the answer rests on 3 passing probe(s)", "new_order.p99 41.0–88.0 ms", "achieved 1990.0–2004.0/s"},
			[]string{"did not hold"}},
		{"stepped down", SearchResult{SLO: slo, MaxRate: 1460, SearchRate: 2000, FailRate: 1620, Precision: 0.05,
			Confirmation: &SearchConfirmation{Repeats: 2, ProbeSeconds: 60, StepDown: 0.1, Rounds: 4, Confirmed: true, RestsOn: 2}},
			[]string{"max rate: 1460.0", "1620.0/s does not (narrowed only to the confirmation's 10% steps)", "the search's answer, 2000.0/s, did not hold in longer probes: stepped down 3 time(s) by 10%"},
			[]string{"raise --max-probes"}},
		{"none held", SearchResult{SLO: slo, MaxRate: 0, SearchRate: 2000, FailRate: 1310, Probes: []SearchProbe{{Rate: 50}, {Rate: 2000}, {Rate: 2000, Confirm: true}, {Rate: 1310, Confirm: true}},
			Confirmation: &SearchConfirmation{Repeats: 2, ProbeSeconds: 60, StepDown: 0.1, Rounds: 5}},
			[]string{"no rate confirmed: the search's answer, 2000.0/s, failed a longer probe (2×60 s), and so did 4 lower rate(s) down to 1310.0/s"},
			[]string{"max rate"}},
	}
	for _, c := range cases {
		var b strings.Builder
		printAnswer(&b, &c.s)
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: lacks %q:\n%s", c.name, w, b.String())
			}
		}
		for _, n := range c.not {
			if strings.Contains(b.String(), n) {
				t.Errorf("%s: says %q:\n%s", c.name, n, b.String())
			}
		}
	}
}
