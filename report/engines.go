package report

import (
	"cmp"
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
	// Ops are the operations compared one by one beside each run's headline figure when the tests
	// are rounds of the same mix (TPC-C's five transactions); empty when only KeyOp's latency is
	// compared (sysbench's tests).
	Ops []string `json:"ops,omitempty"`
	// Overall, with Ops and more than one round: each engine's figures as the mean over the rounds
	// in which both engines gave figures (the runs' own figures averaged, counts summed), and B's
	// means as multiples of A's.
	Overall *EngineTest `json:"overall,omitempty"`
	// OpNotes say how some of Ops are timed (TPC-C's delivery and delivery_deferred).
	OpNotes []string `json:"op_notes,omitempty"`
	// OpWord is what Ops are called in the table ("transaction"); "" for "operation".
	OpWord string `json:"op_word,omitempty"`
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
	// HeadlineMultiple is B's headline figure over A's, and OpMultiples B's latencies over A's per
	// operation of the comparison's Ops, in its order (0 when either is missing); only with Ops.
	HeadlineMultiple float64   `json:"headline_multiple,omitempty"`
	OpMultiples      []Latency `json:"op_multiples,omitempty"`
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
	// Headline is the run's first headline figure as its result.json gives it (TPC-C's tpmC), and
	// Ops its figures of each operation of the comparison's Ops; only with Ops.
	Headline *Figure    `json:"headline,omitempty"`
	Ops      []EngineOp `json:"ops,omitempty"`
}

// EngineOp is one operation's figures in one run, as its result.json gives them.
type EngineOp struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
	// Errors are the operations that failed (after their retries), Retries the attempts retried
	// (deadlocks, serialization failures: Dolt's aborted commits).
	Errors  int64   `json:"errors"`
	Retries int64   `json:"retries"`
	Ms      Latency `json:"latency_ms"`
}

// EngineOpOf is op's figures in r (a zero count when r has none of op).
func EngineOpOf(r *Result, op string) EngineOp {
	o := EngineOp{Name: op}
	if t := r.Operations[op]; t != nil {
		o.Count, o.Errors, o.Retries = t.Count, t.Errors, t.Retries
		o.Ms = Latency{P50: t.ResponseMs.P50, P95: t.ResponseMs.P95, Mean: t.ResponseMs.Mean}
	}
	return o
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
		t.multiples(len(c.Ops))
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
	c.Overall = c.overall()
}

// multiples sets t's multiples of B over A: the key operation's latency, and with ops operations
// compared one by one, the headline figure and each operation's latency.
func (t *EngineTest) multiples(ops int) {
	a, b := t.Runs[0], t.Runs[1]
	t.Multiple = latencyRatio(a.Ms, b.Ms)
	if ops == 0 {
		return
	}
	t.HeadlineMultiple = 0
	if a.Headline != nil && b.Headline != nil {
		t.HeadlineMultiple = ratio(a.Headline.Value, b.Headline.Value)
	}
	t.OpMultiples = make([]Latency, ops)
	for i := range t.OpMultiples {
		t.OpMultiples[i] = latencyRatio(a.op(i).Ms, b.op(i).Ms)
	}
}

func latencyRatio(a, b Latency) Latency {
	return Latency{P50: ratio(a.P50, b.P50), P95: ratio(a.P95, b.P95), Mean: ratio(a.Mean, b.Mean)}
}

// op is the run's i-th operation of the comparison's Ops (zero when the run has no figures).
func (r EngineRun) op(i int) EngineOp {
	if i < len(r.Ops) {
		return r.Ops[i]
	}
	return EngineOp{}
}

// failures are the run's failed operations and retried attempts over the comparison's Ops, as
// cells ("-" for a run without figures).
func (r EngineRun) failures() (failed, retried string) {
	if r.Ops == nil {
		return "-", "-"
	}
	var f, n int64
	for _, o := range r.Ops {
		f += o.Errors
		n += o.Retries
	}
	return fmt.Sprint(f), fmt.Sprint(n)
}

