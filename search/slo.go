// Package search finds the highest arrival rate whose steady-state tails meet every latency budget
// (`candor NAME search`). It is pure: budgets are parsed from text and judged against percentiles,
// and the search steps up and then bisects over a probe function it is given, so both are tested
// with tables and a fake probe. Package run does the probing (one open-loop run per probe).
package search

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/userr"
)

// SLO is one latency budget: a transaction type's percentile of response (or service) time must
// be at most (or below) a limit.
type SLO struct {
	Text   string        // as given
	Type   string        // a transaction type, e.g. new_order
	Kind   string        // "response" (the default) or "service"
	Pct    string        // p50, p90, p95, p99, p99.9, p99.99 or max
	Limit  time.Duration // the budget
	Strict bool          // "<" rather than "<="
}

// Syntax is the expected form of a budget, quoted in errors, with an example on the first of types
// (the workload's operations; new_order when none are given).
func Syntax(types []string) string {
	ex := "new_order"
	if len(types) > 0 {
		ex = types[0]
	}
	return "TYPE.PERCENTILE<=DURATION, for example --slo '" + ex + ".p99<=50ms' (percentiles p50 p90 p95 p99 p99.9 p99.99 max; TYPE.service.p99<=... for service time)"
}

var pcts = []string{"p50", "p90", "p95", "p99", "p99.9", "p99.99", "max"}

// ParseSLO reads one budget; types are the transaction types it may name.
func ParseSLO(s string, types []string) (SLO, error) {
	slo, why := parseSLO(s, types)
	if why != "" {
		return SLO{}, userr.Errorf("--slo %q %s: write %s", s, why, Syntax(types))
	}
	return slo, nil
}

// ParseSLOs reads every budget, reporting every bad one at once.
func ParseSLOs(texts []string, types []string) ([]SLO, error) {
	if len(texts) == 0 {
		return nil, userr.Errorf("give at least one budget: %s", Syntax(types))
	}
	var slos []SLO
	var errs []string
	for _, t := range texts {
		s, why := parseSLO(t, types)
		if why != "" {
			errs = append(errs, fmt.Sprintf("--slo %q %s", t, why))
			continue
		}
		slos = append(slos, s)
	}
	if len(errs) > 0 {
		return nil, userr.Errorf("%s: write %s", strings.Join(errs, "; "), Syntax(types))
	}
	return slos, nil
}

// parseSLO reads one budget, or says what is wrong with it.
func parseSLO(s string, types []string) (SLO, string) {
	text := strings.TrimSpace(s)
	op, strict := "<=", false
	i := strings.Index(text, "<=")
	if i < 0 {
		op, strict = "<", true
		i = strings.Index(text, "<")
	}
	if i < 0 {
		return SLO{}, "has no <= or <"
	}
	sel, lim := strings.TrimSpace(text[:i]), strings.TrimSpace(text[i+len(op):])
	typ, rest, ok := strings.Cut(sel, ".")
	if !ok || typ == "" || rest == "" {
		return SLO{}, "does not name a type and a percentile"
	}
	if !slices.Contains(types, typ) {
		return SLO{}, fmt.Sprintf("names no operation of the workload (known: %s)", strings.Join(types, ", "))
	}
	kind := "response"
	for _, k := range []string{"response.", "service."} {
		if strings.HasPrefix(rest, k) {
			kind, rest = strings.TrimSuffix(k, "."), rest[len(k):]
		}
	}
	if !slices.Contains(pcts, rest) {
		return SLO{}, fmt.Sprintf("has no percentile %q", rest)
	}
	d, err := time.ParseDuration(lim)
	if err != nil || d <= 0 {
		return SLO{}, fmt.Sprintf("has no positive duration %q (with a unit: 50ms, 1.5s, 800us)", lim)
	}
	return SLO{Text: s, Type: typ, Kind: kind, Pct: rest, Limit: d, Strict: strict}, ""
}

// Selector is the budget's left side, e.g. new_order.p99 (new_order.service.p99 for service time).
func (s SLO) Selector() string {
	if s.Kind == "service" {
		return s.Type + ".service." + s.Pct
	}
	return s.Type + "." + s.Pct
}

// ValueMs picks the budget's percentile (milliseconds) out of a spectrum.
func (s SLO) ValueMs(p measure.Percentiles) float64 {
	switch s.Pct {
	case "p50":
		return p.P50
	case "p90":
		return p.P90
	case "p95":
		return p.P95
	case "p99":
		return p.P99
	case "p99.9":
		return p.P999
	case "p99.99":
		return p.P9999
	}
	return p.Max
}

// Met judges a value in milliseconds against the budget.
func (s SLO) Met(ms float64) bool {
	limit := float64(s.Limit) / float64(time.Millisecond)
	if s.Strict {
		return ms < limit
	}
	return ms <= limit
}
