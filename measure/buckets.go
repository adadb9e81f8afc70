package measure

import (
	"sync"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Bucket is one non-empty bucket of a histogram: Value is its highest equivalent value (the value
// ValueAt reports for a quantile that falls in it, so never below any value the bucket holds),
// Count how many values it holds.
type Bucket struct {
	Value int64
	Count int64
}

// NonEmptyBuckets returns h's non-empty buckets in ascending order of value. Histograms of the one
// geometry share bucket boundaries, so adding their buckets value by value is the same exact merge
// as Merge. It walks h's counts once (about 22,000 slots for the one geometry) and allocates only
// the result and a copy of the counts; call it per interval or per scrape, not per event.
func NonEmptyBuckets(h *hdr.Histogram) []Bucket {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	var out []Bucket
	if SameGeometry(h) {
		// The counts array indexed by the geometry's table of bucket values (the array has a few
		// slots above the highest trackable value, which stay empty).
		counts, values := h.Export().Counts, geometryValues()
		fast := true
		for i, c := range counts {
			if c == 0 {
				continue
			}
			if i >= len(values) {
				fast = false
				break
			}
			out = append(out, Bucket{Value: values[i], Count: c})
		}
		if fast {
			return out
		}
		out = out[:0]
	}
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			out = append(out, Bucket{Value: b.To, Count: b.Count})
		}
	}
	return out
}

// geometryValues is the highest equivalent value of every bucket of the one geometry, in the order
// of the counts array: the Distribution of a histogram holding only the highest trackable value
// walks every bucket up to the last.
var geometryValues = sync.OnceValue(func() []int64 {
	h := NewHistogram()
	_ = h.RecordValue(HighestMicros)
	bars := h.Distribution()
	v := make([]int64, len(bars))
	for i, b := range bars {
		v[i] = b.To
	}
	return v
})
