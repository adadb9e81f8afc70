package html

import (
	"fmt"
	"html/template"
	"math"
	"regexp"
	"slices"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/sysmon"
)

// palette colours the operations by their position in the workload's order (report.Result.Ops),
// the same in every chart and table of a page. The first six are TPC-C's colours of old, in its order.
var palette = []string{"#2563eb", "#059669", "#7c3aed", "#ea580c", "#0891b2", "#be185d", "#ca8a04", "#475569"}

// opColor is the colour of the operation at position i of the workload's order.
func opColor(i int) string { return palette[i%len(palette)] }

func (d *runData) color(op string) string {
	if i := slices.Index(d.ops, op); i >= 0 {
		return opColor(i)
	}
	return palette[0]
}

// partNote is the note of the charts of an operation that is a part of another.
func partNote(t *report.TxResult) string {
	if t == nil || t.PartOf == "" {
		return ""
	}
	return "a part of " + t.PartOf + ", " + report.PartNote(t)
}

// chartView is a plot ready for the page: its SVG and an HTML legend.
type chartView struct {
	ID     string
	Title  string
	Note   string
	SVG    template.HTML
	Legend []legendItem
	Bare   bool // no caption: the section's heading names the chart
}

type legendItem struct {
	Label, Color, Dash string
}

func view(p *plot) chartView {
	v := chartView{ID: p.id, Title: p.title, Note: p.note, SVG: p.svg()}
	for _, l := range p.lines {
		if l.points() > 0 {
			v.Legend = append(v.Legend, legendItem{Label: l.label, Color: l.color, Dash: l.dash})
		}
	}
	return v
}

// timePlot returns a plot on the run's time axis, with the warm-up and drain shaded and the
// measurement window's edges marked.
func (d *runData) timePlot(id, title string, w, h float64) *plot {
	end := math.Max(d.end, d.measureTo)
	p := &plot{id: id, title: title, w: w, h: h, xmin: 0, xmax: end, xTitle: "seconds since the run started", xkind: "time"}
	p.xticks = timeTicks(0, end, int(math.Max(3, (w-padL-padR)/80)))
	if d.measureFrom > 0 {
		p.bands = append(p.bands, band{from: 0, to: d.measureFrom, label: "warm-up", class: "warmup"})
	}
	if end > d.measureTo {
		p.bands = append(p.bands, band{from: d.measureTo, to: end, label: "drain", class: "drain"})
	}
	p.vlines = []tick{{d.measureFrom, "measurement starts"}, {d.measureTo, "measurement ends"}}
	return p
}

// throughput: completed operations per second of each kind in each interval, and the failed ones.
func (d *runData) throughput() chartView {
	p := d.timePlot("throughput", "Throughput per operation", 1000, 300)
	p.yTitle, p.unit = "operations / s", "/s"
	p.note = "Completed operations per second in each interval (business rollbacks included, failures apart)."
	p.empty = "no intervals in the log"
	errs := line{series: "errors", label: "failed (all operations)", color: "#dc2626", dash: "4 3"}
	anyErr := false
	for _, op := range d.ops {
		if !d.isOp(op) {
			continue
		}
		l := line{series: op, label: op, color: d.color(op)}
		for i := range d.intervals {
			iv := &d.intervals[i]
			dt := iv.to - iv.from
			if dt <= 0 {
				continue
			}
			st := iv.get(op)
			if st == nil {
				l.pts = append(l.pts, pt{(iv.from + iv.to) / 2, math.NaN()})
				continue
			}
			l.pts = append(l.pts, pt{(iv.from + iv.to) / 2, float64(st.count[measure.Response]) / dt})
		}
		p.lines = append(p.lines, l)
	}
	for i := range d.intervals {
		iv := &d.intervals[i]
		dt := iv.to - iv.from
		if dt <= 0 {
			continue
		}
		var n int64
		for _, st := range iv.ops {
			n += st.count[measure.ErrorResponse]
		}
		anyErr = anyErr || n > 0
		errs.pts = append(errs.pts, pt{(iv.from + iv.to) / 2, float64(n) / dt})
	}
	if anyErr {
		p.lines = append(p.lines, errs)
	}
	return view(p)
}

