package pgscript

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// \sample VAR FILE is candor's extension to pgbench's language (pgbench reads no file): FILE holds
// one value a line, read once when the script is compiled (a relative path is relative to the
// script's directory), and each time the command runs VAR is set to one of its lines drawn
// uniformly from the client's random stream, as text (bound as a parameter as \gset's values are).
// Lines are in the text format of PostgreSQL's COPY: \N is NULL, and \\, \n, \r and \t stand for a
// backslash, a newline, a carriage return and a tab. candor capture writes these files from a
// column's real values.

// SampleValue is one value of a sample file.
type SampleValue struct {
	Text string
	Null bool
}

// MaxSampleBytes bounds a sample file (a sample, not a table).
const MaxSampleBytes = 64 << 20

// ReadSampleFile reads a sample file: a regular file of at most MaxSampleBytes with at least one
// value. Errors say what is wrong with it.
func ReadSampleFile(path string) ([]SampleValue, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read sample file %s: %v", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("sample file %s is not a regular file", path)
	}
	if fi.Size() > MaxSampleBytes {
		return nil, fmt.Errorf("sample file %s has %d bytes, more than %d: a sample is a bounded set of values; keep fewer lines", path, fi.Size(), MaxSampleBytes)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read sample file %s: %v", path, err)
	}
	defer f.Close()
	return ParseSamples(path, io.LimitReader(f, MaxSampleBytes))
}

// ParseSamples reads sample lines from r; name is the file's name in messages.
func ParseSamples(name string, r io.Reader) ([]SampleValue, error) {
	var out []SampleValue
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxSampleBytes)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSuffix(sc.Text(), "\r")
		if t == `\N` {
			out = append(out, SampleValue{Null: true})
			continue
		}
		v, err := unescapeSample(t)
		if err != nil {
			return nil, fmt.Errorf("sample file %s:%d: %v", name, line, err)
		}
		out = append(out, SampleValue{Text: v})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("cannot read sample file %s: %v", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("sample file %s holds no value: write one value a line (\\N for NULL)", name)
	}
	return out, nil
}

func unescapeSample(s string) (string, error) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			return "", fmt.Errorf("a backslash ends the line: write \\\\ for a backslash")
		}
		i++
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		default:
			return "", fmt.Errorf("unknown escape \\%c: the escapes are \\N (NULL, alone on its line), \\\\, \\n, \\r and \\t", s[i])
		}
	}
	return b.String(), nil
}

// AppendSample appends v as one line of a sample file (with its newline).
func AppendSample(b []byte, v SampleValue) []byte {
	if v.Null {
		return append(b, "\\N\n"...)
	}
	for i := 0; i < len(v.Text); i++ {
		switch c := v.Text[i]; c {
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			b = append(b, c)
		}
	}
	return append(b, '\n')
}
