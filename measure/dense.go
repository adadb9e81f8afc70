package measure

import (
	"math/bits"
	"sync"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// dense is what a stripe records into between ticks: the counts array of the one geometry,
// indexed as HdrHistogram indexes its own (countsIndex, checked against hdr's buckets value by value
// in TestDenseIndexMatchesHdr), with the lowest and highest index touched. A tick adds it into the
// interval's and the run's histograms by walking only [lo, hi] of a flat array and recording each
// non-empty bucket once (hdr's RecordValues at the bucket's lowest value, as hdr's own Merge
// records it), where hdr's Merge walks its iterator over every bucket up to the highest value,
// tens of nanoseconds per bucket: most of a tick, and with many operations (sysbench's parts) and
// 1 s intervals a visible share of the driver's CPU (BenchmarkTick).
type dense struct {
	counts []int64
	lo, hi int   // the touched indexes, lo > hi when empty
	total  int64 // values recorded since the last reset
}

// The one geometry's indexing (LowestMicros 1, SignificantDigits 3, as hdr.New computes it): values
// up to 2·10^3 have unit resolution, so a sub-bucket holds 2^11 = 2048 slots, half of them 1024;
// with a lowest value of 1 the unit magnitude is 0.
const (
	subBucketHalfCountMagnitude = 10
	subBucketHalfCount          = 1 << subBucketHalfCountMagnitude
	subBucketMask               = 2*subBucketHalfCount - 1
)

// denseIndex is hdr's countsIndexFor for the one geometry (0 <= v <= HighestMicros).
func denseIndex(v int64) int {
	pow2Ceiling := 64 - bits.LeadingZeros64(uint64(v|subBucketMask))
	bucket := pow2Ceiling - (subBucketHalfCountMagnitude + 1)
	sub := int(v >> uint(bucket))
	return (bucket+1)<<subBucketHalfCountMagnitude + sub - subBucketHalfCount
}

// denseValue is the lowest value of the bucket at index i, the inverse of denseIndex (hdr's
// valueFromIndex): bucket 0 holds 0..2047 at unit resolution, then bucket b >= 1 the upper half of
// its sub-buckets (1024..2047) shifted left by b.
func denseValue(i int) int64 {
	if i < 2*subBucketHalfCount {
		return int64(i)
	}
	b := i>>subBucketHalfCountMagnitude - 1
	return int64(i&(subBucketHalfCount-1)+subBucketHalfCount) << uint(b)
}

// denseLow is the lowest value of each bucket of the one geometry, by index: the value a tick
// records a bucket's count at (any value of the bucket lands in it).
var denseLow = sync.OnceValue(func() []int64 {
	low := make([]int64, len(geometryValues()))
	for i := range low {
		low[i] = denseValue(i)
	}
	return low
})

func newDense() dense {
	return dense{counts: make([]int64, len(denseLow())), lo: 1, hi: 0}
}

// record adds v (microseconds) and returns 1 when v was above HighestMicros (recorded at
// HighestMicros, as record does for a histogram), else 0.
func (d *dense) record(v int64) int64 {
	var over int64
	if v > HighestMicros {
		v, over = HighestMicros, 1
	} else if v < 0 {
		v = 0
	}
	i := denseIndex(v)
	d.counts[i]++
	if d.total == 0 {
		d.lo, d.hi = i, i
	} else if i < d.lo {
		d.lo = i
	} else if i > d.hi {
		d.hi = i
	}
	d.total++
	return over
}

// addTo adds d's counts into h (of the one geometry) and, when h2 is not nil, into h2 too; it
// returns the values each could not record (none can: every index is inside the geometry).
func (d *dense) addTo(h, h2 *hdr.Histogram) (dropped, dropped2 int64) {
	if d.total == 0 {
		return 0, 0
	}
	low := denseLow()
	for i, c := range d.counts[d.lo : d.hi+1] {
		if c == 0 {
			continue
		}
		v := low[d.lo+i]
		if h.RecordValues(v, c) != nil {
			dropped += c
		}
		if h2 != nil && h2.RecordValues(v, c) != nil {
			dropped2 += c
		}
	}
	return dropped, dropped2
}

// reset empties d, clearing only what was touched.
func (d *dense) reset() {
	if d.total == 0 {
		return
	}
	clear(d.counts[d.lo : d.hi+1])
	d.lo, d.hi, d.total = 1, 0, 0
}
