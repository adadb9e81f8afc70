// Package userr marks errors caused by the user's input or environment (a malformed URL, an
// unreachable server, a warehouse count that does not match the loaded data). The CLI prints such an
// error as one plain sentence and exits with status 2; any other error is a failed run or a bug.
package userr

import (
	"errors"
	"fmt"
)

// Error is a problem the user can fix; its message names what is wrong and what to do.
type Error struct {
	msg   string
	cause error
}

func (e *Error) Error() string { return e.msg }
func (e *Error) Unwrap() error { return e.cause }

// Errorf returns an *Error with a formatted message; a %w verb keeps its error reachable.
func Errorf(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &Error{msg: err.Error(), cause: errors.Unwrap(err)}
}

// Is reports whether err is, or wraps, a user error.
func Is(err error) bool {
	var e *Error
	return errors.As(err, &e)
}
