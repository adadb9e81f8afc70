// Package merge makes one result from the results of the shards of one run (`candor merge DIR...
// --out DIR`): histograms added bucket by bucket from the shards' interval logs
// (never percentiles averaged, never a maximum of percentiles taken), counts and rates summed, the
// workload's figures, verdicts and warnings recomputed from the merged totals (workload.Merger),
// written as result.json, latency.hlog and report.html in the shape of a single run's, so `candor
// report` and `candor compare` read it like any other. It is workload-neutral.
package merge

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	htmlreport "github.com/candor-bench/candor/report/html"
	"github.com/candor-bench/candor/run"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/version"
	"github.com/candor-bench/candor/workload"
)

// Options are `candor merge`'s flags.
type Options struct {
	// Out is the merged run's results directory; Replace lets it hold a saved run already.
	Out     string
	Replace bool
	// Partial merges the shards given although some are missing or partial: the merged result is
	// then partial, saying which.
	Partial bool
}

// SkewWarnSeconds: shards whose measurement windows began further apart than this are warned about
// (WINDOWS_SKEWED): their sum is not one window's load.
const SkewWarnSeconds = 1.0

// Merge reads the shards saved in dirs, checks that they belong to one sharded run (Check), and
// writes the merged run into o.Out. It returns the merged result.
func Merge(dirs []string, o Options) (res *report.Result, err error) {
	if o.Out == "" {
		return nil, userr.Errorf("no --out given: name the directory the merged run goes into")
	}
	if len(dirs) == 0 {
		return nil, userr.Errorf("no shard given: pass the --out directory of each shard's run")
	}
	if err := checkOut(o, dirs); err != nil {
		return nil, err
	}
	var shards []*Shard
	for _, d := range dirs {
		s, err := ReadShard(d)
		if err != nil {
			return nil, err
		}
		shards = append(shards, s)
	}
	missing, err := Check(shards, o.Partial)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(shards, func(i, j int) bool { return shards[i].ID.Index < shards[j].ID.Index })
	r0 := shards[0].Result
	ops := r0.OpOrder
	if len(ops) == 0 {
		ops = r0.Ops()
	}
	_, statErr := os.Stat(o.Out)
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, userr.Errorf("cannot create %s: %v: choose another --out", o.Out, err)
	}
	// A merge refused or failed from here on leaves --out as it was: its log removed, the
	// directory too when the merge made it.
	saved := false
	defer func() {
		if err != nil && !saved {
			os.Remove(filepath.Join(o.Out, report.LogFile))
			if os.IsNotExist(statErr) {
				os.Remove(o.Out)
			}
		}
	}()
	started := r0.StartedAt
	for _, s := range shards {
		if s.Result.StartedAt.Before(started) {
			started = s.Result.StartedAt
		}
	}
	tick := planDuration(shards[0].Plan, "interval", time.Second)
	lm, err := mergeLogs(shards, ops, started, tick, filepath.Join(o.Out, report.LogFile))
	if err != nil {
		return nil, err
	}
	defer lm.f.Close() // closed by writeTotals; here for the failures before it
	tot := measure.NewTotals(ops)
	for i, s := range shards {
		st, err := shardTotals(s, ops, lm.measured[i])
		if err != nil {
			return nil, err
		}
		if err := measure.MergeTotals(tot, st); err != nil {
			return nil, fmt.Errorf("merging %s: %w", s.Dir, err)
		}
	}
	res, reg := envelope(shards, ops, tot, lm, missing, o)
	if err := lm.writeTotals(tot); err != nil {
		return nil, err
	}
	if err := finish(res, reg, shards, tot, lm); err != nil {
		return nil, err
	}
	if err := report.Write(o.Out, res); err != nil {
		return nil, err
	}
	saved = true
	// report.html renders from the directory's files, like a single run's.
	if err := htmlreport.Write(o.Out); err != nil {
		return res, fmt.Errorf("writing %s: %w", filepath.Join(o.Out, htmlreport.File), err)
	}
	return res, nil
}

