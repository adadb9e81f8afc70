package queries

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// kind is how clause 2.1.3.5 compares a column.
type kind byte

const (
	exact kind = 'e' // a) singleton column values and COUNT results: exactly
	sum   kind = 's' // c) results of SUM aggregates: within $100, rounded to the cent
	ratio kind = 'r' // b) ratios and d) AVG results: within 1%, rounded to 1/100th
)

// columnKinds gives each query's columns, in SELECT-list order, their precision rule. Q12's line
// counts and Q18's sum(l_quantity) are SUM aggregates; Q17's avg_yearly is a SUM divided by 7.0.
var columnKinds = [Count + 1]string{
	1: "eessssrrre", 2: "eeeeeeee", 3: "esee", 4: "ee", 5: "es", 6: "s", 7: "eees", 8: "er",
	9: "ees", 10: "eeseeeee", 11: "es", 12: "ess", 13: "ee", 14: "r", 15: "eeees", 16: "eeee",
	17: "s", 18: "eeeees", 19: "s", 20: "ee", 21: "ee", 22: "ees",
}

// ruleText names each rule in failures.
var ruleText = map[kind]string{
	exact: "an exact match (clause 2.1.3.5 a)",
	sum:   "within $100 rounded to the cent (clause 2.1.3.5 c)",
	ratio: "within 1% rounded to 1/100th (clause 2.1.3.5 b, d)",
}

func compare(q int, got, want [][]string) error {
	kinds := columnKinds[q]
	if len(got) != len(want) {
		return fmt.Errorf("q%d: %d rows, the reference answer has %d", q, len(got), len(want))
	}
	for i := range want {
		if len(got[i]) != len(kinds) || len(want[i]) != len(kinds) {
			return fmt.Errorf("q%d row %d: %d columns (reference %d), the query has %d", q, i+1, len(got[i]), len(want[i]), len(kinds))
		}
		for j := range kinds {
			if !valueMatches(kind(kinds[j]), got[i][j], want[i][j]) {
				return fmt.Errorf("q%d row %d column %d (%s): got %q, want %q: %s", q, i+1, j+1, columnName(q, j),
					got[i][j], want[i][j], ruleText[kind(kinds[j])])
			}
		}
	}
	return nil
}

func columnName(q, j int) string {
	if c := Columns(q); j < len(c) {
		return c[j]
	}
	return "?"
}

// valueMatches applies rule k to one value. Both are text: NULL is "" (a driver's "NULL" is
// accepted for it too); CHAR padding and other leading or trailing blanks are ignored (clause
// 2.1.3.4 e); a date may come with a midnight time of day.
func valueMatches(k kind, got, want string) bool {
	got, want = strings.TrimSpace(got), strings.TrimSpace(want)
	if got == "NULL" {
		got = ""
	}
	if got == "" || want == "" {
		return got == want
	}
	g, gerr := strconv.ParseFloat(got, 64)
	w, werr := strconv.ParseFloat(want, 64)
	if gerr != nil || werr != nil {
		if gerr == nil || werr == nil {
			return false // a number against text
		}
		return got == want || isDate(want) && midnight(got, want)
	}
	switch k {
	case sum:
		return math.Abs(round2(g)-w) <= 100
	case ratio:
		if math.Abs(g-w) <= 1e-9*math.Max(1, math.Abs(w)) {
			return true // equal but for floating-point noise, which may straddle a rounding boundary
		}
		return math.Abs(round2(g)-round2(w)) <= 0.01*math.Abs(round2(w))+1e-12
	default:
		return math.Round(g*100) == math.Round(w*100)
	}
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i, c := range s {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// midnight reports whether got is the date want at 00:00:00, in a driver's timestamp form.
func midnight(got, want string) bool {
	if !strings.HasPrefix(got, want) || len(got) == len(want) {
		return false
	}
	rest := strings.TrimLeft(got[len(want):], " T")
	return strings.HasPrefix(rest, "00:00:00") && strings.Trim(rest[8:], "0.Z+: UTC") == ""
}
