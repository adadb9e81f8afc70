package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/userr"
)

// LoadRun is one column of the one-shot comparison: a run and what it was.
type LoadRun struct {
	Label string // for example "peak" or "50% of peak"
	Dir   string
	R     *Result
	// Sweep is how the peak's concurrency was found (the peak's run only; nil in a one-shot saved
	// before the sweep existed).
	Sweep *Sweep
}

// SweepFile holds the one-shot's Sweep, beside its runs' directories.
const SweepFile = "sweep.json"

// SweepDirPrefix names a sweep step's run directory: sweep-N for its Nth step.
const SweepDirPrefix = "sweep-"

// Sweep is how the one-shot found the concurrency of its peak: short throughput-mode runs at
// doubling terminals while the throughput rose by more than a few percent, or the terminals the
// user gave (no sweep).
type Sweep struct {
	// Terminals is the concurrency of the peak probe.
	Terminals int `json:"terminals"`
	// Given: --terminals fixed it, so there was no sweep.
	Given bool `json:"given,omitempty"`
	// Steps are the sweep's runs in order; Stopped says why it stopped.
	Steps   []SweepStep `json:"steps,omitempty"`
	Stopped string      `json:"stopped,omitempty"`
	// GainPct is the least rise, in percent, that made the sweep double the terminals again.
	GainPct float64 `json:"gain_pct,omitempty"`
}

// SweepStep is one run of the sweep: its terminals and connections, the operations (all types
// together) it completed per second, and its directory's name under the one-shot's.
type SweepStep struct {
	Terminals   int     `json:"terminals"`
	Connections int     `json:"connections"`
	Rate        float64 `json:"rate"`
	Seconds     float64 `json:"measure_seconds"`
	Dir         string  `json:"dir"`
}

// Line is the sweep in one line for the console: "4 terminals, found by a sweep: 1 → 645.7/s, ...".
func (s *Sweep) Line() string {
	if s.Given {
		return fmt.Sprintf("%d %s, as given by --terminals (no sweep)", s.Terminals, "terminal"+plural(s.Terminals))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s, the most that still raised the throughput by more than %g%%: ", s.Terminals, "terminal"+plural(s.Terminals), s.GainPct)
	for i, st := range s.Steps {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d → %.1f/s", st.Terminals, st.Rate)
	}
	if s.Stopped != "" {
		b.WriteString(" (" + s.Stopped + ")")
	}
	return b.String()
}

// ReadSweep reads dir's SweepFile; nil without error when there is none.
func ReadSweep(dir string) (*Sweep, error) {
	b, err := os.ReadFile(filepath.Join(dir, SweepFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, userr.Errorf("cannot read %s: %v", filepath.Join(dir, SweepFile), err)
	}
	var s Sweep
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, userr.Errorf("%s is not a sweep candor wrote: %v", filepath.Join(dir, SweepFile), err)
	}
	return &s, nil
}

// WriteSweep writes s into dir's SweepFile.
func WriteSweep(dir string, s *Sweep) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, SweepFile), append(b, '\n'), 0o644)
}

// PeakDir and RateDirPrefix name the one-shot's run directories under its results directory:
// peak, and rate-P for the open-loop run at P% of the peak (rate-50, rate-12.5).
const (
	PeakDir       = "peak"
	RateDirPrefix = "rate-"
)

// PeakLabel and RateLabel are the runs' labels in the side-by-side views.
const PeakLabel = "peak"

func RateLabel(pct float64) string { return strconv.FormatFloat(pct, 'f', -1, 64) + "% of peak" }

// ReadLoads reads the runs of a one-shot's results directory (PeakDir, then the rate-P
// directories by increasing P), for `candor report DIR`; ok is false when dir is not one (it has
// no PeakDir/result.json).
func ReadLoads(dir string) (runs []LoadRun, ok bool, err error) {
	peak := filepath.Join(dir, PeakDir)
	if _, err := os.Stat(filepath.Join(peak, ResultFile)); err != nil {
		return nil, false, nil
	}
	r, err := Read(peak)
	if err != nil {
		return nil, true, err
	}
	sw, err := ReadSweep(dir)
	if err != nil {
		return nil, true, err
	}
	runs = append(runs, LoadRun{Label: PeakLabel, Dir: peak, R: r, Sweep: sw})
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, true, userr.Errorf("cannot read %s: %v", dir, err)
	}
	type rateDir struct {
		pct  float64
		path string
	}
	var rates []rateDir
	for _, e := range entries {
		name, found := strings.CutPrefix(e.Name(), RateDirPrefix)
		if !e.IsDir() || !found {
			continue
		}
		pct, perr := strconv.ParseFloat(name, 64)
		if perr != nil {
			continue
		}
		if _, serr := os.Stat(filepath.Join(dir, e.Name(), ResultFile)); serr != nil {
			continue // a run that never saved a result (interrupted before its end)
		}
		rates = append(rates, rateDir{pct, filepath.Join(dir, e.Name())})
	}
	sort.Slice(rates, func(i, j int) bool { return rates[i].pct < rates[j].pct })
	for _, rd := range rates {
		r, err := Read(rd.path)
		if err != nil {
			return nil, true, err
		}
		runs = append(runs, LoadRun{Label: RateLabel(rd.pct), Dir: rd.path, R: r})
	}
	return runs, true, nil
}

