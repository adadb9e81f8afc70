package run

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/sysmon"
)

// Thresholds of DRIVER_SATURATED: when one is crossed over the measurement window, the driver is
// likely the bottleneck (or shares it), and its latencies include its own delays.
const (
	// DriverCPUSaturated: the driver process's mean CPU, as a share of the cores Go may run on
	// (GOMAXPROCS). Past it, goroutines queue for a thread.
	DriverCPUSaturated = 0.80
	// DriverSchedLatencyMs: the Go scheduler's p99 latency (a runnable goroutine waiting for a
	// thread) over the window. A timer due at t fires that late, so transactions start late.
	DriverSchedLatencyMs = 5.0
	// HostCPUSaturatedPct and DriverShareOfBusy: the host's CPU is saturated and the driver takes a
	// large share of it (it competes with the database for CPU).
	HostCPUSaturatedPct = 90.0
	DriverShareOfBusy   = 1.0 / 3
	// DriverHostShare: the driver alone uses more than half of the host's CPU (what DRIVER_BUSY
	// used to say).
	DriverHostShare = 0.5
	// DriverTimerLagMs: the closed loop's timer lag p99 (the driver dispatching operations late
	// with a connection free; schedule.TimerLag). Issue 10: at most 1 ms, or the run says so.
	DriverTimerLagMs = 1.0
	// CPUStolenPct: the hypervisor's steal (CPU time this virtual machine's cores were ready to run
	// but another guest ran), as a share of the host's CPU time over the window, from which a run
	// says CPU_STOLEN.
	CPUStolenPct = 5.0
)

// conditionWarnings are the disclosure's warnings: DURABILITY_OFF, FITS_IN_MEMORY,
// DRIVER_SATURATED and CPU_STOLEN, each with one plain sentence (design.md, "Hide the conditions").
func conditionWarnings(r *report.Result) []report.Warning {
	var ws []report.Warning
	if reasons := durabilityOff(r.Database.Kind, r.Database.Settings); len(reasons) > 0 {
		ws = append(ws, report.Warning{Code: "DURABILITY_OFF", Message: fmt.Sprintf(
			"durability is off (%s): commits are acknowledged before they are safe from a crash or power loss, so throughput and latencies are better than a durable configuration gives and are not comparable to one",
			strings.Join(reasons, ", "))})
	}
	if msg := fitsInMemory(r); msg != "" {
		ws = append(ws, report.Warning{Code: "FITS_IN_MEMORY", Message: msg})
	}
	if msg := driverSaturated(r); msg != "" {
		ws = append(ws, report.Warning{Code: "DRIVER_SATURATED", Message: msg})
	}
	if msg := cpuStolen(r); msg != "" {
		ws = append(ws, report.Warning{Code: "CPU_STOLEN", Message: msg})
	}
	ws = append(ws, systemWarnings(r)...) // syswarnings.go
	return ws
}

// cpuStolen says how much CPU the hypervisor took from the driver's host over the window, when it
// is CPUStolenPct or more, or "". Steal makes a run slower and noisier than the machine it names,
// and by as much as the neighbours of that moment want: two runs on one virtual machine compare
// only when both had little of it (on this project's own 2-CPU machines it went from 1% to 37%
// from one minute to the next).
func cpuStolen(r *report.Result) string {
	if r.Resources == nil {
		return ""
	}
	st, ok := r.Resources.Series["host.cpu.steal_pct"]
	if !ok || st.N == 0 || st.Mean < CPUStolenPct {
		return ""
	}
	return fmt.Sprintf("the hypervisor took %.1f%% of this host's CPU time over the window (steal; %.0f%% in the worst sample): the virtual machine ran on less CPU than it has, so throughput is lower and latencies longer and noisier than on the same machine without it, and the run compares only with runs of as little steal", st.Mean, st.Max)
}

