package run

import (
	"fmt"
	"strings"
	"time"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/workload"
)

// progress prints one line per interval: elapsed time and phase, throughput per operation, the
// key operation's p50 and p99 response time in the interval (TPC-C's new_order, kv's read), errors
// and retries.
type progress struct {
	out   Out
	quiet bool
	n     int
	sb    strings.Builder
	// shown are the operations with a short name (the progress line's columns), short their names,
	// key the key operation's index (-1: none).
	shown  []int
	short  []string
	key    int
	keyOp  string
	header string
	// longest is the longest interval printed; label the last line's elapsed time.
	longest time.Duration
	label   string
}

func newProgress(out Out, quiet bool, in workload.Info, ops []string) *progress {
	p := &progress{out: out, quiet: quiet, key: -1, keyOp: in.KeyOp}
	for i, name := range ops {
		s := name
		if i < len(in.ShortNames) {
			s = in.ShortNames[i]
		}
		if s != "" {
			p.shown, p.short = append(p.shown, i), append(p.short, s)
		}
		if name == in.KeyOp {
			p.key = i
		}
	}
	p.header = "throughput per second: " + strings.Join(p.short, " ")
	return p
}

func (p *progress) line(iv *measure.Interval, start time.Time) {
	if p.quiet || p.sliver(iv) {
		return
	}
	if p.n%20 == 0 {
		fmt.Fprintf(p.out.Stderr, "%8s %-7s │ %s │ %24s │ %s\n", "elapsed", "phase", p.header, p.keyOp+" response ms", "errors retries")
	}
	p.n++
	secs := iv.End.Sub(iv.Start).Seconds()
	if secs <= 0 {
		secs = 1
	}
	p.sb.Reset()
	for k, op := range p.shown {
		fmt.Fprintf(&p.sb, " %s %6.1f", p.short[k], float64(iv.Counts[op].Completed)/secs)
	}
	var errs, retries int64
	for _, c := range iv.Counts {
		errs += c.Errors
		retries += c.Retries
	}
	p50, p99 := "-", "-"
	if p.key >= 0 {
		if h := iv.Hist[p.key][measure.Response]; h.TotalCount() > 0 {
			p50 = fmtMs(measure.ValueAt(h, 0.5))
			p99 = fmtMs(measure.ValueAt(h, 0.99))
		}
	}
	// A short last interval that ends within the same second as the line before it (a run that
	// ends 0.4 s after a tick) shows its elapsed time to a tenth: two lines never share a label.
	el := iv.End.Sub(start).Seconds()
	label := fmt.Sprintf("%.0fs %s", el, iv.Phase)
	if label == p.label {
		label = fmt.Sprintf("%.1fs %s", el, iv.Phase)
	}
	p.label = label
	fmt.Fprintf(p.out.Stderr, "%8s %-7s │%s │ p50 %7s  p99 %7s │ %d %d\n",
		label[:strings.IndexByte(label, ' ')], iv.Phase, p.sb.String(), p50, p99, errs, retries)
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

// sliver reports whether iv is the run's last sliver of an interval with nothing in it: the final
// tick just after a full one, whose line would repeat the elapsed time with zeros.
func (p *progress) sliver(iv *measure.Interval) bool {
	d := iv.End.Sub(iv.Start)
	if d > p.longest {
		p.longest = d
	}
	if p.n == 0 || 2*d >= p.longest {
		return false
	}
	for _, c := range iv.Counts {
		if c.Completed != 0 || c.Errors != 0 || c.Retries != 0 {
			return false
		}
	}
	return true
}
