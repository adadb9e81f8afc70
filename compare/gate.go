package compare

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/userr"
)

// Rule is one --fail-on rule: a change of a figure from A to B beyond which the comparison fails,
// when it is also significant. new_order.p99>+10% fails when New-Order's p99 rose by more than 10%;
// throughput<-5% fails when the throughput of any operation fell by more than 5%.
type Rule struct {
	Text string `json:"rule"`
	// Type is the operation ("" for every operation of the runs).
	Type string `json:"type,omitempty"`
	// Metric is "throughput" or a percentile (p50, p90, p99, p99.9).
	Metric string `json:"metric"`
	// Above is true for ">" (fail on a rise past Limit), false for "<" (a fall past it).
	Above bool `json:"above"`
	// Limit is the relative change (0.10 = +10%).
	Limit float64 `json:"limit"`
}

// Verdict is a rule judged on one operation.
type Verdict struct {
	Rule   string   `json:"rule"`
	Type   string   `json:"type"`
	Metric string   `json:"metric"`
	A      float64  `json:"a"`
	B      float64  `json:"b"`
	Change *float64 `json:"change"`
	Low    *float64 `json:"change_low"`
	High   *float64 `json:"change_high"`
	// Significant is the comparison's verdict; Beyond says whether the change passes the limit;
	// Breached is both.
	Significant bool   `json:"significant"`
	Beyond      bool   `json:"beyond_limit"`
	Breached    bool   `json:"breached"`
	Note        string `json:"note,omitempty"`
}

// RuleSyntax is what a rule looks like, for messages.
const RuleSyntax = "[TYPE.]METRIC>+N% or [TYPE.]METRIC<-N%, METRIC one of throughput, p50, p90, p99, p99.9 (for example new_order.p99>+10% or throughput<-5%)"

// ParseRules reads every --fail-on rule, reporting every bad one at once (userr).
func ParseRules(texts []string) ([]Rule, error) {
	var rules []Rule
	var errs []string
	for _, t := range texts {
		r, why := parseRule(t)
		if why != "" {
			errs = append(errs, fmt.Sprintf("--fail-on %q %s", t, why))
			continue
		}
		rules = append(rules, r)
	}
	if len(errs) > 0 {
		return nil, userr.Errorf("%s: write %s", strings.Join(errs, "; "), RuleSyntax)
	}
	return rules, nil
}

func parseRule(s string) (Rule, string) {
	text := strings.TrimSpace(s)
	i := strings.IndexAny(text, "<>")
	if i < 0 {
		return Rule{}, "has no > or <"
	}
	r := Rule{Text: text, Above: text[i] == '>'}
	sel, lim := strings.TrimSpace(text[:i]), strings.TrimSpace(text[i+1:])
	if strings.HasPrefix(lim, "=") {
		return Rule{}, "has >= or <=: a change is compared with > or <"
	}
	metric := sel
	if j := strings.Index(sel, "."); j >= 0 && !strings.HasPrefix(sel[j:], ".9") {
		r.Type, metric = sel[:j], sel[j+1:]
		if r.Type == "" {
			return Rule{}, "names an empty operation"
		}
	}
	if metric != "throughput" && !slices.ContainsFunc(Quantiles, func(q float64) bool { return MetricName(q) == metric }) {
		return Rule{}, fmt.Sprintf("has no metric %q", metric)
	}
	r.Metric = metric
	num, ok := strings.CutSuffix(lim, "%")
	if !ok {
		return Rule{}, fmt.Sprintf("has no change in percent %q", lim)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Rule{}, fmt.Sprintf("has no change in percent %q", lim)
	}
	r.Limit = v / 100
	switch {
	case r.Above && r.Limit < 0:
		return Rule{}, "fails on a rise past a fall: a > rule takes a change of + N%"
	case !r.Above && r.Limit > 0:
		return Rule{}, "fails on a fall past a rise: a < rule takes a change of - N%"
	case r.Limit < -1:
		return Rule{}, "asks for a fall of more than 100%"
	}
	return r, ""
}

// Judge applies the rules to a comparison: one verdict per rule and operation it names. A rule
// naming an operation neither run has is the user's to fix (userr). A rule is breached only when
// the change is significant and beyond its limit.
func Judge(c *Comparison, rules []Rule) ([]Verdict, error) {
	var out []Verdict
	for _, r := range rules {
		matched := false
		for _, t := range c.Types {
			if r.Type != "" && t.Type != r.Type {
				continue
			}
			if r.Type == "" && t.CountA == 0 && t.CountB == 0 {
				continue // an operation neither run did: nothing to judge
			}
			matched = true
			row := t.Throughput
			if r.Metric != "throughput" {
				for _, p := range t.Percentiles {
					if p.Metric == r.Metric {
						row = p
					}
				}
			}
			v := Verdict{Rule: r.Text, Type: t.Type, Metric: r.Metric, A: row.A, B: row.B, Change: row.Change,
				Low: row.Low, High: row.High, Significant: row.Significant}
			if row.Change != nil {
				v.Beyond = (r.Above && *row.Change > r.Limit) || (!r.Above && *row.Change < r.Limit)
			}
			v.Breached = v.Significant && v.Beyond
			if !row.Significant {
				v.Note = row.Verdict
			}
			out = append(out, v)
		}
		if !matched {
			var names []string
			for _, t := range c.Types {
				names = append(names, t.Type)
			}
			return nil, userr.Errorf("--fail-on %q names no operation of these runs (they have %s)", r.Text, strings.Join(names, ", "))
		}
	}
	return out, nil
}

// Breaches is one line per breached verdict.
func Breaches(vs []Verdict) []string {
	var lines []string
	for _, v := range vs {
		if !v.Breached {
			continue
		}
		ci := ""
		if v.Low != nil && v.High != nil {
			ci = " [" + pct(*v.Low) + ", " + pct(*v.High) + "]"
		}
		lines = append(lines, fmt.Sprintf("FAIL %s: %s %s %s → %s, %s%s, significant",
			v.Rule, v.Type, v.Metric, figure(v.Metric, v.A), figure(v.Metric, v.B), pct(*v.Change), ci))
	}
	return lines
}

func figure(metric string, v float64) string {
	if metric == "throughput" {
		return fmt.Sprintf("%.1f/min", v)
	}
	return fmtMs(v) + " ms"
}

// PrintVerdicts writes the --fail-on verdicts, one line each.
func PrintVerdicts(w io.Writer, vs []Verdict) {
	fmt.Fprintf(w, "gate (--fail-on: breached when the change is significant and beyond the rule):\n")
	for _, v := range vs {
		change := "-"
		if v.Change != nil {
			change = pct(*v.Change)
		}
		state := "held"
		switch {
		case v.Breached:
			state = "BREACHED"
		case v.Beyond:
			state = "held (beyond the limit, but " + v.Note + ")"
		}
		fmt.Fprintf(w, "  %-28s %-18s %8s  %s\n", v.Rule, v.Type, change, state)
	}
	fmt.Fprintln(w)
}
