package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/report"
)

// Difference is one condition of the runs that is not the same in both. A and B are the values as
// result.json holds them; ShownA and ShownB rounded for a reader, and Minor says that, rounded, they
// are the same (float noise such as a timer lag's mean in microseconds): the console leaves such a
// difference out, --json keeps it.
type Difference struct {
	Name   string `json:"name"`
	A      string `json:"a"`
	B      string `json:"b"`
	ShownA string `json:"shown_a"`
	ShownB string `json:"shown_b"`
	Minor  bool   `json:"minor"`
}

// rounded is a condition's value as a reader acts on it: text as it is; numbers to a tenth of a
// millisecond or of a second (a name ending in _ms or _seconds, or holding _ms.), a whole percent
// (_pct); other whole numbers exactly, other numbers to three significant digits.
func rounded(name, v string) string {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return v
	}
	switch {
	case strings.Contains(name, "_ms.") || strings.HasSuffix(name, "_ms"):
		return strconv.FormatFloat(f, 'f', 1, 64)
	case strings.HasSuffix(name, "_seconds") || strings.Contains(name, "_seconds."):
		return strconv.FormatFloat(f, 'f', 1, 64)
	case strings.Contains(name, "_pct"):
		return strconv.FormatFloat(f, 'f', 0, 64)
	case f == math.Trunc(f) && !strings.ContainsAny(v, ".eE"):
		return v // a whole number (a seed, a count) exactly
	}
	return strconv.FormatFloat(f, 'g', 3, 64)
}

// newDifference rounds a difference's values and says whether it is minor.
func newDifference(name, a, b string) Difference {
	d := Difference{Name: name, A: a, B: b, ShownA: rounded(name, a), ShownB: rounded(name, b)}
	d.Minor = d.ShownA == d.ShownB
	return d
}

// first lists the conditions shown first, in this order; the others follow alphabetically.
var first = []string{
	"workload", "mode", "setup", "terminals", "connections", "isolation", "seed", "warmup_seconds",
	"measure_seconds", "partial", "warnings", "tool", "database", "driver_host", "system", "plan",
}

// results are the parts of result.json's envelope that are what a run measured, not how it was
// made. Every other part is a condition, compared leaf by leaf ("database.settings.fsync"), so what
// other parts of candor add to the disclosure is compared without a change here. A workload's own
// top-level keys (report.FormatOneKeys: TPC-C's of result format 1) are not compared: its
// conditions are in the envelope's setup line and in the plan (plan.options).
var results = map[string]bool{
	"format_version": true, "disclaimer": true, "started_at": true, "operations": true, "op_order": true,
	"key_op": true, "headline": true, "sections": true, "details": true, "verdicts": true, "checks": true,
	"resources": true, "rate": true, "partial_reason": true, "warnings": true,
	// The system under test, compared as a reader acts on it (system.go).
	"system": true,
	// A merged run's shards and their own figures (the conditions differing are in plan.shard).
	"shards": true,
	// Figures of the driver host measured during the run (host CPU is compared apart below).
	"driver_host.cpu_us_per_tx": true, "driver_host.cpu_seconds": true, "driver_host.watch": true,
	"driver_host.round_trips_per_tx": true, "driver_host.round_trips": true,
	"driver_host.mem_available_bytes": true,
	// What ran through each endpoint (their URLs are compared apart below).
	"endpoints": true,
	// Repeats of a top-level condition, or different in any two runs by design.
	"plan.out": true, "plan.db": true, "plan.seed": true, "plan.mode": true,
	"plan.terminals": true, "plan.connections": true,
}

// workloadKeys are the workload's own top-level keys, left out of the comparison.
var workloadKeys = report.FormatOneKeys()

// hostBusyKey is the driver host's CPU use during the run; runs whose hosts were busy to very
// different degrees (other work on a shared machine) are not comparable even with the same plan,
// so a difference of at least hostBusyPoints percentage points is listed.
const (
	hostBusyKey    = "driver_host.watch.host_cpu_busy_pct"
	hostBusyPoints = 10
)

