package driver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// classDB is a DB whose Classify answers class, and whose own codes (FailureClassifier) answer
// own when set; the other methods are never called.
type classDB struct {
	DB
	class ErrorClass
}

func (d classDB) Classify(error) ErrorClass { return d.class }

type ownCodesDB struct {
	classDB
	own FailureClass
}

func (d ownCodesDB) FailureClass(error) (FailureClass, bool) { return d.own, d.own != FailNone }

type stateErr string

func (e stateErr) Error() string    { return "state " + string(e) }
func (e stateErr) SQLState() string { return string(e) }

func TestFailureOf(t *testing.T) {
	plain := errors.New("relation \"x\" does not exist")
	for _, c := range []struct {
		name string
		db   DB
		err  error
		want FailureClass
	}{
		{"no error", classDB{}, nil, FailNone},
		{"a statement error", classDB{class: ErrFatal}, plain, FailStatement},
		{"no database: a statement error", nil, plain, FailStatement},
		{"retry class: serialization or deadlock", classDB{class: ErrRetry}, plain, FailSerialization},
		{"connection lost", classDB{class: ErrConnLost}, plain, FailConnLost},
		{"the driver's check", classDB{class: ErrFatal}, Checkf("tpcc: new-order updated %d stock rows, expected %d", 4, 10), FailCheck},
		{"the driver's check, wrapped", classDB{class: ErrRetry}, fmt.Errorf("op: %w", &CheckError{Msg: "x"}), FailCheck},
		{"a workload's conflict: a serialization failure", classDB{class: ErrFatal}, fmt.Errorf("tx: %w", Conflictf("deleted %d of %d", 9, 10)), FailSerialization},
		{"SQLSTATE 23505: constraint", classDB{class: ErrFatal}, stateErr("23505"), FailConstraint},
		{"SQLSTATE 57014: statement timeout", classDB{class: ErrFatal}, fmt.Errorf("q: %w", stateErr("57014")), FailTimeout},
		{"SQLSTATE 55P03: lock timeout before the retry class", classDB{class: ErrRetry}, stateErr("55P03"), FailTimeout},
		{"SQLSTATE 40001 falls to the retry class", classDB{class: ErrRetry}, stateErr("40001"), FailSerialization},
		{"the caller's deadline", classDB{class: ErrFatal}, fmt.Errorf("query: %w", context.DeadlineExceeded), FailTimeout},
		{"the engine's own codes first", ownCodesDB{classDB{class: ErrRetry}, FailTimeout}, plain, FailTimeout},
		{"the engine's codes undecided", ownCodesDB{classDB{class: ErrConnLost}, FailNone}, plain, FailConnLost},
	} {
		if got := FailureOf(c.db, c.err); got != c.want {
			t.Errorf("%s: FailureOf = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestFailureClassNames(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range FailureClasses {
		if seen[c.String()] || c.Title() == "" {
			t.Errorf("class %d: name %q repeated or no title", c, c)
		}
		seen[c.String()] = true
		if back, ok := ParseFailureClass(c.String()); !ok || back != c {
			t.Errorf("ParseFailureClass(%q) = %v, %v", c, back, ok)
		}
	}
	if len(FailureClasses) != int(NumFailureClasses)-1 {
		t.Errorf("FailureClasses lists %d classes, want every class but FailNone", len(FailureClasses))
	}
	if FailNone.String() != "statement" {
		t.Errorf("an unclassified failure must count as a statement error, is %q", FailNone)
	}
}

func TestFailureMessage(t *testing.T) {
	if got := FailureMessage(errors.New("ERROR:  duplicate key\n  DETAIL:\tKey (id)=(1)")); got != "ERROR: duplicate key DETAIL: Key (id)=(1)" {
		t.Errorf("not on one line: %q", got)
	}
	long := FailureMessage(errors.New(strings.Repeat("é", 400)))
	if len(long) > MaxFailureMessage+len("…") || !strings.HasSuffix(long, "…") || !strings.HasPrefix(long, "éé") {
		t.Errorf("a long message is not cut at %d bytes on a character boundary: %d bytes", MaxFailureMessage, len(long))
	}
	for _, r := range strings.TrimSuffix(long, "…") {
		if r != 'é' {
			t.Fatalf("cut inside a character: %q", long)
		}
	}
	for _, leak := range []string{
		"failed to connect to host=db user=u password=S3cretPW dbname=x",
		"dial postgres://u:S3cretPW@db:5432/x: refused",
		"connect: PASSWORD = 'S3cretPW' rejected",
		"url mysql://u:S3cretPW@tcp(db:3306)/x?pwd=S3cretPW&x=1",
	} {
		if got := FailureMessage(errors.New(leak)); strings.Contains(got, "S3cretPW") || !strings.Contains(got, "xxxxx") {
			t.Errorf("FailureMessage(%q) = %q: the password shows", leak, got)
		}
	}
	if FailureMessage(nil) != "" {
		t.Error("no error, no message")
	}
}
