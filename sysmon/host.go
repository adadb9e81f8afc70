package sysmon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v4/common"
	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/mem"
	"github.com/shirou/gopsutil/v4/net"
)

// maxDevices bounds the disks and network interfaces sampled (a line stays small on big hosts).
const maxDevices = 32

// maxCPUs bounds the per-CPU interrupt series (host.cpuN.{irqs,softirqs}_per_s, irq_pct): on a
// host with more CPUs, those of the CPUs that took the most interrupts in the interval.
const maxCPUs = 64

// softirqKinds are the softirqs summed over the CPUs into host.softirq.KIND_per_s: network
// receive and transmit, block I/O completions, timers and the scheduler's balancing.
var softirqKinds = []string{"NET_RX", "NET_TX", "BLOCK", "TIMER", "SCHED"}

// hostReading is the host's counters at one instant (gopsutil reads /proc on Linux; tests point it
// at fixed files through common.EnvKey in the context).
type hostReading struct {
	at   time.Time
	cpus []cpu.TimesStat
	// stat is procs_running, procs_blocked and ctxt of /proc/stat (Linux only).
	stat   procStat
	statOK bool
	mem    *mem.VirtualMemoryStat
	swap   *mem.SwapMemoryStat
	disks  map[string]diskStat
	nets   []net.IOCountersStat
	// irqs and softirqs are /proc/interrupts and /proc/softirqs (nil rows when unread).
	irqs, softirqs perCPU
	// retrans and outSegs are TCP's RetransSegs and OutSegs (/proc/net/snmp) when tcpOK.
	retrans, outSegs float64
	tcpOK            bool
}

type hostSource struct {
	disks []string // whole disks to sample (nil: every device of /proc/diskstats but loop and ram)
	prev  *hostReading
	// tap, when set (tests), is called right after /proc/diskstats was read, with the sample's
	// time and the time the reading was over.
	tap func(now, read time.Time)
}

func newHostSource(ctx context.Context) *hostSource {
	return &hostSource{disks: wholeDisks(envPath(ctx, common.HostSysEnvKey, "/sys"))}
}

// keepDisk says whether a device of /proc/diskstats is sampled.
func (h *hostSource) keepDisk(name string) bool {
	if h.disks == nil {
		return !strings.HasPrefix(name, "loop") && !strings.HasPrefix(name, "ram")
	}
	for _, d := range h.disks {
		if d == name {
			return true
		}
	}
	return false
}

func (h *hostSource) name() string { return "host" }
func (h *hostSource) close()       {}

func (h *hostSource) sample(ctx context.Context, now time.Time, v map[string]float64) error {
	cur, err := h.read(ctx, now)
	hostSeries(h.prev, &cur, v)
	h.prev = &cur
	return err
}

func (h *hostSource) read(ctx context.Context, now time.Time) (hostReading, error) {
	r := hostReading{at: now}
	var errs []error
	var err error
	if r.cpus, err = cpu.TimesWithContext(ctx, true); err != nil {
		errs = append(errs, fmt.Errorf("cpu: %w", err))
	}
	proc := envPath(ctx, common.HostProcEnvKey, "/proc")
	if runtime.GOOS == "linux" {
		if r.stat, err = readProcStat(filepath.Join(proc, "stat")); err != nil {
			errs = append(errs, fmt.Errorf("run queue: %w", err))
		} else {
			r.statOK = true
		}
		if r.irqs, err = readPerCPU(filepath.Join(proc, "interrupts")); err != nil {
			errs = append(errs, fmt.Errorf("interrupts: %w", err))
		}
		if r.softirqs, err = readPerCPU(filepath.Join(proc, "softirqs")); err != nil {
			errs = append(errs, fmt.Errorf("softirqs: %w", err))
		}
		if r.disks, err = readDiskstats(filepath.Join(proc, "diskstats"), h.keepDisk); err != nil {
			errs = append(errs, fmt.Errorf("disks: %w", err))
		}
		if h.tap != nil {
			h.tap(now, time.Now())
		}
		if r.retrans, r.outSegs, err = readTCPRetrans(filepath.Join(proc, "net", "snmp")); err != nil {
			errs = append(errs, fmt.Errorf("TCP retransmissions: %w", err))
		} else {
			r.tcpOK = true
		}
	}
	if r.mem, err = mem.VirtualMemoryWithContext(ctx); err != nil {
		errs = append(errs, fmt.Errorf("memory: %w", err))
	}
	if r.swap, err = mem.SwapMemoryWithContext(ctx); err != nil {
		errs = append(errs, fmt.Errorf("swap: %w", err))
	}
	if r.nets, err = net.IOCountersWithContext(ctx, true); err != nil {
		errs = append(errs, fmt.Errorf("network: %w", err))
	}
	return r, errors.Join(errs...)
}

