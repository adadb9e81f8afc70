package html

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// The charts are inline SVG written here, server side: the report needs no script and no network to
// show them. A plot is data (lines, bands, ticks); svg() lays it out in a fixed viewBox that the page
// scales to its width.

// pt is one point of a line; a NaN y breaks the line (an interval with no data draws no segment).
type pt struct{ x, y float64 }

// line is one series of a plot.
type line struct {
	series string // data-series attribute: what the line is (for tests and tools)
	label  string // legend text
	color  string
	dash   string  // stroke-dasharray, "" for solid
	width  float64 // stroke width, default 1.6
	pts    []pt
	dots   bool // a dot at every point, for lines of a few points (one per run)
}

// band shades a stretch of the x axis (warm-up, drain).
type band struct {
	from, to float64
	label    string
	class    string
}

// tick is an axis tick at v with its label ("" for a gridline without a label).
type tick struct {
	v     float64
	label string
}

// plot is one chart.
type plot struct {
	id     string // data-chart attribute
	title  string // shown above the chart
	note   string // a line of explanation under the title
	w, h   float64
	xTitle string
	yTitle string
	// Domains; with ymax 0 the y domain comes from the data.
	xmin, xmax float64
	ymin, ymax float64
	ylog       bool
	xticks     []tick // nil: nice linear ticks (xfmt labels them)
	xfmt       func(float64) string
	yfmt       func(float64) string
	bands      []band
	vlines     []tick // vertical markers (measurement start and end)
	hlines     []hline
	lines      []line
	empty      string // text shown instead of lines when none has a point
	// xkind tells the page's readout how to label x: "time" (seconds) or "nines" (log10(1/(1-p))).
	xkind string
	unit  string // of y, for the readout
}

// hline is a horizontal reference line (a limit).
type hline struct {
	v     float64
	label string
	color string
}

const (
	padL = 52.0
	padR = 12.0
	padT = 10.0
	padB = 34.0
)

// points returns the number of drawable points of l.
func (l *line) points() int {
	n := 0
	for _, p := range l.pts {
		if !math.IsNaN(p.y) && !math.IsInf(p.y, 0) {
			n++
		}
	}
	return n
}