// opFailures are the cells of the run's failures and retries of its i-th operation.
func (r EngineRun) opFailures(i int) (failed, retried string) {
	if r.Ops == nil {
		return "-", "-"
	}
	o := r.op(i)
	return fmt.Sprint(o.Errors), fmt.Sprint(o.Retries)
}

// overall is the rounds' means (Overall), nil with fewer than two rounds or none in which both
// engines gave figures. An operation's latency is each engine's mean over the rounds in which it
// completed that operation.
func (c *EngineComparison) overall() *EngineTest {
	var both []EngineTest
	for _, t := range c.Tests {
		if t.Runs[0].Headline != nil && t.Runs[1].Headline != nil {
			both = append(both, t)
		}
	}
	if len(c.Ops) == 0 || len(c.Tests) < 2 || len(both) == 0 {
		return nil
	}
	o := &EngineTest{Name: "overall"}
	for side := range o.Runs {
		h := *both[0].Runs[side].Headline
		h.Value, h.Note, h.Bad, h.NotQualified = 0, fmt.Sprintf("mean of %d rounds", len(both)), false, ""
		r := EngineRun{Headline: &h, Ops: make([]EngineOp, len(c.Ops))}
		var lat []Latency
		var n []float64
		for range c.Ops {
			lat, n = append(lat, Latency{}), append(n, 0)
		}
		for _, t := range both {
			tr := t.Runs[side]
			h.Value += tr.Headline.Value
			r.Count += tr.Count
			r.Errors += tr.Errors
			for i := range c.Ops {
				op, sum := tr.op(i), &r.Ops[i]
				sum.Count += op.Count
				sum.Errors += op.Errors
				sum.Retries += op.Retries
				if op.Count > 0 {
					lat[i] = Latency{P50: lat[i].P50 + op.Ms.P50, P95: lat[i].P95 + op.Ms.P95, Mean: lat[i].Mean + op.Ms.Mean}
					n[i]++
				}
			}
		}
		h.Value /= float64(len(both))
		for i, name := range c.Ops {
			r.Ops[i].Name = name
			if n[i] > 0 {
				r.Ops[i].Ms = Latency{P50: lat[i].P50 / n[i], P95: lat[i].P95 / n[i], Mean: lat[i].Mean / n[i]}
			}
		}
		o.Runs[side] = r
	}
	o.multiples(len(c.Ops))
	return o
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
	if len(c.Ops) > 0 {
		c.writeRounds(w)
		return
	}
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
	c.writeTail(w)
}