// PrintLoads prints runs side by side (the one-shot `candor NAME`): each run's lead headline
// figure, per operation the throughput and the response-time p50, p99 and p99.9 at each load, then
// the open-loop figures (target, achieved, dropped, backlog, lag split), then every run's warnings.
// Tails growing from column to column are how latency grows with load.
func PrintLoads(w io.Writer, runs []LoadRun) {
	if len(runs) == 0 {
		return
	}
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	first := runs[0].R
	title := "candor " + first.Workload + ": tail latency as the load grows"
	p("\n%s\n%s\n%s\n", title, strings.Repeat("=", len([]rune(title))), first.Disclaimer)
	setup := ""
	if first.Setup != "" {
		setup = first.Setup + " · "
	}
	p("database %s (%s) · %s · %sisolation %s · seed %d · %s %s\n",
		first.Database.Version, first.Database.Kind, first.Database.URL, setup,
		first.Isolation, first.Seed, first.Tool.Name, first.Tool.Version)
	for _, lr := range runs {
		r := lr.R
		switch {
		case r.Rate != nil:
			p("  %-20s open loop: %s arrivals at %.1f/s over %s, %.0f s measured after %.0f s of warm-up\n",
				lr.Label, r.Rate.Arrivals, r.Rate.TargetRate, countS(int64(r.Connections), "connection"), r.MeasureSeconds, r.WarmupSeconds)
		default:
			p("  %-20s %s mode: %s over %s, %.0f s measured after %.0f s of warm-up\n",
				lr.Label, r.Mode, countS(int64(r.Terminals), "terminal"), countS(int64(r.Connections), "connection"), r.MeasureSeconds, r.WarmupSeconds)
		}
	}

	if sw := runs[0].Sweep; sw != nil {
		p("  %-20s %s\n", "peak concurrency", sw.Line())
	}

	const col = 44         // " per s mean p50 p99 p99.9" block width
	var ops, none []string // none: operations no run ran (outside the mix), named under the table
	for _, name := range LoadOps(runs) {
		ran := false
		for _, lr := range runs {
			if t := lr.R.Operations[name]; t != nil && !t.Idle() {
				ran = true
			}
		}
		if ran {
			ops = append(ops, name)
		} else {
			none = append(none, name)
		}
	}
	nw := 16
	for _, op := range ops {
		nw = max(nw, len(op)+1)
	}
	p("\nresponse time, ms, from the intended start (the arrival, in the open loop); throughput per second\n")
	p("%-*s", nw, "")
	for _, lr := range runs {
		loop := " (open loop)"
		if lr.R.Rate == nil {
			loop = " (closed loop)"
		}
		p("│%s", center(lr.Label+loop, col))
	}
	p("\n%-*s", nw, "operation")
	for range runs {
		p("│ %11s %7s %7s %7s %7s ", "per s", "mean", "p50", "p99", "p99.9")
	}
	p("\n")
	for _, name := range ops {
		p("%-*s", nw, name)
		for _, lr := range runs {
			t := lr.R.Operations[name]
			if t == nil {
				p("│%s", strings.Repeat(" ", col))
				continue
			}
			rs := t.ResponseMs
			p("│ %11.1f %7s %7s %7s %7s ", t.PerMinute/60, ms(rs.Mean), ms(rs.P50), ms(rs.P99), ms(rs.P999))
		}
		p("\n")
	}
	row := func(name string, cell func(r *Result) string) {
		p("%-*s", nw, name)
		for _, lr := range runs {
			p("│ %-*s", col-1, cell(lr.R))
		}
		p("\n")
	}
	row("all ops, per s", func(r *Result) string {
		if r.MeasureSeconds <= 0 {
			return "-"
		}
		return fmt.Sprintf("%11.1f", AllTypesRate(r))
	})
	if lead := first.Lead(); lead.Name != "" && !leadIsAllOps(runs) {
		row(lead.Name, func(r *Result) string {
			f := r.Lead()
			if f.Name == "" || r.MeasureSeconds <= 0 {
				return "-"
			}
			return fmt.Sprintf("%11s", figureValue(f.Value))
		})
	}
	row("open loop", func(r *Result) string {
		if r.Rate == nil {
			return "closed loop: saturated"
		}
		return fmt.Sprintf("target %.1f/s, achieved %.1f/s", r.Rate.TargetRate, r.Rate.AchievedRate)
	})
	row("dropped, backlog", func(r *Result) string {
		if r.Rate == nil {
			return "-"
		}
		return fmt.Sprintf("%d dropped, deepest backlog %d", r.Rate.Dropped, r.Rate.MaxBacklogSeen)
	})
	row("lag p99, ms", func(r *Result) string {
		if r.Rate == nil {
			return "-"
		}
		return fmt.Sprintf("driver %s, connection wait %s", ms(r.Rate.TimerLatenessMs.P99), ms(r.Rate.ConnectionWaitMs.P99))
	})
	row("verdict", LoadVerdict)
	if len(none) > 0 {
		p("%s: none recorded in these runs\n", strings.Join(none, ", "))
	}

	if ws := LoadWarnings(runs); len(ws) > 0 {
		p("\nwarnings (conditions that make these numbers misleading):\n")
		for _, e := range ws {
			p("  [%s] (%s) %s\n", e.Code, e.Runs(), e.Message)
		}
	}
	last := runs[len(runs)-1].R
	PrintChecks(w, last)
	p("\n")
}

