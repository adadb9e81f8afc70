package run

import (
	"fmt"
	"strings"
	"time"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/workload/tpcc"
)

// progress prints one line per interval: elapsed time and phase, per-type throughput, New-Order's
// p50 and p99 response time in the interval, errors and retries.
type progress struct {
	out   Out
	quiet bool
	n     int
	sb    strings.Builder
}

func newProgress(out Out, quiet bool) *progress { return &progress{out: out, quiet: quiet} }

var shortNames = [tpcc.NumTxTypes]string{"no", "pay", "os", "dl", "sl"}

func (p *progress) line(iv *measure.Interval, start time.Time) {
	if p.quiet {
		return
	}
	if p.n%20 == 0 {
		fmt.Fprintf(p.out.Stderr, "%8s %-7s │ %s │ %24s │ %s\n", "elapsed", "phase", "throughput per second: no pay os dl sl", "new_order response ms", "errors retries")
	}
	p.n++
	secs := iv.End.Sub(iv.Start).Seconds()
	if secs <= 0 {
		secs = 1
	}
	p.sb.Reset()
	var errs, retries int64
	for op := 0; op < tpcc.NumTxTypes; op++ {
		c := iv.Counts[op]
		fmt.Fprintf(&p.sb, " %s %6.1f", shortNames[op], float64(c.Completed)/secs)
		errs += c.Errors
		retries += c.Retries
	}
	dc := iv.Counts[tpcc.DeliveryDeferred]
	errs += dc.Errors
	retries += dc.Retries
	h := iv.Hist[tpcc.NewOrder][measure.Response]
	p50, p99 := "-", "-"
	if h.TotalCount() > 0 {
		p50 = fmtMs(measure.ValueAt(h, 0.5))
		p99 = fmtMs(measure.ValueAt(h, 0.99))
	}
	fmt.Fprintf(p.out.Stderr, "%7.0fs %-7s │%s │ p50 %7s  p99 %7s │ %d %d\n",
		iv.End.Sub(start).Seconds(), iv.Phase, p.sb.String(), p50, p99, errs, retries)
}

func fmtMs(us int64) string {
	ms := float64(us) / 1000
	switch {
	case ms < 10:
		return fmt.Sprintf("%.2f", ms)
	case ms < 100:
		return fmt.Sprintf("%.1f", ms)
	}
	return fmt.Sprintf("%.0f", ms)
}
