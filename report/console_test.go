package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// oneTerminal is kvResult run with one terminal and one connection, with scan and delete in its
// operations though not in its mix (as kv95 records them), and a delete that only failed.
func oneTerminal() *Result {
	r := kvResult()
	r.Terminals, r.Connections = 1, 1
	r.Operations["read"].ResponseMs.Mean = 0.333
	r.Operations["read"].ServiceMs.Mean = 0.222
	r.Operations["scan"] = &TxResult{}
	r.Operations["delete"] = &TxResult{}
	r.Operations["upsert"] = &TxResult{Errors: 2}
	r.OpOrder = []string{"read", "write", "scan", "delete", "upsert"}
	r.Verdicts = []Verdict{NewVerdict("read p99 response time", 10, 1.7, 1)}
	return r
}

// singularPlural finds "1 terminals" and its kin.
var singularPlural = regexp.MustCompile(`\b1 (terminals|connections|samples|operations|endpoints|errors|retries)\b`)

// rowOf is the table row of op in a summary ("" without one).
func rowOf(out, op string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, op+" ") {
			return l
		}
	}
	return ""
}

// TestSummaryMeanAndNouns: the summary shows each operation's mean response and service time beside
// the percentiles, says "1 terminal" and "1 connection", gives operations that did not run at all no
// row of zeros (one line names them) and keeps a row for one that only failed.
func TestSummaryMeanAndNouns(t *testing.T) {
	var b bytes.Buffer
	Summary(&b, oneTerminal())
	out := b.String()
	if !strings.Contains(out, "· 1 terminal · 1 connection ·") {
		t.Errorf("summary does not say 1 terminal · 1 connection:\n%s", out)
	}
	if m := singularPlural.FindString(out); m != "" {
		t.Errorf("summary says %q:\n%s", m, out)
	}
	if !regexp.MustCompile(`operation .*│ +mean +p50 .*│ +mean +p50`).MatchString(out) {
		t.Errorf("summary has no mean beside the percentiles of response and service time:\n%s", out)
	}
	if read := rowOf(out, "read"); !strings.Contains(read, "│   0.333   0.210") || !strings.Contains(read, "│   0.222   0.200") {
		t.Errorf("read's row lacks its means: %q", read)
	}
	for _, op := range []string{"scan", "delete"} {
		if row := rowOf(out, op); row != "" {
			t.Errorf("%s did not run but has a row: %q", op, row)
		}
	}
	if !strings.Contains(out, "scan, delete: none recorded in this run") {
		t.Errorf("summary does not name the operations that did not run:\n%s", out)
	}
	if rowOf(out, "upsert") == "" {
		t.Errorf("upsert failed twice but has no row:\n%s", out)
	}
}

// TestLoadsMeanNoIdleNoDuplicate: the one-shot's side by side shows the mean, no rows of zeros for
// operations no run ran, "1 terminal", and one row of the rate of all operations, not a second
// when the workload's headline figure is that rate (kv's throughput).
func TestLoadsMeanNoIdleNoDuplicate(t *testing.T) {
	peak, half := oneTerminal(), oneTerminal()
	half.Rate = &RateResult{Arrivals: "poisson", TargetRate: 2500, AchievedRate: 2499, Sustained: true}
	for _, r := range []*Result{peak, half} {
		r.Headline[0].Value = AllTypesRate(r) // kv's throughput: the rate of all operations
	}
	var b bytes.Buffer
	PrintLoads(&b, []LoadRun{{Label: PeakLabel, R: peak}, {Label: RateLabel(50), R: half}})
	out := b.String()
	if !regexp.MustCompile(`operation +│ +per s +mean +p50 +p99 +p99.9 +│ +per s +mean`).MatchString(out) {
		t.Errorf("side by side has no mean column:\n%s", out)
	}
	if row := rowOf(out, "read"); !strings.Contains(row, "0.333") {
		t.Errorf("read's row lacks its mean: %q", row)
	}
	for _, op := range []string{"scan", "delete"} {
		if row := rowOf(out, op); row != "" {
			t.Errorf("%s ran in no run but has a row: %q", op, row)
		}
	}
	if !strings.Contains(out, "scan, delete: none recorded in these runs") {
		t.Errorf("side by side does not name the operations no run ran:\n%s", out)
	}
	if rowOf(out, "all ops, per s") == "" || rowOf(out, "throughput") != "" {
		t.Errorf("want one row of the rate of all operations (all ops), not a throughput row too:\n%s", out)
	}
	if !strings.Contains(out, "1 terminal over 1 connection") {
		t.Errorf("side by side does not say 1 terminal over 1 connection:\n%s", out)
	}
	if m := singularPlural.FindString(out); m != "" {
		t.Errorf("side by side says %q:\n%s", m, out)
	}
	// a headline that is not the rate of all operations keeps its row
	peak.Headline[0].Value++
	b.Reset()
	PrintLoads(&b, []LoadRun{{Label: PeakLabel, R: peak}, {Label: RateLabel(50), R: half}})
	if rowOf(b.String(), "throughput") == "" {
		t.Errorf("a headline other than the rate of all operations lost its row:\n%s", b.String())
	}
}

// TestPrintChecksStates: a pass, a failure with its violation, a skip, a condition not run and a
// note on the check itself (condition 0: a refused session setting) each print as what they are.
func TestPrintChecksStates(t *testing.T) {
	var b strings.Builder
	PrintChecks(&b, &Result{Checks: []Check{
		{Name: "the check's session settings", Skipped: true, Reason: "the server refused SET work_mem = '256MB' (ERROR: x): ran without it"},
		{Condition: 1, Name: "fine", OK: true, Seconds: 0.5},
		{Condition: 2, Name: "broken", Violations: []string{"row 1"}},
		{Condition: 3, Name: "expensive", Skipped: true, Reason: "runs with --full only"},
		{Condition: 4, Name: "unmeasured", Skipped: true, NotRun: true, Reason: "not run: connection lost"},
	}})
	want := "\nconsistency checks:\n" +
		"  note    the check's session settings: the server refused SET work_mem = '256MB' (ERROR: x): ran without it\n" +
		"  pass  1 fine                                                         0.50 s\n" +
		"  FAIL  2 broken                                                       0.00 s\n" +
		"         row 1\n" +
		"  skip  3 expensive                                                    runs with --full only\n" +
		"  not run  4 unmeasured                                                connection lost\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
