package ycsb

import "testing"

// TestUniformLongDefinition: 10^6 draws over [10, 109] are uniform (chi-square over the 100 values,
// df 99, critical 148.230) and never leave the bounds.
func TestUniformLongDefinition(t *testing.T) {
	u, err := NewUniformLong(10, 109)
	if err != nil {
		t.Fatal(err)
	}
	r := newRand(9)
	counts := make([]int64, 100)
	for i := 0; i < 1_000_000; i++ {
		v := u.Next(r)
		if v < 10 || v > 109 {
			t.Fatalf("draw %d outside [10, 109]", v)
		}
		counts[v-10]++
	}
	p := make([]float64, 100)
	for i := range p {
		p[i] = 0.01
	}
	assertChiSquare(t, "uniform [10, 109]", counts, p)
}

func TestUniformLongSingleValueAndErrors(t *testing.T) {
	u, err := NewUniformLong(7, 7)
	if err != nil {
		t.Fatal(err)
	}
	r := newRand(10)
	for i := 0; i < 100; i++ {
		if v := u.Next(r); v != 7 {
			t.Fatalf("uniform [7, 7] drew %d", v)
		}
	}
	if _, err := NewUniformLong(8, 7); err == nil {
		t.Error("lower bound above upper accepted")
	}
}

func TestConstant(t *testing.T) {
	if v := Constant(100).Next(nil); v != 100 {
		t.Errorf("Constant(100) = %d", v)
	}
}
