package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/candor-bench/candor/sysinfo"
)

func metalSystem() *sysinfo.System {
	irq := []sysinfo.IRQ{{N: 120, Name: "nvme0q0", CPUs: "0-3"}, {N: 121, Name: "nvme0q1", CPUs: "0", Effective: "0"}}
	return &sysinfo.System{
		Host: "the database's and the driver's", Kernel: "6.8.0", Virtualization: "none seen (no hypervisor flag in /proc/cpuinfo; DMI Dell Inc. PowerEdge R650)",
		Storage: []sysinfo.Placement{
			{Role: "data", Path: "/srv/pg/data", Device: "nvme0n1p2", Disk: "nvme0n1", MountPoint: "/srv", FS: "xfs", MountOptions: "rw,noatime"},
			{Role: "wal", Path: "/srv/pg/data/pg_wal", Device: "nvme0n1p2", Disk: "nvme0n1", MountPoint: "/srv", FS: "xfs", MountOptions: "rw,noatime"},
			{Role: "tablespace cold", Path: "/cold", Device: "sda", Disk: "sda", MountPoint: "/cold", FS: "ext4", MountOptions: "rw"},
			{Role: "tablespace tmp", Path: "/tmp/t", Device: "unknown: device 0:45 is not a block device"},
		},
		Devices: []sysinfo.Device{
			{Name: "nvme0n1", Kind: "disk", Model: "Samsung SSD 980 PRO 1TB", Driver: "nvme", Rotational: "no", Scheduler: "bfq", NrRequests: "1023", ReadAheadKB: "128", IRQs: irq},
			{Name: "sda", Kind: "disk", Model: "unknown: no /sys/block/sda/device/model", Driver: "sd", Rotational: "yes", Scheduler: "mq-deadline", NrRequests: "64", ReadAheadKB: "unknown: no /sys/block/sda/queue/read_ahead_kb", IRQsUnknown: "unknown: neither the device nor a parent has msi_irqs or an irq"},
		},
		Memory: sysinfo.Memory{THP: "always", THPDefrag: "madvise", HugePagesTotal: "512", HugePagesFree: "100", HugePageBytes: "2097152",
			SwapTotalBytes: "8589930496", Swappiness: "10", DirtyRatio: "20", DirtyBackground: "10", DirtyBackgroundBytes: "268435456"},
		CPU: sysinfo.CPU{Model: "Xeon", Threads: "4", Cores: "2", SMT: "on", NUMA: []sysinfo.Node{{Node: 0, CPUs: "0-1"}, {Node: 1, CPUs: "2-3"}},
			Governor: "powersave", Driver: "acpi-cpufreq"},
		NICs:       []sysinfo.NIC{{Name: "eno1", IRQs: []sysinfo.IRQ{{N: 130, CPUs: "2"}}}},
		IRQBalance: "running",
	}
}

// TestSystemRows: each file on its device with the device's settings said once, a partition's
// disk named, what is unknown said with its reason; memory, CPU and IRQs in a line each.
func TestSystemRows(t *testing.T) {
	want := []SystemRow{
		{"storage", "data /srv/pg/data on nvme0n1p2 (xfs rw,noatime; nvme0n1: Samsung SSD 980 PRO 1TB, not rotational, scheduler bfq, nr_requests 1023, read-ahead 128.0 KiB); " +
			"wal on the same device; tablespace cold /cold on sda (ext4 rw; sd, rotational, scheduler mq-deadline, nr_requests 64, read-ahead unknown: no /sys/block/sda/queue/read_ahead_kb); " +
			"tablespace tmp /tmp/t: device unknown: device 0:45 is not a block device"},
		{"memory", "THP always (defrag madvise) · huge pages 100 of 512 free, 2.0 MiB each · swap 8.0 GiB · swappiness 10 · dirty_ratio 20, dirty_background_ratio 10, dirty_background_bytes 256.0 MiB"},
		{"cpu", "Xeon · 4 threads on 2 cores, SMT on · NUMA node0 0-1, node1 2-3 · governor powersave (acpi-cpufreq) · none seen (no hypervisor flag in /proc/cpuinfo; DMI Dell Inc. PowerEdge R650)"},
		{"irqs", "nvme0n1 IRQ 120-121 on CPUs 0-3 / 0 (delivered to CPUs 0) · sda IRQs unknown: neither the device nor a parent has msi_irqs or an irq · eno1 IRQ 130 on CPUs 2 · irqbalance running"},
	}
	got := SystemRows(metalSystem())
	if len(got) != len(want) {
		t.Fatalf("rows %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s:\n got %s\nwant %s", want[i].Label, got[i].Value, want[i].Value)
		}
	}
}