// The percentiles drawn over time (q indexes overTimeQ), with their colours, in drawing order.
var overTime = []struct {
	q     int
	label string
	color string
	dash  string
	kind  measure.Kind
}{
	{3, "max", "#94a3b8", "1 3", measure.Response},
	{0, "p50", "#38bdf8", "", measure.Response},
	{1, "p99", "#f59e0b", "", measure.Response},
	{2, "p99.9", "#dc2626", "", measure.Response},
	{1, "p99 service", "#1e293b", "3 3", measure.Service},
}

// percentilesOverTime: one small chart per operation with its response-time percentiles in each
// interval (and the service-time p99, so queueing shows as a gap between the two).
func (d *runData) percentilesOverTime() []chartView {
	var out []chartView
	for _, op := range d.ops {
		p := d.timePlot("percentiles-"+op, op, 480, 230)
		p.ylog, p.yfmt, p.yTitle, p.unit = true, fmtMs, "ms", "ms"
		p.xTitle = "seconds"
		p.empty = "no completed operations"
		p.note = partNote(d.res.Operations[op])
		for _, s := range overTime {
			l := line{series: op + "." + s.label, label: s.label, color: s.color, dash: s.dash}
			switch {
			case s.label == "max":
				l.width = 1.2
			case s.kind == measure.Service:
				l.width = 1.1
			}
			for i := range d.intervals {
				iv := &d.intervals[i]
				x := (iv.from + iv.to) / 2
				st := iv.get(op)
				if st == nil || st.count[s.kind] == 0 {
					l.pts = append(l.pts, pt{x, math.NaN()})
					continue
				}
				v := st.resp[s.q]
				if s.kind == measure.Service {
					v = st.serv[s.q]
				}
				l.pts = append(l.pts, pt{x, v})
			}
			p.lines = append(p.lines, l)
		}
		out = append(out, view(p))
	}
	return out
}

// spectrumStep is the spacing of the spectrum's points on its log10(1/(1-p)) axis.
const spectrumStep = 0.02

// spectrum: one chart per operation with the percentile spectrum of the measured totals, response
// and service time overlaid, on an x axis log-scaled in 1/(1-p) (0, 90%, 99%, 99.9%, ...).
func (d *runData) spectrum() []chartView {
	var out []chartView
	for _, op := range d.ops {
		hs := d.totals[op]
		p := &plot{id: "spectrum-" + op, title: op, w: 480, h: 250, ylog: true, yfmt: fmtMs, yTitle: "ms",
			xTitle: "percentile", empty: "nothing measured", xkind: "nines", unit: "ms", note: partNote(d.res.Operations[op])}
		var n int64
		for _, k := range []measure.Kind{measure.Response, measure.Service} {
			if hs == nil || hs[k] == nil || hs[k].TotalCount() == 0 {
				continue
			}
			h := hs[k]
			n = max(n, h.TotalCount())
			l := line{series: op + "." + k.String(), color: d.color(op)}
			switch k {
			case measure.Response:
				l.label, l.width = "response time", 2.4
			default:
				l.label, l.dash, l.color, l.width = "service time", "4 3", "#111827", 1.1
			}
			l.pts = spectrumPoints(h)
			p.lines = append(p.lines, l)
		}
		top := math.Max(2, math.Ceil(math.Log10(math.Max(float64(n), 1))))
		p.xmin, p.xmax = 0, top
		for e := 0; e <= int(top); e++ {
			p.xticks = append(p.xticks, tick{float64(e), nines(e)})
		}
		// A verdict whose rule starts with the operation's name and a percentile ("new_order p90
		// response time") is drawn as that percentile's limit.
		for _, v := range d.res.Verdicts {
			rest, ok := strings.CutPrefix(v.Rule, op+" ")
			q, _, _ := strings.Cut(rest, " ")
			if ok && len(q) > 1 && q[0] == 'p' && strings.Trim(q[1:], "0123456789.") == "" {
				p.hlines = append(p.hlines, hline{v: v.LimitMs, label: q + " limit " + fmtMs(v.LimitMs) + " ms", color: "#b91c1c"})
			}
		}
		out = append(out, view(p))
	}
	return out
}

