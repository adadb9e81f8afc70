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
