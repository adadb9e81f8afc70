package ycsb

import (
	"fmt"
	"io"
	"maps"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Properties are YCSB's settings as java.util.Properties holds them: names to raw string values.
// Typed meaning comes later (FromProperties).
type Properties map[string]string

// Names returns the property names, sorted.
func (p Properties) Names() []string {
	names := make([]string, 0, len(p))
	for k := range p {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Merge returns one set of properties from layers, later layers overriding earlier ones. YCSB's
// Client builds its properties this way: every -P file in command-line order, then every -p
// override on top, wherever the -p stood on the command line: Merge(file1, file2, overrides).
func Merge(layers ...Properties) Properties {
	out := Properties{}
	for _, l := range layers {
		maps.Copy(out, l)
	}
	return out
}

// ParseOverride parses one -p argument, "name=value", as YCSB's Client does: split at the first '=',
// nothing trimmed (a value may contain '=' and may be empty). An argument without '=' or with an
// empty name is an error.
func ParseOverride(arg string) (name, value string, err error) {
	eq := strings.IndexByte(arg, '=')
	if eq < 0 {
		return "", "", fmt.Errorf("ycsb: -p %q: expected name=value (e.g. -p operationcount=99999)", arg)
	}
	if eq == 0 {
		return "", "", fmt.Errorf("ycsb: -p %q: the property name is empty", arg)
	}
	return arg[:eq], arg[eq+1:], nil
}

// ParseOverrides parses -p arguments into one layer (a later one overrides an earlier one).
func ParseOverrides(args []string) (Properties, error) {
	p := Properties{}
	for _, a := range args {
		k, v, err := ParseOverride(a)
		if err != nil {
			return nil, err
		}
		p[k] = v
	}
	return p, nil
}

// ParseProperties reads a .properties file as java.util.Properties.load does, which is how YCSB
// reads -P files:
//
//   - natural lines end at \n, \r or \r\n; whitespace is space, \t and \f;
//   - leading whitespace is skipped; a line whose first other character is # or ! is a comment
//     (a trailing backslash does not continue a comment); blank lines are skipped;
//   - a line ending in an odd number of backslashes continues on the next natural line, whose
//     leading whitespace is dropped (so is the backslash); an empty next line ends the logical line;
//   - the key runs to the first unescaped '=', ':' or whitespace; then whitespace, at most one '=' or
//     ':' and more whitespace are skipped; the rest of the line, trailing whitespace included, is the
//     value ("" when nothing is left);
//   - in keys and values, \t \n \r \f and \uXXXX are escapes, and a backslash before any other
//     character stands for that character ("\=" is '=', "\\" is '\'); a malformed \uXXXX is an error;
//   - a later duplicate key replaces the earlier.
//
// Encoding: Java's load(InputStream), which YCSB uses, reads ISO-8859-1. Input that is valid UTF-8
// is read as UTF-8 here (so a non-ASCII value comes out as written, where Java would mangle it);
// other input is read as ISO-8859-1, as Java does.
func ParseProperties(r io.Reader) (Properties, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("ycsb: reading properties: %w", err)
	}
	var text []rune
	if utf8.Valid(b) {
		text = []rune(string(b))
	} else {
		text = make([]rune, len(b))
		for i, c := range b {
			text[i] = rune(c) // ISO-8859-1: each byte is its code point
		}
	}
	p := Properties{}
	for _, l := range logicalLines(text) {
		key, value, err := splitKeyValue(l.text)
		if err != nil {
			return nil, fmt.Errorf("ycsb: properties line %d: %w", l.line, err)
		}
		p[key] = value
	}
	return p, nil
}

// ParsePropertiesString is ParseProperties of a string.
func ParsePropertiesString(s string) (Properties, error) {
	return ParseProperties(strings.NewReader(s))
}

type logicalLine struct {
	line int // natural line (from 1) where it starts
	text []rune
}

func isPropSpace(c rune) bool { return c == ' ' || c == '\t' || c == '\f' }

// logicalLines is java.util.Properties.LineReader.readLine (as in OpenJDK 9 and later) applied until
// the end: the logical lines, comments and blank lines removed, continuations joined, escapes still
// in place. (Java 8's reader differs only for a comment line ending in a backslash followed by a
// line of backslashes, and for a line holding only a backslash continued into one starting with #.)
func logicalLines(in []rune) []logicalLine {
	// lineOf[i] is the natural line (from 1) of in[i]; \r\n counts once.
	lineOf := make([]int, len(in))
	for i, n := 0, 1; i < len(in); i++ {
		lineOf[i] = n
		if in[i] == '\n' || in[i] == '\r' && (i+1 == len(in) || in[i+1] != '\n') {
			n++
		}
	}
	var out []logicalLine
	// The state of one readLine call, reset for each logical line.
	var (
		buf                []rune
		start              int
		skipWhiteSpace     = true
		appendedLineBegin  bool
		precedingBackslash bool
	)
	emit := func() {
		if precedingBackslash {
			buf = buf[:len(buf)-1] // a backslash at the very end is not part of the line
		}
		out = append(out, logicalLine{line: start, text: buf})
		buf, skipWhiteSpace, appendedLineBegin, precedingBackslash = nil, true, false, false
	}
	for i := 0; i < len(in); i++ {
		c := in[i]
		if skipWhiteSpace {
			if isPropSpace(c) || !appendedLineBegin && (c == '\r' || c == '\n') {
				continue
			}
			skipWhiteSpace, appendedLineBegin = false, false
		}
		if len(buf) == 0 && (c == '#' || c == '!') {
			// A comment: consume through the first line terminator.
			for i < len(in) && in[i] != '\n' && in[i] != '\r' {
				i++
			}
			skipWhiteSpace = true
			continue
		}
		if c != '\n' && c != '\r' {
			if len(buf) == 0 {
				start = lineOf[i]
			}
			buf = append(buf, c)
			precedingBackslash = c == '\\' && !precedingBackslash
			continue
		}
		// The end of a natural line.
		switch {
		case len(buf) == 0:
			skipWhiteSpace = true
		case !precedingBackslash:
			emit()
		case i+1 == len(in):
			// Java's reader checks for the end of the input right at a line terminator and then
			// returns the line less its continuing backslash, even when that leaves it empty (a
			// line of one backslash at the very end is the property "" = "").
			emit()
		default: // continued: drop the backslash and the next line's leading whitespace
			buf = buf[:len(buf)-1]
			skipWhiteSpace, appendedLineBegin, precedingBackslash = true, true, false
			if c == '\r' && i+1 < len(in) && in[i+1] == '\n' {
				i++
			}
		}
	}
	if len(buf) > 0 {
		emit()
	}
	return out
}

// splitKeyValue is the key/value split of Properties.load0 and the unescaping of loadConvert.
func splitKeyValue(l []rune) (key, value string, err error) {
	keyLen, valueStart := 0, len(l)
	hasSep, precedingBackslash := false, false
	for keyLen < len(l) {
		c := l[keyLen]
		if (c == '=' || c == ':') && !precedingBackslash {
			valueStart, hasSep = keyLen+1, true
			break
		}
		if isPropSpace(c) && !precedingBackslash {
			valueStart = keyLen + 1
			break
		}
		precedingBackslash = c == '\\' && !precedingBackslash
		keyLen++
	}
	for valueStart < len(l) {
		c := l[valueStart]
		if !isPropSpace(c) {
			if hasSep || c != '=' && c != ':' {
				break
			}
			hasSep = true
		}
		valueStart++
	}
	if key, err = unescape(l[:keyLen]); err != nil {
		return "", "", err
	}
	if value, err = unescape(l[valueStart:]); err != nil {
		return "", "", err
	}
	return key, value, nil
}

// unescape is Properties.loadConvert: \t \n \r \f, \uXXXX (UTF-16 code units, so a surrogate pair
// written as two escapes makes one character), and a backslash before anything else stands for
// that character.
func unescape(s []rune) (string, error) {
	var out []uint16
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = utf16.AppendRune(out, c)
			continue
		}
		i++
		if i == len(s) { // cannot follow from the line rules; Java would read past the end
			break
		}
		switch c = s[i]; c {
		case 'u':
			if i+4 >= len(s) {
				return "", fmt.Errorf("malformed \\uxxxx encoding")
			}
			var v uint16
			for _, h := range s[i+1 : i+5] {
				d, ok := hexDigit(h)
				if !ok {
					return "", fmt.Errorf("malformed \\uxxxx encoding %q", string(s[i-1:i+5]))
				}
				v = v<<4 | d
			}
			out = append(out, v)
			i += 4
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'n':
			out = append(out, '\n')
		case 'f':
			out = append(out, '\f')
		default:
			out = utf16.AppendRune(out, c)
		}
	}
	return string(utf16.Decode(out)), nil
}

func hexDigit(c rune) (uint16, bool) {
	switch {
	case c >= '0' && c <= '9':
		return uint16(c - '0'), true
	case c >= 'a' && c <= 'f':
		return uint16(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return uint16(c-'A') + 10, true
	}
	return 0, false
}
