package driver

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// FailureClass is why an operation failed, for the failure counts every result shows per operation
// (result.json's operations.*.failures, the console summary, report.html, Prometheus). It is
// workload-neutral: the engine's error class (Classify) and, where the engine can tell, its error
// codes decide it, except for a workload's own checks on what the database answered (CheckError).
type FailureClass uint8

const (
	// FailNone is no class yet: an error recorded without one counts as FailStatement, unless
	// FailureOf finds a better class from the error alone.
	FailNone FailureClass = iota
	// FailSerialization: a serialization failure, deadlock or write conflict that was still failing
	// after the retries (ErrRetry).
	FailSerialization
	// FailConstraint: an integrity constraint was violated (duplicate key, foreign key, not null,
	// check).
	FailConstraint
	// FailConnLost: the connection was lost and could not be re-established in time (ErrConnLost).
	FailConnLost
	// FailTimeout: a statement, lock wait or the caller's deadline timed out.
	FailTimeout
	// FailStatement: any other error the database returned (syntax, missing table, permission,
	// read-only database, a trigger that raised, ...).
	FailStatement
	// FailCheck: the driver found the database's answer wrong (CheckError): "new-order updated 4
	// stock rows, expected 10".
	FailCheck
	// NumFailureClasses bounds the classes, for arrays indexed by class.
	NumFailureClasses
)

// FailureClasses are the classes in the order results show them.
var FailureClasses = []FailureClass{FailSerialization, FailConstraint, FailConnLost, FailTimeout, FailStatement, FailCheck}

// String is the class's key in result.json and Prometheus' class label.
func (c FailureClass) String() string {
	switch c {
	case FailSerialization:
		return "serialization"
	case FailConstraint:
		return "constraint"
	case FailConnLost:
		return "connection_lost"
	case FailTimeout:
		return "timeout"
	case FailStatement, FailNone:
		return "statement"
	case FailCheck:
		return "check"
	}
	return fmt.Sprintf("class%d", uint8(c))
}

// Title is the class in words, for people.
func (c FailureClass) Title() string {
	switch c {
	case FailSerialization:
		return "serialization/deadlock"
	case FailConstraint:
		return "constraint violation"
	case FailConnLost:
		return "connection lost"
	case FailTimeout:
		return "timeout"
	case FailStatement, FailNone:
		return "statement error"
	case FailCheck:
		return "driver-side check"
	}
	return c.String()
}

// ParseFailureClass is the class whose String is s, and false for none.
func ParseFailureClass(s string) (FailureClass, bool) {
	for _, c := range FailureClasses {
		if c.String() == s {
			return c, true
		}
	}
	return FailNone, false
}

// CheckError is a workload's own finding that the database's answer was wrong, although the
// database reported no error: a statement changed or returned other rows than it must. It is the
// class FailCheck.
type CheckError struct{ Msg string }

func (e *CheckError) Error() string { return e.Msg }

// Checkf returns a CheckError with the formatted message.
func Checkf(format string, a ...any) error { return &CheckError{Msg: fmt.Sprintf(format, a...)} }

// ConflictError is a workload's own finding that a concurrent transaction changed a row the
// transaction read, which the engine did not report (it has no locking reads to wait on: a row read
// was gone when the transaction came to delete it). Like a serialization failure, the transaction
// is rolled back and retried whole (Retry), and after the retries it is the class FailSerialization.
type ConflictError struct{ Msg string }

func (e *ConflictError) Error() string { return e.Msg }

// Conflictf returns a ConflictError with the formatted message.
func Conflictf(format string, a ...any) error { return &ConflictError{Msg: fmt.Sprintf(format, a...)} }

// retryable reports whether err ends a transaction that is retried: the engine's class ErrRetry, or
// a ConflictError.
func retryable(db DB, err error) bool {
	var ce *ConflictError
	return errors.As(err, &ce) || db.Classify(err) == ErrRetry
}

// FailureClassifier is an optional ability of a DB: the class of an error from the engine's own
// codes (SQLSTATE, error numbers), with false when the engine's codes do not decide it.
type FailureClassifier interface {
	FailureClass(err error) (FailureClass, bool)
}

// sqlStater is what pgx's errors (and others) answer with their SQLSTATE.
type sqlStater interface{ SQLState() string }

// FailureOf is the class of err, an operation's final error, seen by db (nil when unknown): the
// one place failures are classified.
//  1. a CheckError is FailCheck, a ConflictError FailSerialization;
//  2. the engine's own codes (FailureClassifier), then a SQLSTATE the error answers with: class 23
//     is a constraint, 57014 (query canceled: statement_timeout) and 55P03 (lock not available)
//     a timeout;
//  3. the caller's deadline is a timeout;
//  4. the engine's error class: ErrRetry is a serialization failure or deadlock, ErrConnLost a
//     lost connection;
//  5. anything else is a statement error.
func FailureOf(db DB, err error) FailureClass {
	if err == nil {
		return FailNone
	}
	var ce *CheckError
	if errors.As(err, &ce) {
		return FailCheck
	}
	var conflict *ConflictError
	if errors.As(err, &conflict) {
		return FailSerialization
	}
	if fc, ok := db.(FailureClassifier); ok {
		if c, ok := fc.FailureClass(err); ok {
			return c
		}
	}
	var ss sqlStater
	if errors.As(err, &ss) {
		switch code := ss.SQLState(); {
		case strings.HasPrefix(code, "23"):
			return FailConstraint
		case code == "57014", code == "55P03":
			return FailTimeout
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return FailTimeout
	}
	if db != nil {
		switch db.Classify(err) {
		case ErrRetry:
			return FailSerialization
		case ErrConnLost:
			return FailConnLost
		}
	}
	return FailStatement
}

// passwordKV is a password=VALUE pair (key=value DSNs, query parameters), passwordURL a URL's
// user:password@.
var (
	passwordKV  = regexp.MustCompile(`(?i)\b(password|passwd|pwd)\s*=\s*('[^']*'|"[^"]*"|[^\s&;]+)`)
	passwordURL = regexp.MustCompile(`(://[^/\s:@]*):[^@\s/]*@`)
)

// MaxFailureMessage is the longest failure message kept (in bytes); longer ones are cut.
const MaxFailureMessage = 300

// FailureMessage is err's message as results keep it: on one line, at most MaxFailureMessage bytes,
// with anything that looks like a password hidden. Engines' errors name no password (their URLs are
// redacted before any error is made); hiding password=... and a URL's user:password@ again is a
// safety net, since these messages go into every result file.
func FailureMessage(err error) string {
	if err == nil {
		return ""
	}
	return FailureText(err.Error())
}

// FailureText is FailureMessage of an error whose Error() is text: a caller that has the text
// already (to compare it with the last one it saw) makes it once.
func FailureText(text string) string {
	msg := strings.Join(strings.Fields(text), " ")
	msg = passwordKV.ReplaceAllString(msg, "${1}=xxxxx")
	msg = passwordURL.ReplaceAllString(msg, "${1}:xxxxx@")
	if len(msg) > MaxFailureMessage {
		cut := MaxFailureMessage
		for cut > 0 && msg[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg
}