// checkOut refuses an --out that holds a saved run (without Replace), or that is, or contains, one
// of the shards: paths are compared resolved (absolute, symbolic links followed, ".." cleaned), so a
// link to a shard is that shard, whose files --replace would remove.
func checkOut(o Options, dirs []string) error {
	out := resolvedPath(o.Out)
	for _, d := range dirs {
		in := resolvedPath(d)
		if in == out {
			return userr.Errorf("--out %s is the shard %s: write the merged run elsewhere", o.Out, d)
		}
		if rel, err := filepath.Rel(out, in); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			return userr.Errorf("--out %s contains the shard %s: write the merged run elsewhere", o.Out, d)
		}
	}
	if _, err := os.Stat(filepath.Join(o.Out, report.ResultFile)); err == nil && !o.Replace {
		return userr.Errorf("%s already holds a saved run: choose another --out, or pass --replace", o.Out)
	}
	return nil
}

// resolvedPath is p absolute, cleaned, with its symbolic links followed: those of p itself when it
// exists, else those of its nearest existing parent, the rest appended.
func resolvedPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	var rest []string
	for dir := abs; ; dir = filepath.Dir(dir) {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		if dir == filepath.Dir(dir) {
			return abs
		}
		rest = append([]string{filepath.Base(dir)}, rest...)
	}
}

// planDuration reads a duration the plan stores as text ("10s"), or def.
func planDuration(plan map[string]any, key string, def time.Duration) time.Duration {
	if s, ok := plan[key].(string); ok {
		if d, err := time.ParseDuration(s); err == nil && d > 0 {
			return d
		}
	}
	return def
}

// shardTotals are a shard's measured totals: its histograms from the log's measured totals, its
// counts and failure messages from its result.json. The log and the result must agree on how many
// operations completed (a log from another run, or damaged, is refused).
func shardTotals(s *Shard, ops []string, hists map[string]*[measure.NumKinds]*histRef) (*measure.Totals, error) {
	t := measure.NewTotals(ops)
	for op, name := range ops {
		if hs := hists[name]; hs != nil {
			for k, h := range hs {
				if h != nil {
					if err := measure.Merge(t.Hist[op][k], h.h); err != nil {
						return nil, userr.Errorf("%s: %v", filepath.Join(s.Dir, report.LogFile), err)
					}
				}
			}
		}
		tx := s.Result.Operations[name]
		if tx == nil {
			continue
		}
		if got := t.Hist[op][measure.Response].TotalCount(); got != tx.Count {
			return nil, userr.Errorf("%s holds %d measured %s responses but %s counts %d: the files are not of the same run (or one is damaged); re-run that shard",
				filepath.Join(s.Dir, report.LogFile), got, name, report.ResultFile, tx.Count)
		}
		c := &t.Counts[op]
		c.Completed, c.Errors, c.Rollbacks, c.Retries = tx.Count, tx.Errors, tx.Rollbacks, tx.Retries
		c.Reconnects, c.Incomplete, c.Overflow, c.Dropped = tx.Reconnects, tx.Incomplete, tx.Overflow, tx.Dropped
		if f := tx.Failures; f != nil {
			for name, n := range f.ByClass {
				c.Failures[failureClass(name)] += n
			}
			for _, m := range f.Messages {
				t.Messages[op] = append(t.Messages[op], measure.FailureMessage{Class: failureClass(m.Class), Text: m.Message, Count: m.Count})
			}
		}
		for _, m := range tx.RetryCauses {
			t.Retried[op] = append(t.Retried[op], measure.FailureMessage{Class: failureClass(m.Class), Text: m.Message, Count: m.Count})
		}
	}
	return t, nil
}

// failureClass is the class named s (driver.FailureClass's String), statement for an unknown name.
func failureClass(s string) driver.FailureClass {
	for _, c := range driver.FailureClasses {
		if c.String() == s {
			return c
		}
	}
	return driver.FailStatement
}

