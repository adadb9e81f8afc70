package report

import (
	"strconv"
	"strings"
)

// Grouped writes n with sep between groups of three digits: Grouped(1234567, ",") is 1,234,567
// (the console and the workloads' messages), with a thin space in report.html.
func Grouped(n int64, sep string) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(c)
	}
	return b.String()
}
