package search

import (
	"slices"
	"testing"

	"github.com/candor-bench/candor/userr"
)

// FuzzParseSLO: whatever --slo says, ParseSLO returns a budget naming a known operation, a known
// percentile and a positive limit, which reads back the same from its own selector; or a user
// error. It never panics.
func FuzzParseSLO(f *testing.F) {
	for _, s := range []string{"new_order.p99<=50ms", "payment.service.p99.9<1.5s", " delivery.max <= 2s ", "new_order.response.p90<=800us",
		"new_order.p99", "x.p99<=1s", "new_order.p98<=1s", "new_order.p99<=0s", "new_order.p99<=-1s", "new_order.p99<=1", "<=", ".<", "new_order..p99<=1ms", "new_order.p99<=<=1ms"} {
		f.Add(s)
	}
	types := []string{"new_order", "payment", "delivery"}
	f.Fuzz(func(t *testing.T, s string) {
		slo, err := ParseSLO(s, types)
		if err != nil {
			if !userr.Is(err) {
				t.Fatalf("ParseSLO(%q): %v is not a user error", s, err)
			}
			return
		}
		if !slices.Contains(types, slo.Type) || !slices.Contains(pcts, slo.Pct) || slo.Limit <= 0 || (slo.Kind != "response" && slo.Kind != "service") {
			t.Fatalf("ParseSLO(%q) = %+v", s, slo)
		}
		op := "<="
		if slo.Strict {
			op = "<"
		}
		back, err := ParseSLO(slo.Selector()+op+slo.Limit.String(), types)
		if err != nil || back.Selector() != slo.Selector() || back.Limit != slo.Limit || back.Strict != slo.Strict {
			t.Fatalf("ParseSLO(%q) = %+v does not read back: %+v, %v", s, slo, back, err)
		}
	})
}