// durabilityOff lists the settings that make commits not durable.
//
// PostgreSQL: fsync=off (nothing is forced to disk), synchronous_commit=off (a commit returns
// before its WAL is flushed; "local", "remote_write", "remote_apply" and "on" all flush locally),
// full_page_writes=off (a crash can leave torn pages that recovery cannot repair).
//
// MySQL/MariaDB (InnoDB): innodb_flush_log_at_trx_commit=0 or 2 (the redo log is flushed about
// once a second, so the last second of commits can be lost) and innodb_doublewrite=OFF (torn pages).
//
// SQLite (always in WAL mode in candor): synchronous=OFF (nothing is synced) and NORMAL (in WAL
// mode the WAL is synced only at checkpoints, so the last commits before a power loss are lost;
// the database stays consistent) count as off; FULL and EXTRA are durable. journal_mode OFF or
// MEMORY would lose atomicity after a crash, and count as off too.
func durabilityOff(kind string, s map[string]string) []string {
	var out []string
	is := func(k string, vals ...string) bool {
		v := strings.ToLower(strings.TrimSpace(s[k]))
		for _, x := range vals {
			if v == x {
				return true
			}
		}
		return false
	}
	if driver.FamilyOf(kind) == driver.FamilyMySQL {
		kind = driver.FamilyMySQL // MariaDB, TiDB, Dolt: InnoDB's settings where the engine has them
	}
	switch kind {
	case "postgres":
		for _, k := range []string{"fsync", "synchronous_commit", "full_page_writes"} {
			if is(k, "off") {
				out = append(out, k+"=off")
			}
		}
	case "mysql": // innodb_flush_log_at_trx_commit 0 or 2: the redo log is synced once a second, not at commit
		if is("innodb_flush_log_at_trx_commit", "0", "2") {
			out = append(out, "innodb_flush_log_at_trx_commit="+s["innodb_flush_log_at_trx_commit"])
		}
		if is("innodb_doublewrite", "off", "0") { // a crash can leave torn pages
			out = append(out, "innodb_doublewrite=OFF")
		}
	case "sqlite":
		if is("synchronous", "off", "normal", "0", "1") {
			out = append(out, "synchronous="+strings.ToUpper(s["synchronous"])+" in WAL mode")
		}
		if is("journal_mode", "off", "memory") {
			out = append(out, "journal_mode="+strings.ToUpper(s["journal_mode"]))
		}
	}
	return out
}

// fitsInMemory says whether the database is smaller than the memory that can cache it: the
// available memory of its host when it runs on the driver's host (total memory if available is
// unknown), else, for a server elsewhere, the cache it is configured with: PostgreSQL's
// shared_buffers or effective_cache_size, the MySQL family's innodb_buffer_pool_size (the server's
// own memory cannot be seen from the driver's host).
func fitsInMemory(r *report.Result) string {
	size := float64(r.Database.SizeBytes)
	if size <= 0 {
		return ""
	}
	advice := "once warm it is read from memory and disk reads barely count; load more data (more warehouses, records or keys) to measure a database larger than memory"
	if r.Database.OnDriverHost {
		avail, total := float64(r.Driver.MemAvailableBytes), float64(r.Driver.MemTotalBytes)
		switch {
		case avail > 0 && size < avail:
			return fmt.Sprintf("the database (%s) is smaller than the memory available on its host (%s of %s, at the start): %s", iec(size), iec(avail), iec(total), advice)
		case avail <= 0 && total > 0 && size < total:
			return fmt.Sprintf("the database (%s) is smaller than its host's memory (%s): %s", iec(size), iec(total), advice)
		}
		return ""
	}
	if driver.FamilyOf(r.Database.Kind) == driver.FamilyMySQL {
		// innodb_buffer_pool_size is in bytes; the pool holds data and indexes, as the size counts them
		if bp, err := strconv.ParseFloat(r.Database.Settings["innodb_buffer_pool_size"], 64); err == nil && bp > 0 && size <= bp {
			return fmt.Sprintf("the database (%s) fits in the InnoDB buffer pool (%s; the server runs on another host, so its memory was not compared): %s", iec(size), iec(bp), advice)
		}
		return ""
	}
	if r.Database.Kind != "postgres" {
		return ""
	}
	if sb, ok := sysmon.ParseMemSetting(r.Database.Settings["shared_buffers"]); ok && size <= float64(sb) {
		return fmt.Sprintf("the database (%s) fits in PostgreSQL's shared_buffers (%s; the server runs on another host, so its memory was not compared): %s", iec(size), iec(float64(sb)), advice)
	}
	if ecs, ok := sysmon.ParseMemSetting(r.Database.Settings["effective_cache_size"]); ok && size <= float64(ecs) {
		return fmt.Sprintf("the database (%s) is smaller than effective_cache_size (%s), the cache the server is configured to assume (it runs on another host, so its real memory was not compared): it is likely served from memory, and disk reads barely count", iec(size), iec(float64(ecs)))
	}
	return ""
}