// hostSeries adds the host's series: gauges from cur, rates and utilisations from cur - prev (none
// when prev is nil, or for a counter that went backwards: a device replaced, a counter reset).
func hostSeries(prev, cur *hostReading, v map[string]float64) {
	if cur.statOK {
		v["host.runq"] = cur.stat.running
		v["host.procs_blocked"] = cur.stat.blocked
	}
	if m := cur.mem; m != nil {
		v["host.mem.used_bytes"] = float64(m.Total - min(m.Available, m.Total))
		v["host.mem.available_bytes"] = float64(m.Available)
		v["host.swap.used_bytes"] = float64(m.SwapTotal - min(m.SwapFree, m.SwapTotal))
		// Transparent huge pages backing anonymous memory, and the hugetlbfs pool: free pages and
		// those reserved for mappings not yet faulted in (HugePages_Rsvd), in bytes.
		v["host.mem.anon_huge_bytes"] = float64(m.AnonHugePages)
		v["host.hugepages.free_bytes"] = float64(m.HugePagesFree * m.HugePageSize)
		v["host.hugepages.rsvd_bytes"] = float64(m.HugePagesRsvd * m.HugePageSize)
	}
	if prev == nil {
		return
	}
	dt := cur.at.Sub(prev.at).Seconds()
	if dt <= 0 {
		return
	}
	shown := irqSeries(prev, cur, dt, v)
	cpuSeries(prev.cpus, cur.cpus, shown, v)
	if p, c := prev.swap, cur.swap; p != nil && c != nil && c.Sin >= p.Sin && c.Sout >= p.Sout {
		v["host.swap.in_bytes_per_s"] = float64(c.Sin-p.Sin) / dt
		v["host.swap.out_bytes_per_s"] = float64(c.Sout-p.Sout) / dt
	}
	// gopsutil reads /proc/vmstat's pgfault and pgmajfault into bytes of 4 KiB pages; they are
	// counts of faults.
	if p, c := prev.swap, cur.swap; p != nil && c != nil && c.PgFault >= p.PgFault && c.PgMajFault >= p.PgMajFault && c.PgFault > 0 {
		v["host.pgfaults_per_s"] = float64(c.PgFault-p.PgFault) / 4096 / dt
		v["host.pgmajfaults_per_s"] = float64(c.PgMajFault-p.PgMajFault) / 4096 / dt
	}
	if prev.statOK && cur.statOK && prev.stat.hasCtxt && cur.stat.hasCtxt && cur.stat.ctxt >= prev.stat.ctxt {
		v["host.context_switches_per_s"] = (cur.stat.ctxt - prev.stat.ctxt) / dt
	}
	if prev.tcpOK && cur.tcpOK && cur.retrans >= prev.retrans && cur.outSegs >= prev.outSegs {
		v["host.tcp.retrans_per_s"] = (cur.retrans - prev.retrans) / dt
		v["host.tcp.out_segs_per_s"] = (cur.outSegs - prev.outSegs) / dt
	}
	names := make([]string, 0, len(cur.disks))
	for name := range cur.disks {
		names = append(names, name)
	}
	sort.Strings(names)
	for i, name := range names {
		p, ok := prev.disks[name]
		if ok && i < maxDevices && !strings.HasPrefix(name, "loop") && !strings.HasPrefix(name, "ram") {
			diskSeries(name, p, cur.disks[name], dt, v)
		}
	}
	prevNet := make(map[string]net.IOCountersStat, len(prev.nets))
	for _, n := range prev.nets {
		prevNet[n.Name] = n
	}
	var errs, drops float64
	netOK := false
	for _, c := range cur.nets {
		p, ok := prevNet[c.Name]
		if !ok || c.Errin < p.Errin || c.Errout < p.Errout || c.Dropin < p.Dropin || c.Dropout < p.Dropout {
			continue
		}
		errs += float64((c.Errin - p.Errin) + (c.Errout - p.Errout))
		drops += float64((c.Dropin - p.Dropin) + (c.Dropout - p.Dropout))
		netOK = true
	}
	if netOK {
		v["host.net.errors_per_s"] = errs / dt
		v["host.net.drops_per_s"] = drops / dt
	}
	var rx, tx float64
	for i, c := range cur.nets {
		p, ok := prevNet[c.Name]
		if !ok || c.BytesRecv < p.BytesRecv || c.BytesSent < p.BytesSent {
			continue
		}
		rx += float64(c.BytesRecv - p.BytesRecv)
		tx += float64(c.BytesSent - p.BytesSent)
		if i >= maxDevices || (c.BytesRecv == 0 && c.BytesSent == 0) { // never used: a down or dummy interface
			continue
		}
		v["net."+c.Name+".rx_bytes_per_s"] = float64(c.BytesRecv-p.BytesRecv) / dt
		v["net."+c.Name+".tx_bytes_per_s"] = float64(c.BytesSent-p.BytesSent) / dt
	}
	if netOK {
		v["host.net.rx_bytes_per_s"] = rx / dt
		v["host.net.tx_bytes_per_s"] = tx / dt
	}
}