// leadIsAllOps says every run's headline figure is its rate of all operations (kv's throughput):
// the comparison's "all ops, per s" row says it already.
func leadIsAllOps(runs []LoadRun) bool {
	for _, lr := range runs {
		f := lr.R.Lead()
		all := AllTypesRate(lr.R)
		if f.Name == "" || math.Abs(f.Value-all) > 0.05+1e-6*all {
			return false
		}
	}
	return true
}

// LoadOps lists the operations of runs: the first run's in its order, then any other run's
// operations in theirs.
func LoadOps(runs []LoadRun) []string {
	var ops []string
	seen := map[string]bool{}
	for _, lr := range runs {
		for _, op := range lr.R.Ops() {
			if !seen[op] {
				ops, seen[op] = append(ops, op), true
			}
		}
	}
	return ops
}

// AllTypesRate is the operations (all of them, each counted once: see Result.Completed) completed
// per second of r's measurement (0 when nothing was measured).
func AllTypesRate(r *Result) float64 {
	if r.MeasureSeconds <= 0 {
		return 0
	}
	return float64(r.Completed()) / r.MeasureSeconds
}

// LoadVerdict is what one run of the comparison says about its load: the peak is the peak by
// definition; an open-loop run sustained its rate or not; an interrupted run is partial.
func LoadVerdict(r *Result) string {
	switch {
	case r.Partial:
		return "PARTIAL"
	case r.Rate == nil:
		return "the peak, by definition"
	case r.Rate.Sustained:
		return "sustained"
	}
	return "NOT SUSTAINED"
}

// LoadWarning is one warning code of the comparison and the runs (labels) it applies to. Message
// is the first of those runs' message; when the runs' messages differ (their own figures),
// Differ is true and each run's summary holds its own.
type LoadWarning struct {
	Code, Message string
	Labels        []string
	Differ        bool
}

// LoadWarnings lists each warning code of runs once, in the order first seen, with the runs it
// applies to.
func LoadWarnings(runs []LoadRun) []*LoadWarning {
	var ws []*LoadWarning
	seen := map[string]*LoadWarning{}
	for _, lr := range runs {
		nth := map[string]int{} // a run's second warning of one code is another warning
		for _, wr := range lr.R.Warnings {
			k := wr.Code + "#" + strconv.Itoa(nth[wr.Code])
			nth[wr.Code]++
			if e := seen[k]; e != nil {
				if e.Labels[len(e.Labels)-1] != lr.Label {
					e.Labels = append(e.Labels, lr.Label)
				}
				e.Differ = e.Differ || wr.Message != e.Message
				continue
			}
			e := &LoadWarning{Code: wr.Code, Message: wr.Message, Labels: []string{lr.Label}}
			seen[k] = e
			ws = append(ws, e)
		}
	}
	return ws
}

// Runs is the runs a warning applies to, for the side-by-side views: "peak, 50% of peak", and
// whose figures its message gives when the runs' differ.
func (e *LoadWarning) Runs() string {
	s := strings.Join(e.Labels, ", ")
	if e.Differ {
		s += "; figures of " + e.Labels[0] + ", each run's own in its summary"
	}
	return s
}
