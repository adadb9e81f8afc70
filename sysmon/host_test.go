package sysmon

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shirou/gopsutil/v4/common"
)

// fakeHost writes a /proc and /sys tree with the given /proc/stat, /proc/diskstats and
// /proc/net/dev contents (and a fixed meminfo and vmstat), and returns a context that points
// gopsutil and the host source at it.
func fakeHost(t *testing.T, stat, diskstats, netdev, vmstat string, more ...string) context.Context {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"proc/stat":      stat,
		"proc/diskstats": diskstats,
		"proc/net/dev":   netdev,
		"proc/vmstat":    vmstat,
		"proc/meminfo": `MemTotal:        8000000 kB
MemFree:         1000000 kB
MemAvailable:    6000000 kB
Buffers:          100000 kB
Cached:          3000000 kB
SwapTotal:       2000000 kB
SwapFree:        1500000 kB
AnonHugePages:      4096 kB
HugePages_Total:      10
HugePages_Free:        6
HugePages_Rsvd:        2
HugePages_Surp:        0
Hugepagesize:       2048 kB
`,
		"sys/block/vda/size":   "1\n",
		"sys/block/loop0/size": "1\n",
	}
	for i := 0; i+1 < len(more); i += 2 {
		files[more[i]] = more[i+1]
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return context.WithValue(context.Background(), common.EnvKey, common.EnvMap{
		common.HostProcEnvKey: filepath.Join(root, "proc"),
		common.HostSysEnvKey:  filepath.Join(root, "sys"),
		common.HostRunEnvKey:  filepath.Join(root, "run"),
		common.HostDevEnvKey:  filepath.Join(root, "dev"),
	})
}

const netHeader = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
`

// TestHostSeriesFromFixedProc reads two fixed /proc snapshots one second apart and checks every
// host series against arithmetic done by hand.
func TestHostSeriesFromFixedProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the fixed inputs are Linux /proc files") // the sampler reads the real OS elsewhere
	}
	// CPU times are in clock ticks (USER_HZ = 100 a second). Between the snapshots:
	//   cpu0: user +60, irq +4, softirq +6, idle +30                -> busy 70 of 100 = 70%,
	//         interrupts 10 of 100 = 10% (inside system)
	//   cpu1: user +20, nice +10, iowait +20, steal +10, idle +40   -> busy 40 of 100 = 40%
	//   both: busy 110 of 200 = 55%; user (user+nice) 90 = 45%; system 10 = 5%; iowait 20 = 10%;
	//         steal 10 = 5%; interrupts 10 = 5%.
	stat1 := `cpu  1000 100 500 8000 200 0 0 0 0 0
cpu0 500 50 250 4000 100 0 0 0 0 0
cpu1 500 50 250 4000 100 0 0 0 0 0
intr 1
ctxt 100
procs_running 3
procs_blocked 1
`
	stat2 := `cpu  1080 110 510 8070 220 0 0 10 0 0
cpu0 560 50 250 4030 100 4 6 0 0 0
cpu1 520 60 250 4040 120 0 0 10 0 0
intr 1
ctxt 200
procs_running 7
procs_blocked 2
`
	// diskstats: reads, merged, sectors, read ms, writes, merged, sectors, write ms, in flight,
	// io ms, weighted ms, 4 discard fields, flushes, flush ms. vda between the snapshots: +40
	// reads (+5 merged, +300 ms), +60 writes (+12 merged, +500 ms), sectors +2048 read / +4096
	// written, io_ticks +250, weighted +900, +8 flushes (+20 ms), over 1 s -> util 25%, await
	// (300+500)/100 = 8 ms, r_await 300/40 = 7.5 ms, w_await 500/60 ms, queue 0.9, 100 iops,
	// 1 MiB/s read in 1 MiB/40 requests, 2 MiB/s written in 2 MiB/60 requests, 8 flushes/s of
	// 2.5 ms. vdb is an older kernel's line (no flush fields): no flush series, and no read
	// series when it read nothing. loop0 changes too but is not a disk.
	disk1 := ` 254       0 vda 1000 0 10000 2000 3000 0 50000 6000 2 5000 9000 0 0 0 0 100 400
 254      16 vdb 7 0 8 9 10 0 80 10 0 10 20 0 0 0 0
   7       0 loop0 10 0 10 10 0 0 0 0 0 10 10 0 0 0 0
