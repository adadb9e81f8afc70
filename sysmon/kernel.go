package sysmon

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// This file reads the kernel's own counters that gopsutil does not (or reads at more cost):
// /proc/diskstats with its flush fields, /proc/interrupts and /proc/softirqs per CPU, /proc/stat's
// context switches and /proc/net/snmp's TCP retransmissions. Each parser takes the file's path
// (under the proc root of envPath) and fails with a sentence naming the file.

// sectorBytes is the unit of /proc/diskstats' sector counts, whatever the device's own sector
// size (the kernel's block layer counts 512-byte sectors).
const sectorBytes = 512

// diskStat is one device's line of /proc/diskstats (Documentation/admin-guide/iostats.rst):
// completed requests, merges, sectors and the milliseconds spent, per direction; requests in
// flight; io_ticks (ms with I/O in flight) and the time-weighted ticks (ms × requests in flight).
// Kernels since 5.5 add flush requests and their time (the 16th and 17th fields after the name);
// hasFlush says the line had them.
type diskStat struct {
	reads, readMerges, readSectors, readMs       uint64
	writes, writeMerges, writeSectors, writeMs   uint64
	inFlight, ioMs, weightedMs, flushes, flushMs uint64
	hasFlush                                     bool
}

// readDiskstats reads /proc/diskstats, keeping the devices keep accepts (every device when keep is
// nil).
func readDiskstats(path string, keep func(string) bool) (map[string]diskStat, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]diskStat{}
	for line := range bytes.Lines(b) {
		f := strings.Fields(string(line))
		if len(f) < 14 {
			continue // not a device line
		}
		name := f[2]
		if keep != nil && !keep(name) {
			continue
		}
		var n [17]uint64
		m := min(len(f)-3, len(n))
		for i := range m {
			if n[i], err = strconv.ParseUint(f[3+i], 10, 64); err != nil {
				return nil, fmt.Errorf("%s: device %s: field %d is %q, not a count", path, name, i+1, f[3+i])
			}
		}
		out[name] = diskStat{reads: n[0], readMerges: n[1], readSectors: n[2], readMs: n[3],
			writes: n[4], writeMerges: n[5], writeSectors: n[6], writeMs: n[7],
			inFlight: n[8], ioMs: n[9], weightedMs: n[10], flushes: n[15], flushMs: n[16], hasFlush: m >= 17}
	}
	return out, nil
}

// lessThan: some counter of d went below p's (a device replaced, a counter reset).
func (d diskStat) lessThan(p diskStat) bool {
	return d.reads < p.reads || d.readMerges < p.readMerges || d.readSectors < p.readSectors || d.readMs < p.readMs ||
		d.writes < p.writes || d.writeMerges < p.writeMerges || d.writeSectors < p.writeSectors || d.writeMs < p.writeMs ||
		d.ioMs < p.ioMs || d.weightedMs < p.weightedMs || (d.hasFlush && p.hasFlush && (d.flushes < p.flushes || d.flushMs < p.flushMs))
}

// perCPU is a /proc/interrupts or /proc/softirqs reading: the CPUs of its header (cpu0, cpu1, ...
// as /proc/stat names them; an offline CPU has no column) and, per row name, a count per CPU.
type perCPU struct {
	cpus []string
	rows map[string][]uint64
}

// readPerCPU reads a table of per-CPU counters whose first line names the CPUs (CPU0 CPU1 ...) and
// whose other lines are "NAME: count count ... [description]". A row with fewer counts than CPUs
// (the x86 ERR and MIS lines of /proc/interrupts) is left out.
func readPerCPU(path string) (perCPU, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return perCPU{}, err
	}
	head, rest, _ := bytes.Cut(b, []byte("\n"))
	t := perCPU{rows: map[string][]uint64{}}
	for _, c := range strings.Fields(string(head)) {
		if !strings.HasPrefix(c, "CPU") {
			return perCPU{}, fmt.Errorf("%s: the first line names %q, not a CPU", path, c)
		}
		t.cpus = append(t.cpus, "cpu"+c[3:])
	}
	if len(t.cpus) == 0 {
		return perCPU{}, fmt.Errorf("%s names no CPU in its first line", path)
	}
	for line := range bytes.Lines(rest) {
		f := strings.Fields(string(line))
		if len(f) < 1+len(t.cpus) || !strings.HasSuffix(f[0], ":") {
			continue
		}
		counts := make([]uint64, len(t.cpus))
		ok := true
		for i := range counts {
			if counts[i], err = strconv.ParseUint(f[1+i], 10, 64); err != nil {
				ok = false
				break
			}
		}
		if ok {
			t.rows[strings.TrimSuffix(f[0], ":")] = counts
		}
	}
	return t, nil
}

// totals sums a table's rows per CPU: every row, or only the numbered ones (the device
// interrupts of /proc/interrupts).
func (t perCPU) totals(numberedOnly bool) map[string]uint64 {
	out := make(map[string]uint64, len(t.cpus))
	for name, counts := range t.rows {
		if numberedOnly {
			if _, err := strconv.ParseUint(name, 10, 64); err != nil {
				continue
			}
		}
		for i, n := range counts {
			out[t.cpus[i]] += n
		}
	}
	return out
}

// procStat is what the host source reads of /proc/stat besides the CPU times gopsutil reads:
// procs_running and procs_blocked (the tasks runnable now, this reader included, and those in
// uninterruptible sleep, mostly I/O) and ctxt (context switches since boot).
type procStat struct {
	running, blocked, ctxt float64
	hasCtxt                bool
}

func readProcStat(path string) (procStat, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return procStat{}, err
	}
	var s procStat
	found := 0
	for line := range bytes.Lines(b) {
		f := strings.Fields(string(line))
		if len(f) != 2 || (f[0] != "procs_running" && f[0] != "procs_blocked" && f[0] != "ctxt") {
			continue
		}
		n, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return procStat{}, fmt.Errorf("%s: %s is %q", path, f[0], f[1])
		}
		switch f[0] {
		case "procs_running":
			s.running = n
			found++
		case "procs_blocked":
			s.blocked = n
			found++
		case "ctxt":
			s.ctxt, s.hasCtxt = n, true
		}
	}
	if found < 2 {
		return procStat{}, fmt.Errorf("%s has no procs_running and procs_blocked lines", path)
	}
	return s, nil
}

// readTCPRetrans reads TCP's RetransSegs and OutSegs from /proc/net/snmp (a header line of names
// and a line of values per protocol).
func readTCPRetrans(path string) (retrans, out float64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	var names []string
	for line := range bytes.Lines(b) {
		f := strings.Fields(string(line))
		if len(f) < 2 || f[0] != "Tcp:" {
			continue
		}
		if names == nil {
			names = f
			continue
		}
		found := 0
		for i := 1; i < len(f) && i < len(names); i++ {
			if names[i] != "RetransSegs" && names[i] != "OutSegs" {
				continue
			}
			x, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return 0, 0, fmt.Errorf("%s: Tcp %s is %q", path, names[i], f[i])
			}
			if names[i] == "RetransSegs" {
				retrans = x
			} else {
				out = x
			}
			found++
		}
		if found < 2 {
			break
		}
		return retrans, out, nil
	}
	return 0, 0, fmt.Errorf("%s has no Tcp RetransSegs and OutSegs", path)
}