// envelope builds the merged result's envelope: the conditions, every operation's figures from the
// merged histograms and summed counts, rates summed (each shard's over its own window, which the
// common --start-at aligns), and the list of shards.
func envelope(shards []*Shard, ops []string, tot *measure.Totals, lm *logMerge, missing []int, o Options) (*report.Result, workload.Registration) {
	r0 := shards[0].Result
	reg, _ := workload.Lookup(r0.Workload)
	res := &report.Result{
		FormatVersion: report.FormatVersion,
		Tool:          report.Tool{Name: "candor", Version: version.String()},
		Workload:      r0.Workload, Disclaimer: r0.Disclaimer, Mode: r0.Mode,
		Setup: r0.Setup, Seed: shards[0].ID.RootSeed, Isolation: r0.Isolation, IsolationEffective: r0.IsolationEffective,
		StartedAt:      lm.started.UTC(),
		WarmupSeconds:  math.Max(0, lm.from.Sub(lm.started).Seconds()),
		MeasureSeconds: lm.to.Sub(lm.from).Seconds(),
		Database:       r0.Database,
		Operations:     map[string]*report.TxResult{},
		OpOrder:        slices.Clone(ops), KeyOp: r0.KeyOp,
		Warnings: []report.Warning{},
	}
	var partial []string
	if len(missing) > 0 {
		partial = append(partial, fmt.Sprintf("shard%s %s of %d missing", plural(len(missing)), joinInts(missing), shards[0].ID.Count))
	}
	hosts := map[string]bool{}
	var trips, tripOps float64
	for _, s := range shards {
		r := s.Result
		res.Terminals += r.Terminals
		res.Connections += r.Connections
		if r.Partial {
			partial = append(partial, fmt.Sprintf("shard %d partial (%s)", s.ID.Index, r.PartialReason))
		}
		if !hosts[r.Driver.Hostname] {
			hosts[r.Driver.Hostname] = true
			res.Driver.CPUs += r.Driver.CPUs
		}
		res.Driver.CPUSeconds += r.Driver.CPUSeconds
		res.Driver.RoundTrips += r.Driver.RoundTrips
		if r.Driver.RoundTripsPerTx > 0 {
			trips += float64(r.Driver.RoundTrips)
			tripOps += float64(r.Driver.RoundTrips) / r.Driver.RoundTripsPerTx
		}
		for name, tx := range r.Operations {
			if m := res.Operations[name]; m != nil {
				m.PerMinute += tx.PerMinute
			} else {
				res.Operations[name] = &report.TxResult{PerMinute: tx.PerMinute, PartOf: tx.PartOf, PartNote: tx.PartNote}
			}
		}
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for h := range hosts {
			if !yield(h) {
				return
			}
		}
	})
	res.Driver.Hostname = strings.Join(names, ",")
	res.Driver.GoOS, res.Driver.GoArch = r0.Driver.GoOS, r0.Driver.GoArch
	if len(hosts) == 1 { // one host: its system and memory are every shard's
		d := r0.Driver
		res.Driver.OS, res.Driver.Kernel, res.Driver.GoVersion, res.Driver.GOMAXPROCS = d.OS, d.Kernel, d.GoVersion, d.GOMAXPROCS
		res.Driver.MemTotalBytes, res.Driver.MemAvailableBytes = d.MemTotalBytes, d.MemAvailableBytes
		res.System = r0.System // the system under test, as shard 0 read it
	}
	if tripOps > 0 {
		res.Driver.RoundTripsPerTx = trips / tripOps
	}
	if len(partial) > 0 {
		res.Partial, res.PartialReason = true, "merged from an incomplete set of shards: "+strings.Join(partial, "; ")
	}
	var completed int64
	for op, name := range ops {
		c := tot.Counts[op]
		tx := res.Operations[name]
		if tx == nil {
			tx = &report.TxResult{}
			res.Operations[name] = tx
		}
		tx.Count, tx.Errors, tx.Retries, tx.Rollbacks = c.Completed, c.Errors, c.Retries, c.Rollbacks
		tx.Reconnects, tx.Incomplete, tx.Overflow, tx.Dropped = c.Reconnects, c.Incomplete, c.Overflow, c.Dropped
		tx.ResponseMs = tot.Percentiles(op, measure.Response)
		tx.ServiceMs = tot.Percentiles(op, measure.Service)
		tx.LagMs = tot.Percentiles(op, measure.Lag)
		tx.Failures = report.FailuresOf(tot, op)
		tx.RetryCauses = report.RetryCausesOf(tot, op)
		if tx.PartOf == "" {
			completed += c.Completed
		}
	}
	if completed > 0 {
		res.Driver.CPUMicrosPerTx = res.Driver.CPUSeconds * 1e6 / float64(completed)
	}
	res.Plan = mergedPlan(shards, res, o)
	res.Rate, lm.rateNotes = mergeRate(shards, tot, res, lm) // rate.go
	for _, s := range shards {
		res.Shards = append(res.Shards, shardRun(s))
	}
	return res, reg
}

