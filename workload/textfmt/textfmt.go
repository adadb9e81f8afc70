// Package textfmt formats the numbers and lists of the workloads' messages, summaries and
// sections.
package textfmt

import (
	"strings"

	"github.com/candor-bench/candor/report"
)

// Thousands formats n with commas: 1,234,567.
func Thousands(n int64) string { return report.Grouped(n, ",") }

// List joins s as "a, b and c".
func List(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
