package ycsb

import "fmt"

// Hotspot is YCSB's HotspotIntegerGenerator, CoreWorkload's requestdistribution=hotspot: the
// hotsetFraction of [lb, ub] with the lowest numbers is the hot set, and hotOpnFraction of the draws
// go to it; inside each set the choice is uniform. The hot set has int(n*hotsetFraction) items for
// n = ub-lb+1 (truncated, as YCSB's (int) cast does), the cold set the rest. Each draw spends one
// Float64 (hot or cold) and one Uint64 (which item), as YCSB's nextDouble and nextLong.
type Hotspot struct {
	lb, ub, hot, cold              int64
	hotsetFraction, hotOpnFraction float64
}

var _ NumberGenerator = (*Hotspot)(nil)

// NewHotspot returns the generator. Where YCSB corrects its arguments with a message (fractions
// outside [0, 1] become 0, swapped bounds are swapped back) or fails on the first draw (an empty hot
// or cold set that draws reach: a division by zero), this returns an error.
func NewHotspot(lb, ub int64, hotsetFraction, hotOpnFraction float64) (*Hotspot, error) {
	if !(hotsetFraction >= 0 && hotsetFraction <= 1) {
		return nil, fmt.Errorf("ycsb: hotspot generator: hot set fraction %v outside [0, 1]", hotsetFraction)
	}
	if !(hotOpnFraction >= 0 && hotOpnFraction <= 1) {
		return nil, fmt.Errorf("ycsb: hotspot generator: hot operation fraction %v outside [0, 1]", hotOpnFraction)
	}
	if lb > ub {
		return nil, fmt.Errorf("ycsb: hotspot generator: lower bound %d above upper bound %d", lb, ub)
	}
	n := ub - lb + 1
	hot := int64(float64(n) * hotsetFraction)
	h := &Hotspot{lb: lb, ub: ub, hot: hot, cold: n - hot, hotsetFraction: hotsetFraction, hotOpnFraction: hotOpnFraction}
	if h.hot == 0 && hotOpnFraction > 0 {
		return nil, fmt.Errorf("ycsb: hotspot generator: the hot set of %d items x %v is empty but gets %v of the operations",
			n, hotsetFraction, hotOpnFraction)
	}
	if h.cold == 0 && hotOpnFraction < 1 {
		return nil, fmt.Errorf("ycsb: hotspot generator: the cold set is empty (hot set fraction %v) but gets %v of the operations",
			hotsetFraction, 1-hotOpnFraction)
	}
	return h, nil
}

// Next returns lb + uniform[0, hot) with probability hotOpnFraction, else lb + hot + uniform[0, cold).
func (h *Hotspot) Next(r Source) int64 {
	if r.Float64() < h.hotOpnFraction {
		return h.lb + nonNegativeLong(r)%h.hot
	}
	return h.lb + h.hot + nonNegativeLong(r)%h.cold
}

// HotSet returns the hot set [lb, lb+hot) as its first number and size, and the cold set's size.
func (h *Hotspot) HotSet() (first, hot, cold int64) { return h.lb, h.hot, h.cold }