// mergedPlan is the shards' common plan, with what the merge changed: the shard (every index
// merged), the totals of terminals and connections, the root seed and the merged run's --out.
func mergedPlan(shards []*Shard, res *report.Result, o Options) map[string]any {
	p := map[string]any{}
	for k, v := range shards[0].Plan {
		p[k] = v
	}
	var idx []int
	for _, s := range shards {
		idx = append(idx, s.ID.Index)
	}
	p["shard"] = map[string]any{"count": shards[0].ID.Count, "root_seed": shards[0].ID.RootSeed, "merged": idx}
	p["terminals"], p["connections"], p["seed"] = res.Terminals, res.Connections, res.Seed
	p["out"] = o.Out
	return p
}

// shardRun is a shard's line in the merged result: where it came from, its clock and its own key
// figures.
func shardRun(s *Shard) report.ShardRun {
	r := s.Result
	sr := report.ShardRun{Dir: s.Dir, Index: s.ID.Index, Count: s.ID.Count, Hostname: r.Driver.Hostname,
		MeasureSeconds: r.MeasureSeconds, Completed: r.Completed(), Lead: r.Lead(), KeyOp: r.Key(), Partial: r.Partial}
	ms := r.StartedAt.Add(time.Duration(r.WarmupSeconds * float64(time.Second)))
	if c := s.Clock; c != nil {
		sr.OffsetSeconds, sr.ClockSource = c.OffsetSeconds, c.ClockSource
		if !c.MeasureStart.IsZero() {
			ms = c.MeasureStart
		}
	}
	sr.MeasureStart = ms.UTC().Format(time.RFC3339Nano)
	for _, t := range r.Operations {
		if t.PartOf == "" {
			sr.Errors += t.Errors
		}
	}
	if t := r.Operations[sr.KeyOp]; t != nil {
		sr.KeyP99Ms = t.ResponseMs.P99
	}
	return sr
}

// carried are the warnings of a shard's own conditions (its host, its clock, its files, the
// engine's settings it read) that a merge cannot recompute and keeps, naming the shard.
var carried = map[string]bool{
	"DRIVER_SATURATED": true, "DURABILITY_OFF": true, "FITS_IN_MEMORY": true, "CPU_STOLEN": true, "DRIVER_LATE": true,
	"SWAP_ACTIVE": true, "IRQ_CPU_SATURATED": true, "DEVICE_SATURATED": true,
	"SCHEDULE_BEHIND": true, "DATABASE_OUTAGE": true, "LOG_WRITE_FAILED": true,
	"DELIVERIES_WRITE_FAILED": true, "ISOLATION_UPGRADED": true, "ISOLATION_UNVERIFIED": true,
	"DIALECT_MISMATCH": true, "CHECK_FAILED_TO_RUN": true, "RESULTS_INCOMPLETE": true, "NULL_ENGINE": true,
	"STATEMENTS_CANCELLED": true, "ROTATIONAL_SCHEDULER": true, "THP_ALWAYS": true, "CPU_POWERSAVE": true,
}

// recomputed are the warnings every workload shares, which the merge computes again from the
// merged envelope (run.SharedWarnings, run.JudgeFailures).
var recomputed = map[string]bool{
	"PARTIAL": true, "CLOSED_LOOP": true, "SHORT_RUN": true, "ERROR_RATE": true, "RETRY_RATE": true,
	"INCOMPLETE": true, "SINGLE_WRITER": true, "FAILURES_ABOVE_LIMIT": true, "RATE_NOT_SUSTAINED": true,
}