// spectrumPoints samples h's percentiles at x = 0, 0.02, ... up to log10(count) on the
// log10(1/(1-p)) scale, ending at the maximum. Values are in milliseconds.
func spectrumPoints(h *hdr.Histogram) []pt {
	n := float64(h.TotalCount())
	xEnd := math.Log10(n)
	var xs, ps []float64
	for i := 0; float64(i)*spectrumStep < xEnd; i++ {
		x := float64(i) * spectrumStep
		xs = append(xs, x)
		ps = append(ps, measure.Quantile(1-math.Pow(10, -x)).Percent())
	}
	vals := h.ValueAtPercentilesSlice(ps)
	out := make([]pt, 0, len(xs)+1)
	for i, x := range xs {
		out = append(out, pt{x, float64(vals[i]) / 1000})
	}
	return append(out, pt{math.Max(xEnd, 0), float64(h.Max()) / 1000})
}

// nines labels the point 1-10^-e of the spectrum's axis: 0%, 90%, 99%, 99.9%, ...
func nines(e int) string {
	if e == 0 {
		return "0%"
	}
	if e <= 2 {
		return strings.Repeat("9", e) + strings.Repeat("0", 2-e) + "%"
	}
	return "99." + strings.Repeat("9", e-2) + "%"
}

// resourceGroup is a heading of the resource section and its charts.
type resourceGroup struct {
	Name   string
	Charts []chartView
}

// resourceSections name the sections of the resource charts by a series' first part; others follow
// under their own name.
var resourceSections = []struct{ prefix, title string }{
	{"host", "host: CPU, run queue, memory, swap"},
	{"interrupts", "host: interrupts, softirqs, context switches"},
	{"disk", "disks"},
	{"net", "network"},
	{"db", "database"},
	{"driver", "driver (candor itself)"},
}

var digits = regexp.MustCompile(`[0-9]+`)

// resourceChart is the series drawn in one chart.
type resourceChart struct {
	key   string
	names []string
}

// chartKeys decides which series share a chart: series whose names differ only by numbers
// (host.cpu0.busy_pct, host.cpu1.busy_pct); series of three or more parts with the same prefix
// and unit (host.mem.used_bytes and host.mem.available_bytes); and families of three or more
// unitless ones (db.wait.Lock, db.wait.IO, ...). Anything else has a chart of its own, so each
// keeps a scale it can be read on.
func chartKeys(names []string) []resourceChart {
	byKey := map[string][]string{}
	var order []string
	add := func(k, n string) {
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], n)
	}
	family := map[string]int{} // series per prefix and unit
	numbered := map[string]int{}
	for _, n := range names {
		numbered[digits.ReplaceAllString(n, "*")]++
	}
	for _, n := range names {
		if norm := digits.ReplaceAllString(n, "*"); norm != n && numbered[norm] >= 2 {
			continue
		}
		if i := strings.LastIndexByte(n, '.'); strings.Count(n, ".") >= 2 {
			family[n[:i]+" "+sysmon.Unit(n)]++
		}
	}
	for _, n := range names {
		// series that differ only by a number (cpu0, cpu1) share a chart; a lone numbered one
		// (a disk zram0) is charted as any other
		if norm := digits.ReplaceAllString(n, "*"); norm != n && numbered[norm] >= 2 {
			add(norm, n)
			continue
		}
		i := strings.LastIndexByte(n, '.')
		switch u := sysmon.Unit(n); {
		case strings.Count(n, ".") < 2:
			add(n, n)
		case u != "" && family[n[:i]+" "+u] >= 2:
			add(n[:i]+".* ("+u+")", n)
		case u == "" && family[n[:i]+" "] >= 3:
			add(n[:i]+".*", n)
		default:
			add(n, n)
		}
	}
	out := make([]resourceChart, len(order))
	for i, k := range order {
		out[i] = resourceChart{key: k, names: byKey[k]}
	}
	return out
}

// legendLabels names each series of a chart by the parts of its name the others do not share.
func legendLabels(names []string) []string {
	if len(names) == 1 {
		return names
	}
	split := make([][]string, len(names))
	for i, n := range names {
		split[i] = strings.Split(n, ".")
	}
	out := make([]string, len(names))
	for i, parts := range split {
		var keep []string
		for j, part := range parts {
			same := true
			for _, o := range split {
				if j >= len(o) || o[j] != part {
					same = false
					break
				}
			}
			if !same {
				keep = append(keep, part)
			}
		}
		out[i] = strings.Join(keep, ".")
		if out[i] == "" {
			out[i] = names[i]
		}
	}
	return out
}