// TestSystemInResult: result.json keeps the system and the summary prints it; a result from before
// it (no "system") reads as before and prints no system lines.
func TestSystemInResult(t *testing.T) {
	old := seedResults(t)["kv.json"]
	if bytes.Contains(old, []byte(`"system"`)) {
		t.Fatal("the seed already has a system")
	}
	r, err := Parse(old, "result.json")
	if err != nil {
		t.Fatal(err)
	}
	if r.System != nil {
		t.Fatalf("an old result's system: %+v", r.System)
	}
	var out strings.Builder
	Summary(&out, r)
	if strings.Contains(out.String(), "  storage ") || strings.Contains(out.String(), "  irqs ") {
		t.Errorf("an old result prints system lines:\n%s", out.String())
	}
	r.System = metalSystem()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Parse(b, "result.json")
	if err != nil {
		t.Fatal(err)
	}
	if r2.System == nil || r2.System.Devices[0].Scheduler != "bfq" || r2.System.CPU.NUMA[1].CPUs != "2-3" {
		t.Fatalf("the system after a round trip: %+v", r2.System)
	}
	out.Reset()
	Summary(&out, r2)
	for _, line := range []string{"  storage    data /srv/pg/data on nvme0n1p2 (", "  memory     THP always", "  cpu        Xeon", "  irqs       nvme0n1 IRQ"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("the summary lacks %q:\n%s", line, out.String())
		}
	}
}

// TestStorageLineSameDevice: the files on the first known device's partition are said together
// after it, after an unknown one too.
func TestStorageLineSameDevice(t *testing.T) {
	on := func(role, dev string) sysinfo.Placement {
		return sysinfo.Placement{Role: role, Path: "/" + role, Device: dev, Disk: dev, FS: "ext4", MountOptions: "rw"}
	}
	s := &sysinfo.System{Storage: []sysinfo.Placement{{Role: "data", Device: "unknown: refused"}, on("wal", "vda"), on("redo", "vdb"), on("tablespace t", "vda"), on("tablespace u", "vda")},
		Devices: []sysinfo.Device{{Name: "vda", Kind: "disk", Model: "M", Rotational: "no", Scheduler: "none", NrRequests: "64", ReadAheadKB: "128"}}}
	want := "data: device unknown: refused; wal /wal on vda (ext4 rw; M, not rotational, scheduler none, nr_requests 64, read-ahead 128.0 KiB); tablespace t, tablespace u on the same device; redo /redo on vdb (ext4 rw)"
	if got := storageLine(s); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestStorageLineDeviceMapper: a device-mapper volume's disks beneath it are said with it.
func TestStorageLineDeviceMapper(t *testing.T) {
	s := &sysinfo.System{Storage: []sysinfo.Placement{{Role: "data", Path: "/srv", Device: "dm-0", Disk: "dm-0", FS: "xfs", MountOptions: "rw"}},
		Devices: []sysinfo.Device{
			{Name: "dm-0", Kind: "device-mapper vg-data over nvme0n1p2", Model: "unknown: no model", Driver: "unknown: no driver", Rotational: "no", Scheduler: "none", NrRequests: "256", ReadAheadKB: "4096", Under: []string{"nvme0n1"}},
			{Name: "nvme0n1", Kind: "disk", Model: "SSD", Rotational: "no", Scheduler: "bfq", NrRequests: "1023", ReadAheadKB: "128"}}}
	want := "data /srv on dm-0 (xfs rw; device-mapper vg-data over nvme0n1p2, not rotational, scheduler none, nr_requests 256, read-ahead 4.0 MiB; " +
		"beneath it nvme0n1: SSD, not rotational, scheduler bfq, nr_requests 1023, read-ahead 128.0 KiB)"
	if got := storageLine(s); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestIRQTextManyQueues: a queue per CPU is said by its count and union, not one by one.
func TestIRQTextManyQueues(t *testing.T) {
	var irqs []sysinfo.IRQ
	for c := range 8 {
		irqs = append(irqs, sysinfo.IRQ{N: 200 + c, CPUs: fmt.Sprint(c), Effective: fmt.Sprint(c)})
	}
	irqs = append(irqs, sysinfo.IRQ{N: 199, CPUs: "0-7", Effective: "3"})
	if got, want := irqText("nvme0n1", irqs, ""), "nvme0n1 IRQ 199-207 on 9 CPU sets over 0-7 (delivered to 8 CPU sets over 0-7)"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
