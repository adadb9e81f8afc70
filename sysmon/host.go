package sysmon

import (
	"bytes"
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
	"github.com/shirou/gopsutil/v4/disk"
	"github.com/shirou/gopsutil/v4/mem"
	"github.com/shirou/gopsutil/v4/net"
)

// maxDevices bounds the disks and network interfaces sampled (a line stays small on big hosts).
const maxDevices = 32

// hostReading is the host's counters at one instant (gopsutil reads /proc on Linux; tests point it
// at fixed files through common.EnvKey in the context).
type hostReading struct {
	at   time.Time
	cpus []cpu.TimesStat
	// runq and blocked are procs_running and procs_blocked of /proc/stat (Linux only).
	runq, blocked float64
	statOK        bool
	mem           *mem.VirtualMemoryStat
	swap          *mem.SwapMemoryStat
	disks         map[string]disk.IOCountersStat
	nets          []net.IOCountersStat
}

type hostSource struct {
	disks []string // whole disks to sample (nil: every device gopsutil reports but loop and ram)
	prev  *hostReading
}

func newHostSource(ctx context.Context) *hostSource {
	return &hostSource{disks: wholeDisks(envPath(ctx, common.HostSysEnvKey, "/sys"))}
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
	if runtime.GOOS == "linux" {
		if r.runq, r.blocked, err = procsRunning(filepath.Join(envPath(ctx, common.HostProcEnvKey, "/proc"), "stat")); err != nil {
			errs = append(errs, fmt.Errorf("run queue: %w", err))
		} else {
			r.statOK = true
		}
	}
	if r.mem, err = mem.VirtualMemoryWithContext(ctx); err != nil {
		errs = append(errs, fmt.Errorf("memory: %w", err))
	}
	if r.swap, err = mem.SwapMemoryWithContext(ctx); err != nil {
		errs = append(errs, fmt.Errorf("swap: %w", err))
	}
	if r.disks, err = disk.IOCountersWithContext(ctx, h.disks...); err != nil {
		errs = append(errs, fmt.Errorf("disks: %w", err))
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
		v["host.runq"] = cur.runq
		v["host.procs_blocked"] = cur.blocked
	}
	if m := cur.mem; m != nil {
		v["host.mem.used_bytes"] = float64(m.Total - min(m.Available, m.Total))
		v["host.mem.available_bytes"] = float64(m.Available)
		v["host.swap.used_bytes"] = float64(m.SwapTotal - min(m.SwapFree, m.SwapTotal))
	}
	if prev == nil {
		return
	}
	dt := cur.at.Sub(prev.at).Seconds()
	if dt <= 0 {
		return
	}
	cpuSeries(prev.cpus, cur.cpus, v)
	if p, c := prev.swap, cur.swap; p != nil && c != nil && c.Sin >= p.Sin && c.Sout >= p.Sout {
		v["host.swap.in_bytes_per_s"] = float64(c.Sin-p.Sin) / dt
		v["host.swap.out_bytes_per_s"] = float64(c.Sout-p.Sout) / dt
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
	for i, c := range cur.nets {
		p, ok := prevNet[c.Name]
		if !ok || i >= maxDevices || c.BytesRecv < p.BytesRecv || c.BytesSent < p.BytesSent {
			continue
		}
		if c.BytesRecv == 0 && c.BytesSent == 0 { // never used (a down or dummy interface)
			continue
		}
		v["net."+c.Name+".rx_bytes_per_s"] = float64(c.BytesRecv-p.BytesRecv) / dt
		v["net."+c.Name+".tx_bytes_per_s"] = float64(c.BytesSent-p.BytesSent) / dt
	}
}

// cpuSeries computes busy and per-state shares of CPU time between two readings of the per-core
// times. A core's total is user+nice+system+idle+iowait+irq+softirq+steal (guest time is already
// inside user on Linux); busy is total - idle - iowait. Worked example: a core that spent 0.6 s
// user, 0.1 s system and 0.3 s idle in a second is 70% busy.
func cpuSeries(prev, cur []cpu.TimesStat, v map[string]float64) {
	byName := make(map[string]cpu.TimesStat, len(prev))
	for _, t := range prev {
		byName[t.CPU] = t
	}
	var sum, busy, user, system, iowait, steal float64
	for _, c := range cur {
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
		sum += total
		busy += b
		user += d.User + d.Nice
		system += d.System + d.Irq + d.Softirq
		iowait += d.Iowait
		steal += d.Steal
	}
	if sum > 0 {
		v["host.cpu.busy_pct"] = clampPct(100 * busy / sum)
		v["host.cpu.user_pct"] = clampPct(100 * user / sum)
		v["host.cpu.system_pct"] = clampPct(100 * system / sum)
		v["host.cpu.iowait_pct"] = clampPct(100 * iowait / sum)
		v["host.cpu.steal_pct"] = clampPct(100 * steal / sum)
	}
}

// diskSeries computes a disk's figures between two readings of /proc/diskstats, like iostat -x:
// utilisation is the share of the interval the device had I/O in flight (io_ticks, ms); await is
// the mean time an I/O completed in the interval took, queued and served (read+write ticks over
// reads+writes); queue is the mean number of I/Os in flight (weighted io_ticks over the interval).
// Worked example: over 1 s, io_ticks +250, 100 I/Os completing with 800 ms of ticks and 900 ms
// weighted give util 25%, await 8 ms, queue 0.9.
func diskSeries(name string, p, c disk.IOCountersStat, dt float64, v map[string]float64) {
	if c.IoTime < p.IoTime || c.ReadCount < p.ReadCount || c.WriteCount < p.WriteCount ||
		c.ReadTime < p.ReadTime || c.WriteTime < p.WriteTime || c.WeightedIO < p.WeightedIO ||
		c.ReadBytes < p.ReadBytes || c.WriteBytes < p.WriteBytes {
		return
	}
	ms := dt * 1000
	ios := float64((c.ReadCount - p.ReadCount) + (c.WriteCount - p.WriteCount))
	pre := "disk." + name + "."
	v[pre+"util_pct"] = clampPct(100 * float64(c.IoTime-p.IoTime) / ms)
	v[pre+"await_ms"] = 0
	if ios > 0 {
		v[pre+"await_ms"] = float64((c.ReadTime-p.ReadTime)+(c.WriteTime-p.WriteTime)) / ios
	}
	v[pre+"queue"] = float64(c.WeightedIO-p.WeightedIO) / ms
	v[pre+"iops"] = ios / dt
	v[pre+"read_bytes_per_s"] = float64(c.ReadBytes-p.ReadBytes) / dt
	v[pre+"write_bytes_per_s"] = float64(c.WriteBytes-p.WriteBytes) / dt
}

func clampPct(x float64) float64 { return max(0, min(100, x)) }

// procsRunning reads procs_running and procs_blocked from a /proc/stat file: the tasks runnable
// now (the run queue, this reader included) and those in uninterruptible sleep (mostly I/O).
func procsRunning(path string) (running, blocked float64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	found := 0
	for line := range bytes.Lines(b) {
		f := strings.Fields(string(line))
		if len(f) != 2 || (f[0] != "procs_running" && f[0] != "procs_blocked") {
			continue
		}
		n, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %s is %q", path, f[0], f[1])
		}
		if f[0] == "procs_running" {
			running = n
		} else {
			blocked = n
		}
		found++
	}
	if found < 2 {
		return 0, 0, fmt.Errorf("%s has no procs_running and procs_blocked lines", path)
	}
	return running, blocked, nil
}

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