// Conditions lists the conditions that differ between two results (decoded with json.Number), in
// a stable order: those in first, in that order, then alphabetically.
func Conditions(a, b map[string]any) []Difference {
	fa, fb := map[string]string{}, map[string]string{}
	for k, v := range a {
		flatten(fa, k, v)
	}
	for k, v := range b {
		flatten(fb, k, v)
	}
	names := map[string]bool{}
	for k := range fa {
		names[k] = true
	}
	for k := range fb {
		names[k] = true
	}
	var out []Difference
	for k := range names {
		if isResult(k) {
			continue
		}
		va, oka := fa[k]
		vb, okb := fb[k]
		if va == vb && oka == okb {
			continue
		}
		if !oka {
			va = "(absent)"
		}
		if !okb {
			vb = "(absent)"
		}
		out = append(out, newDifference(k, va, vb))
	}
	if wa, wb := warningCodes(a), warningCodes(b); wa != wb {
		out = append(out, newDifference("warnings", wa, wb))
	}
	out = append(out, systemDifferences(a["system"], b["system"])...)
	if ea, eb := endpointURLs(a), endpointURLs(b); ea != eb {
		out = append(out, newDifference("endpoints", ea, eb))
	}
	if ha, hb := number(fa[hostBusyKey]), number(fb[hostBusyKey]); ha >= 0 && hb >= 0 && math.Abs(ha-hb) >= hostBusyPoints {
		out = append(out, newDifference("driver_host.cpu_busy_pct (whole host, during the run)", fmt.Sprintf("%.0f%%", ha), fmt.Sprintf("%.0f%%", hb)))
	}
	rank := func(n string) int {
		for i, k := range first {
			if n == k || strings.HasPrefix(n, k+".") {
				return i
			}
		}
		return len(first)
	}
	sort.Slice(out, func(i, j int) bool {
		ri, rj := rank(out[i].Name), rank(out[j].Name)
		if ri != rj {
			return ri < rj
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// isResult reports whether the leaf k is, or lies under, a part listed in results or a workload's
// own key.
func isResult(k string) bool {
	top, _, _ := strings.Cut(k, ".")
	if slices.Contains(workloadKeys, top) {
		return true
	}
	for p := k; ; {
		if results[p] {
			return true
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}

// warningCodes is the sorted, comma-separated codes of a result's warnings ("-" for none).
func warningCodes(m map[string]any) string {
	ws, _ := m["warnings"].([]any)
	var codes []string
	for _, w := range ws {
		if o, ok := w.(map[string]any); ok {
			if c, ok := o["code"].(string); ok && !slices.Contains(codes, c) {
				codes = append(codes, c)
			}
		}
	}
	if len(codes) == 0 {
		return "-"
	}
	slices.Sort(codes)
	return strings.Join(codes, ",")
}

// endpointURLs is the comma-separated URLs of a result's endpoints ("-" for none): the terminals
// were spread over them; what ran through each is a result.
func endpointURLs(m map[string]any) string {
	es, _ := m["endpoints"].([]any)
	var urls []string
	for _, e := range es {
		if o, ok := e.(map[string]any); ok {
			if u, ok := o["url"].(string); ok {
				urls = append(urls, u)
			}
		}
	}
	if len(urls) == 0 {
		return "-"
	}
	return strings.Join(urls, ",")
}

// number reads a flattened number (-1 when absent or not a number).
func number(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return -1
	}
	return v
}

// flatten writes v's leaves into dst under prefix ("a.b.c"); nil adds nothing.
func flatten(dst map[string]string, prefix string, v any) {
	switch t := v.(type) {
	case nil:
	case map[string]any:
		for k, x := range t {
			flatten(dst, prefix+"."+k, x)
		}
	case []any:
		b, _ := json.Marshal(t)
		dst[prefix] = string(b)
	case string:
		dst[prefix] = t
	case json.Number:
		dst[prefix] = t.String()
	default:
		dst[prefix] = fmt.Sprint(t)
	}
}