// irqSeries adds the interrupts and softirqs handled per second, per CPU and in all, and the
// softirqs of softirqKinds summed over the CPUs. Of the interrupts, device_irqs are the numbered
// lines of /proc/interrupts (devices and their MSI vectors), which the host's affinity settings
// steer; the others are the cores' own (local timer, rescheduling and function-call IPIs, TLB
// shootdowns), which follow where work runs. It returns the CPUs whose per-CPU series it wrote:
// every CPU, or on a host of more than maxCPUs those that took the most interrupts and softirqs in
// the interval (nil when neither file was read: then cpuSeries bounds the CPUs itself).
func irqSeries(prev, cur *hostReading, dt float64, v map[string]float64) map[string]bool {
	delta := func(p, c perCPU, devicesOnly bool) map[string]float64 {
		if len(p.rows) == 0 || len(c.rows) == 0 {
			return nil
		}
		pt, ct := p.totals(devicesOnly), c.totals(devicesOnly)
		out := make(map[string]float64, len(ct))
		for cpu, n := range ct {
			if m, ok := pt[cpu]; ok && n >= m {
				out[cpu] = float64(n - m)
			}
		}
		return out
	}
	hard, soft := delta(prev.irqs, cur.irqs, false), delta(prev.softirqs, cur.softirqs, false)
	dev := delta(prev.irqs, cur.irqs, true)
	if hard == nil && soft == nil {
		return nil
	}
	cpus := make([]string, 0, max(len(hard), len(soft)))
	seen := map[string]bool{}
	for _, m := range []map[string]float64{hard, soft} {
		for c := range m {
			if !seen[c] {
				seen[c] = true
				cpus = append(cpus, c)
			}
		}
	}
	sort.Slice(cpus, func(i, j int) bool {
		a, b := hard[cpus[i]]+soft[cpus[i]], hard[cpus[j]]+soft[cpus[j]]
		if a != b {
			return a > b
		}
		return cpuLess(cpus[i], cpus[j])
	})
	shown := map[string]bool{}
	var hardSum, softSum, devSum float64
	for i, c := range cpus {
		hardSum += hard[c]
		softSum += soft[c]
		devSum += dev[c]
		if i >= maxCPUs {
			continue
		}
		shown[c] = true
		if n, ok := hard[c]; ok {
			v["host."+c+".irqs_per_s"] = n / dt
			v["host."+c+".device_irqs_per_s"] = dev[c] / dt
		}
		if n, ok := soft[c]; ok {
			v["host."+c+".softirqs_per_s"] = n / dt
		}
	}
	if hard != nil {
		v["host.irqs_per_s"] = hardSum / dt
		v["host.device_irqs_per_s"] = devSum / dt
	}
	if soft != nil {
		v["host.softirqs_per_s"] = softSum / dt
		for _, k := range softirqKinds {
			p, c := prev.softirqs.rows[k], cur.softirqs.rows[k]
			if p == nil || c == nil || len(p) != len(c) {
				continue
			}
			var d float64
			for i := range c {
				if c[i] >= p[i] {
					d += float64(c[i] - p[i])
				}
			}
			v["host.softirq."+strings.ToLower(k)+"_per_s"] = d / dt
		}
	}
	return shown
}

