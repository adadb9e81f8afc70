package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// EnginesFile is the JSON file of a comparison of two engines (`candor NAME compare-engines`), at
// the top of its results directory beside EnginesHTML and each run's own directory.
const (
	EnginesFile = "engines.json"
	EnginesHTML = "index.html"
)

// EngineComparison is two engines run on the same tests, one after the other per test (A, then
// B), each run a normal result directory: per test, each engine's latency of the key operation
// (its response time from the intended start) and B's as a multiple of A's.
type EngineComparison struct {
	Workload string `json:"workload"`
	// Suite names the tests' list (sysbench's dolt), or "" for tests given one by one.
	Suite string `json:"suite,omitempty"`
	// KeyOp is the operation whose latency is compared (sysbench's transaction: one event).
	KeyOp   string       `json:"key_op"`
	Engines [2]Engine    `json:"engines"`
	Tests   []EngineTest `json:"tests"`
	// Means are the mean multiples per group of tests (Dolt's reads_mean_multiplier, ...) and
	// overall: the mean of the tests' p50 multiples.
	Means []GroupMean `json:"means"`
	// Conditions are what every run shared: host, CPUs, date, duration, terminals, options.
	Conditions []string `json:"conditions"`
}

// Engine is one side: its label (A or B), the database as given (redacted) and its dialect.
type Engine struct {
	Label   string `json:"label"`
	DB      string `json:"db"`
	Dialect string `json:"dialect"`
	// Server is the engine and version its first run read from it ("" when none ran).
	Server string `json:"server,omitempty"`
}

// name is the engine's server, or its dialect when no run read it.
func (e Engine) name() string {
	if e.Server != "" {
		return e.Server
	}
	return e.Dialect
}

// EngineTest is one test on both engines.
type EngineTest struct {
	Name  string       `json:"name"`
	Group string       `json:"group,omitempty"` // reads or writes in Dolt's suite
	Runs  [2]EngineRun `json:"runs"`
	// Multiple is B's figure over A's (0 when either is missing).
	Multiple Latency `json:"multiple"`
}

// EngineRun is one engine's run of one test.
type EngineRun struct {
	// Dir is the run's result directory, relative to the comparison's.
	Dir string `json:"dir"`
	// Count is the key operation's completions in the window; Errors its failures.
	Count  int64   `json:"count"`
	Errors int64   `json:"errors"`
	Ms     Latency `json:"latency_ms"`
	// Failed says why the run gave no figures ("" when it did).
	Failed string `json:"failed,omitempty"`
}

// Latency is the figures compared: the median (Dolt's published one), p95 (sysbench's default
// percentile) and the mean.
type Latency struct {
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	Mean float64 `json:"mean"`
}

// GroupMean is a group's mean multiple of the median.
type GroupMean struct {
	Group    string  `json:"group"`
	Tests    int     `json:"tests"`
	Multiple float64 `json:"p50_multiple"`
}

// ratio is b over a, 0 when either is not a latency.
func ratio(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	return b / a
}

// Finish computes each test's multiples and the groups' means.
func (c *EngineComparison) Finish() {
	sums := map[string]float64{}
	counts := map[string]int{}
	var order []string
	for i := range c.Tests {
		t := &c.Tests[i]
		a, b := t.Runs[0].Ms, t.Runs[1].Ms
		t.Multiple = Latency{P50: ratio(a.P50, b.P50), P95: ratio(a.P95, b.P95), Mean: ratio(a.Mean, b.Mean)}
		if t.Multiple.P50 == 0 {
			continue
		}
		for _, g := range []string{t.Group, "overall"} {
			if g == "" {
				continue
			}
			if counts[g] == 0 {
				order = append(order, g)
			}
			sums[g] += t.Multiple.P50
			counts[g]++
		}
	}
	c.Means = nil
	for _, g := range order {
		if g == "overall" {
			continue
		}
		c.Means = append(c.Means, GroupMean{Group: g, Tests: counts[g], Multiple: sums[g] / float64(counts[g])})
	}
	if counts["overall"] > 0 {
		c.Means = append(c.Means, GroupMean{Group: "overall", Tests: counts["overall"], Multiple: sums["overall"] / float64(counts["overall"])})
	}
}

// fmtMs is a latency in ms with 2 decimals, "-" when missing.
func fmtMs(v float64) string {
	if v <= 0 || math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

// fmtX is a multiple, "-" when missing.
func fmtX(v float64) string {
	if v <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

// WriteText prints the comparison's table: per test, A's and B's p50, p95 and mean in ms and B/A
// of each, then the means per group and the conditions.
func (c *EngineComparison) WriteText(w io.Writer) {
	a, b := c.Engines[0], c.Engines[1]
	fmt.Fprintf(w, "%s on two engines: A = %s (%s), B = %s (%s); %s latency in ms; B/A = B's latency as a multiple of A's\n",
		c.Workload, a.DB, a.name(), b.DB, b.name(), c.KeyOp)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "test\tA p50\tB p50\tB/A p50\tA p95\tB p95\tB/A p95\tA mean\tB mean\tB/A mean\t")
	for _, t := range c.Tests {
		ra, rb := t.Runs[0], t.Runs[1]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", t.Name,
			fmtMs(ra.Ms.P50), fmtMs(rb.Ms.P50), fmtX(t.Multiple.P50),
			fmtMs(ra.Ms.P95), fmtMs(rb.Ms.P95), fmtX(t.Multiple.P95),
			fmtMs(ra.Ms.Mean), fmtMs(rb.Ms.Mean), fmtX(t.Multiple.Mean))
	}
	tw.Flush()
	for _, m := range c.Means {
		fmt.Fprintf(w, "%s mean multiple (p50): %.2f over %d test%s\n", m.Group, m.Multiple, m.Tests, map[bool]string{true: "", false: "s"}[m.Tests == 1])
	}
	for _, t := range c.Tests {
		for i, r := range t.Runs {
			if r.Failed != "" {
				fmt.Fprintf(w, "%s on %s: %s\n", t.Name, c.Engines[i].Label, r.Failed)
			}
		}
	}
	fmt.Fprintf(w, "conditions: %s\n", strings.Join(c.Conditions, "; "))
}
