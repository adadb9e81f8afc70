package compare

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/userr"
)

func TestParseRules(t *testing.T) {
	good := map[string]Rule{
		"new_order.p99>+10%": {Type: "new_order", Metric: "p99", Above: true, Limit: 0.10},
		"throughput<-5%":     {Metric: "throughput", Limit: -0.05},
		"p99.9 > 20%":        {Metric: "p99.9", Above: true, Limit: 0.20},
		"read.p99.9>+2.5%":   {Type: "read", Metric: "p99.9", Above: true, Limit: 0.025},
		"read.throughput<0%": {Type: "read", Metric: "throughput"},
	}
	for text, want := range good {
		rs, err := ParseRules([]string{text})
		if err != nil || len(rs) != 1 {
			t.Errorf("%q: %v", text, err)
			continue
		}
		r := rs[0]
		if r.Type != want.Type || r.Metric != want.Metric || r.Above != want.Above || r.Limit-want.Limit > 1e-12 || want.Limit-r.Limit > 1e-12 {
			t.Errorf("%q = %+v, want %+v", text, r, want)
		}
	}
	for _, text := range []string{"", "throughput", "p98>+1%", "p99>-1%", "throughput<+5%", "p99>=10%", "p99>10", "p99>x%", ".p99>1%", "throughput<-150%"} {
		_, err := ParseRules([]string{"read.p99>+1%", text})
		if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), "--fail-on") || strings.Contains(err.Error(), `"read.p99>+1%"`) {
			t.Errorf("%q: %v, want a user error naming it alone", text, err)
		}
	}
}

// TestJudge: a rule is breached only when the change is significant and beyond it.
func TestJudge(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	c := &Comparison{Types: []TypeComparison{
		{Type: "read", CountA: 10, Throughput: Row{Change: f(-0.20), Significant: true},
			Percentiles: []Row{{Metric: "p99", Change: f(0.30), Significant: false, Verdict: NotSignificant}}},
		{Type: "write", CountA: 10, Throughput: Row{Change: f(-0.02), Significant: true},
			Percentiles: []Row{{Metric: "p99", Change: f(0.12), Significant: true}}},
		{Type: "scan"}, // neither run did it
	}}
	rules, err := ParseRules([]string{"throughput<-5%", "p99>+10%"})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := Judge(c, rules)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, v := range vs {
		got[v.Rule+" "+v.Type] = v.Breached
	}
	want := map[string]bool{"throughput<-5% read": true, "throughput<-5% write": false, "p99>+10% read": false, "p99>+10% write": true}
	if len(got) != len(want) {
		t.Fatalf("verdicts %+v", vs)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: breached %v, want %v", k, got[k], w)
		}
	}
	if lines := Breaches(vs); len(lines) != 2 || !strings.HasPrefix(lines[0], "FAIL throughput<-5%: read throughput") {
		t.Errorf("breaches %q", lines)
	}
	if _, err := Judge(c, []Rule{{Text: "delete.p99>+1%", Type: "delete", Metric: "p99", Above: true, Limit: 0.01}}); err == nil || !userr.Is(err) {
		t.Errorf("a rule naming no operation: %v", err)
	}
}

// TestMinChange: a significant change within ±MinChange is not significant, says why, and so
// breaches no rule; one beyond it stays significant; none is touched without a MinChange.
func TestMinChange(t *testing.T) {
	mk := func() *Comparison {
		return &Comparison{Types: []TypeComparison{{Type: "read", CountA: 1, CountB: 1,
			Throughput:  Row{Metric: "per_minute", A: 100, B: 96, Change: ptr(-0.04), Low: ptr(-0.05), High: ptr(-0.03), Significant: true, Verdict: Significant},
			Percentiles: []Row{{Metric: "p99", A: 10, B: 11, Change: ptr(0.10), Low: ptr(0.05), High: ptr(0.15), Significant: true, Verdict: Significant}}}}}
	}
	c := mk()
	applyMinChange(c, 0)
	if !c.Types[0].Throughput.Significant {
		t.Fatalf("no --min-change: a significant -4%% became %q", c.Types[0].Throughput.Verdict)
	}
	c = mk()
	applyMinChange(c, 0.05)
	thr, p99 := c.Types[0].Throughput, c.Types[0].Percentiles[0]
	if thr.Significant || thr.Verdict != "not significant (within ±5%, --min-change)" {
		t.Errorf("-4%% within 5%%: significant %v, verdict %q", thr.Significant, thr.Verdict)
	}
	if !p99.Significant || p99.Verdict != Significant {
		t.Errorf("+10%% beyond 5%%: significant %v, verdict %q", p99.Significant, p99.Verdict)
	}
	rules, err := ParseRules([]string{"throughput<-3%", "p99>+5%"})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := Judge(c, rules)
	if err != nil {
		t.Fatal(err)
	}
	if vs[0].Breached || !vs[1].Breached {
		t.Errorf("throughput<-3%% breached %v (want not: -4%% is within --min-change), p99>+5%% breached %v (want so)", vs[0].Breached, vs[1].Breached)
	}
}

// TestDisagree: a percentile whose window fell while its intervals' values rose is not
// significant, and breaches no rule either way.
func TestDisagree(t *testing.T) {
	pr := PercentileRatio{Q: 0.999, A: 94500, B: 80300, Valid: true, Method: MethodShift,
		Ratio: Interval{Estimate: 80300.0 / 94500, Low: 1.047, High: 1.123}}
	row := percentileRow(pr, false)
	if row.Significant || row.Verdict != Disagree {
		t.Fatalf("window -15%%, intervals [+4.7%%, +12.3%%]: significant %v, verdict %q", row.Significant, row.Verdict)
	}
	pr.B, pr.Ratio.Estimate = 104000, 104000.0/94500 // +10%: agrees
	if row := percentileRow(pr, false); !row.Significant {
		t.Errorf("window +10%%, intervals [+4.7%%, +12.3%%]: verdict %q", row.Verdict)
	}
}