`
	disk2 := ` 254       0 vda 1040 5 12048 2300 3060 12 54096 6500 4 5250 9900 0 0 0 0 108 420
 254      16 vdb 7 0 8 9 11 0 88 14 0 14 24 0 0 0 0
   7       0 loop0 20 0 20 20 0 0 0 0 0 20 20 0 0 0 0
`
	// interrupts: cpu0 +900 (IRQ 24 +800, LOC +100), cpu1 +100 (LOC); ERR is left out. Only
	// IRQ 24 is a device's.
	irq1 := `           CPU0       CPU1
 24:       1000          0  IO-APIC   5-edge      virtio0
LOC:        500        500   Local timer interrupts
ERR:          3
`
	irq2 := `           CPU0       CPU1
 24:       1800          0  IO-APIC   5-edge      virtio0
LOC:        600        600   Local timer interrupts
ERR:          9
`
	// softirqs: NET_RX +300 on cpu0, +100 on cpu1; TIMER +50 each; RCU +10 on cpu1 (counted in
	// the per-CPU totals, not a kind of its own).
	soft1 := `                    CPU0       CPU1
          HI:          0          0
       TIMER:        100        100
      NET_TX:          1          1
      NET_RX:       1000       1000
       BLOCK:          5          5
       SCHED:          7          7
         RCU:         20         20
`
	soft2 := `                    CPU0       CPU1
          HI:          0          0
       TIMER:        150        150
      NET_TX:          1          1
      NET_RX:       1300       1100
       BLOCK:          5          5
       SCHED:          7          7
         RCU:         20         30
`
	// TCP: +4 segments retransmitted of +1000 sent.
	snmp1 := "Ip: Forwarding\nIp: 1\nTcp: RtoAlgorithm InSegs OutSegs RetransSegs\nTcp: 1 10 5000 40\n"
	snmp2 := "Ip: Forwarding\nIp: 1\nTcp: RtoAlgorithm InSegs OutSegs RetransSegs\nTcp: 1 10 6000 44\n"
	// net: lo +1000 rx / +1000 tx bytes, eth0 +500 rx / +0 tx, +1 rx error, +2 rx and +1 tx
	// drops; dummy0 never used (left out).
	net1 := netHeader + `    lo:    5000      50    0    0    0     0          0         0     5000      50    0    0    0     0       0          0
  eth0:   10000     100    0    0    0     0          0         0     2000      20    0    0    0     0       0          0
dummy0:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0
`
	net2 := netHeader + `    lo:    6000      60    0    0    0     0          0         0     6000      60    0    0    0     0       0          0
  eth0:   10500     105    1    2    0     0          0         0     2000      20    0    1    0     0       0          0
