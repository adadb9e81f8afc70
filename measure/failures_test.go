package measure

import (
	"fmt"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
)

// Failures are counted by class in every interval and in the totals; the totals keep the first
// MaxFailureMessages distinct messages of the window with their counts, from every stripe, and
// nothing of the warm-up.
func TestFailureClassesAndMessages(t *testing.T) {
	r := NewRecorder([]string{"a", "b"}, 2)
	t0 := time.Unix(1_800_000_000, 0)
	r.Begin(t0, t0, t0.Add(time.Minute))
	check := Event{Err: true, Fail: driver.FailCheck, Msg: "updated 4 rows, expected 10"}
	for i := range 7 {
		r.Stripe(i).Done(0, true, check)
	}
	r.Stripe(0).Done(0, true, Event{Err: true, Msg: "syntax error"}) // no class: statement
	r.Stripe(0).Done(0, false, Event{Err: true, Fail: driver.FailTimeout, Msg: "warm-up only"})
	for i := range 2 * MaxFailureMessages {
		r.Stripe(i).Done(1, true, Event{Err: true, Fail: driver.FailSerialization, Msg: fmt.Sprintf("deadlock %d", i)})
	}
	iv := r.Tick(t0.Add(time.Second))
	if iv.Counts[0].Failures[driver.FailCheck] != 7 || iv.Counts[0].Failures[driver.FailStatement] != 1 || iv.Counts[0].Failures[driver.FailTimeout] != 1 {
		t.Fatalf("interval classes of a: %v", iv.Counts[0].Failures)
	}
	if iv.Measured[0].Failures[driver.FailTimeout] != 0 {
		t.Fatal("a warm-up failure is in the measured counts")
	}
	// A second interval: the same message adds up, a new one is kept while there is room.
	r.Stripe(1).Done(0, true, check)
	r.Stripe(1).Done(0, true, Event{Err: true, Fail: driver.FailConstraint, Msg: "duplicate key"})
	r.Tick(t0.Add(2 * time.Second))
	tot := r.Totals()
	a := tot.Counts[0]
	if a.Errors != 10 || a.Failed() != 10 || a.Failures[driver.FailCheck] != 8 || a.Failures[driver.FailConstraint] != 1 {
		t.Fatalf("totals of a: errors %d, classes %v", a.Errors, a.Failures)
	}
	want := []FailureMessage{{driver.FailCheck, "updated 4 rows, expected 10", 8}, {driver.FailStatement, "syntax error", 1}, {driver.FailConstraint, "duplicate key", 1}}
	if fmt.Sprint(tot.Messages[0]) != fmt.Sprint(want) {
		t.Fatalf("messages of a: %v, want %v", tot.Messages[0], want)
	}
	b := tot.Messages[1]
	if len(b) != MaxFailureMessages || tot.Counts[1].Failures[driver.FailSerialization] != 2*MaxFailureMessages {
		t.Fatalf("b keeps %d messages of %d failures (%v), want the first %d and every failure counted", len(b), tot.Counts[1].Errors, b, MaxFailureMessages)
	}
	// A clone is deep: the recorder's next messages do not change it.
	c := tot.Clone()
	c.Messages[0][0].Count = -1
	if r.Totals().Messages[0][0].Count != 8 {
		t.Fatal("Clone shares the messages")
	}
	// Merging totals adds the counts and the messages.
	if err := MergeTotals(tot, r.Totals()); err != nil {
		t.Fatal(err)
	}
	if tot.Messages[0][0].Count != 16 || tot.Counts[0].Failures[driver.FailCheck] != 16 {
		t.Fatalf("merged: %v %v", tot.Messages[0], tot.Counts[0].Failures)
	}
}

// An operation completed inside the window counts in CompletedInWindow whichever window its
// intended start fell in; a failed one does not.
func TestCompletedInWindow(t *testing.T) {
	r := NewRecorder([]string{"a"}, 1)
	t0 := time.Unix(1_800_000_000, 0)
	r.Begin(t0, t0.Add(time.Second), t0.Add(time.Minute))
	s := r.Stripe(0)
	s.Done(0, false, Event{InWindow: true})           // meant to start in the warm-up, completed inside
	s.Done(0, true, Event{InWindow: false})           // meant to start inside, completed after
	s.Done(0, true, Event{InWindow: true})            // both inside
	s.Done(0, true, Event{InWindow: true, Err: true}) // failed
	s.Done(0, false, Event{InWindow: false})          // warm-up only
	r.Tick(t0.Add(2 * time.Second))
	c := r.Totals().Counts[0]
	if c.Completed != 2 || c.CompletedInWindow != 2 {
		t.Fatalf("completed %d (by intended start, want 2), inside the window %d (want 2)", c.Completed, c.CompletedInWindow)
	}
}

