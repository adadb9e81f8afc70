package ycsb

import (
	"math"
	"sort"
	"testing"
)

// scrambledKeyProbs returns the probability of each key of ScrambledZipfian(0, keys-1) from the
// definition: rank r of the inner generator (Gray's pmf over 10^10+1 items with ZETAN) lands on key
// FNVHash64(r) mod keys. Ranks below 2^22 are summed exactly (64.7% of the mass); the rest (35.3%,
// every rank under 1.1e-8) is spread evenly. Computed with 2^24 exact ranks instead, no key's
// probability moves by more than 0.55% of itself, which shifts the chi-square below by about 3.
func scrambledKeyProbs(keys int64) []float64 {
	const exactRanks = 1 << 22
	n := int64(ScrambledItemCount + 1)
	prob := grayProb(n, ScrambledZetan, grayEta(n, ScrambledZetan, ZipfianConstant), ZipfianConstant)
	p := make([]float64, keys)
	p[FNVHash64(0)%keys] += prob(0)
	p[FNVHash64(1)%keys] += prob(1)
	sum := prob(0) + prob(1)
	// From rank 2 on, only Gray's third branch reaches a rank: P(r) = U(r+1) - U(r) (grayProb),
	// summed here without computing each U twice.
	eta := grayEta(n, ScrambledZetan, ZipfianConstant)
	U := func(x int64) float64 { return 1 - (1-math.Pow(float64(x)/float64(n), 1-ZipfianConstant))/eta }
	lo := U(2)
	for r := int64(2); r < exactRanks; r++ {
		hi := U(r + 1)
		p[FNVHash64(r)%keys] += hi - lo
		sum += hi - lo
		lo = hi
	}
	for i := range p {
		p[i] += (1 - sum) / float64(keys)
	}
	return p
}

// TestScrambledZipfianDefinition draws 10^6 keys out of 1,000 and compares every key's count with
// the definition (df 999, critical 1142.848). The hottest key (FNVHash64(0) mod 1000 = 211) expects
// 3.89% of the draws. A zipfian over the 1,000 keys themselves (sorted counts against
// 1/rank^0.99/zeta(1000)) must fail by far: YCSB's scrambled zipfian is much flatter.
func TestScrambledZipfianDefinition(t *testing.T) {
	const keys, draws = 1000, 1_000_000
	s, err := NewScrambledZipfian(0, keys-1)
	if err != nil {
		t.Fatal(err)
	}
	r := newRand(4)
	counts := make([]int64, keys)
	for i := 0; i < draws; i++ {
		v := s.Next(r)
		if v < 0 || v >= keys {
			t.Fatalf("key %d outside [0, %d)", v, keys)
		}
		counts[v]++
	}
	p := scrambledKeyProbs(keys)
	assertChiSquare(t, "scrambled zipfian vs definition", counts, p)
	if hot := FNVHash64(0) % keys; hot != 211 || math.Abs(p[hot]-0.0389) > 0.0005 {
		t.Errorf("hottest key %d expects %.5f of the draws, want key 211 with about 0.0389", hot, p[hot])
	}

	sorted := append([]int64(nil), counts...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] > sorted[j] })
	zetaKeys := Zeta(keys, ZipfianConstant)
	zipf := make([]float64, 20)
	for i := range zipf {
		zipf[i] = math.Pow(float64(i+1), -ZipfianConstant) / zetaKeys
	}
	if x2 := chiSquare(t, countsWithTail(rankCounts(sorted), 20), withTail(zipf)); x2 < 10*chiSquareCritical001[20] {
		t.Errorf("the sorted key counts fit a zipfian over the keys (chi-square %.1f): they should not", x2)
	}
}

// rankCounts expands sorted counts into one rank per draw, for countsWithTail.
func rankCounts(sorted []int64) []int64 {
	var ranks []int64
	for i, c := range sorted {
		for j := int64(0); j < c; j++ {
			ranks = append(ranks, int64(i))
		}
	}
	return ranks
}

// TestScrambledZipfianRange: keys stay in [min, max] with min > 0, and are min + the scatter of a rank.
func TestScrambledZipfianRange(t *testing.T) {
	s, err := NewScrambledZipfian(5000, 5099)
	if err != nil {
		t.Fatal(err)
	}
	r := newRand(5)
	for i := 0; i < 200_000; i++ {
		if v := s.Next(r); v < 5000 || v > 5099 {
			t.Fatalf("key %d outside [5000, 5099]", v)
		}
	}
	if got, want := s.Scatter(0), int64(5000+FNVHash64(0)%100); got != want {
		t.Errorf("Scatter(0) = %d, want %d", got, want)
	}
	if _, err := NewScrambledZipfian(1, 0); err == nil {
		t.Error("max below min accepted")
	}
}
