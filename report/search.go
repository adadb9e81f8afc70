package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/candor-bench/candor/measure"
)

// SearchFile is the file `candor NAME search --out DIR` writes.
const SearchFile = "search.json"

// SearchResult is the content of search.json: the budgets, the answer and every probe. Field names
// are a contract: add fields, never rename.
type SearchResult struct {
	Tool       Tool   `json:"tool"`
	Workload   string `json:"workload"`
	Disclaimer string `json:"disclaimer"`
	// KeyOp is the operation whose tails the table shows (the workload's key operation: TPC-C's
	// new_order, kv's read). A file written before it was named is TPC-C's: read as new_order.
	KeyOp string `json:"key_op,omitempty"`
	// SLO are the budgets as given.
	SLO []string `json:"slo"`
	// MaxRate is the highest arrival rate (operations per second, all of them together) whose
	// probe met every budget and was sustained; 0 when none was.
	MaxRate float64 `json:"max_rate"`
	// FailRate is the lowest rate that failed (0: none failed, MaxRate is a lower bound only);
	// Converged: both are known and within the search's precision.
	FailRate  float64 `json:"fail_rate"`
	Converged bool    `json:"converged"`
	// SearchRate is the search's own answer, before confirmation: the highest rate whose one probe
	// passed. MaxRate is the rate the confirmation held (0: none); without one, the same.
	SearchRate float64 `json:"search_rate,omitempty"`
	// Confirmation is how the answer was confirmed (nil: it was not, or there was nothing to confirm).
	Confirmation *SearchConfirmation `json:"confirmation,omitempty"`
	Precision    float64             `json:"precision"`
	// Each probe: WarmupSeconds of warm-up (excluded), then ProbeSeconds measured.
	ProbeSeconds  float64       `json:"probe_seconds"`
	WarmupSeconds float64       `json:"warmup_seconds"`
	Arrivals      string        `json:"arrivals"`
	Connections   int           `json:"connections"`
	Database      Database      `json:"database"`
	StartedAt     time.Time     `json:"started_at"`
	Probes        []SearchProbe `json:"probes"`
	// Checks are the workload's consistency checks, run once the last probe has ended
	// (the quick ones, every one with check_full; none with --no-check or after an interruption).
	// A violated condition means the probes' figures come from a database the workload corrupted.
	Checks    []Check `json:"checks,omitempty"`
	CheckFull bool    `json:"check_full,omitempty"`
	// Warnings are conditions of the search itself (CHECK_FAILED_TO_RUN); each probe's own are in
	// its line.
	Warnings []Warning `json:"warnings,omitempty"`
}

// SearchConfirmation is the re-running of a search's answer in longer probes: Repeats probes of
// ProbeSeconds at one rate must all pass; a failure steps the rate down by StepDown (a fraction) and
// starts again, at most Rounds rates.
type SearchConfirmation struct {
	Repeats      int     `json:"repeats"`
	ProbeSeconds float64 `json:"probe_seconds"`
	StepDown     float64 `json:"step_down"`
	Rounds       int     `json:"rounds"`
	Confirmed    bool    `json:"confirmed"`
	// RestsOn is how many passing probes at MaxRate the answer rests on (the search's and the
	// confirming ones); Spread is each budget's range over them, AchievedMin/Max the achieved rate's.
	RestsOn     int            `json:"rests_on"`
	Spread      []BudgetSpread `json:"spread"`
	AchievedMin float64        `json:"achieved_min"`
	AchievedMax float64        `json:"achieved_max"`
}

// BudgetSpread is one budget's value over the probes an answer rests on.
type BudgetSpread struct {
	SLO   string  `json:"slo"`
	MinMs float64 `json:"min_ms"`
	MaxMs float64 `json:"max_ms"`
}

// SearchProbe is one rate tried.
type SearchProbe struct {
	Probe        int     `json:"probe"` // from 1, in the order tried
	Rate         float64 `json:"rate"`  // target, per second, all operations
	OfferedRate  float64 `json:"offered_rate"`
	AchievedRate float64 `json:"achieved_rate"`
	Dropped      int64   `json:"dropped"`
	Incomplete   int64   `json:"incomplete"`
	Sustained    bool    `json:"sustained"`
	// Pass: sustained and every budget met.
	Pass    bool           `json:"pass"`
	Budgets []BudgetResult `json:"budgets"`
	// Tails are the measured percentiles per operation (the window after the warm-up).
	Tails map[string]ProbeTails `json:"tails"`
	// Dir is the probe's own result directory (result.json, latency.hlog), relative to search.json.
	Dir string `json:"dir"`
	// Warnings are the probe's warning codes.
	Warnings []string `json:"warnings"`
	// Confirm: a confirming probe, Seconds long (the search's own are ProbeSeconds).
	Confirm bool    `json:"confirm,omitempty"`
	Seconds float64 `json:"seconds,omitempty"`
}