// The causes of retries: each operation keeps the first MaxFailureMessages distinct messages of
// its retried attempts, each counted with the retries of the operations it caused, from every
// stripe and interval, in the window only. Recording a cause seen before, or one past the bound,
// allocates nothing.
func TestRetryCauses(t *testing.T) {
	r := NewRecorder([]string{"a", "b"}, 2)
	t0 := time.Unix(1_800_000_000, 0)
	r.Begin(t0, t0, t0.Add(time.Minute))
	const deadlock = "Error 1213 (40001): Deadlock found when trying to get lock; try restarting transaction"
	const dolt = "serialization failure: this transaction conflicts with a committed transaction from another client, try restarting transaction"
	retried := func(n int, msg string) Event {
		return Event{Retries: n, RetryFail: driver.FailSerialization, RetryMsg: msg}
	}
	r.Stripe(0).Done(0, true, retried(2, deadlock))
	r.Stripe(1).Done(0, true, retried(1, deadlock))
	r.Stripe(1).Done(0, false, retried(5, "warm-up only"))
	r.Stripe(0).Done(0, true, Event{Retries: 3, Err: true, Fail: driver.FailSerialization, Msg: dolt, RetryFail: driver.FailSerialization, RetryMsg: dolt})
	r.Stripe(0).Done(0, true, Event{Retries: 0, RetryMsg: "no retry, no cause"})
	for i := range 2 * MaxFailureMessages {
		r.Stripe(i).Done(1, true, retried(1, fmt.Sprintf("conflict %d", i)))
	}
	r.Tick(t0.Add(time.Second))
	r.Stripe(1).Done(0, true, retried(4, dolt))
	r.Tick(t0.Add(2 * time.Second))
	tot := r.Totals()
	want := []FailureMessage{{driver.FailSerialization, deadlock, 3}, {driver.FailSerialization, dolt, 7}}
	if fmt.Sprint(tot.Retried[0]) != fmt.Sprint(want) || tot.Counts[0].Retries != 10 {
		t.Fatalf("retry causes of a: %v (retries %d), want %v (10)", tot.Retried[0], tot.Counts[0].Retries, want)
	}
	if b := tot.Retried[1]; len(b) != MaxFailureMessages || tot.Counts[1].Retries != 2*MaxFailureMessages {
		t.Fatalf("b keeps %d causes of %d retries (%v), want the first %d", len(b), tot.Counts[1].Retries, b, MaxFailureMessages)
	}
	// Deep clone and merge, as for the failures' messages.
	c := tot.Clone()
	c.Retried[0][0].Count = -1
	if r.Totals().Retried[0][0].Count != 3 {
		t.Fatal("Clone shares the retry causes")
	}
	if err := MergeTotals(tot, r.Totals()); err != nil {
		t.Fatal(err)
	}
	if tot.Retried[0][1].Count != 14 {
		t.Fatalf("merged causes: %v", tot.Retried[0])
	}
	// A cause already kept, or one past the bound, is counted without allocating.
	s := r.Stripe(0)
	seen, unseen := retried(1, dolt), retried(1, "conflict 9")
	if n := testing.AllocsPerRun(1000, func() { s.Done(0, true, seen); s.Done(1, true, unseen) }); n != 0 {
		t.Fatalf("recording a retry cause allocates %v times", n)
	}
}

// BenchmarkStripeDoneRetried: an event with a retry whose cause is already kept.
func BenchmarkStripeDoneRetried(b *testing.B) {
	r := NewRecorder([]string{"a"}, 1)
	s := r.Stripe(0)
	e := Event{Response: 3 * time.Millisecond, Service: 2 * time.Millisecond, Retries: 1, RetryFail: driver.FailSerialization,
		RetryMsg: "serialization failure: this transaction conflicts with a committed transaction from another client, try restarting transaction"}
	b.ReportAllocs()
	for b.Loop() {
		s.Done(0, true, e)
	}
}
