package pgscript

import (
	"errors"
	"fmt"
	"strconv"
)

// Pos is a place in a script: its file (or built-in name), line and column, both from 1; the column
// counts bytes.
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string {
	return p.File + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)
}

// Error is a problem found in a script, at Pos, like a compiler's: "a.sql:3:14: message". Parse
// errors are also user errors (userr.Is); evaluation errors name the command that failed.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// errorf makes an evaluation error without a place; Run adds the command's.
func errorf(format string, args ...any) error { return errors.New(fmt.Sprintf(format, args...)) }
