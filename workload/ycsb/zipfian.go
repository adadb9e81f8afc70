package ycsb

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
)

// ZipfianConstant is ZipfianGenerator.ZIPFIAN_CONSTANT, the skew theta of every zipfian YCSB's core
// workload draws (there is no property to change it).
const ZipfianConstant = 0.99

// Zipfian is YCSB's ZipfianGenerator: item min is the most popular, min+1 the next, and so on, drawn
// with the algorithm of Gray et al., "Quickly Generating Billion-Record Synthetic Databases" (SIGMOD
// 1994), as YCSB implements it. For n items, skew theta and zetan = sum_{i=1..n} 1/i^theta, with
// u uniform in [0, 1):
//
//	u*zetan < 1                 -> min      (probability 1/zetan: exactly Zipf's p(1))
//	u*zetan < 1 + 0.5^theta     -> min + 1  (probability 0.5^theta/zetan: exactly Zipf's p(2))
//	otherwise                   -> min + floor(n * (eta*u - eta + 1)^(1/(1-theta)))
//	eta = (1 - (2/items)^(1-theta)) / (1 - zeta(2,theta)/zetan)
//
// The third branch inverts the continuous density x^-theta, so ranks 3, 4, ... get the integral of
// x^-theta over [k-1, k) instead of k^-theta: rank 3 comes out about 17% more often than Zipf's law
// says for 1,000 items (19% for 10^6), the far tail about 3% less. That is YCSB's distribution, and
// the tests check the generator against it (and ranks 1 and 2 against Zipf's law itself).
//
// The item count may grow between draws (NextN, as SkewedLatest does): zetan is then extended
// incrementally, term by term in the same order, so it equals the from-scratch sum exactly; like
// YCSB, eta is recomputed with the new zetan but with the item count given at construction
// ("items", not "itemcount", in ZipfianGenerator.nextLong), and a smaller count than the largest seen
// keeps the larger count's zetan (YCSB's allowitemcountdecrease is false). Safe for concurrent use.
type Zipfian struct {
	base, items int64
	theta       float64
	alpha       float64 // 1/(1-theta)
	zeta2theta  float64 // zeta(2, theta) = 1 + 0.5^theta
	halfPow     float64 // 0.5^theta
	state       atomic.Pointer[zipfState]
	grow        sync.Mutex
}

// zipfState is the part that changes when the item count grows; it is replaced, never mutated, so a
// draw always sees a consistent (count, zetan, eta).
type zipfState struct {
	count      int64 // countforzeta
	zetan, eta float64
}

var _ NumberGenerator = (*Zipfian)(nil)

// NewZipfian returns the zipfian over [min, max] with YCSB's constant 0.99, computing zetan from
// scratch: max-min+1 calls of math.Pow (about a second per 10^8 items, as in YCSB).
func NewZipfian(min, max int64) (*Zipfian, error) {
	return NewZipfianTheta(min, max, ZipfianConstant)
}

// NewZipfianTheta returns the zipfian over [min, max] with skew theta, 0 < theta < 1.
func NewZipfianTheta(min, max int64, theta float64) (*Zipfian, error) {
	if err := checkZipfian(min, max, theta); err != nil {
		return nil, err
	}
	return NewZipfianZeta(min, max, theta, Zeta(max-min+1, theta))
}

// NewZipfianZeta returns the zipfian over [min, max] with skew theta and a precomputed zetan (YCSB's
// four-argument constructor), which must be the zeta of max-min+1 items for the draws to follow the
// distribution; ScrambledZipfian uses it with YCSB's constant for 10^10 items.
func NewZipfianZeta(min, max int64, theta, zetan float64) (*Zipfian, error) {
	if err := checkZipfian(min, max, theta); err != nil {
		return nil, err
	}
	if !(zetan >= 1) || math.IsInf(zetan, 0) {
		return nil, fmt.Errorf("ycsb: zipfian generator: zetan %v is not a zeta sum (at least 1)", zetan)
	}
	items := max - min + 1
	z := &Zipfian{
		base:    min,
		items:   items,
		theta:   theta,
		alpha:   1 / (1 - theta),
		halfPow: math.Pow(0.5, theta),
	}
	z.zeta2theta = Zeta(2, theta)
	z.state.Store(&zipfState{count: items, zetan: zetan, eta: z.eta(zetan)})
	return z, nil
}

func checkZipfian(min, max int64, theta float64) error {
	if max < min {
		return fmt.Errorf("ycsb: zipfian generator: max %d below min %d", max, min)
	}
	if !(theta > 0 && theta < 1) {
		return fmt.Errorf("ycsb: zipfian generator: constant %v outside (0, 1)", theta)
	}
	return nil
}

// eta is Gray's eta for this generator's construction-time item count and the given zetan.
func (z *Zipfian) eta(zetan float64) float64 {
	return (1 - math.Pow(2.0/float64(z.items), 1-z.theta)) / (1 - z.zeta2theta/zetan)
}

// Zeta is ZipfianGenerator.zetastatic(n, theta): sum_{i=1..n} 1/i^theta, added in increasing i.
func Zeta(n int64, theta float64) float64 { return zetaFrom(0, n, theta, 0) }

// zetaFrom is zetastatic(st, n, theta, initialsum): initialsum plus the terms st+1..n.
func zetaFrom(st, n int64, theta, initialsum float64) float64 {
	sum := initialsum
	for i := st; i < n; i++ {
		sum += 1 / math.Pow(float64(i+1), theta)
	}
	return sum
}

// Items returns the item count given at construction (max-min+1).
func (z *Zipfian) Items() int64 { return z.items }

// Next draws from the construction-time items (ZipfianGenerator.nextValue).
func (z *Zipfian) Next(r Source) int64 { return z.NextN(r, z.items) }

// NextN draws from itemcount items, min to min+itemcount-1 (ZipfianGenerator.nextLong(itemcount)),
// growing zetan first when itemcount exceeds every count seen so far.
func (z *Zipfian) NextN(r Source, itemcount int64) int64 {
	st := z.state.Load()
	if itemcount > st.count {
		z.grow.Lock()
		if st = z.state.Load(); itemcount > st.count {
			zetan := zetaFrom(st.count, itemcount, z.theta, st.zetan)
			st = &zipfState{count: itemcount, zetan: zetan, eta: z.eta(zetan)}
			z.state.Store(st)
		}
		z.grow.Unlock()
	}
	u := r.Float64()
	uz := u * st.zetan
	if uz < 1 {
		return z.base
	}
	if uz < 1+z.halfPow {
		return z.base + 1
	}
	return z.base + int64(float64(itemcount)*math.Pow(st.eta*u-st.eta+1, z.alpha))
}
