package measure

import (
	"fmt"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The one histogram geometry (design.md: "Use one histogram geometry for the whole run and every
// shard, so merges are exact"). Each dense histogram of this geometry takes about 184 KiB.
const (
	LowestMicros      = 1
	HighestMicros     = 3_600_000_000 // one hour in microseconds
	SignificantDigits = 3
)

// NewHistogram returns an empty histogram of the one geometry, in microseconds.
func NewHistogram() *hdr.Histogram {
	return hdr.New(LowestMicros, HighestMicros, SignificantDigits)
}

// SameGeometry reports whether h has the geometry NewHistogram gives (so merging it is exact).
func SameGeometry(h *hdr.Histogram) bool {
	return h.LowestTrackableValue() == LowestMicros && h.HighestTrackableValue() == HighestMicros &&
		h.SignificantFigures() == SignificantDigits
}

// Micros converts d to whole microseconds, rounding up: (0, 1 µs] becomes 1, 1.0001 ms becomes
// 1001. Zero and negative durations become 0.
func Micros(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Microsecond - 1) / time.Microsecond)
}

// record adds v (microseconds, >= 0) to h and returns 1 when v was above HighestMicros (then it is
// recorded at HighestMicros and the caller counts the overflow), else 0.
func record(h *hdr.Histogram, v int64) int64 {
	var over int64
	if v > HighestMicros {
		v, over = HighestMicros, 1
	}
	// Cannot fail: 0 <= v <= HighestMicros is inside the geometry.
	_ = h.RecordValue(v)
	return over
}

// Merge adds src into dst bucket by bucket. Both must have the one geometry; otherwise, or if any
// value could not be merged, it returns an error (and dst may hold a partial merge).
func Merge(dst, src *hdr.Histogram) error {
	if !SameGeometry(dst) || !SameGeometry(src) {
		return fmt.Errorf("measure: merging histograms of different geometry (want %d..%d µs, %d digits)",
			LowestMicros, HighestMicros, SignificantDigits)
	}
	if src.TotalCount() == 0 {
		return nil
	}
	if dropped := dst.Merge(src); dropped != 0 {
		return fmt.Errorf("measure: %d values were dropped while merging histograms", dropped)
	}
	return nil
}

// Quantile is a fraction in 0..1 (0.99 is the 99th percentile). HdrHistogram takes percents
// (0..100); Percent is the only place that converts.
type Quantile float64

// Percent returns q in the 0..100 scale HdrHistogram's ValueAtQuantile expects.
func (q Quantile) Percent() float64 { return float64(q) * 100 }

// The quantiles every report shows (design.md: "the percentile spectrum").
const (
	Q50   Quantile = 0.50
	Q90   Quantile = 0.90
	Q95   Quantile = 0.95
	Q99   Quantile = 0.99
	Q999  Quantile = 0.999
	Q9999 Quantile = 0.9999
)

// ValueAt returns the value at quantile q of h (microseconds; the highest value equivalent to the
// bucket, so never below the true value at that rank), or 0 for an empty histogram.
func ValueAt(h *hdr.Histogram, q Quantile) int64 {
	return h.ValueAtQuantile(q.Percent())
}

// Percentiles summarizes one histogram in milliseconds.
type Percentiles struct {
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p99_9"`
	P9999 float64 `json:"p99_99"`
	Max   float64 `json:"max"`
	Mean  float64 `json:"mean"`
}

// Summarize returns the percentile spectrum of h (values in microseconds) in milliseconds. An empty
// histogram gives all zeros; look at its count before reading them.
func Summarize(h *hdr.Histogram) Percentiles {
	if h.TotalCount() == 0 {
		return Percentiles{}
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return Percentiles{
		P50:   ms(ValueAt(h, Q50)),
		P90:   ms(ValueAt(h, Q90)),
		P95:   ms(ValueAt(h, Q95)),
		P99:   ms(ValueAt(h, Q99)),
		P999:  ms(ValueAt(h, Q999)),
		P9999: ms(ValueAt(h, Q9999)),
		Max:   ms(h.Max()),
		Mean:  h.Mean() / 1000,
	}
}

// EncodeHist is h as an interval log writes it (HdrHistogram's V2 compressed encoding, base64),
// for a result that keeps a histogram to merge later ("" for nil).
func EncodeHist(h *hdr.Histogram) string {
	if h == nil {
		return ""
	}
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(b)
}

// DecodeHist reads what EncodeHist wrote.
// Damaged text is an error, never a panic.
func DecodeHist(s string) (h *hdr.Histogram, err error) {
	if s == "" {
		return nil, fmt.Errorf("measure: no encoded histogram")
	}
	defer func() {
		if r := recover(); r != nil {
			h, err = nil, fmt.Errorf("measure: not an encoded histogram: %v", r)
		}
	}()
	h, err = hdr.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("measure: not an encoded histogram: %w", err)
	}
	return h, nil
}
