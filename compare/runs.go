package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
)

// Run is one saved run (an --out directory) as compare reads it: its result and the histograms of
// the intervals that lie inside its measurement window.
type Run struct {
	Dir    string
	Result *report.Result
	// raw is result.json decoded generically (numbers kept as text), for the conditions.
	raw map[string]any
	// Ops are the operation names in the log's order.
	Ops []string
	// Starts and Seconds describe each measured interval, in time order.
	Starts  []time.Time
	Seconds []float64
	// hists[op][kind][i] is interval i's histogram (nil when empty).
	hists map[string]*[measure.NumKinds][]Hist
	// totals[op][kind] is the window's histogram: the log's measured totals, the very histograms
	// `candor report` reads (nil when the log has none: then the measured intervals merged).
	totals map[string]*[measure.NumKinds]Hist
	// MeasureSeconds is the window's length (result.json's, which `candor report` divides by).
	MeasureSeconds float64
	// Excluded counts the intervals outside the window (warm-up, drain, or straddling an edge).
	Excluded int
	// WindowStart and WindowEnd bound the measurement window; WindowSource says where they came
	// from: the log's measured totals (exact) or result.json (started_at and the warm-up).
	WindowStart, WindowEnd time.Time
	WindowSource           string
}

// Hists returns op's histograms of kind k, one per measured interval (nil ones are empty).
func (r *Run) Hists(op string, k measure.Kind) []Hist {
	h := r.hists[op]
	if h == nil {
		return make([]Hist, len(r.Seconds))
	}
	return h[k]
}

// Rates returns op's completed operations per minute in each measured interval.
func (r *Run) Rates(op string) []float64 {
	hs := r.Hists(op, measure.Response)
	out := make([]float64, len(hs))
	for i, h := range hs {
		out[i] = float64(h.Total()) / r.Seconds[i] * 60
	}
	return out
}

// Counts returns op's completed operations in each measured interval.
func (r *Run) Counts(op string) []int64 {
	hs := r.Hists(op, measure.Response)
	out := make([]int64, len(hs))
	for i, h := range hs {
		out[i] = h.Total()
	}
	return out
}

// Total returns op's histogram of kind k over the whole window: the log's measured totals (what
// `candor report` reads), or, in a log without them, the measured intervals merged.
func (r *Run) Total(op string, k measure.Kind) Hist {
	if r.totals != nil {
		if t := r.totals[op]; t != nil {
			return t[k]
		}
		return nil
	}
	return mergeHists(r.Hists(op, k))
}

// PerMinute is op's throughput over the window as `candor report` gives it: completed operations
// divided by the window's minutes.
func (r *Run) PerMinute(op string) float64 {
	if r.MeasureSeconds <= 0 {
		return 0
	}
	return float64(r.Total(op, measure.Response).Total()) / r.MeasureSeconds * 60
}

// Load reads the run saved in dir (result.json and latency.hlog). A directory that is not a run's
// --out is the user's to fix (userr).
func Load(dir string) (*Run, error) {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, userr.Errorf("%s is not a directory: pass the --out directory of a candor run", dir)
	}
	res, err := report.Read(dir)
	if err != nil {
		if runs := subRuns(dir); len(runs) > 0 {
			return nil, userr.Errorf("%s holds several runs (%s), not one: pass one of them, for example %s", dir, strings.Join(runs, ", "), filepath.Join(dir, runs[0]))
		}
		if !userr.Is(err) {
			err = userr.Errorf("%v: pass the --out directory of a candor run", err)
		}
		return nil, err
	}
	r := &Run{Dir: dir, Result: res}
	b, err := os.ReadFile(filepath.Join(dir, report.ResultFile))
	if err != nil {
		return nil, userr.Errorf("cannot read %s: %v", filepath.Join(dir, report.ResultFile), err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&r.raw); err != nil {
		return nil, userr.Errorf("%s is not a candor result (%v)", filepath.Join(dir, report.ResultFile), err)
	}
	if _, ok := r.raw["setup"]; !ok && res.Setup != "" {
		r.raw["setup"] = res.Setup // a result of format 1: report.Read wrote its setup line
	}
	upgradePlan(r.raw)
	logPath := filepath.Join(dir, report.LogFile)
	f, err := os.Open(logPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, userr.Errorf("%s has no %s: compare needs the interval log every run writes into its --out directory", dir, report.LogFile)
		}
		return nil, userr.Errorf("cannot read %s: %v", logPath, err)
	}
	defer f.Close()
	entries, err := measure.ReadLog(f)
	if err != nil {
		return nil, userr.Errorf("%s is not a readable HdrHistogram interval log (%v): was the run interrupted while writing it?", logPath, err)
	}
	if !hasOpEntries(entries) {
		// A log that reads as nothing (not an interval log at all, or cut before its first
		// histogram) would compare as -100% with the same conditions: refuse it.
		return nil, userr.Errorf("%s holds no interval histogram of candor's: it is not the interval log of a run (or was cut before its first interval); compare runs whose --out holds a complete latency.hlog", logPath)
	}
	r.window(entries)
	r.intervals(entries)
	r.readTotals(entries)
	return r, nil
}

// hasOpEntries says whether entries hold at least one histogram of an operation (tag OP.KIND).
func hasOpEntries(entries []measure.LogEntry) bool {
	for _, e := range entries {
		if e.Op != "" {
			return true
		}
	}
	return false
}

// subRuns lists the subdirectories of dir that hold a result (the one-shot's peak, rate-50, ...;
// a search's probes).
func subRuns(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), report.ResultFile)); e.IsDir() && err == nil {
			out = append(out, e.Name())
		}
	}
	return out
}

