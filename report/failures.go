package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/measure"
)

// DefaultMaxFailuresPct is the share of an operation's attempts that may fail before the run's
// failure verdict fails (--max-failures).
const DefaultMaxFailuresPct = 5.0

// Failures are one operation's failures in the measurement window: how many by class, and the
// first distinct messages with their counts (measure.MaxFailureMessages at most).
type Failures struct {
	// ByClass counts the failures by class (driver.FailureClass's String: serialization,
	// constraint, connection_lost, timeout, statement, check); they add up to TxResult.Errors.
	ByClass map[string]int64 `json:"by_class"`
	// Messages are the first distinct messages seen, with their class and count; failures with
	// other messages are counted in ByClass only (Unlisted).
	Messages []FailureMessage `json:"messages,omitempty"`
	Unlisted int64            `json:"unlisted,omitempty"`
	// Pct is the failures' share of the attempts (completed + errors), in percent.
	Pct float64 `json:"pct"`
}

// FailureMessage is one distinct failure message.
type FailureMessage struct {
	Class   string `json:"class"`
	Message string `json:"message"`
	Count   int64  `json:"count"`
}

// FailureVerdict judges every operation's failures against the limit (--max-failures): a run
// where one fails more often is not a result, whatever its figures say.
type FailureVerdict struct {
	LimitPct float64 `json:"limit_pct"`
	Pass     bool    `json:"pass"`
	// Over are the operations whose failures exceeded the limit.
	Over []OpFailures `json:"over,omitempty"`
}

// OpFailures is one operation above the limit.
type OpFailures struct {
	Operation string  `json:"operation"`
	Failed    int64   `json:"failed"`
	Attempts  int64   `json:"attempts"`
	Pct       float64 `json:"pct"`
}

// FailuresOf is the failures of operation op in t, or nil when it had none.
func FailuresOf(t *measure.Totals, op int) *Failures {
	c := t.Counts[op]
	if c.Errors == 0 {
		return nil
	}
	f := &Failures{ByClass: map[string]int64{}, Pct: 100 * float64(c.Errors) / float64(c.Completed+c.Errors)}
	for _, cl := range driver.FailureClasses {
		if n := c.Failures[cl]; n > 0 {
			f.ByClass[cl.String()] += n
		}
	}
	if n := c.Failures[driver.FailNone]; n > 0 { // recorded without a class: a statement error
		f.ByClass[driver.FailStatement.String()] += n
	}
	listed := int64(0)
	if op < len(t.Messages) {
		for _, m := range t.Messages[op] {
			f.Messages = append(f.Messages, FailureMessage{Class: m.Class.String(), Message: m.Text, Count: m.Count})
			listed += m.Count
		}
	}
	f.Unlisted = max(0, c.Errors-listed)
	return f
}

// RetryCausesOf is what operation op's retried attempts in t failed with, or nil when none was
// retried: the first distinct messages with their class and the retries each caused.
func RetryCausesOf(t *measure.Totals, op int) []FailureMessage {
	if op >= len(t.Retried) {
		return nil
	}
	var ms []FailureMessage
	for _, m := range t.Retried[op] {
		ms = append(ms, FailureMessage{Class: m.Class.String(), Message: m.Text, Count: m.Count})
	}
	return ms
}

// TopRetryCause is the cause of the most retries over r's operations (parts of another left out,
// as they are counted with it), and how many retries it caused; false when no retry has a cause.
func TopRetryCause(r *Result) (FailureMessage, bool) {
	var top FailureMessage
	by := map[string]int{} // message -> index in causes, summed over the operations
	var causes []FailureMessage
	for _, name := range r.Ops() {
		t := r.Operations[name]
		if t == nil || t.PartOf != "" {
			continue
		}
		for _, m := range t.RetryCauses {
			i, ok := by[m.Message]
			if !ok {
				i = len(causes)
				by[m.Message] = i
				causes = append(causes, FailureMessage{Class: m.Class, Message: m.Message})
			}
			causes[i].Count += m.Count
		}
	}
	for _, c := range causes {
		if c.Count > top.Count {
			top = c
		}
	}
	return top, top.Count > 0
}

// JudgeFailures judges every operation of r against limitPct.
func JudgeFailures(r *Result, limitPct float64) *FailureVerdict {
	v := &FailureVerdict{LimitPct: limitPct, Pass: true}
	for _, name := range r.Ops() {
		t := r.Operations[name]
		if t == nil || t.Errors == 0 {
			continue
		}
		attempts := t.Count + t.Errors
		pct := 100 * float64(t.Errors) / float64(attempts)
		if pct > limitPct {
			v.Pass = false
			v.Over = append(v.Over, OpFailures{Operation: name, Failed: t.Errors, Attempts: attempts, Pct: pct})
		}
	}
	return v
}

