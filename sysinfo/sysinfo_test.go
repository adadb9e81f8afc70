package sysinfo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fixture is a root over testdata/NAME whose stat answers from devs (path: MAJ:MIN and the
// resolved path, "->" between them when a symbolic link leads elsewhere).
func fixture(t *testing.T, name string, devs map[string]string) Root {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return Root{Dir: dir, Stat: func(path string) (string, string, error) {
		v, ok := devs[path]
		if !ok {
			return "", "", fmt.Errorf("stat %s: no such file or directory", path)
		}
		dev, resolved, link := strings.Cut(v, " -> ")
		if !link {
			resolved = path
		}
		return dev, resolved, nil
	}}
}

func metal(t *testing.T) Root {
	return fixture(t, "metal", map[string]string{
		"/srv/pg/data":        "253:0",
		"/srv/pg/data/pg_wal": "259:2 -> /wal",
		"/var/tmp x/db":       "0:45",
		"/btr/db":             "0:50",
	})
}

func TestStorageMetal(t *testing.T) {
	s := Read(metal(t), []Place{{Role: "data", Path: "/srv/pg/data"}, {Role: "wal", Path: "/srv/pg/data/pg_wal"},
		{Role: "tablespace tmp", Path: "/var/tmp x/db"}, {Role: "tablespace btr", Path: "/btr/db"}, {Role: "missing", Path: "/nowhere"},
		{Role: "refused", Unknown: Unknown("data_directory was refused")}}, true)
	want := []Placement{
		{Role: "data", Path: "/srv/pg/data", Device: "dm-0", Disk: "dm-0", MountPoint: "/srv/pg", FS: "xfs", MountOptions: "rw,noatime", SuperOptions: "rw,attr2,inode64,noquota"},
		// the WAL is a link to /wal, on the root file system's partition of the NVMe disk
		{Role: "wal", Path: "/srv/pg/data/pg_wal", Device: "nvme0n1p2", Disk: "nvme0n1", MountPoint: "/", FS: "ext4", MountOptions: "rw,relatime", SuperOptions: "rw,errors=remount-ro"},
		{Role: "tablespace tmp", Path: "/var/tmp x/db", Device: "unknown: device 0:45 is not a block device (a tmpfs, overlay, network file system or btrfs subvolume has an anonymous one)",
			MountPoint: "/var/tmp x", FS: "tmpfs", MountOptions: "rw,nosuid", SuperOptions: "rw,size=1024k"},
		// btrfs: an anonymous st_dev, the device from the mount's source
		{Role: "tablespace btr", Path: "/btr/db", Device: "nvme0n1p2", Disk: "nvme0n1", MountPoint: "/btr", FS: "btrfs", MountOptions: "rw,relatime",
			SuperOptions: "rw,ssd,space_cache=v2,subvol=/@data", Via: "the mount's source /dev/nvme0n1p2 (st_dev 0:50 is anonymous)"},
		{Role: "missing", Path: "/nowhere", Device: "unknown: stat /nowhere: no such file or directory"},
		{Role: "refused", Device: "unknown: data_directory was refused"},
	}
	if !reflect.DeepEqual(s.Storage, want) {
		t.Errorf("storage:\n got %s\nwant %s", js(s.Storage), js(want))
	}
	if len(s.Devices) != 2 {
		t.Fatalf("devices: %s", js(s.Devices))
	}
	dm, nvme := s.Devices[0], s.Devices[1]
	if dm.Name != "dm-0" || dm.Kind != "device-mapper vg-data over nvme0n1p2" || dm.Scheduler != "none" || dm.Rotational != "no" ||
		dm.NrRequests != "256" || dm.ReadAheadKB != "4096" || dm.Model != "unknown: no /sys/block/dm-0/device/model" || len(dm.IRQs) != 0 ||
		dm.IRQsUnknown != "unknown: a device over others has none: its I/O reaches the disks beneath it" || len(dm.Under) != 1 || dm.Under[0] != "nvme0n1" {
		t.Errorf("dm-0: %s", js(dm))
	}
	wantNVMe := Device{Name: "nvme0n1", Kind: "disk", Model: "Samsung SSD 980 PRO 1TB", Driver: "nvme", Rotational: "no",
		Scheduler: "bfq", NrRequests: "1023", ReadAheadKB: "128", IRQs: []IRQ{
			{N: 120, Name: "nvme0q0", CPUs: "0-3"}, {N: 121, Name: "nvme0q1", CPUs: "0", Effective: "0"}, {N: 122, Name: "nvme0q2", CPUs: "1"}}}
	if !reflect.DeepEqual(nvme, wantNVMe) {
		t.Errorf("nvme0n1:\n got %s\nwant %s", js(nvme), js(wantNVMe))
	}
	wantNIC := []NIC{{Name: "eno1", Driver: "e1000e", IRQs: []IRQ{{N: 130, Name: "eno1", CPUs: "2"}}}}
	if !reflect.DeepEqual(s.NICs, wantNIC) {
		t.Errorf("NICs: %s", js(s.NICs))
	}
	if s.IRQBalance != "running" || s.Kernel != "6.8.0-45-generic" || s.Virtualization != "none seen (no hypervisor flag in /proc/cpuinfo; DMI Dell Inc. PowerEdge R650)" {
		t.Errorf("irqbalance %q, kernel %q, virtualization %q", s.IRQBalance, s.Kernel, s.Virtualization)
	}
}

func TestNotLocal(t *testing.T) {
	s := Read(metal(t), []Place{{Role: "data", Path: "/srv/pg/data"}}, false)
	if len(s.Storage) != 1 || s.Storage[0].Device != "unknown: the database is not on the driver's host" || s.Storage[0].FS != "" || len(s.Devices) != 0 {
		t.Errorf("a remote database's storage: %s", js(s))
	}
	if !strings.Contains(s.Host, "not known to run on it") {
		t.Errorf("host %q", s.Host)
	}
}

func TestMemoryAndCPUMetal(t *testing.T) {
	s := Read(metal(t), nil, true)
	wantMem := Memory{THP: "always", THPDefrag: "madvise", HugePagesTotal: "512", HugePagesFree: "100", HugePageBytes: "2097152",
		SwapTotalBytes: "8589930496", Swappiness: "10", DirtyRatio: "20", DirtyBackground: "10", DirtyBackgroundBytes: "268435456"}
	if s.Memory != wantMem {
		t.Errorf("memory:\n got %s\nwant %s", js(s.Memory), js(wantMem))
	}
	wantCPU := CPU{Model: "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", Threads: "4", Cores: "2", SMT: "on",
		NUMA: []Node{{0, "0-1"}, {1, "2-3"}}, Governor: "powersave", Driver: "acpi-cpufreq"}
	if !reflect.DeepEqual(s.CPU, wantCPU) {
		t.Errorf("cpu:\n got %s\nwant %s", js(s.CPU), js(wantCPU))
	}
}

func TestVM(t *testing.T) {
	s := Read(fixture(t, "vm", map[string]string{"/work/srv/pg/data": "254:0"}), []Place{{Role: "data", Path: "/work/srv/pg/data"}}, true)
	if want := (Placement{Role: "data", Path: "/work/srv/pg/data", Device: "vda", Disk: "vda", MountPoint: "/", FS: "ext4",
		MountOptions: "rw,relatime", SuperOptions: "rw,discard"}); len(s.Storage) != 1 || s.Storage[0] != want {
		t.Errorf("storage: %s", js(s.Storage))
	}
	wantDev := Device{Name: "vda", Kind: "disk", Model: "unknown: no /sys/block/vda/device/model (driver virtio_blk)", Driver: "virtio_blk",
		Rotational: "yes", Scheduler: "mq-deadline", NrRequests: "unknown: no /sys/block/vda/queue/nr_requests", ReadAheadKB: "8192",
		IRQs: []IRQ{{N: 35, Name: "virtio1-config", CPUs: "0-1"}, {N: 36, Name: "virtio1-req.0", CPUs: "0-1", Effective: "1"}}}
	if len(s.Devices) != 1 || !reflect.DeepEqual(s.Devices[0], wantDev) {
		t.Errorf("devices:\n got %s\nwant %s", js(s.Devices), js(wantDev))
	}
	if s.CPU.Governor != "unknown: no cpufreq (a VM usually hides it)" || s.CPU.Driver != "" || s.CPU.SMT != "not supported" ||
		s.CPU.Threads != "2" || s.CPU.Cores != "2" || s.CPU.Model != "AMD EPYC" {
		t.Errorf("cpu: %s", js(s.CPU))
	}
	if s.Memory.THP != "unknown: no /sys/kernel/mm/transparent_hugepage/enabled" || s.Memory.SwapTotalBytes != "0" || s.Memory.DirtyBytes != "" {
		t.Errorf("memory: %s", js(s.Memory))
	}
	if s.Virtualization != "virtual machine (the CPU's hypervisor flag; no DMI identity in /sys/class/dmi/id)" || s.IRQBalance != NoIRQBalance || len(s.NICs) != 0 {
		t.Errorf("virtualization %q, irqbalance %q, NICs %s", s.Virtualization, s.IRQBalance, js(s.NICs))
	}
}

// TestEmptyRoot: a root with nothing in it gives every value as unknown with its reason, nothing
// guessed.
func TestEmptyRoot(t *testing.T) {
	s := Read(Root{Dir: t.TempDir(), Stat: func(string) (string, string, error) { return "254:0", "/d", nil }}, []Place{{Role: "data", Path: "/d"}}, true)
	for name, v := range map[string]string{"kernel": s.Kernel, "virtualization": s.Virtualization, "device": s.Storage[0].Device,
		"fs": s.Storage[0].FS, "thp": s.Memory.THP, "thp_defrag": s.Memory.THPDefrag, "huge pages": s.Memory.HugePagesTotal,
		"swap": s.Memory.SwapTotalBytes, "swappiness": s.Memory.Swappiness, "dirty_ratio": s.Memory.DirtyRatio,
		"model": s.CPU.Model, "threads": s.CPU.Threads, "cores": s.CPU.Cores, "smt": s.CPU.SMT, "numa": s.CPU.NUMAUnknown,
		"irqbalance": s.IRQBalance} {
		if !strings.HasPrefix(v, UnknownPrefix) || len(v) < len(UnknownPrefix)+5 {
			t.Errorf("%s = %q, want unknown with a reason", name, v)
		}
	}
	if s.CPU.Governor != "" || len(s.Devices) != 0 || len(s.NICs) != 0 {
		t.Errorf("an empty root: %s", js(s))
	}
}

// TestMixedGovernors: CPUs with different governors are listed by governor.
func TestMixedGovernors(t *testing.T) {
	dir := t.TempDir()
	put := func(p, v string) {
		f := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("sys/devices/system/cpu/online", "0-5")
	for i, g := range []string{"powersave", "powersave", "performance", "performance", "powersave", ""} {
		put(fmt.Sprintf("sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", i), fmt.Sprint(i))
		if g != "" {
			put(fmt.Sprintf("sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", i), g)
		}
	}
	c := readCPU(Root{Dir: dir})
	if want := "performance on 2-3; powersave on 0-1,4; unknown: no cpufreq on 5"; c.Governor != want {
		t.Errorf("governor %q, want %q", c.Governor, want)
	}
	if c.SMT != "off" || c.Cores != "6" {
		t.Errorf("smt %q, cores %q", c.SMT, c.Cores)
	}
}

// TestHost reads this host: whatever it has, the database's device of a real path is found.
func TestHost(t *testing.T) {
	dir := t.TempDir()
	s := Read(Host(), []Place{{Role: "data", Path: dir}}, true)
	if p := s.Storage[0]; IsUnknown(p.FS) || p.MountPoint == "" {
		t.Errorf("the temporary directory's mount: %s", js(p))
	}
	if IsUnknown(s.Kernel) || IsUnknown(s.CPU.Threads) {
		t.Errorf("host: %s", js(s))
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestIRQBalanceHidden: a /proc that does not show process 1 (hidepid) cannot say irqbalance is not
// running.
func TestIRQBalanceHidden(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "proc", "4242"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "proc", "4242", "comm"), []byte("candor\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := readIRQBalance(Root{Dir: dir}); !strings.HasPrefix(got, "unknown: /proc shows no process 1") {
		t.Errorf("irqbalance %q", got)
	}
}

// TestStorageMD: an md RAID's disks beneath it are read (their partitions' whole disks), with the
// interrupts of their controller.
func TestStorageMD(t *testing.T) {
	r := fixture(t, "metal", map[string]string{"/mirror/db": "9:0"})
	s := Read(r, []Place{{Role: "data", Path: "/mirror/db"}}, true)
	if len(s.Storage) != 1 || s.Storage[0].Device != "md0" || s.Storage[0].FS != "ext4" {
		t.Fatalf("storage %s", js(s.Storage))
	}
	if len(s.Devices) != 3 {
		t.Fatalf("devices %s", js(s.Devices))
	}
	md, sda, sdb := s.Devices[0], s.Devices[1], s.Devices[2]
	if md.Kind != "md raid1 over sda1,sdb1" || strings.Join(md.Under, ",") != "sda,sdb" || md.Rotational != "yes" {
		t.Errorf("md0 %s", js(md))
	}
	if sda.Model != "ST4000NM000A" || sda.Rotational != "yes" || sda.Scheduler != "bfq" || sdb.Rotational != "no" || sdb.Model != "Micron 5300" {
		t.Errorf("sda %s, sdb %s", js(sda), js(sdb))
	}
	if want := []IRQ{{N: 140, Name: "ahci[0000:00:17.0]", CPUs: "0-3"}}; !reflect.DeepEqual(sdb.IRQs, want) {
		t.Errorf("sdb's IRQs %s", js(sdb.IRQs))
	}
}
