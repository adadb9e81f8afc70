package gen

import (
	"strings"
	"testing"
)

func TestDeriveIsStableAndSeparatesNames(t *testing.T) {
	a, b := Derive(1, "customer", 3, 7), Derive(1, "customer", 3, 7)
	if a != b {
		t.Fatalf("Derive is not deterministic: %x != %x", a, b)
	}
	seen := map[uint64]string{}
	for _, parts := range [][]any{{"customer", 3, 7}, {"customer", 7, 3}, {"customer", 37}, {"stock", 3, 7}, {"customer3", 7}} {
		s := Derive(1, parts...)
		if prev, dup := seen[s]; dup {
			t.Errorf("Derive(%v) collides with %s", parts, prev)
		}
		seen[s] = "x"
	}
	if Derive(1, "a") == Derive(2, "a") {
		t.Error("different roots give the same stream")
	}
}

func TestIntRangeCoversBoundsUniformly(t *testing.T) {
	r := New(42)
	var counts [11]int
	const n = 110000
	for i := 0; i < n; i++ {
		v := r.IntRange(5, 15)
		if v < 5 || v > 15 {
			t.Fatalf("IntRange(5, 15) = %d", v)
		}
		counts[v-5]++
	}
	for i, c := range counts {
		if c < 9500 || c > 10500 { // expected 10,000; 5 standard errors is about +-475
			t.Errorf("value %d drawn %d times of %d", i+5, c, n)
		}
	}
}

func TestStringsHaveTheirLengthAndAlphabet(t *testing.T) {
	r := New(7)
	for i := 0; i < 1000; i++ {
		s := string(r.AppendAString(nil, 26, 50))
		if len(s) < 26 || len(s) > 50 || strings.Trim(s, alnum) != "" {
			t.Fatalf("a-string %q", s)
		}
		z := string(r.AppendNString(nil, 4, 4))
		if len(z) != 4 || strings.Trim(z, "0123456789") != "" {
			t.Fatalf("n-string %q", z)
		}
	}
}

func TestExpIsTruncated(t *testing.T) {
	r := New(3)
	sum := 0.0
	const n = 200000
	for i := 0; i < n; i++ {
		v := r.Exp(12, 10)
		if v < 0 || v > 120 {
			t.Fatalf("Exp(12, 10) = %f", v)
		}
		sum += v
	}
	if mean := sum / n; mean < 11.7 || mean > 12.3 {
		t.Errorf("mean %f, want about 12", mean)
	}
}