// FailureReasons are the operations above the failure limit in words ("new_order failed 43.6% of
// 5,210 times"), empty when none is.
func (v *FailureVerdict) Reasons() []string {
	if v == nil {
		return nil
	}
	var rs []string
	for _, o := range v.Over {
		rs = append(rs, fmt.Sprintf("%s failed %.1f%% of %s times (limit %g%%)", o.Operation, o.Pct, Grouped(o.Attempts, ","), v.LimitPct))
	}
	return rs
}

// classOrder is ByClass's keys in the order results show them.
func classOrder(by map[string]int64) []string {
	var ks []string
	for _, c := range driver.FailureClasses {
		if by[c.String()] > 0 {
			ks = append(ks, c.String())
		}
	}
	return ks
}

// classTitle is a class key in words.
func classTitle(key string) string {
	if c, ok := driver.ParseFailureClass(key); ok {
		return c.Title()
	}
	return key
}

// ClassCounts is a failures' classes in words: "driver-side check 2,270, serialization/deadlock 2".
func (f *Failures) ClassCounts() string {
	var parts []string
	for _, k := range classOrder(f.ByClass) {
		parts = append(parts, classTitle(k)+" "+Grouped(f.ByClass[k], ","))
	}
	return strings.Join(parts, ", ")
}

// PrintFailures prints, for the first screen, the failure verdict when it failed and every
// operation's failures: classes, then the first distinct messages with their counts.
func PrintFailures(w io.Writer, r *Result) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	if v := r.FailureVerdict; v != nil && !v.Pass {
		p("\nFAILED: %s; the figures below are not a valid result\n", strings.Join(v.Reasons(), "; "))
	}
	first := true
	for _, name := range r.Ops() {
		t := r.Operations[name]
		if t == nil || t.Failures == nil || t.Errors == 0 {
			continue
		}
		if first {
			p("\nfailures in the measurement window, by operation and class (first distinct messages):\n")
			first = false
		}
		f := t.Failures
		p("  %s: %s failed of %s (%.2f%%): %s\n", name, Grouped(t.Errors, ","), Grouped(t.Count+t.Errors, ","), f.Pct, f.ClassCounts())
		for _, m := range f.Messages {
			p("    %8s × %s: %s\n", Grouped(m.Count, ","), classTitle(m.Class), m.Message)
		}
		if f.Unlisted > 0 {
			p("    %8s × other messages (only the first %d distinct ones are kept)\n", Grouped(f.Unlisted, ","), measure.MaxFailureMessages)
		}
	}
	first = true
	for _, name := range r.Ops() {
		t := r.Operations[name]
		if t == nil || t.Retries == 0 || len(t.RetryCauses) == 0 {
			continue
		}
		if first {
			p("\nretries in the measurement window, by operation and cause (first distinct messages of the retried attempts):\n")
			first = false
		}
		p("  %s: %s retries over %s operations\n", name, Grouped(t.Retries, ","), Grouped(t.Count+t.Errors, ","))
		listed := int64(0)
		for _, m := range t.RetryCauses {
			p("    %8s × %s: %s\n", Grouped(m.Count, ","), classTitle(m.Class), m.Message)
			listed += m.Count
		}
		if n := t.Retries - listed; n > 0 {
			p("    %8s × other messages (only the first %d distinct ones are kept)\n", Grouped(n, ","), measure.MaxFailureMessages)
		}
	}
}

// FailureSection is the failures as a table (report.html), with no rows when nothing failed.
func FailureSection(r *Result) Section {
	s := Section{Title: "failures by operation and class", Columns: []string{"operation", "class", "count", "message"}}
	for _, name := range r.Ops() {
		t := r.Operations[name]
		if t == nil || t.Failures == nil || t.Errors == 0 {
			continue
		}
		f := t.Failures
		for _, k := range classOrder(f.ByClass) {
			s.Rows = append(s.Rows, []string{name, classTitle(k), Grouped(f.ByClass[k], ","), ""})
		}
		for _, m := range f.Messages {
			s.Rows = append(s.Rows, []string{name, classTitle(m.Class), Grouped(m.Count, ","), m.Message})
		}
	}
	if v := r.FailureVerdict; v != nil && !v.Pass {
		s.Notes = append(s.Notes, "FAILED: "+strings.Join(v.Reasons(), "; ")+".")
	}
	return s
}

// RetrySection is what the retried attempts failed with, as a table (report.html), with no rows
// when nothing was retried or no retry has a cause.
func RetrySection(r *Result) Section {
	s := Section{Title: "retries by operation and cause", Columns: []string{"operation", "class", "retries", "message"}}
	for _, name := range r.Ops() {
		t := r.Operations[name]
		if t == nil || t.Retries == 0 {
			continue
		}
		for _, m := range t.RetryCauses {
			s.Rows = append(s.Rows, []string{name, classTitle(m.Class), Grouped(m.Count, ","), m.Message})
		}
	}
	if len(s.Rows) > 0 {
		s.Notes = append(s.Notes, "Each operation's retries are counted under the message of its first retried attempt; the first "+strconv.Itoa(measure.MaxFailureMessages)+" distinct messages per operation are kept.")
	}
	return s
}
