package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// ResourcesFile is the per-second resource samples of a run (written by package sysmon; read them
// with sysmon.ReadSamples).
const ResourcesFile = "resources.jsonl"

// Resources summarises the resource samples of a run: per series, the mean and the maximum over
// the samples of the measurement window. The samples themselves are in File (one JSON object a
// line, {"t": seconds since started_at, "v": {series: value}}; see package sysmon).
type Resources struct {
	File          string                `json:"file,omitempty"`
	EverySeconds  float64               `json:"every_seconds"`
	Samples       int                   `json:"samples"`
	WindowSamples int                   `json:"window_samples"`
	Series        map[string]SeriesStat `json:"series"`
	// Errors name the sources that could not be read (a series missing for a while, or for good).
	Errors []string `json:"errors,omitempty"`
	// NotKept are the database's series the engine does not keep (a status counter it lacks, or,
	// on Dolt, has but never counts): absent from the samples, and said to be not kept rather
	// than shown as 0.
	NotKept []string `json:"not_kept,omitempty"`
	// USE is the USE table of the window (use.go), from Series; a result from before it has none
	// (the console builds it from the series it has).
	USE []USERow `json:"use,omitempty"`
}

// SeriesStat is one series over the measurement window (N samples had it).
type SeriesStat struct {
	Mean float64 `json:"mean"`
	Max  float64 `json:"max"`
	N    int     `json:"n"`
}

// DriverWatch is the driver watching itself over the measurement window: its CPU (100 = one core,
// for SQLite the embedded engine included), the Go scheduler's latency (runnable goroutines
// waiting for a thread: timers fire late when it grows) and GC pauses.
type DriverWatch struct {
	CPUPct            float64 `json:"cpu_pct"`
	CPUPctMax         float64 `json:"cpu_pct_max"`
	SchedLatencyP99Ms float64 `json:"sched_latency_p99_ms"`
	GCPauseMaxMs      float64 `json:"gc_pause_max_ms"`
	GCPauseTotalMs    float64 `json:"gc_pause_total_ms"`
	// HostCPUBusyPct is the whole host's CPU busy share (100 = every core), mean over the window.
	HostCPUBusyPct float64 `json:"host_cpu_busy_pct"`
}

// printDisclosure prints the conditions of the run in a few lines: the database's durability and
// memory settings, its size against memory, the driver's host and how busy the driver was, and the
// resources that peaked.
func printDisclosure(w io.Writer, r *Result) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	if len(r.Database.Settings) == 0 && r.Database.SizeBytes == 0 && r.Driver.OS == "" && r.Resources == nil && r.System == nil {
		return // a result from before the disclosure existed
	}
	p("\ndisclosure:\n")
	if s := r.Database.Settings; len(s) > 0 {
		p("  settings   %s\n", settingsLine(r.Database.Kind, s))
	}
	if d := r.Database; d.SizeBytes > 0 {
		where := "on another host (its memory cannot be seen from here)"
		if d.OnDriverHost {
			where = fmt.Sprintf("on this host (%s of memory, %s available at the start)", BytesIEC(float64(r.Driver.MemTotalBytes)), BytesIEC(float64(r.Driver.MemAvailableBytes)))
		}
		p("  data       %s %s\n", BytesIEC(float64(d.SizeBytes)), where)
	}
	if c := r.Database.Client; c != "" {
		p("  client     %s\n", c)
	}
	h := r.Driver
	if h.OS != "" {
		p("  driver     %s · %s · kernel %s · %d CPUs, GOMAXPROCS %d · %s · %s %s\n", h.Hostname, h.OS, h.Kernel, h.CPUs, h.GOMAXPROCS, h.GoVersion, r.Tool.Name, r.Tool.Version)
	}
	for _, row := range SystemRows(r.System) {
		p("  %-10s %s\n", row.Label, row.Value)
	}
	if wt := h.Watch; wt != nil {
		p("  self-watch driver CPU %.0f%% of a core (max %.0f%%) · Go scheduler latency p99 %s ms · GC pauses max %s ms, %s ms in all · host CPU %.0f%% busy\n",
			wt.CPUPct, wt.CPUPctMax, ms(wt.SchedLatencyP99Ms), ms(wt.GCPauseMaxMs), ms(wt.GCPauseTotalMs), wt.HostCPUBusyPct)
	}
	if res := r.Resources; res != nil && len(res.Series) > 0 {
		p("  resources  %s\n", resourcesLine(res))
		if res.File != "" {
			p("             every %g s in %s (%s)\n", res.EverySeconds, res.File, countS(int64(res.Samples), "sample"))
		}
		for _, e := range res.Errors {
			p("             not sampled: %s\n", e)
		}
		use := res.USE
		if use == nil {
			use = USETable(res, h.CPUs)
		}
		printUSE(w, use)
	}
	if res := r.Resources; res != nil && len(res.NotKept) > 0 {
		p("  not kept   %s: %s has no such counter or never counts it\n", notKeptLine(res.NotKept), r.Database.Kind)
	}
}

