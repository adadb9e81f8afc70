package compare

import (
	"math"
	"testing"

	"github.com/candor-bench/candor/userr"
)

// FuzzParseRules: whatever a --fail-on rule's text, ParseRules returns rules or a user error, never
// panics; a rule it takes has a known metric, a finite limit of the sign its direction says, and
// reads back the same from its own text.
func FuzzParseRules(f *testing.F) {
	for _, s := range []string{"new_order.p99>+10%", "throughput<-5%", "p99.9>+0%", "read.p50>+1.5%",
		"x.p99>10%", "p99>+10", "throughput>+5%", "", ">", "<-%", "a.b.c.p99>+1e400%", "p99>+NaN%", " p90 < -3 % "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rules, err := ParseRules([]string{s})
		if err != nil {
			if !userr.Is(err) {
				t.Fatalf("ParseRules(%q): %v is not a user error", s, err)
			}
			return
		}
		for _, r := range rules {
			switch r.Metric {
			case "throughput", "p50", "p90", "p99", "p99.9":
			default:
				t.Fatalf("ParseRules(%q): metric %q", s, r.Metric)
			}
			if math.IsNaN(r.Limit) || math.IsInf(r.Limit, 0) {
				t.Fatalf("ParseRules(%q): limit %v", s, r.Limit)
			}
			again, err := ParseRules([]string{r.Text})
			if err != nil || len(again) != 1 || again[0] != r {
				t.Fatalf("ParseRules(%q) = %+v, but its text %q reads %+v, %v", s, r, r.Text, again, err)
			}
		}
	})
}