// resourceCharts: small charts of the resource samples on the latency charts' time axis, grouped
// in sections by the series' first part.
func (d *runData) resourceCharts() []resourceGroup {
	r := d.samples
	if r == nil {
		return nil
	}
	bySection := map[string][]string{}
	idle := idleDisks(r)
	for _, n := range r.names {
		if parts := strings.SplitN(n, ".", 3); len(parts) == 3 && parts[0] == "disk" && idle[parts[1]] {
			continue
		}
		sec := resourceSectionOf(n)
		bySection[sec] = append(bySection[sec], n)
	}
	var sections []string
	var titles []string
	for _, s := range resourceSections {
		if bySection[s.prefix] != nil {
			sections, titles = append(sections, s.prefix), append(titles, s.title)
		}
	}
	var rest []string
	for k := range bySection {
		if !slices.ContainsFunc(resourceSections, func(s struct{ prefix, title string }) bool { return s.prefix == k }) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	sections, titles = append(sections, rest...), append(titles, rest...)

	var out []resourceGroup
	for si, sec := range sections {
		g := resourceGroup{Name: titles[si]}
		for _, c := range chartKeys(bySection[sec]) {
			g.Charts = append(g.Charts, d.resourceChart(c))
		}
		out = append(out, g)
	}
	return out
}

// resourceSectionOf is the section a series is drawn in: its first part, but for the host's interrupts
// (their own section) and its network totals (with the interfaces').
func resourceSectionOf(n string) string {
	switch {
	case strings.HasPrefix(n, "host.net.") || strings.HasPrefix(n, "host.tcp."):
		return "net"
	case strings.HasPrefix(n, "host.") && (strings.Contains(n, "irq") || strings.HasPrefix(n, "host.context_switches")):
		return "interrupts"
	}
	first, _, _ := strings.Cut(n, ".")
	return first
}

// idleDisks are the disks that did no I/O in any sample (a zram or an unused volume): their
// charts would be flat at zero.
func idleDisks(r *resources) map[string]bool {
	out := map[string]bool{}
	for _, n := range r.names {
		dev, ok := strings.CutSuffix(strings.TrimPrefix(n, "disk."), ".iops")
		if !ok || !strings.HasPrefix(n, "disk.") {
			continue
		}
		busy := false
		for _, q := range r.series[n] {
			busy = busy || q.y != 0
		}
		if !busy {
			out[dev] = true
		}
	}
	return out
}

func (d *runData) resourceChart(c resourceChart) chartView {
	r := d.samples
	unit := sysmon.Unit(c.names[0])
	title := c.key
	if len(c.names) == 1 {
		title = c.names[0]
	}
	p := d.timePlot("resource-"+c.key, title, 480, 200)
	p.xTitle, p.yTitle, p.unit = "seconds", unit, unit
	const maxLines = 16
	labels := legendLabels(c.names)
	for i, name := range c.names {
		if i == maxLines {
			p.note = fmt.Sprintf("first %d of %d series shown", maxLines, len(c.names))
			break
		}
		color := palette[i%len(palette)]
		if len(c.names) == 1 {
			color = "#334155"
		}
		p.lines = append(p.lines, line{series: name, label: labels[i], color: color, width: 1.4, pts: r.series[name]})
	}
	p.empty = "no samples"
	// Zero is the floor for counts, rates and percentages (negative data widens it); a percentage
	// axis reaches 100 (a core's 100 for the driver's CPU, which can pass it).
	for _, n := range c.names {
		for _, q := range r.series[n] {
			p.ymin = math.Min(p.ymin, q.y)
		}
	}
	if unit == "%" {
		p.ymax = 100
		for _, n := range c.names {
			for _, q := range r.series[n] {
				p.ymax = math.Max(p.ymax, q.y)
			}
		}
		if p.ymax > 100 {
			p.ymax = math.Ceil(p.ymax/50) * 50
		}
	}
	v := view(p)
	if len(c.names) == 1 {
		v.Legend = nil // the title names the one series
	}
	return v
}
