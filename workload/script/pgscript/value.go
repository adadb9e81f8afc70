package pgscript

import (
	"math"
	"strconv"
	"strings"
)

// Kind is the type of a Value: pgbench's PGBT_NULL, PGBT_BOOLEAN, PGBT_INT and PGBT_DOUBLE.
type Kind uint8

const (
	KindNone Kind = iota // no value yet (a variable holding only its text form)
	KindNull
	KindBool
	KindInt
	KindDouble
)

func (k Kind) String() string {
	switch k {
	case KindNull:
		return "null"
	case KindBool:
		return "boolean"
	case KindInt:
		return "int"
	case KindDouble:
		return "double"
	}
	return "none"
}

// Value is one pgbench value. The zero Value has KindNone.
type Value struct {
	kind Kind
	i    int64 // the integer, or 1/0 for a boolean
	f    float64
}

// Null, Bool, Int and Double make values.
func Null() Value { return Value{kind: KindNull} }
func Bool(b bool) Value {
	v := Value{kind: KindBool}
	if b {
		v.i = 1
	}
	return v
}
func Int(i int64) Value         { return Value{kind: KindInt, i: i} }
func Double(f float64) Value    { return Value{kind: KindDouble, f: f} }
func (v Value) Kind() Kind      { return v.kind }
func (v Value) Int() int64      { return v.i }
func (v Value) Float() float64  { return v.f }
func (v Value) BoolValue() bool { return v.i != 0 }

// Any is the value as a Go value to bind as a statement's parameter: nil for NULL (pgbench sends the
// text "NULL", which only a text column would take), bool, int64 or float64.
func (v Value) Any() any {
	switch v.kind {
	case KindBool:
		return v.i != 0
	case KindInt:
		return v.i
	case KindDouble:
		return v.f
	}
	return nil
}

// String is the value's text form as pgbench's getVariable makes it: NULL, true/false, the integer,
// or the double with 15 significant digits (%.15g).
func (v Value) String() string { return string(v.AppendText(nil)) }

// AppendText appends the text form (see String) to b.
func (v Value) AppendText(b []byte) []byte {
	switch v.kind {
	case KindNull:
		return append(b, "NULL"...)
	case KindBool:
		if v.i != 0 {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case KindInt:
		return strconv.AppendInt(b, v.i, 10)
	case KindDouble:
		return appendG15(b, v.f)
	}
	return b
}

// appendG15 formats like pgbench's "%.15g" (DBL_DIG digits) with PostgreSQL's snprintf, which
// spells the special values NaN, Infinity and -Infinity.
func appendG15(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	}
	return strconv.AppendFloat(b, f, 'g', 15, 64)
}

// parseText turns a variable's text form into a value as pgbench's makeVariableValue does: "null"
// (any case) is NULL; a non-empty prefix of "true" or "yes", or "on", is true; a prefix of "false" or
// "no", or "off" or "of", is false; what looks like an integer must be one without overflow;
// anything else must be a double.
func parseText(name, s string) (Value, error) {
	if s == "" {
		return Value{}, errorf("variable %q has an empty value, which is neither a number nor a boolean", name)
	}
	switch {
	case strings.EqualFold(s, "null"):
		return Null(), nil
	case prefixFold("true", s) || prefixFold("yes", s) || strings.EqualFold(s, "on"):
		return Bool(true), nil
	case prefixFold("false", s) || prefixFold("no", s) || strings.EqualFold(s, "off") || strings.EqualFold(s, "of"):
		return Bool(false), nil
	case isAnInt(s):
		i, err := strtoint64(s)
		if err != nil {
			return Value{}, err
		}
		return Int(i), nil
	}
	f, ok := strtod(s)
	if !ok {
		return Value{}, errorf("malformed variable %q value: %q", name, s)
	}
	return Double(f), nil
}

// prefixFold reports whether s is a non-empty prefix of word, ignoring case (pg_strncasecmp(word, s, len(s))).
func prefixFold(word, s string) bool {
	return len(s) <= len(word) && strings.EqualFold(word[:len(s)], s)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isAnInt reports whether s matches ^\s*[-+]?[0-9]+$ (pgbench's is_an_int).
func isAnInt(s string) bool {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if i < len(s) && !isDigit(s[i]) {
		return false
	}
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i == len(s)
}

// strtoint64 parses a 64-bit integer as pgbench's strtoint64: optional spaces and sign, digits,
// trailing spaces; overflow is an error.
func strtoint64(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, errorf("value %q is out of range for type bigint", s)
		}
		return 0, errorf("invalid input syntax for type bigint: %q", s)
	}
	return i, nil
}

// strtod parses a double as C's strtod does for the forms that matter (decimal, exponent, inf, nan);
// overflow is a failure, as pgbench's strtodouble reports ERANGE.
func strtod(s string) (float64, bool) {
	t := strings.TrimLeft(s, " \t\n\r\f\v")
	if t == "" || strings.ContainsRune(t, '_') {
		return 0, false
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

// atoi is C's atoi over a variable's text form (pgbench's \sleep :var): leading spaces, a sign and
// the digits that follow; the rest is ignored. ok is false when no digit starts the text, as pgbench
// refuses "usec == 0 && !isdigit(*var)".
func atoi(s string) (n int64, ok bool) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	for ; i < len(s) && isDigit(s[i]); i++ {
		n = n*10 + int64(s[i]-'0')
		if n > math.MaxInt32 {
			n = math.MaxInt32
		}
	}
	if neg {
		n = -n
	}
	return n, n != 0 || (len(s) > 0 && isDigit(s[0]))
}