// cpuLess orders cpu2 before cpu10.
func cpuLess(a, b string) bool {
	x, errA := strconv.Atoi(strings.TrimPrefix(a, "cpu"))
	y, errB := strconv.Atoi(strings.TrimPrefix(b, "cpu"))
	if errA != nil || errB != nil {
		return a < b
	}
	return x < y
}

// cpuSeries computes busy and per-state shares of CPU time between two readings of the per-core
// times. A core's total is user+nice+system+idle+iowait+irq+softirq+steal (guest time is already
// inside user on Linux); busy is total - idle - iowait. Worked example: a core that spent 0.6 s
// user, 0.1 s system and 0.3 s idle in a second is 70% busy. irq_pct is the share spent handling
// interrupts and softirqs (a part of system_pct), per core for the cores shown (nil: the first
// maxCPUs).
func cpuSeries(prev, cur []cpu.TimesStat, shown map[string]bool, v map[string]float64) {
	byName := make(map[string]cpu.TimesStat, len(prev))
	for _, t := range prev {
		byName[t.CPU] = t
	}
	var sum, busy, user, system, iowait, steal, irq float64
	for i, c := range cur {
		p, ok := byName[c.CPU]
		if !ok {
			continue
		}
		d := cpu.TimesStat{
			User: c.User - p.User, Nice: c.Nice - p.Nice, System: c.System - p.System, Idle: c.Idle - p.Idle,
			Iowait: c.Iowait - p.Iowait, Irq: c.Irq - p.Irq, Softirq: c.Softirq - p.Softirq, Steal: c.Steal - p.Steal,
		}
		total := d.User + d.Nice + d.System + d.Idle + d.Iowait + d.Irq + d.Softirq + d.Steal
		if total <= 0 || d.Idle < 0 || d.Iowait < 0 {
			continue
		}
		b := total - d.Idle - d.Iowait
		v["host."+c.CPU+".busy_pct"] = clampPct(100 * b / total)
		if (shown == nil && i < maxCPUs) || shown[c.CPU] {
			v["host."+c.CPU+".irq_pct"] = clampPct(100 * (d.Irq + d.Softirq) / total)
		}
		sum += total
		busy += b
		user += d.User + d.Nice
		system += d.System + d.Irq + d.Softirq
		iowait += d.Iowait
		steal += d.Steal
		irq += d.Irq + d.Softirq
	}
	if sum > 0 {
		v["host.cpu.busy_pct"] = clampPct(100 * busy / sum)
		v["host.cpu.user_pct"] = clampPct(100 * user / sum)
		v["host.cpu.system_pct"] = clampPct(100 * system / sum)
		v["host.cpu.iowait_pct"] = clampPct(100 * iowait / sum)
		v["host.cpu.steal_pct"] = clampPct(100 * steal / sum)
		v["host.cpu.irq_pct"] = clampPct(100 * irq / sum)
	}
}