// BudgetResult is one budget judged on one probe.
type BudgetResult struct {
	SLO     string  `json:"slo"`
	ValueMs float64 `json:"value_ms"`
	Met     bool    `json:"met"`
	// NoData: no operation of the kind completed, so the budget could not be judged (failed).
	NoData bool `json:"no_data,omitempty"`
}

// ProbeTails are one operation's measured spectra in a probe.
type ProbeTails struct {
	Count      int64               `json:"count"`
	ResponseMs measure.Percentiles `json:"response_ms"`
	ServiceMs  measure.Percentiles `json:"service_ms"`
}

// WriteSearch stores s as DIR/search.json, atomically.
func WriteSearch(dir string, s *SearchResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, SearchFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, SearchFile))
}

// ReadSearch loads DIR/search.json.
func ReadSearch(dir string) (*SearchResult, error) {
	path := filepath.Join(dir, SearchFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s SearchResult
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s is not a candor search (%v)", path, err)
	}
	s.KeyOp = s.searchKeyOp() // tpcc.go
	return &s, nil
}

// keyAbbrev abbreviates the key operation for the table's header: the initials of a name of several
// words (new_order: no, read_modify_write: rmw), else the name.
func keyAbbrev(op string) string {
	words := strings.Split(op, "_")
	if len(words) < 2 {
		return op
	}
	var b strings.Builder
	for _, w := range words {
		if w != "" {
			b.WriteString(w[:1])
		}
	}
	return b.String()
}

// keyWidth is the width of the table's first percentile column ("no p50", "read p50").
func keyWidth(s *SearchResult) int { return max(7, len(keyAbbrev(s.searchKeyOp()))+4) }

// ProbeLine is one probe's line of the search table (also printed as the search goes).
func ProbeLine(s *SearchResult, p *SearchProbe) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%5d %10.1f %10.1f %10.1f %8d", p.Probe, p.Rate, p.OfferedRate, p.AchievedRate, p.Dropped)
	key := p.Tails[s.searchKeyOp()].ResponseMs
	fmt.Fprintf(&b, " │ %*s %7s %7s │", keyWidth(s), ms(key.P50), ms(key.P99), ms(key.P999))
	for i, br := range p.Budgets {
		v := ms(br.ValueMs) + " ms"
		if br.NoData {
			v = "no data"
		}
		if !br.Met {
			v += " ✗"
		}
		fmt.Fprintf(&b, "  %s%s", strings.Repeat(" ", max(0, budgetWidth(s.SLO[i])-utf8.RuneCountInString(v))), v)
	}
	verdict := "pass"
	if !p.Pass {
		verdict = "fail"
		if !p.Sustained {
			verdict += " (rate not sustained)"
		}
	}
	if p.Confirm {
		verdict += fmt.Sprintf(" · confirming, %.0f s", p.Seconds)
	}
	fmt.Fprintf(&b, "  %s", verdict)
	return b.String()
}

// ProbeBrief is one probe in a line, as the search goes.
func ProbeBrief(p *SearchProbe) string {
	var b strings.Builder
	verdict := "pass"
	if !p.Pass {
		verdict = "fail"
	}
	if p.Confirm {
		verdict = fmt.Sprintf("confirming (%.0f s): %s", p.Seconds, verdict)
	}
	fmt.Fprintf(&b, "probe %d at %g/s: %s (achieved %.1f/s", p.Probe, p.Rate, verdict, p.AchievedRate)
	if p.Dropped > 0 {
		fmt.Fprintf(&b, ", %d dropped", p.Dropped)
	}
	if !p.Sustained {
		b.WriteString(", rate not sustained")
	}
	for _, br := range p.Budgets {
		v := ms(br.ValueMs) + " ms"
		if br.NoData {
			v = "no data"
		}
		fmt.Fprintf(&b, "; %s %s", budgetName(br.SLO), v)
	}
	b.WriteString(")")
	return b.String()
}

// ProbeHeader is the header of the search table.
func ProbeHeader(s *SearchResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%5s %10s %10s %10s %8s", "probe", "target/s", "offered/s", "achieved/s", "dropped")
	fmt.Fprintf(&b, " │ %*s %7s %7s │", keyWidth(s), keyAbbrev(s.searchKeyOp())+" p50", "p99", "p99.9")
	for _, t := range s.SLO {
		fmt.Fprintf(&b, "  %*s", budgetWidth(t), budgetName(t))
	}
	b.WriteString("  verdict")
	return b.String()
}

func budgetName(slo string) string {
	if i := strings.IndexByte(slo, '<'); i > 0 {
		return strings.TrimSpace(slo[:i])
	}
	return slo
}