// settingsLine lists the durability and memory settings, the ones that decide durability first.
func settingsLine(kind string, s map[string]string) string {
	order := []string{"fsync", "synchronous_commit", "full_page_writes", "wal_level", "shared_buffers",
		"effective_cache_size", "default_transaction_isolation", "max_connections", "io_method", "io_workers",
		"effective_io_concurrency", "journal_mode", "synchronous", "cache_size"}
	var parts []string
	seen := map[string]bool{}
	for _, k := range order {
		if v, ok := s[k]; ok {
			parts = append(parts, k+" "+v)
			seen[k] = true
		}
	}
	var rest []string
	for k := range s {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		parts = append(parts, k+" "+s[k])
	}
	return kind + ": " + strings.Join(parts, " · ")
}

// resourcesLine picks the figures that tell saturation at a glance: host CPU and run queue, the
// busiest disk, the database's commit rate and lock waits (PostgreSQL's sessions waiting, MySQL's
// row lock waits per second).
func resourcesLine(res *Resources) string {
	var parts []string
	get := func(k string) (SeriesStat, bool) { st, ok := res.Series[k]; return st, ok && st.N > 0 }
	if st, ok := get("host.cpu.busy_pct"); ok {
		parts = append(parts, fmt.Sprintf("host CPU %.0f%% busy (max %.0f%%)", st.Mean, st.Max))
	}
	if st, ok := get("host.runq"); ok {
		parts = append(parts, fmt.Sprintf("run queue %.1f (max %.0f)", st.Mean, st.Max))
	}
	busiest, util := "", -1.0
	for k, st := range res.Series {
		if strings.HasPrefix(k, "disk.") && strings.HasSuffix(k, ".util_pct") && st.Max > util {
			busiest, util = strings.TrimSuffix(strings.TrimPrefix(k, "disk."), ".util_pct"), st.Max
		}
	}
	if busiest != "" {
		st := res.Series["disk."+busiest+".util_pct"]
		aw := res.Series["disk."+busiest+".await_ms"]
		parts = append(parts, fmt.Sprintf("disk %s %.0f%% utilised (max %.0f%%), await %s ms", busiest, st.Mean, st.Max, ms(aw.Mean)))
	}
	if st, ok := get("host.swap.out_bytes_per_s"); ok && st.Max > 0 {
		parts = append(parts, fmt.Sprintf("swapping out up to %s/s", BytesIEC(st.Max)))
	}
	if st, ok := get("db.commits_per_s"); ok {
		parts = append(parts, fmt.Sprintf("%.0f commits/s", st.Mean))
	}
	if st, ok := get("db.wait.Lock"); ok {
		parts = append(parts, fmt.Sprintf("sessions waiting on locks %.1f (max %.0f)", st.Mean, st.Max))
	}
	if st, ok := get("db.row_lock_waits_per_s"); ok { // MySQL counts the waits, not the sessions waiting
		parts = append(parts, fmt.Sprintf("row lock waits %.1f/s (max %.0f)", st.Mean, st.Max))
	}
	return strings.Join(parts, " · ")
}

// notKeptNames are the database series in words, for the counters an engine does not keep.
var notKeptNames = map[string]string{
	"db.commits_per_s": "commits/s", "db.rollbacks_per_s": "rollbacks/s", "db.row_lock_waits_per_s": "row lock waits/s",
	"db.row_lock_time_ms_per_s": "row lock time", "db.buffer_pool_read_requests_per_s": "buffer pool read requests/s",
	"db.buffer_pool_reads_per_s": "buffer pool reads/s", "db.data_fsyncs_per_s": "data fsyncs/s",
	"db.redo_log_bytes_per_s": "redo log bytes/s", "db.tmp_disk_tables_per_s": "temporary disk tables/s",
	"db.deadlocks": "deadlocks", "db.buffer_pool_dirty_pages": "buffer pool dirty pages",
}

// notKeptLine lists the series an engine does not keep, in words where known.
func notKeptLine(series []string) string {
	ws := make([]string, len(series))
	for i, k := range series {
		ws[i] = k
		if w, ok := notKeptNames[k]; ok {
			ws[i] = w
		}
	}
	return strings.Join(ws, ", ")
}

// BytesIEC formats a byte count with a binary unit: 112.4 MiB, 23.5 GiB, up to EiB.
func BytesIEC(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}