dummy0:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0
`
	// vmstat: +2 pages swapped in, +1 out (4 KiB pages); +700 page faults, 3 of them major.
	vm1, vm2 := "pgfault 1000\npgmajfault 10\npswpin 10\npswpout 5\n", "pgfault 1700\npgmajfault 13\npswpin 12\npswpout 6\n"

	ctx1 := fakeHost(t, stat1, disk1, net1, vm1, "proc/interrupts", irq1, "proc/softirqs", soft1, "proc/net/snmp", snmp1, "sys/block/vdb/size", "1\n")
	ctx2 := fakeHost(t, stat2, disk2, net2, vm2, "proc/interrupts", irq2, "proc/softirqs", soft2, "proc/net/snmp", snmp2, "sys/block/vdb/size", "1\n")
	h := newHostSource(ctx1)
	if len(h.disks) != 2 || h.disks[0] != "vda" || h.disks[1] != "vdb" {
		t.Fatalf("disks to sample = %v, want [vda vdb] (loop devices are not disks)", h.disks)
	}
	t0 := time.Unix(1000, 0)
	v0 := map[string]float64{}
	if err := h.sample(ctx1, t0, v0); err != nil {
		t.Fatalf("first reading: %v", err)
	}
	if _, ok := v0["host.cpu.busy_pct"]; ok {
		t.Error("the baseline reading has rates; it has no previous reading to compute them from")
	}
	v := map[string]float64{}
	if err := h.sample(ctx2, t0.Add(time.Second), v); err != nil {
		t.Fatalf("second reading: %v", err)
	}
	want := map[string]float64{
		"host.cpu.busy_pct": 55, "host.cpu.user_pct": 45, "host.cpu.system_pct": 5,
		"host.cpu.iowait_pct": 10, "host.cpu.steal_pct": 5,
		"host.cpu0.busy_pct": 70, "host.cpu1.busy_pct": 40,
		"host.runq": 7, "host.procs_blocked": 2,
		"host.mem.used_bytes": 2000000 * 1024, "host.mem.available_bytes": 6000000 * 1024,
		"host.swap.used_bytes":     500000 * 1024,
		"host.swap.in_bytes_per_s": 2 * 4096, "host.swap.out_bytes_per_s": 4096,
		"disk.vda.util_pct": 25, "disk.vda.await_ms": 8, "disk.vda.queue": 0.9, "disk.vda.iops": 100,
		"disk.vda.read_bytes_per_s": 1 << 20, "disk.vda.write_bytes_per_s": 2 << 20,
		"disk.vda.reads_per_s": 40, "disk.vda.writes_per_s": 60,
		"disk.vda.read_merges_per_s": 5, "disk.vda.write_merges_per_s": 12,
		"disk.vda.read_size_bytes": (1 << 20) / 40.0, "disk.vda.write_size_bytes": (2 << 20) / 60.0,
		"disk.vda.read_await_ms": 7.5, "disk.vda.write_await_ms": 500 / 60.0,
		"disk.vda.flushes_per_s": 8, "disk.vda.flush_await_ms": 2.5,
		// vdb: one write of 8 sectors taking 4 ms, io_ticks +4, weighted +4; no reads, no flush fields
		"disk.vdb.util_pct": 0.4, "disk.vdb.await_ms": 4, "disk.vdb.queue": 0.004, "disk.vdb.iops": 1,
		"disk.vdb.read_bytes_per_s": 0, "disk.vdb.write_bytes_per_s": 4096,
		"disk.vdb.reads_per_s": 0, "disk.vdb.writes_per_s": 1, "disk.vdb.read_merges_per_s": 0, "disk.vdb.write_merges_per_s": 0,
		"disk.vdb.write_size_bytes": 4096, "disk.vdb.write_await_ms": 4,
		"host.cpu.irq_pct": 5, "host.cpu0.irq_pct": 10, "host.cpu1.irq_pct": 0,
		"host.cpu0.irqs_per_s": 900, "host.cpu1.irqs_per_s": 100, "host.irqs_per_s": 1000,
		"host.cpu0.device_irqs_per_s": 800, "host.cpu1.device_irqs_per_s": 0, "host.device_irqs_per_s": 800,
		"host.cpu0.softirqs_per_s": 350, "host.cpu1.softirqs_per_s": 160, "host.softirqs_per_s": 510,
		"host.softirq.net_rx_per_s": 400, "host.softirq.net_tx_per_s": 0, "host.softirq.block_per_s": 0,
		"host.softirq.timer_per_s": 100, "host.softirq.sched_per_s": 0,
		"host.context_switches_per_s": 100,
		"host.pgfaults_per_s":         700, "host.pgmajfaults_per_s": 3,
		"host.tcp.retrans_per_s": 4, "host.tcp.out_segs_per_s": 1000,
		"host.net.errors_per_s": 1, "host.net.drops_per_s": 3,
		"host.net.rx_bytes_per_s": 1500, "host.net.tx_bytes_per_s": 1000,
		"host.mem.anon_huge_bytes": 4096 * 1024, "host.hugepages.free_bytes": 6 * 2048 * 1024,
		"host.hugepages.rsvd_bytes": 2 * 2048 * 1024,
		"net.lo.rx_bytes_per_s":     1000, "net.lo.tx_bytes_per_s": 1000,
		"net.eth0.rx_bytes_per_s": 500, "net.eth0.tx_bytes_per_s": 0,
	}
	for k, w := range want {
		got, ok := v[k]
		if !ok {
			t.Errorf("%s missing", k)
			continue
		}
		if math.Abs(got-w) > 1e-6*math.Max(1, math.Abs(w)) {
			t.Errorf("%s = %v, want %v", k, got, w)
		}
	}
	for k := range v {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected series %s = %v (loop devices and unused interfaces are left out)", k, v[k])
		}
	}
}

// TestCountersGoingBackwards: a counter reset (a device replaced) gives no rate rather than a
// huge or negative one.
func TestCountersGoingBackwards(t *testing.T) {
	prev := &hostReading{at: time.Unix(0, 0)}
	cur := &hostReading{at: time.Unix(1, 0)}
	prev.disks = map[string]diskStat{"sda": {ioMs: 500, reads: 10}}
	cur.disks = map[string]diskStat{"sda": {ioMs: 100, reads: 20}}
	v := map[string]float64{}
	hostSeries(prev, cur, v)
	if len(v) != 0 {
		t.Errorf("series from a counter that went backwards: %v", v)
	}
}

func TestProcsRunningNeedsBothLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "stat")
	os.WriteFile(p, []byte("cpu 1 2 3\nprocs_running 4\n"), 0o644)
	if _, err := readProcStat(p); err == nil {
		t.Error("a /proc/stat without procs_blocked was accepted")
	}
	os.WriteFile(p, []byte("procs_running 4\nprocs_blocked 0\nctxt 77\n"), 0o644)
	if s, err := readProcStat(p); err != nil || s.running != 4 || s.blocked != 0 || s.ctxt != 77 || !s.hasCtxt {
		t.Errorf("readProcStat = %+v, %v", s, err)
	}
}

// TestServerProcessChecks: a process counts as the server only when its command is the server's and
// it started when the server says it did (a server in another PID namespace has other processes
// at its PIDs here).
func TestServerProcessChecks(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	pid := os.Getpid()
	st, err := readPidStat("/proc", pid)
	if err != nil {
		t.Fatal(err)
	}
	if st.comm != "sysmon.test" || st.ppid != os.Getppid() {
		t.Fatalf("readPidStat(self) = %+v, want comm sysmon.test and parent %d", st, os.Getppid())
	}
	at, err := startedAt("/proc", st)
	if err != nil || time.Since(at) < 0 || time.Since(at) > time.Hour {
		t.Fatalf("this test started at %v (%v)", at, err)
	}
	if err := sameStart("/proc", pid, at, "sysmon.test"); err != nil {
		t.Errorf("the process itself: %v", err)
	}
	if err := sameStart("/proc", pid, at.Add(-time.Minute), "sysmon.test"); err == nil || !strings.Contains(err.Error(), "another server's") {
		t.Errorf("a server that started a minute before this process: %v", err)
	}
	if err := sameStart("/proc", pid, at, "postgres", "postmaster"); err == nil || !strings.Contains(err.Error(), "not the server") {
		t.Errorf("a process that is not postgres: %v", err)
	}
}

// TestInterruptSeriesBounded: on a host of more than maxCPUs cores, the per-core interrupt series
// are those of the maxCPUs cores that took the most in the interval; the totals count every core.
func TestInterruptSeriesBounded(t *testing.T) {
	const cores = maxCPUs + 6
	table := func(scale uint64) perCPU {
		p := perCPU{rows: map[string][]uint64{"30": make([]uint64, cores), "LOC": make([]uint64, cores)}}
		for i := range cores {
			p.cpus = append(p.cpus, "cpu"+strconv.Itoa(i))
			p.rows["30"][i] = scale * uint64(i) // core i takes i device interrupts a second
			p.rows["LOC"][i] = scale
		}
		return p
	}
	prev := &hostReading{at: time.Unix(0, 0), irqs: table(0), softirqs: table(0)}
	cur := &hostReading{at: time.Unix(1, 0), irqs: table(1), softirqs: table(1)}
	v := map[string]float64{}
	shown := irqSeries(prev, cur, 1, v)
	perCore := 0
	for k := range v {
		if strings.HasPrefix(k, "host.cpu") && strings.HasSuffix(k, ".irqs_per_s") {
			perCore++
		}
	}
	if perCore != maxCPUs || len(shown) != maxCPUs {
		t.Errorf("%d cores with an irqs_per_s series (%d shown), want %d", perCore, len(shown), maxCPUs)
	}
	if _, ok := v["host.cpu5.irqs_per_s"]; ok || !shown["cpu6"] || shown["cpu5"] {
		t.Errorf("the cores shown are not the %d that took the most: cpu5 %v, cpu6 %v", maxCPUs, shown["cpu5"], shown["cpu6"])
	}
	// every core: sum of i over 0..cores-1 device interrupts, plus one LOC each
	if want := float64(cores*(cores-1)/2 + cores); v["host.irqs_per_s"] != want || v["host.device_irqs_per_s"] != want-cores {
		t.Errorf("host.irqs_per_s = %v, host.device_irqs_per_s = %v, want %v and %v", v["host.irqs_per_s"], v["host.device_irqs_per_s"], want, want-cores)
	}
}