// yDomain fills ymin and ymax from the data when they are not set.
func (p *plot) yDomain() {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, l := range p.lines {
		for _, q := range l.pts {
			if math.IsNaN(q.y) || math.IsInf(q.y, 0) || (p.ylog && q.y <= 0) {
				continue
			}
			lo, hi = math.Min(lo, q.y), math.Max(hi, q.y)
		}
	}
	for _, h := range p.hlines {
		if !p.ylog || h.v > 0 {
			lo, hi = math.Min(lo, h.v), math.Max(hi, h.v)
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0, 1
		if p.ylog {
			lo, hi = 0.1, 10
		}
	}
	if p.ylog {
		if p.ymin <= 0 {
			p.ymin = math.Pow(10, math.Floor(math.Log10(lo)))
		}
		if p.ymax <= 0 {
			p.ymax = math.Pow(10, math.Ceil(math.Log10(hi)))
		}
		if p.ymax <= p.ymin {
			p.ymax = p.ymin * 10
		}
		return
	}
	if p.ymax <= p.ymin {
		step := niceStep(math.Max(hi, 1e-9) / 4)
		p.ymax = math.Ceil(hi*1.04/step) * step
		if p.ymax <= p.ymin {
			p.ymax = p.ymin + 1
		}
	}
}

// svg renders the plot.
func (p *plot) svg() template.HTML {
	p.yDomain()
	if p.xmax <= p.xmin {
		p.xmax = p.xmin + 1
	}
	if p.xfmt == nil {
		p.xfmt = fmtNum
	}
	if p.yfmt == nil {
		p.yfmt = fmtNum
	}
	x0, x1 := padL, p.w-padR
	y0, y1 := p.h-padB, padT
	sx := func(v float64) float64 { return x0 + (v-p.xmin)/(p.xmax-p.xmin)*(x1-x0) }
	var sy func(v float64) float64
	if p.ylog {
		a, b := math.Log10(p.ymin), math.Log10(p.ymax)
		sy = func(v float64) float64 {
			v = math.Max(v, p.ymin)
			return y0 + (math.Log10(v)-a)/(b-a)*(y1-y0)
		}
	} else {
		sy = func(v float64) float64 { return y0 + (v-p.ymin)/(p.ymax-p.ymin)*(y1-y0) }
	}

	var b strings.Builder
	f := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	f(`<svg class="plot" viewBox="0 0 %s %s" preserveAspectRatio="xMidYMid meet" role="img" aria-label="%s" data-chart="%s" data-px="%s,%s" data-py="%s,%s" data-dx="%s,%s" data-xkind="%s" data-unit="%s">`,
		n1(p.w), n1(p.h), esc(p.title), esc(p.id), n1(x0), n1(x1), n1(y1), n1(y0), g5(p.xmin), g5(p.xmax), esc(p.xkind), esc(p.unit))
	f(`<rect class="area" x="%s" y="%s" width="%s" height="%s"/>`, n1(x0), n1(y1), n1(x1-x0), n1(y0-y1))
	for _, bd := range p.bands {
		a, c := math.Max(bd.from, p.xmin), math.Min(bd.to, p.xmax)
		if c <= a {
			continue
		}
		f(`<rect class="band %s" x="%s" y="%s" width="%s" height="%s"><title>%s</title></rect>`,
			esc(bd.class), n1(sx(a)), n1(y1), n1(sx(c)-sx(a)), n1(y0-y1), esc(bd.label))
		if sx(c)-sx(a) > 36 {
			f(`<text class="band-label" x="%s" y="%s">%s</text>`, n1((sx(a)+sx(c))/2), n1(y1+11), esc(bd.label))
		}
	}
	// Grid and y ticks.
	for _, t := range p.yTicks() {
		y := sy(t.v)
		cls := "grid"
		if t.label == "" {
			cls = "grid minor"
		}
		f(`<line class="%s" x1="%s" x2="%s" y1="%s" y2="%s"/>`, cls, n1(x0), n1(x1), n1(y), n1(y))
		if t.label != "" {
			f(`<text class="ytick" x="%s" y="%s">%s</text>`, n1(x0-5), n1(y+3.5), esc(t.label))
		}
	}
	xt := p.xticks
	if xt == nil {
		for _, v := range linearTicks(p.xmin, p.xmax, int(math.Max(3, (x1-x0)/90))) {
			xt = append(xt, tick{v, p.xfmt(v)})
		}
	}
	for _, t := range xt {
		if t.v < p.xmin-1e-9 || t.v > p.xmax+1e-9 {
			continue
		}
		x := sx(t.v)
		f(`<line class="grid" x1="%s" x2="%s" y1="%s" y2="%s"/>`, n1(x), n1(x), n1(y0), n1(y1))
		f(`<text class="xtick" x="%s" y="%s">%s</text>`, n1(x), n1(y0+14), esc(t.label))
	}
	for _, v := range p.vlines {
		if v.v <= p.xmin || v.v >= p.xmax {
			continue
		}
		f(`<line class="vmark" x1="%s" x2="%s" y1="%s" y2="%s"><title>%s</title></line>`, n1(sx(v.v)), n1(sx(v.v)), n1(y0), n1(y1), esc(v.label))
	}
	for _, h := range p.hlines {
		if h.v < p.ymin || h.v > p.ymax {
			continue
		}
		y := sy(h.v)
		f(`<line class="hmark" x1="%s" x2="%s" y1="%s" y2="%s" style="stroke:%s"/>`, n1(x0), n1(x1), n1(y), n1(y), esc(h.color))
		f(`<text class="hmark-label" x="%s" y="%s" style="fill:%s">%s</text>`, n1(x1-4), n1(y-4), esc(h.color), esc(h.label))
	}
	f(`<line class="axis" x1="%s" x2="%s" y1="%s" y2="%s"/>`, n1(x0), n1(x1), n1(y0), n1(y0))
	f(`<line class="axis" x1="%s" x2="%s" y1="%s" y2="%s"/>`, n1(x0), n1(x0), n1(y0), n1(y1))
	if p.xTitle != "" {
		f(`<text class="axis-title" x="%s" y="%s">%s</text>`, n1((x0+x1)/2), n1(p.h-4), esc(p.xTitle))
	}
	if p.yTitle != "" {
		f(`<text class="axis-title" transform="translate(11 %s) rotate(-90)">%s</text>`, n1((y0+y1)/2), esc(p.yTitle))
	}

	drawn := 0
	f(`<g class="lines">`)
	for _, l := range p.lines {
		n := l.points()
		if n == 0 {
			continue
		}
		drawn++
		w := l.width
		if w == 0 {
			w = 1.6
		}
		var d, xs, ys strings.Builder
		pen := false
		for _, q := range l.pts {
			if math.IsNaN(q.y) || math.IsInf(q.y, 0) {
				pen = false
				continue
			}
			if xs.Len() > 0 {
				xs.WriteByte(',')
				ys.WriteByte(',')
			}
			xs.WriteString(g5(q.x))
			ys.WriteString(g5(q.y))
			if pen {
				d.WriteByte('L')
			} else {
				d.WriteByte('M')
			}
			d.WriteString(n1(sx(q.x)))
			d.WriteByte(' ')
			d.WriteString(n1(sy(q.y)))
			pen = true
		}
		dash := ""
		if l.dash != "" {
			dash = `;stroke-dasharray:` + l.dash
		}
		f(`<path class="line" data-series="%s" data-points="%d" data-x="%s" data-y="%s" style="stroke:%s;stroke-width:%s%s" d="%s"><title>%s</title></path>`,
			esc(l.series), n, xs.String(), ys.String(), esc(l.color), n1(w), dash, d.String(), esc(l.label))
		// A point between two gaps draws no segment: mark it with a dot.
		ok := func(i int) bool {
			return i >= 0 && i < len(l.pts) && !math.IsNaN(l.pts[i].y) && !math.IsInf(l.pts[i].y, 0)
		}
		for i, q := range l.pts {
			if ok(i) && (l.dots || !ok(i-1) && !ok(i+1)) {
				f(`<circle class="dot" cx="%s" cy="%s" r="%s" style="fill:%s"/>`, n1(sx(q.x)), n1(sy(q.y)), n1(math.Max(w, 1.6)*1.3), esc(l.color))
			}
		}
	}
	f(`</g>`)
	if drawn == 0 {
		msg := p.empty
		if msg == "" {
			msg = "no data"
		}
		f(`<text class="empty" data-empty="true" x="%s" y="%s">%s</text>`, n1((x0+x1)/2), n1((y0+y1)/2), esc(msg))
	}
	f(`</svg>`)
	return template.HTML(b.String())
}

// yTicks returns the y axis ticks: decades (with 2 and 5 when there are few) on a log axis, nice
// steps on a linear one.
func (p *plot) yTicks() []tick {
	if !p.ylog {
		var ts []tick
		for _, v := range linearTicks(p.ymin, p.ymax, int(math.Max(2, (p.h-padT-padB)/40))) {
			ts = append(ts, tick{v, p.yfmt(v)})
		}
		return ts
	}
	a, b := int(math.Floor(math.Log10(p.ymin)+1e-9)), int(math.Ceil(math.Log10(p.ymax)-1e-9))
	var ts []tick
	few := b-a <= 2
	for e := a; e <= b; e++ {
		d := math.Pow(10, float64(e))
		ts = append(ts, tick{d, p.yfmt(d)})
		if e == b {
			break
		}
		for _, m := range []float64{2, 5} {
			lbl := ""
			if few {
				lbl = p.yfmt(m * d)
			}
			ts = append(ts, tick{m * d, lbl})
		}
	}
	return ts
}

// linearTicks returns about n nice values (1, 2 or 5 times a power of ten apart) within [lo, hi].
func linearTicks(lo, hi float64, n int) []float64 {
	if hi <= lo || n < 1 {
		return []float64{lo}
	}
	step := niceStep((hi - lo) / float64(n))
	var out []float64
	for v := math.Ceil(lo/step-1e-9) * step; v <= hi+step*1e-9; v += step {
		out = append(out, math.Round(v/step)*step)
	}
	return out
}

// niceStep rounds a raw step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// timeTicks labels a time axis in seconds (minutes or hours for long runs).
func timeTicks(lo, hi float64, n int) []tick {
	steps := []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 21600, 43200, 86400}
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || hi < lo {
		return nil
	}
	raw := (hi - lo) / float64(max(n, 1))
	step := steps[len(steps)-1]
	for _, s := range steps {
		if s >= raw {
			step = s
			break
		}
	}
	if raw > step { // beyond a day a tick: whole days, a power of ten of them, so ticks stay about n
		step *= math.Pow(10, math.Ceil(math.Log10(raw/step)))
	}
	var ts []tick
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9; v += step {
		ts = append(ts, tick{v, fmtSeconds(v, step)})
	}
	return ts
}

func fmtSeconds(v, step float64) string {
	switch {
	case step >= 3600:
		return strconv.FormatFloat(v/3600, 'f', -1, 64) + "h"
	case step >= 60:
		return strconv.FormatFloat(v/60, 'f', -1, 64) + "m"
	}
	return strconv.FormatFloat(v, 'f', -1, 64) + "s"
}

// fmtNum formats an axis value compactly: 0.005, 12, 1.5k, 2M.
func fmtNum(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 1e9:
		return trim(v/1e9) + "G"
	case a >= 1e6:
		return trim(v/1e6) + "M"
	case a >= 1e4:
		return trim(v/1e3) + "k"
	}
	return trim(v)
}

func trim(v float64) string {
	s := strconv.FormatFloat(v, 'f', 4, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// fmtMs formats a latency axis value in milliseconds, switching to seconds from 1 s.
func fmtMs(v float64) string {
	if v >= 1000 {
		return trim(v/1000) + " s"
	}
	return trim(v)
}

// g5 formats a data value with 5 significant digits (for the page's readout and for tools).
func g5(v float64) string { return strconv.FormatFloat(v, 'g', 5, 64) }

// n1 formats a coordinate with one decimal.
func n1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func esc(s string) string { return template.HTMLEscapeString(s) }