// window finds the measurement window: the span of the measured totals in the log (written at the
// end of every run that measured anything), else result.json's start plus the warm-up and the
// measured seconds.
func (r *Run) window(entries []measure.LogEntry) {
	for _, e := range entries {
		if e.Measured {
			r.WindowStart, r.WindowEnd, r.WindowSource = e.Start, e.End, "latency.hlog measured totals"
			return
		}
	}
	res := r.Result
	r.WindowStart = res.StartedAt.Add(time.Duration(res.WarmupSeconds * float64(time.Second)))
	r.WindowEnd = r.WindowStart.Add(time.Duration(res.MeasureSeconds * float64(time.Second)))
	r.WindowSource = "result.json started_at, warm-up and measured seconds"
}

type span struct{ start, end time.Time }

// readTotals keeps the log's measured totals (one histogram per op and kind over the window) and
// the window's length.
func (r *Run) readTotals(entries []measure.LogEntry) {
	for _, e := range entries {
		if !e.Measured {
			continue
		}
		if r.totals == nil {
			r.totals = map[string]*[measure.NumKinds]Hist{}
		}
		if r.totals[e.Op] == nil {
			r.totals[e.Op] = &[measure.NumKinds]Hist{}
		}
		r.totals[e.Op][e.Kind] = mergeHists([]Hist{r.totals[e.Op][e.Kind], FromHdr(e.Hist)})
		if !slices.Contains(r.Ops, e.Op) {
			r.Ops = append(r.Ops, e.Op)
		}
	}
	r.MeasureSeconds = r.Result.MeasureSeconds
	if r.MeasureSeconds <= 0 {
		r.MeasureSeconds = r.WindowEnd.Sub(r.WindowStart).Seconds()
	}
}

// intervals groups the log's interval histograms by their span and keeps the spans inside the
// window. A span counts when it starts no earlier than the window's start and ends no later than
// its end, give or take a tolerance (2% of the typical interval, at least 20 ms) for the ticker's
// jitter and the log's millisecond timestamps, and when it is at least half as long as the typical
// interval: the spans that straddle an edge mix in warm-up or drain events, and the slivers a few
// milliseconds long at the window's end and after the drain would, as intervals of their own, make
// rates of a handful of events that swamp the variance; they are left out (their events are in the
// window's totals all the same).
func (r *Run) intervals(entries []measure.LogEntry) {
	type group struct {
		span
		e []measure.LogEntry
	}
	byspan := map[span]*group{}
	var order []*group
	for _, e := range entries {
		if e.Measured || e.Op == "" {
			continue
		}
		if !slices.Contains(r.Ops, e.Op) {
			r.Ops = append(r.Ops, e.Op)
		}
		s := span{e.Start, e.End}
		g := byspan[s]
		if g == nil {
			g = &group{span: s}
			byspan[s] = g
			order = append(order, g)
		}
		g.e = append(g.e, e)
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].start.Before(order[j].start) })
	lengths := make([]float64, 0, len(order))
	for _, g := range order {
		lengths = append(lengths, g.end.Sub(g.start).Seconds())
	}
	slices.Sort(lengths)
	tol := 20 * time.Millisecond
	var typical time.Duration
	if len(lengths) > 0 {
		typical = time.Duration(lengths[len(lengths)/2] * float64(time.Second))
	}
	if d := r.planInterval(); d > 0 {
		typical = d // the run's --interval: a short run's slivers may be half its spans
	}
	tol = max(tol, typical/50)
	r.hists = map[string]*[measure.NumKinds][]Hist{}
	for _, g := range order {
		inside := g.end.After(g.start) && !g.start.Before(r.WindowStart.Add(-tol)) && !g.end.After(r.WindowEnd.Add(tol)) &&
			g.end.Sub(g.start) >= typical/2
		if !inside {
			r.Excluded++
			continue
		}
		i := len(r.Seconds)
		r.Starts = append(r.Starts, g.start)
		r.Seconds = append(r.Seconds, g.end.Sub(g.start).Seconds())
		for _, op := range r.Ops {
			if r.hists[op] == nil {
				r.hists[op] = &[measure.NumKinds][]Hist{}
			}
		}
		for _, hs := range r.hists {
			for k := range hs {
				for len(hs[k]) <= i {
					hs[k] = append(hs[k], nil)
				}
			}
		}
		for _, e := range g.e {
			r.hists[e.Op][e.Kind][i] = FromHdr(e.Hist)
		}
	}
}

// planInterval is the run's --interval from result.json's plan (0 when absent).
func (r *Run) planInterval() time.Duration {
	plan, _ := r.raw["plan"].(map[string]any)
	s, _ := plan["interval"].(string)
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0
	}
	return d
}

// IntervalSeconds is the median length of the measured intervals (0 without any).
func (r *Run) IntervalSeconds() float64 {
	if len(r.Seconds) == 0 {
		return 0
	}
	s := slices.Clone(r.Seconds)
	slices.Sort(s)
	return s[len(s)/2]
}

// upgradePlan moves the TPC-C options of a format-1 plan (plan.warehouses, plan.procedures) where
// format 2 keeps them (plan.options.*) and names the workload, so an old baseline and a new run of
// the same setup show no difference in their plans.
func upgradePlan(raw map[string]any) {
	plan, ok := raw["plan"].(map[string]any)
	if !ok || plan["options"] != nil || raw["workload"] != "tpcc" {
		return
	}
	opts := map[string]any{}
	for _, k := range []string{"warehouses", "procedures"} {
		if v, ok := plan[k]; ok {
			opts[k] = v
			delete(plan, k)
		}
	}
	if len(opts) > 0 {
		plan["options"] = opts
	}
	if _, ok := plan["workload"]; !ok {
		plan["workload"] = "tpcc"
	}
}
