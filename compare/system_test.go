package compare

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/candor-bench/candor/sysinfo"
)

func withSystem(t *testing.T, s *sysinfo.System) map[string]any {
	t.Helper()
	m := map[string]any{"workload": "tpcc"}
	if s != nil {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		m["system"] = v
	}
	return m
}

func system(scheduler, thp, governor, swap, hugeFree string, irq int, effective string) *sysinfo.System {
	return &sysinfo.System{Host: "the database's and the driver's", Kernel: "6.8.0",
		Storage: []sysinfo.Placement{{Role: "data", Path: "/srv/pg", Device: "nvme0n1p2", Disk: "nvme0n1", FS: "xfs", MountOptions: "rw,noatime"}},
		Devices: []sysinfo.Device{{Name: "nvme0n1", Kind: "disk", Model: "SSD", Rotational: "no", Scheduler: scheduler, NrRequests: "1023", ReadAheadKB: "128",
			IRQs: []sysinfo.IRQ{{N: irq, Name: "nvme0q1", CPUs: "0-3", Effective: effective}}}},
		Memory: sysinfo.Memory{THP: thp, THPDefrag: "madvise", HugePagesTotal: "512", HugePagesFree: hugeFree, HugePageBytes: "2097152",
			SwapTotalBytes: swap, Swappiness: "60", DirtyRatio: "20", DirtyBackground: "10"},
		CPU:        sysinfo.CPU{Model: "Xeon", Threads: "4", Cores: "2", SMT: "on", NUMA: []sysinfo.Node{{Node: 0, CPUs: "0-3"}}, Governor: governor},
		IRQBalance: "running"}
}

// TestConditionsSystem: the system's values a reader acts on are listed when they differ (the
// scheduler, THP, the governor, swap as a size); what changes while a host runs (free huge pages,
// IRQ numbers, the CPU an interrupt was last delivered to) is not; a result without a system
// differs in one line.
func TestConditionsSystem(t *testing.T) {
	a := withSystem(t, system("bfq", "always", "powersave", "0", "100", 120, "0"))
	b := withSystem(t, system("none", "madvise", sysinfo.Unknown(sysinfo.NoCPUFreq), "8589934592", "3", 64, "2"))
	want := map[string][2]string{
		"system.devices.nvme0n1.scheduler": {"bfq", "none"},
		"system.memory.thp":                {"always", "madvise"},
		"system.cpu.governor":              {"powersave", "unknown: no cpufreq (a VM usually hides it)"},
		"system.memory.swap_total":         {"0 B", "8.0 GiB"},
	}
	got := Conditions(a, b)
	if len(got) != len(want) {
		t.Fatalf("Conditions = %+v, want %d differences", got, len(want))
	}
	for _, d := range got {
		w, ok := want[d.Name]
		if !ok || d.ShownA != w[0] || d.ShownB != w[1] || d.Minor {
			t.Errorf("%+v, want %q and %q", d, w[0], w[1])
		}
	}
	if d := Conditions(a, a); len(d) != 0 {
		t.Errorf("a run against itself: %+v", d)
	}
	old := withSystem(t, nil)
	if d := Conditions(old, a); len(d) != 1 || d[0].Name != "system" || d[0].A != "(absent)" || d[0].B != "recorded" {
		t.Errorf("an old result against a new one: %+v", d)
	}
	if d := Conditions(old, old); len(d) != 0 {
		t.Errorf("two old results: %+v", d)
	}
	// a tablespace on another device: its storage line and the other device's values
	c := system("bfq", "always", "powersave", "0", "100", 120, "0")
	c.Storage = append(c.Storage, sysinfo.Placement{Role: "tablespace cold", Path: "/cold", Device: "sda", Disk: "sda", FS: "ext4", MountOptions: "rw"})
	c.Devices = append(c.Devices, sysinfo.Device{Name: "sda", Rotational: "yes", Scheduler: "mq-deadline"})
	names := map[string]string{}
	for _, d := range Conditions(a, withSystem(t, c)) {
		names[d.Name] = d.A + " | " + d.B
	}
	if names["system.storage.tablespace cold"] != "(absent) | sda (ext4 rw)" || names["system.devices.sda.scheduler"] != "(absent) | mq-deadline" {
		t.Errorf("a tablespace on another device: %v", names)
	}
}