func budgetWidth(slo string) int { return max(12, len(budgetName(slo))) }

// PrintSearch prints the table of probes (in the order tried) and the answer.
func PrintSearch(w io.Writer, s *SearchResult) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	title := "candor " + s.Workload + " search"
	p("\n%s\n%s\n%s\n", title, strings.Repeat("=", len(title)), s.Disclaimer)
	p("database %s (%s) · %s · %s · %s arrivals · each probe %.0f s after %.0f s of warm-up\n",
		s.Database.Version, s.Database.Kind, s.Database.URL, countS(int64(s.Connections), "connection"), s.Arrivals, s.ProbeSeconds, s.WarmupSeconds)
	p("budgets (steady-state response time from the intended arrival, unless .service.): %s\n", strings.Join(s.SLO, ", "))
	key := s.searchKeyOp()
	p("%s p50, p99, p99.9: %s's response time, ms; each budget's value follows\n\n", keyAbbrev(key), key)
	p("%s\n", ProbeHeader(s))
	for i := range s.Probes {
		p("%s\n", ProbeLine(s, &s.Probes[i]))
	}
	p("\n")
	printAnswer(w, s)
	for _, wr := range s.Warnings {
		p("\n[%s] %s\n", wr.Code, wr.Message)
	}
	PrintChecks(w, &Result{Checks: s.Checks})
	for _, c := range s.Checks {
		if !c.Skipped && !c.OK {
			p("\na consistency condition is violated after the search: the probes ran on data the workload left inconsistent, so neither the rates nor the tails can be trusted\n")
			break
		}
	}
}

// printAnswer prints the search's answer: the rate, whether longer probes confirmed it and what it
// rests on, or why there is none.
func printAnswer(w io.Writer, s *SearchResult) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	c := s.Confirmation
	if c != nil && !c.Confirmed {
		p("no rate confirmed: the search's answer, %.1f/s, failed a longer probe (%d×%.0f s), and so did %d lower rate(s) down to %.1f/s (steps of %.0f%%): the database does not hold these budgets there\n",
			s.SearchRate, c.Repeats, c.ProbeSeconds, max(c.Rounds-1, 0), lowestConfirming(s), 100*c.StepDown)
		return
	}
	switch {
	case s.MaxRate == 0:
		p("no rate tried met every budget (the lowest tried was %.1f/s): the database cannot meet these budgets at any rate tried\n", lowest(s))
		return
	case s.FailRate == 0:
		p("max rate: at least %.1f operations/s (all of them together): every rate tried met every budget; search again with a higher --start-rate or more --max-probes\n", s.MaxRate)
	case s.Converged:
		p("max rate: %.1f operations/s (all of them together) meets every budget; %.1f/s does not\n", s.MaxRate, s.FailRate)
	case c != nil && s.MaxRate < s.SearchRate:
		p("max rate: %.1f operations/s (all of them together) meets every budget; %.1f/s does not (narrowed only to the confirmation's %.0f%% steps)\n", s.MaxRate, s.FailRate, 100*c.StepDown)
	default:
		p("max rate: %.1f operations/s (all of them together) meets every budget; %.1f/s does not (not narrowed to %.0f%%: raise --max-probes)\n", s.MaxRate, s.FailRate, 100*s.Precision)
	}
	if c == nil {
		p("not confirmed: the answer rests on one %.0f s probe (--confirm 0)\n", s.ProbeSeconds)
		return
	}
	if s.MaxRate < s.SearchRate {
		p("the search's answer, %.1f/s, did not hold in longer probes: stepped down %d time(s) by %.0f%%\n", s.SearchRate, c.Rounds-1, 100*c.StepDown)
	}
	var spread []string
	for _, b := range c.Spread {
		spread = append(spread, fmt.Sprintf("%s %s–%s ms", budgetName(b.SLO), ms(b.MinMs), ms(b.MaxMs)))
	}
	spread = append(spread, fmt.Sprintf("achieved %.1f–%.1f/s", c.AchievedMin, c.AchievedMax))
	p("confirmed by %d probe(s) of %.0f s; the answer rests on %d passing probe(s) at this rate, whose spread is: %s\n",
		c.Repeats, c.ProbeSeconds, c.RestsOn, strings.Join(spread, ", "))
}

// lowestConfirming is the lowest rate a confirming probe tried.
func lowestConfirming(s *SearchResult) float64 {
	l := 0.0
	for _, p := range s.Probes {
		if p.Confirm && (l == 0 || p.Rate < l) {
			l = p.Rate
		}
	}
	return l
}

func lowest(s *SearchResult) float64 {
	l := 0.0
	for _, p := range s.Probes {
		if l == 0 || p.Rate < l {
			l = p.Rate
		}
	}
	return l
}