// writeTail prints the runs that gave no figures, and the conditions.
func (c *EngineComparison) writeTail(w io.Writer) {
	for _, l := range c.FailedRuns() {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintf(w, "conditions: %s\n", strings.Join(c.Conditions, "; "))
}

// FailedRuns are the runs that gave no figures, one line each ("2 on B: ...").
func (c *EngineComparison) FailedRuns() []string {
	var l []string
	for _, t := range c.Tests {
		for i, r := range t.Runs {
			if r.Failed != "" {
				l = append(l, fmt.Sprintf("%s%s on %s: %s", map[bool]string{true: "round "}[len(c.Ops) > 0], t.Name, c.Engines[i].Label, r.Failed))
			}
		}
	}
	return l
}

// HeadlineName is the runs' headline figure's name ("tpmC"), "headline" when no run gave one;
// HeadlineUnit its unit.
func (c *EngineComparison) HeadlineName() (name, unit string) {
	for _, t := range c.Tests {
		for _, r := range t.Runs {
			if r.Headline != nil {
				return r.Headline.Name, r.Headline.Unit
			}
		}
	}
	return "headline", ""
}

// Rows are the rounds and, when there is one, the overall row.
func (c *EngineComparison) Rows() []EngineTest {
	if c.Overall == nil {
		return c.Tests
	}
	return append(c.Tests[:len(c.Tests):len(c.Tests)], *c.Overall)
}

// HeadlineCells are a round's cells: A's and B's headline figure, B/A, and each engine's failed
// operations and retried attempts.
func (t EngineTest) HeadlineCells() []string {
	a, b := t.Runs[0], t.Runs[1]
	fa, ra := a.failures()
	fb, rb := b.failures()
	return []string{fmtFigure(a.Headline), fmtFigure(b.Headline), fmtX(t.HeadlineMultiple), fa, fb, ra, rb}
}

// OpCells are a round's cells of its i-th operation: A's and B's p95, B/A, A's and B's mean,
// B/A, and each engine's failed operations and retried attempts.
func (t EngineTest) OpCells(i int) []string {
	a, b, m := t.Runs[0].op(i), t.Runs[1].op(i), Latency{}
	if i < len(t.OpMultiples) {
		m = t.OpMultiples[i]
	}
	fa, ra := t.Runs[0].opFailures(i)
	fb, rb := t.Runs[1].opFailures(i)
	return []string{fmtMs(a.Ms.P95), fmtMs(b.Ms.P95), fmtX(m.P95), fmtMs(a.Ms.Mean), fmtMs(b.Ms.Mean), fmtX(m.Mean), fa, fb, ra, rb}
}

// fmtFigure is a headline figure's value as the run's summary writes it, "-" when missing.
func fmtFigure(f *Figure) string {
	if f == nil {
		return "-"
	}
	return figureValue(f.Value)
}

// writeRounds prints a comparison of rounds (Ops given): per round and overall, each engine's
// headline figure, B/A and their failures and retries; then per round and operation the p95 and
// mean latency of each and B/A; the figures not qualified, the runs without figures, the conditions.
func (c *EngineComparison) writeRounds(w io.Writer) {
	a, b := c.Engines[0], c.Engines[1]
	name, unit := c.HeadlineName()
	fmt.Fprintf(w, "%s on two engines: A = %s (%s), B = %s (%s); B/A = B's figure as a multiple of A's\n", c.Workload, a.DB, a.name(), b.DB, b.name())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "round\tA %s\tB %s\tB/A %s\tA failed\tB failed\tA retried\tB retried\t\n", name, name, name)
	for _, t := range c.Rows() {
		fmt.Fprintf(tw, "%s\t%s\t\n", t.Name, strings.Join(t.HeadlineCells(), "\t"))
	}
	tw.Flush()
	fmt.Fprintf(w, "%s: each run's own headline figure (%s); failed: operations that failed after their retries; retried: attempts retried (deadlocks, serialization failures)\n", name, cmp.Or(unit, "as its result gives it"))
	fmt.Fprintf(w, "\nresponse time in ms from the intended start, per %s\n", cmp.Or(c.OpWord, "operation"))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "round\t"+cmp.Or(c.OpWord, "operation")+"\tA p95\tB p95\tB/A p95\tA mean\tB mean\tB/A mean\tA failed\tB failed\tA retried\tB retried\t")
	for _, t := range c.Rows() {
		for i, op := range c.Ops {
			fmt.Fprintf(tw, "%s\t%s\t%s\t\n", t.Name, op, strings.Join(t.OpCells(i), "\t"))
		}
	}
	tw.Flush()
	if c.Overall != nil {
		fmt.Fprintf(w, "overall: each engine's %s in which both gave figures (a latency over those that completed the operation), failures and retries summed\n",
			c.Overall.Runs[0].Headline.Note)
	}
	for _, n := range c.OpNotes {
		fmt.Fprintln(w, n)
	}
	for _, t := range c.Tests {
		for i, r := range t.Runs {
			if h := r.Headline; h != nil && h.NotQualified != "" {
				fmt.Fprintf(w, "round %s on %s: %s not qualified: %s\n", t.Name, c.Engines[i].Label, h.Name, h.NotQualified)
			}
		}
	}
	c.writeTail(w)
}
