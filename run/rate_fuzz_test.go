package run

import (
	"math"
	"strings"
	"testing"
)

// FuzzParseRate: whatever --rate says, ParseRate returns positive finite rates (equal ones for a
// single rate) or an error quoting the value; it never panics.
func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"500", "100..1000", "0.5", " 7 ", "1e3..2e3", "0", "-1", "NaN", "Inf", "1..", "..2", "1..2..3", "1e309", "0x10", "5_000", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		from, to, isRange, err := ParseRate(s)
		if err != nil {
			if !strings.Contains(err.Error(), "--rate ") || !strings.Contains(err.Error(), "is not a rate") {
				t.Fatalf("ParseRate(%q): %v, want the sentence naming --rate", s, err)
			}
			return
		}
		for _, r := range []float64{from, to} {
			if !(r > 0) || math.IsInf(r, 0) || math.IsNaN(r) {
				t.Fatalf("ParseRate(%q) = %g..%g, want positive finite rates", s, from, to)
			}
		}
		if !isRange && from != to {
			t.Fatalf("ParseRate(%q) = %g..%g for a single rate", s, from, to)
		}
		if isRange != strings.Contains(s, "..") {
			t.Fatalf("ParseRate(%q): range %v", s, isRange)
		}
	})
}
