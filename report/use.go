package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// USERow is one resource of the USE table (Brendan Gregg's utilisation, saturation, errors) over
// the measurement window, from the resource samples' series: CPU, memory, each disk that did I/O,
// the network. Each figure is the window's mean and peak (the highest sample).
type USERow struct {
	Resource    string      `json:"resource"`
	Utilisation []USEFigure `json:"utilisation,omitempty"`
	Saturation  []USEFigure `json:"saturation,omitempty"`
	Errors      []USEFigure `json:"errors,omitempty"`
	// ErrorsNotKept: the samples keep no error count of this resource (CPU, memory and disk
	// errors are in the kernel's logs, not in its counters).
	ErrorsNotKept bool `json:"errors_not_kept,omitempty"`
}

// USEFigure is one figure of a USE row: what it is, the series it comes from, its unit (as the
// series' suffix says, sysmon.Unit), its mean and peak.
type USEFigure struct {
	What   string  `json:"what"`
	Series string  `json:"series"`
	Unit   string  `json:"unit"`
	Mean   float64 `json:"mean"`
	Peak   float64 `json:"peak"`
}

// USETable builds the USE table from a run's resource series (cpus: the driver's host's CPUs, by
// which the run queue is divided). A figure whose series the run did not sample is left out; a
// resource with none is too.
func USETable(res *Resources, cpus int) []USERow {
	if res == nil || len(res.Series) == 0 {
		return nil
	}
	fig := func(what, series, unit string, scale float64) []USEFigure {
		st, ok := res.Series[series]
		if !ok || st.N == 0 {
			return nil
		}
		return []USEFigure{{What: what, Series: series, Unit: unit, Mean: st.Mean * scale, Peak: st.Max * scale}}
	}
	var out []USERow
	add := func(r USERow) {
		if len(r.Utilisation)+len(r.Saturation)+len(r.Errors) > 0 {
			out = append(out, r)
		}
	}
	// CPU: busy share; the run queue (procs_running, the running included) per CPU: past 1 tasks wait.
	cpu := USERow{Resource: "CPU", ErrorsNotKept: true, Utilisation: fig("busy", "host.cpu.busy_pct", "%", 1)}
	if cpus > 0 {
		cpu.Saturation = fig("run queue/CPU", "host.runq", "", 1/float64(cpus))
	}
	cpu.Saturation = append(cpu.Saturation, fig("irq", "host.cpu.irq_pct", "%", 1)...)
	add(cpu)
	// Memory: used share (used over used + available: the host's total), swapping.
	mem := USERow{Resource: "memory", ErrorsNotKept: true}
	if used, ok := res.Series["host.mem.used_bytes"]; ok && used.N > 0 {
		if avail, ok := res.Series["host.mem.available_bytes"]; ok && used.Mean+avail.Mean > 0 {
			total := used.Mean + avail.Mean
			mem.Utilisation = []USEFigure{{What: "used", Series: "host.mem.used_bytes", Unit: "%", Mean: 100 * used.Mean / total, Peak: 100 * used.Max / total}}
		}
	}
	mem.Saturation = append(fig("swap in", "host.swap.in_bytes_per_s", "bytes/s", 1), fig("out", "host.swap.out_bytes_per_s", "bytes/s", 1)...)
	mem.Saturation = append(mem.Saturation, fig("major faults", "host.pgmajfaults_per_s", "/s", 1)...)
	add(mem)
	// Disks: each that did I/O in the window.
	var disks []string
	for k, st := range res.Series {
		if dev, ok := strings.CutSuffix(k, ".iops"); ok && strings.HasPrefix(dev, "disk.") && st.N > 0 && st.Max > 0 {
			disks = append(disks, strings.TrimPrefix(dev, "disk."))
		}
	}
	sort.Strings(disks)
	for _, d := range disks {
		p := "disk." + d + "."
		row := USERow{Resource: "disk " + d, ErrorsNotKept: true, Utilisation: fig("utilised", p+"util_pct", "%", 1)}
		row.Saturation = append(fig("queue", p+"queue", "", 1), fig("await", p+"await_ms", "ms", 1)...)
		add(row)
	}
	// Network: throughput (the links' speed is not read: not a share), drops and retransmissions,
	// interface errors.
	nw := USERow{Resource: "network"}
	nw.Utilisation = append(fig("rx", "host.net.rx_bytes_per_s", "bytes/s", 1), fig("tx", "host.net.tx_bytes_per_s", "bytes/s", 1)...)
	nw.Saturation = append(fig("drops", "host.net.drops_per_s", "/s", 1), fig("TCP retrans", "host.tcp.retrans_per_s", "/s", 1)...)
	nw.Errors = fig("errors", "host.net.errors_per_s", "/s", 1)
	nw.ErrorsNotKept = nw.Errors == nil
	add(nw)
	return out
}

// printUSE prints the USE table: a line per resource, mean / peak of each figure.
func printUSE(w io.Writer, rows []USERow) {
	if len(rows) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  USE        resource\tutilisation (mean/peak)\tsaturation\terrors\n")
	for _, r := range rows {
		u, s, e := r.Cells()
		fmt.Fprintf(tw, "             %s\t%s\t%s\t%s\n", r.Resource, u, s, e)
	}
	tw.Flush()
}

// Cells formats a row's three figures as the summary prints them: "busy 55/80%", "queue
// 0.90/4.50, await 8.00/21.5 ms", "not kept" ("-" for a figure the run did not sample).
func (r USERow) Cells() (utilisation, saturation, errors string) {
	errors = orDash(useFigures(r.Errors))
	if r.ErrorsNotKept {
		errors = "not kept"
	}
	return orDash(useFigures(r.Utilisation)), orDash(useFigures(r.Saturation)), errors
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func useFigures(fs []USEFigure) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.What + " " + usePair(f.Mean, f.Peak, f.Unit)
	}
	return strings.Join(parts, ", ")
}

// usePair formats a mean and a peak with the unit once: 55/80%, 1.0/2.0 MiB/s, 8.00/21.5 ms.
func usePair(mean, peak float64, unit string) string {
	switch unit {
	case "%":
		return fmt.Sprintf("%.0f/%.0f%%", mean, peak)
	case "bytes/s":
		m, mu := iecParts(mean)
		p, pu := iecParts(peak)
		if mu == pu || mean == 0 {
			return m + "/" + p + " " + pu + "/s"
		}
		return m + " " + mu + "/" + p + " " + pu + "/s"
	case "ms":
		return trimG(mean) + "/" + trimG(peak) + " ms"
	case "/s":
		return trimG(mean) + "/" + trimG(peak) + "/s"
	}
	return trimG(mean) + "/" + trimG(peak)
}

// iecParts splits BytesIEC's "1.0 MiB" into its number and unit.
func iecParts(b float64) (string, string) {
	n, u, _ := strings.Cut(BytesIEC(b), " ")
	return n, u
}

// trimG: a figure with about three significant digits, 0.65, 12.5, 812.
func trimG(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 100 || v <= -100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10 || v <= -10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
