package compare

import (
	"math"
	"slices"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/measure"
)

// Bucket is one non-empty bucket of a histogram (measure.Bucket): its highest equivalent value and
// its count.
type Bucket = measure.Bucket

// Hist is a sparse histogram: its non-empty buckets in ascending order of Value. Histograms of the
// one geometry (measure.NewHistogram) share bucket boundaries, so adding Hists bucket by bucket is
// the same exact merge as measure.Merge.
type Hist []Bucket

// FromHdr returns h's non-empty buckets.
func FromHdr(h *hdr.Histogram) Hist { return measure.NonEmptyBuckets(h) }

// Total returns the number of values in h.
func (h Hist) Total() int64 {
	var n int64
	for _, b := range h {
		n += b.Count
	}
	return n
}

// rank is HdrHistogram's rank of quantile q (0..1) among total values (1-based): round(q total),
// at least 1 and at most total, so ValueAt agrees with hdr's ValueAtQuantile exactly.
func rank(q float64, total int64) int64 {
	r := q*float64(total) + 0.5
	if !(r >= 1) {
		return 1
	}
	if r >= float64(total) {
		return total
	}
	return int64(r)
}

// ValueAt returns the value at quantile q (0..1) of h by HdrHistogram's rule (the bucket where the
// cumulative count first reaches round(q n)), or 0 for an empty histogram.
func ValueAt(h Hist, q float64) int64 {
	total := h.Total()
	if total == 0 {
		return 0
	}
	want := rank(q, total)
	var cum int64
	for _, b := range h {
		cum += b.Count
		if cum >= want {
			return b.Value
		}
	}
	return h[len(h)-1].Value
}

// dense is a set of histograms re-indexed over the union of their bucket values, so resampled
// intervals can be merged by adding small integer arrays.
type dense struct {
	values []int64 // ascending union of bucket values
	ivs    [][]idxCount
}

type idxCount struct {
	idx   int32
	count int64
}

// newDense indexes the histograms of every group over one union of values.
func newDense(groups ...[]Hist) []dense {
	seen := map[int64]bool{}
	for _, g := range groups {
		for _, h := range g {
			for _, b := range h {
				seen[b.Value] = true
			}
		}
	}
	values := make([]int64, 0, len(seen))
	for v := range seen {
		values = append(values, v)
	}
	slices.Sort(values)
	pos := make(map[int64]int32, len(values))
	for i, v := range values {
		pos[v] = int32(i)
	}
	out := make([]dense, len(groups))
	for gi, g := range groups {
		d := dense{values: values, ivs: make([][]idxCount, len(g))}
		for i, h := range g {
			ic := make([]idxCount, len(h))
			for j, b := range h {
				ic[j] = idxCount{pos[b.Value], b.Count}
			}
			d.ivs[i] = ic
		}
		out[gi] = d
	}
	return out
}

// quantiles merges the intervals picked (indexes into d.ivs) into counts (len(d.values), zeroed
// here) and writes the value at each of qs (ascending) into dst; it returns false when the merge
// is empty.
func (d *dense) quantiles(picked []int, counts []int64, qs []float64, dst []float64) bool {
	clear(counts)
	var total int64
	for _, i := range picked {
		for _, ic := range d.ivs[i] {
			counts[ic.idx] += ic.count
			total += ic.count
		}
	}
	if total == 0 {
		for k := range dst {
			dst[k] = math.NaN()
		}
		return false
	}
	k := 0
	want := rank(qs[0], total)
	var cum int64
	for i, c := range counts {
		cum += c
		for cum >= want {
			dst[k] = float64(d.values[i])
			k++
			if k == len(qs) {
				return true
			}
			want = rank(qs[k], total)
		}
	}
	for ; k < len(qs); k++ { // cannot happen: the last rank is at most total
		dst[k] = float64(d.values[len(d.values)-1])
	}
	return true
}

// mergeHists adds histograms bucket by bucket (nil ones are empty).
func mergeHists(hs []Hist) Hist {
	m := map[int64]int64{}
	for _, h := range hs {
		for _, b := range h {
			m[b.Value] += b.Count
		}
	}
	if len(m) == 0 {
		return nil
	}
	out := make(Hist, 0, len(m))
	for v, c := range m {
		out = append(out, Bucket{Value: v, Count: c})
	}
	slices.SortFunc(out, func(x, y Bucket) int {
		switch {
		case x.Value < y.Value:
			return -1
		case x.Value > y.Value:
			return 1
		}
		return 0
	})
	return out
}