// driverSaturated says, with the figures, why the driver is likely the bottleneck, or "".
func driverSaturated(r *report.Result) string {
	// On SQLite the engine runs in the driver's process: its work is the process's, and no other
	// host can take the driver's share.
	who, lead, advice := "the driver process", "the driver is likely a bottleneck: ",
		"; latencies may include the driver's own delays, not only the database's (give it more CPU, or run it on another host)"
	if r.Database.Kind == "sqlite" {
		who, lead = "the driver process (the embedded SQLite included)", "the driver process, the database's own work included, is likely short of CPU: "
		advice = "; latencies include its waits for a CPU, not only the database's own (give the process more CPU, or fewer terminals or a lower rate)"
	}
	cpus := float64(max(1, r.Driver.CPUs))
	cores := float64(r.Driver.GOMAXPROCS)
	if cores <= 0 || cores > cpus {
		cores = cpus
	}
	var reasons []string
	w := r.Driver.Watch
	if w == nil {
		// No samples (a run shorter than a second): the process's CPU time over the run.
		if wall := r.MeasureSeconds + r.WarmupSeconds; wall > 0 {
			if share := r.Driver.CPUSeconds / wall / cpus; share > DriverHostShare {
				reasons = append(reasons, fmt.Sprintf("%s used %.0f%% of this host's CPU", who, 100*share))
			}
		}
	} else {
		if w.CPUPct >= 100*DriverCPUSaturated*cores {
			reasons = append(reasons, fmt.Sprintf("%s used %.0f%% CPU on average, %.0f%% of the %.0f core%s Go may run on", who, w.CPUPct, w.CPUPct/cores, cores, pluralF(cores)))
		} else if share := w.CPUPct / cpus; share > 100*DriverHostShare {
			reasons = append(reasons, fmt.Sprintf("%s used %.0f%% of this host's CPU", who, share))
		}
		if w.SchedLatencyP99Ms >= DriverSchedLatencyMs {
			reasons = append(reasons, fmt.Sprintf("Go's scheduler latency p99 was %.1f ms (runnable goroutines waited that long for a thread, so timers fired late)", w.SchedLatencyP99Ms))
		}
		if w.HostCPUBusyPct >= HostCPUSaturatedPct {
			if share := w.CPUPct / cpus / w.HostCPUBusyPct; share >= DriverShareOfBusy {
				reasons = append(reasons, fmt.Sprintf("the host's CPU was %.0f%% busy and the driver took %.0f%% of that", w.HostCPUBusyPct, 100*share))
			}
		}
	}
	if tl := r.Driver.TimerLagMs; tl != nil && tl.P99 > DriverTimerLagMs {
		reasons = append(reasons, fmt.Sprintf("its timer lag p99 was %.2f ms (max %.2f ms over %d dispatches): operations started that late after their intended starts with a connection free, above the %.0f ms it must stay under", tl.P99, tl.Max, r.Driver.TimerLagCount, DriverTimerLagMs))
	}
	if len(reasons) == 0 {
		return ""
	}
	return lead + strings.Join(reasons, "; ") + advice
}

func pluralF(n float64) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func iec(b float64) string { return report.BytesIEC(b) }
