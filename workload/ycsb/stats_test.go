package ycsb

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/candor-bench/candor/gen"
)

// The statistical tests draw a fixed number of values from fixed seeds, so each is deterministic; a
// test compares the counts with the probabilities the DEFINITION gives (computed in closed form
// here, never from the generator's output) by Pearson's chi-square,
//
//	X2 = sum_i (observed_i - n p_i)^2 / (n p_i)  over buckets with n p_i >= 5,
//
// against the chi-square distribution's upper 0.1% point for the buckets' degrees of freedom. The
// critical values below were computed with mpmath (the root x of the regularised upper incomplete
// gamma Q(df/2, x/2) = 0.001). With the sample sizes used, a wrong definition (an off-by-one rank,
// plain Zipf instead of Gray's approximation, a missing FNV scatter) gives X2 in the thousands, so
// the tests cannot pass by accident; each also checks a wrong model fails where that is cheap.
var chiSquareCritical001 = map[int]float64{
	1:   10.828,
	2:   13.816,
	3:   16.266,
	4:   18.467,
	9:   27.877,
	19:  43.820,
	20:  45.315,
	21:  46.797,
	99:  148.230,
	199: 266.386,
	799: 928.252,
	999: 1142.848,
}

// chiSquare returns Pearson's X2 of counts against probabilities (which must sum to 1 over the
// buckets) for n draws, and fails the test when a bucket's expected count is below 5.
func chiSquare(t *testing.T, counts []int64, probs []float64) float64 {
	t.Helper()
	var n int64
	var psum float64
	for i := range counts {
		n += counts[i]
		psum += probs[i]
	}
	if math.Abs(psum-1) > 1e-9 {
		t.Fatalf("bucket probabilities sum to %v, not 1", psum)
	}
	x2 := 0.0
	for i, c := range counts {
		e := probs[i] * float64(n)
		if e < 5 {
			t.Fatalf("bucket %d expects %.2f draws (< 5): merge buckets", i, e)
		}
		d := float64(c) - e
		x2 += d * d / e
	}
	return x2
}

// assertChiSquare fails when X2 of counts against probs exceeds the 0.1% critical value for
// len(counts)-1 degrees of freedom.
func assertChiSquare(t *testing.T, what string, counts []int64, probs []float64) float64 {
	t.Helper()
	df := len(counts) - 1
	crit, ok := chiSquareCritical001[df]
	if !ok {
		t.Fatalf("no critical value for %d degrees of freedom", df)
	}
	x2 := chiSquare(t, counts, probs)
	t.Logf("%s: chi-square %.1f (df %d, critical %.3f)", what, x2, df, crit)
	if x2 > crit {
		t.Errorf("%s: chi-square %.1f > %.3f (df %d, alpha 0.001)", what, x2, crit, df)
	}
	return x2
}

// newRand returns a seeded PCG source (math/rand/v2's PCG is a specified algorithm, so the streams
// are the same on every platform and Go version).
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d)) }

// grayPMF returns the probabilities of ranks 0..k-1 (offsets from min) of YCSB's ZipfianGenerator
// drawing from itemcount items with zetan and eta, derived from the algorithm (see Zipfian) rather
// than from draws: with u uniform in [0, 1),
//
//	rank 0:  u < 1/zetan
//	rank 1:  1/zetan <= u < (1 + 0.5^theta)/zetan
//	rank k:  u >= (1 + 0.5^theta)/zetan = a, and k <= itemcount*(1 - eta(1-u))^(1/(1-theta)) < k+1,
//	         i.e. U(k) <= u < U(k+1) with U(x) = 1 - (1 - (x/itemcount)^(1-theta))/eta;
//	         so P(k) = |[U(k), U(k+1)) intersected with [a, 1)|, for every k >= 0 (after growth
//	         with YCSB's eta the third branch can also reach ranks 0 and 1, or skip rank 2).
func grayPMF(k int, itemcount int64, zetan, eta, theta float64) []float64 {
	prob := grayProb(itemcount, zetan, eta, theta)
	p := make([]float64, k)
	for i := range p {
		p[i] = prob(int64(i))
	}
	return p
}

// grayProb returns grayPMF as a function of the rank.
func grayProb(itemcount int64, zetan, eta, theta float64) func(rank int64) float64 {
	half := math.Pow(0.5, theta)
	a := math.Min(1, (1+half)/zetan)
	U := func(x float64) float64 { return 1 - (1-math.Pow(x/float64(itemcount), 1-theta))/eta }
	return func(i int64) float64 {
		p := 0.0
		lo := math.Max(a, U(float64(i)))
		if hi := math.Min(1, U(float64(i+1))); hi > lo {
			p = hi - lo
		}
		switch i {
		case 0:
			p += math.Min(1, 1/zetan)
		case 1:
			p += a - math.Min(1, 1/zetan)
		}
		return p
	}
}

// grayEta is Gray's eta as ZipfianGenerator computes it: items is the construction-time count.
func grayEta(items int64, zetan, theta float64) float64 {
	return (1 - math.Pow(2/float64(items), 1-theta)) / (1 - Zeta(2, theta)/zetan)
}

// withTail returns the first k probabilities plus one bucket for the rest (1 - their sum).
func withTail(p []float64) []float64 {
	sum := 0.0
	for _, v := range p {
		sum += v
	}
	return append(append([]float64(nil), p...), 1-sum)
}

// countsWithTail counts values v (already mapped to ranks 0..) into k buckets and a tail bucket.
func countsWithTail(ranks []int64, k int) []int64 {
	c := make([]int64, k+1)
	for _, r := range ranks {
		if r >= 0 && r < int64(k) {
			c[r]++
		} else {
			c[k]++
		}
	}
	return c
}

// fixedSource returns the given Float64 values in turn (and their bits as Uint64), for tests that
// place a draw exactly on a boundary.
type fixedSource struct {
	f []float64
	i int
}

func (s *fixedSource) Float64() float64 { v := s.f[s.i%len(s.f)]; s.i++; return v }
func (s *fixedSource) Uint64() uint64   { return math.Float64bits(s.Float64()) }

// The random sources candor hands generators.
var (
	_ Source = (*rand.Rand)(nil)
	_ Source = (*gen.Rand)(nil)
)
