package html

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/sysmon"
)

// runData is everything the report shows, read from a results directory.
type runData struct {
	dir string
	res *report.Result
	// raw holds result.json's top-level fields, so fields this package does not know yet (added
	// by newer versions) are still disclosed.
	raw map[string]json.RawMessage

	t0 time.Time // the run's start: time 0 of every time axis
	// measureFrom and measureTo bound the measurement window, in seconds since t0.
	measureFrom, measureTo float64
	end                    float64 // the time axis' end, in seconds since t0

	intervals []interval // in time order
	ops       []string   // the result's operations in the workload's order, then the log's others
	// totals[op][kind] are the measured totals (the log's measured.* histograms).
	totals  map[string]*[measure.NumKinds]*hdr.Histogram
	logNote string // why the interval log could not be used, when it could not

	samples *resources // nil when the run has no resource samples
	resNote string
}

// interval is one tick of the interval log, reduced to the figures the charts draw: the
// histograms themselves are not kept (each takes about 184 KiB decoded).
type interval struct {
	from, to float64 // seconds since t0
	ops      map[string]*opStat
}

// opStat is one operation's figures in one interval.
type opStat struct {
	count [measure.NumKinds]int64
	// resp and serv are the percentiles of overTimeQ (milliseconds), valid when the kind's count
	// is above zero.
	resp, serv [len(overTimeQ)]float64
}

// overTimeQ are the percentiles kept per interval; 1 stands for the maximum.
var overTimeQ = [...]measure.Quantile{measure.Q50, measure.Q99, measure.Q999, 1}

func (o *opStat) add(k measure.Kind, h *hdr.Histogram) {
	o.count[k] += h.TotalCount()
	var dst *[len(overTimeQ)]float64
	switch k {
	case measure.Response:
		dst = &o.resp
	case measure.Service:
		dst = &o.serv
	default:
		return
	}
	if h.TotalCount() == 0 {
		return
	}
	for i, q := range overTimeQ {
		us := h.Max()
		if q < 1 {
			us = measure.ValueAt(h, q)
		}
		dst[i] = float64(us) / 1000
	}
}

func (iv *interval) get(op string) *opStat { return iv.ops[op] }

// load reads DIR/result.json (required), DIR/latency.hlog and DIR/resources.jsonl (each optional:
// what is missing is said in the report).
func load(dir string) (*runData, error) {
	res, err := report.Read(dir)
	if err != nil {
		return nil, err
	}
	d := &runData{dir: dir, res: res, totals: map[string]*[measure.NumKinds]*hdr.Histogram{}}
	if b, err := os.ReadFile(filepath.Join(dir, report.ResultFile)); err == nil {
		_ = json.Unmarshal(b, &d.raw) // report.Read has already parsed it
	}
	d.t0 = res.StartedAt
	d.measureFrom = res.WarmupSeconds
	d.measureTo = res.WarmupSeconds + res.MeasureSeconds
	d.end = d.measureTo

	if err := d.readLog(filepath.Join(dir, report.LogFile)); err != nil {
		d.logNote = err.Error()
	}
	d.ops = opOrder(res, d.ops)
	r, err := readResources(filepath.Join(dir, sysmon.File))
	switch {
	case errors.Is(err, os.ErrNotExist):
		d.resNote = "no resource samples: this run has no " + sysmon.File
	case err != nil:
		d.resNote = "no resource samples: " + err.Error()
	case len(r.names) == 0:
		d.resNote = "no resource samples: " + sysmon.File + " holds no values"
	default:
		d.samples = r
		if r.last > d.end {
			d.end = r.last
		}
	}
	return d, nil
}

// readLog reads the interval log: per-interval histograms by op and kind, and the measured totals
// (whose span is the exact measurement window).
func (d *runData) readLog(path string) error {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("this run has no %s", report.LogFile)
		}
		return err
	}
	defer f.Close()
	byStart := map[int64]*interval{}
	sec := func(t time.Time) float64 { return t.Sub(d.t0).Seconds() }
	seen := map[string]bool{}
	windowSet := false
	read := 0
	err = measure.ScanLog(bufio.NewReader(f), func(e measure.LogEntry) error {
		read++
		if e.Op == "" || e.Kind < 0 || e.Kind >= measure.NumKinds {
			return nil
		}
		if e.Measured {
			hs := d.totals[e.Op]
			if hs == nil {
				hs = new([measure.NumKinds]*hdr.Histogram)
				d.totals[e.Op] = hs
			}
			hs[e.Kind] = e.Hist
			if !windowSet {
				d.measureFrom, d.measureTo, windowSet = sec(e.Start), sec(e.End), true
			}
			return nil
		}
		if !seen[e.Op] {
			seen[e.Op] = true
			d.ops = append(d.ops, e.Op)
		}
		key := e.Start.UnixMilli()
		iv := byStart[key]
		if iv == nil {
			iv = &interval{from: sec(e.Start), to: sec(e.End), ops: map[string]*opStat{}}
			byStart[key] = iv
		}
		st := iv.ops[e.Op]
		if st == nil {
			st = &opStat{}
			iv.ops[e.Op] = st
		}
		st.add(e.Kind, e.Hist)
		return nil
	})
	if err != nil && read == 0 {
		return err
	}
	for _, iv := range byStart {
		d.intervals = append(d.intervals, *iv)
		d.end = max(d.end, iv.to)
	}
	sort.Slice(d.intervals, func(i, j int) bool { return d.intervals[i].from < d.intervals[j].from })
	if len(d.intervals) == 0 {
		return fmt.Errorf("%s holds no intervals", report.LogFile)
	}
	if err != nil {
		return fmt.Errorf("%s is cut short (%v): the charts show what could be read", report.LogFile, err)
	}
	return nil
}

// opOrder lists the result's operations in the workload's order (report.Result.Ops), then the
// log's other operations in the log's order.
func opOrder(r *report.Result, logOps []string) []string {
	out := r.Ops()
	for _, k := range logOps {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// isOp reports whether op is one of the result's operations (the log may hold others).
func (d *runData) isOp(op string) bool {
	_, ok := d.res.Operations[op]
	return ok
}

// resources are the resource samples, one series per name.
type resources struct {
	names  []string
	series map[string][]pt
	last   float64
	note   string // a problem reading the file (the samples before it are shown)
}

// readResources reads the samples sysmon wrote. A malformed line stops the reading; the samples
// before it are kept and the problem is said on the page.
func readResources(path string) (*resources, error) {
	samples, err := sysmon.ReadSamples(path)
	if err != nil && len(samples) == 0 {
		return nil, err
	}
	r := &resources{series: map[string][]pt{}}
	if err != nil {
		r.note = err.Error()
	}
	for _, s := range samples {
		for name, v := range s.V {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			r.series[name] = append(r.series[name], pt{s.T, v})
		}
		r.last = max(r.last, s.T)
	}
	for name, ps := range r.series {
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].x < ps[j].x })
		r.names = append(r.names, name)
	}
	slices.Sort(r.names)
	return r, nil
}
