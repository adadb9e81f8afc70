package compare

import (
	"math"
	"slices"
	"testing"

	"github.com/candor-bench/candor/gen"
)

// TestShiftIntervalIsListedDifferences: the bisection finds the very differences that listing and
// sorting all n_a n_b of them gives, at the Hodges-Lehmann median and at Mann-Whitney's ranks, with
// ties (bucket values repeat) and without.
func TestShiftIntervalIsListedDifferences(t *testing.T) {
	r := gen.New(7)
	for trial := range 40 {
		na, nb := 2+r.IntRange(0, 30), 2+r.IntRange(0, 30)
		a, b := make([]float64, na), make([]float64, nb)
		for i := range a {
			a[i] = math.Round(10*normal(r)) / 4 // ties
		}
		shift := float64(trial%3) / 2
		for i := range b {
			b[i] = math.Round(10*(normal(r)+shift)) / 4
		}
		if trial%2 == 1 {
			for i := range a {
				a[i] += normal(r) / 1000
			}
		}
		var d []float64
		for _, x := range a {
			for _, y := range b {
				d = append(d, y-x)
			}
		}
		slices.Sort(d)
		n := float64(len(d))
		k := math.Max(1, math.Floor(n/2-1.959964*1.3*math.Sqrt(float64(na*nb*(na+nb+1))/12)))
		med := d[len(d)/2]
		if len(d)%2 == 0 {
			med = (d[len(d)/2-1] + d[len(d)/2]) / 2
		}
		iv, ok := ShiftInterval(a, b, 1.3, 0.95)
		if !ok || !near(iv.Estimate, med, 1e-9) || !near(iv.Low, d[int(k)-1], 1e-9) || !near(iv.High, d[len(d)-int(k)], 1e-9) {
			t.Fatalf("trial %d (%d, %d): got %+v (ok %v), want %v [%v, %v]", trial, na, nb, iv, ok, med, d[int(k)-1], d[len(d)-int(k)])
		}
	}
	if _, ok := ShiftInterval([]float64{1}, []float64{1, 2}, 1, 0.95); ok {
		t.Errorf("one value on a side gave an interval")
	}
	if z := normalQuantile(0.975); !near(z, 1.959964, 1e-6) {
		t.Errorf("normalQuantile(0.975) = %v", z)
	}
}
