package sysmon

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/shirou/gopsutil/v4/common"
	"github.com/shirou/gopsutil/v4/disk"
)

// fakeHost writes a /proc and /sys tree with the given /proc/stat, /proc/diskstats and
// /proc/net/dev contents (and a fixed meminfo and vmstat), and returns a context that points
// gopsutil and the host source at it.
func fakeHost(t *testing.T, stat, diskstats, netdev, vmstat string) context.Context {
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
`,
		"sys/block/vda/size":   "1\n",
		"sys/block/loop0/size": "1\n",
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
	//   cpu0: user +60, system +10, idle +30                        -> busy 70 of 100 = 70%
	//   cpu1: user +20, nice +10, iowait +20, steal +10, idle +40   -> busy 40 of 100 = 40%
	//   both: busy 110 of 200 = 55%; user (user+nice) 90 = 45%; system 10 = 5%; iowait 20 = 10%;
	//         steal 10 = 5%.
	stat1 := `cpu  1000 100 500 8000 200 0 0 0 0 0
cpu0 500 50 250 4000 100 0 0 0 0 0
cpu1 500 50 250 4000 100 0 0 0 0 0
intr 1
ctxt 100
procs_running 3
procs_blocked 1
`
	stat2 := `cpu  1080 110 510 8070 220 0 0 10 0 0
cpu0 560 50 260 4030 100 0 0 0 0 0
cpu1 520 60 250 4040 120 0 0 10 0 0
intr 1
ctxt 200
procs_running 7
procs_blocked 2
`
	// diskstats: reads, merged, sectors, read ms, writes, merged, sectors, write ms, in flight,
	// io ms, weighted ms. vda between the snapshots: +40 reads (+300 ms), +60 writes (+500 ms),
	// sectors +2048 read / +4096 written, io_ticks +250, weighted +900, over 1 s ->
	// util 25%, await (300+500)/100 = 8 ms, queue 0.9, 100 iops, 1 MiB/s read, 2 MiB/s written.
	// loop0 changes too but is not a disk.
	disk1 := ` 254       0 vda 1000 0 10000 2000 3000 0 50000 6000 2 5000 9000 0 0 0 0
   7       0 loop0 10 0 10 10 0 0 0 0 0 10 10 0 0 0 0
`
	disk2 := ` 254       0 vda 1040 0 12048 2300 3060 0 54096 6500 4 5250 9900 0 0 0 0
   7       0 loop0 20 0 20 20 0 0 0 0 0 20 20 0 0 0 0
`
	// net: lo +1000 rx / +1000 tx bytes, eth0 +500 rx / +0 tx; dummy0 never used (left out).
	net1 := netHeader + `    lo:    5000      50    0    0    0     0          0         0     5000      50    0    0    0     0       0          0
  eth0:   10000     100    0    0    0     0          0         0     2000      20    0    0    0     0       0          0
dummy0:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0
`
	net2 := netHeader + `    lo:    6000      60    0    0    0     0          0         0     6000      60    0    0    0     0       0          0
  eth0:   10500     105    0    0    0     0          0         0     2000      20    0    0    0     0       0          0
dummy0:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0
`
	// vmstat: +2 pages swapped in, +1 out (4 KiB pages).
	vm1, vm2 := "pswpin 10\npswpout 5\n", "pswpin 12\npswpout 6\n"

	ctx1 := fakeHost(t, stat1, disk1, net1, vm1)
	ctx2 := fakeHost(t, stat2, disk2, net2, vm2)
	h := newHostSource(ctx1)
	if len(h.disks) != 1 || h.disks[0] != "vda" {
		t.Fatalf("disks to sample = %v, want [vda] (loop devices are not disks)", h.disks)
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
		"net.lo.rx_bytes_per_s": 1000, "net.lo.tx_bytes_per_s": 1000,
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
	prev.disks = map[string]disk.IOCountersStat{"sda": {IoTime: 500, ReadCount: 10}}
	cur.disks = map[string]disk.IOCountersStat{"sda": {IoTime: 100, ReadCount: 20}}
	v := map[string]float64{}
	hostSeries(prev, cur, v)
	if len(v) != 0 {
		t.Errorf("series from a counter that went backwards: %v", v)
	}
}

func TestProcsRunningNeedsBothLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "stat")
	os.WriteFile(p, []byte("cpu 1 2 3\nprocs_running 4\n"), 0o644)
	if _, _, err := procsRunning(p); err == nil {
		t.Error("a /proc/stat without procs_blocked was accepted")
	}
	os.WriteFile(p, []byte("procs_running 4\nprocs_blocked 0\n"), 0o644)
	if r, b, err := procsRunning(p); err != nil || r != 4 || b != 0 {
		t.Errorf("procsRunning = %v, %v, %v", r, b, err)
	}
}