// diskSeries computes a disk's figures between two readings of /proc/diskstats, as iostat -x does:
// utilisation is the share of the interval the device had I/O in flight (io_ticks, ms); await is
// the mean time an I/O completed in the interval took, queued and served (read+write ticks over
// reads+writes), and per direction (r_await, w_await; only when there were requests of that
// direction); queue is the mean number of I/Os in flight (aqu-sz: weighted io_ticks over the
// interval); a mean request size is the sectors moved over the requests completed (rareq-sz,
// wareq-sz, in bytes); merges are requests merged into others before they reached the device.
// Flushes (cache flushes the device completed, and their mean time) come from kernels since 5.5.
// Worked example: over 1 s, io_ticks +250, 40 reads (+300 ms, +2048 sectors) and 60 writes (+500
// ms, +4096 sectors) with 900 ms weighted give util 25%, await 8 ms, r_await 7.5 ms, w_await 8.33
// ms, queue 0.9, 100 iops, 1 MiB/s read in 26214 B requests, 2 MiB/s written in 34953 B ones.
func diskSeries(name string, p, c diskStat, dt float64, v map[string]float64) {
	if c.lessThan(p) {
		return
	}
	ms := dt * 1000
	reads, writes := float64(c.reads-p.reads), float64(c.writes-p.writes)
	readMs, writeMs := float64(c.readMs-p.readMs), float64(c.writeMs-p.writeMs)
	readBytes, writeBytes := float64(c.readSectors-p.readSectors)*sectorBytes, float64(c.writeSectors-p.writeSectors)*sectorBytes
	ios := reads + writes
	pre := "disk." + name + "."
	v[pre+"util_pct"] = clampPct(100 * float64(c.ioMs-p.ioMs) / ms)
	v[pre+"await_ms"] = 0
	if ios > 0 {
		v[pre+"await_ms"] = (readMs + writeMs) / ios
	}
	v[pre+"queue"] = float64(c.weightedMs-p.weightedMs) / ms
	v[pre+"iops"] = ios / dt
	v[pre+"read_bytes_per_s"] = readBytes / dt
	v[pre+"write_bytes_per_s"] = writeBytes / dt
	v[pre+"reads_per_s"] = reads / dt
	v[pre+"writes_per_s"] = writes / dt
	v[pre+"read_merges_per_s"] = float64(c.readMerges-p.readMerges) / dt
	v[pre+"write_merges_per_s"] = float64(c.writeMerges-p.writeMerges) / dt
	if reads > 0 {
		v[pre+"read_size_bytes"] = readBytes / reads
		v[pre+"read_await_ms"] = readMs / reads
	}
	if writes > 0 {
		v[pre+"write_size_bytes"] = writeBytes / writes
		v[pre+"write_await_ms"] = writeMs / writes
	}
	if c.hasFlush && p.hasFlush {
		flushes := float64(c.flushes - p.flushes)
		v[pre+"flushes_per_s"] = flushes / dt
		if flushes > 0 {
			v[pre+"flush_await_ms"] = float64(c.flushMs-p.flushMs) / flushes
		}
	}
}

func clampPct(x float64) float64 { return max(0, min(100, x)) }

// wholeDisks lists the block devices of SYS/block but loop and RAM devices: whole disks (sda,
// nvme0n1, vda), device-mapper and md volumes, not partitions. Nil when the list cannot be read
// (not Linux): then every device is sampled.
func wholeDisks(sysRoot string) []string {
	ents, err := os.ReadDir(filepath.Join(sysRoot, "block"))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, "loop") || strings.HasPrefix(n, "ram") {
			continue
		}
		out = append(out, n)
	}
	if len(out) > maxDevices {
		out = out[:maxDevices]
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// envPath is the root gopsutil reads for key: from the context (tests), the environment
// (HOST_PROC, HOST_SYS, as gopsutil does), or def.
func envPath(ctx context.Context, key common.EnvKeyType, def string) string {
	if m, ok := ctx.Value(common.EnvKey).(common.EnvMap); ok && m[key] != "" {
		return m[key]
	}
	if p := os.Getenv(string(key)); p != "" {
		return p
	}
	return def
}