// finish adds what a run's end adds: the failure verdict, the workload's own part (its Merger, or
// nothing), the warnings every workload shares, the shards' own conditions, and the shards'
// section.
func finish(res *report.Result, reg workload.Registration, shards []*Shard, tot *measure.Totals, lm *logMerge) error {
	limit := report.DefaultMaxFailuresPct
	if v, ok := shards[0].Plan["max_failures_pct"].(float64); ok {
		limit = v
	}
	run.JudgeFailures(res, limit)
	var slos []string // the shards' --slo, judged on the merged window
	if list, ok := shards[0].Plan["slos"].([]any); ok {
		for _, v := range list {
			if t, ok := v.(string); ok {
				slos = append(slos, t)
			}
		}
	}
	run.JudgeBudgets(res, run.SplitSLOs(slos), res.OpOrder)
	var info workload.Info
	var merger workload.Merger
	if reg.New != nil {
		w := reg.New()
		info = w.Info()
		merger, _ = w.(workload.Merger)
	}
	if merger != nil {
		var rs []*report.Result
		var ds []json.RawMessage
		for _, s := range shards {
			rs = append(rs, s.Result)
			ds = append(ds, s.Details)
		}
		m := &workload.Merged{
			Finished: workload.Finished{Result: res, Totals: tot, Mode: workload.Mode(res.Mode), Minutes: res.MeasureSeconds / 60,
				Summary: schedule.Summary{Start: lm.started, MeasureStart: lm.from, MeasureEnd: lm.to, End: lm.to, Partial: res.Partial}},
			Shards: rs, Details: ds, Intervals: lm.intervals,
		}
		if err := merger.MergeFinish(m); err != nil {
			return err
		}
	} else {
		res.Headline = sumRates(shards)
	}
	res.Warnings = append(run.SharedWarnings(res, workload.Mode(res.Mode), info), res.Warnings...)
	if lm.skew > SkewWarnSeconds {
		res.Warnings = append(res.Warnings, report.Warning{Code: "WINDOWS_SKEWED", Message: fmt.Sprintf(
			"the shards' measurement windows began up to %.1f s apart: the merged figures add loads that did not fully overlap (give every shard the same --start-at, on hosts with synchronised clocks); the rates are the sums of each shard's own", lm.skew)})
	}
	seen := map[string]bool{}
	for _, s := range shards {
		for _, w := range s.Result.Warnings {
			keep := carried[w.Code] || merger == nil && !recomputed[w.Code]
			key := w.Code + "\x00" + w.Message
			if keep && !seen[key] {
				seen[key] = true
				res.Warnings = append(res.Warnings, report.Warning{Code: w.Code, Message: fmt.Sprintf("shard %d: %s", s.ID.Index, w.Message)})
			}
		}
	}
	sec := shardSection(res.Shards)
	sec.Notes = append(lm.rateNotes, sec.Notes...)
	res.Sections = append(res.Sections, sec)
	return nil
}

// sumRates is the headline of a workload without a Merger: its figures that are rates (a unit "...
// per second" or "... per minute") summed over the shards, as the operations' rates are; figures of
// another kind do not add up and are left out (the shards' own are in the shards' section).
func sumRates(shards []*Shard) []report.Figure {
	var out []report.Figure
	idx := map[string]int{}
	for _, s := range shards {
		for _, f := range s.Result.Headline {
			if !strings.HasSuffix(f.Unit, "per second") && !strings.HasSuffix(f.Unit, "per minute") {
				continue
			}
			key := f.Name + "\x00" + f.Unit
			if i, ok := idx[key]; ok {
				out[i].Value += f.Value
				continue
			}
			idx[key] = len(out)
			out = append(out, report.Figure{Name: f.Name, Value: f.Value, Unit: f.Unit, Note: f.Note})
		}
	}
	return out
}

// shardSection lists the shards in the merged result's summary and report.html.
func shardSection(ss []report.ShardRun) report.Section {
	sec := report.Section{Title: fmt.Sprintf("shards (%d merged)", len(ss)),
		Columns: []string{"shard", "directory", "measure start (UTC)", "clock offset", "measured", "completed", "errors", "lead", "key p99"}}
	var sources []string
	for _, s := range ss {
		lead := ""
		if s.Lead.Name != "" {
			lead = fmt.Sprintf("%s %.1f", s.Lead.Name, s.Lead.Value)
		}
		if s.ClockSource != "" && !slices.Contains(sources, s.ClockSource) {
			sources = append(sources, s.ClockSource)
		}
		sec.Rows = append(sec.Rows, []string{fmt.Sprintf("%d/%d", s.Index, s.Count), s.Dir, s.MeasureStart, fmt.Sprintf("%+.3f s", s.OffsetSeconds),
			fmt.Sprintf("%.1f s", s.MeasureSeconds), report.Grouped(s.Completed, ","), report.Grouped(s.Errors, ","), lead,
			fmt.Sprintf("%s %.2f ms", s.KeyOp, s.KeyP99Ms)})
	}
	for _, c := range sources {
		sec.Notes = append(sec.Notes, "clock: "+c)
	}
	sec.Notes = append(sec.Notes, "the clock offset is how late a shard's window began after --start-at + warm-up, by its own clock; the merged figures add the shards' histograms bucket by bucket (latency.hlog's measured totals) and sum their counts and rates; no percentile is averaged")
	return sec
}
