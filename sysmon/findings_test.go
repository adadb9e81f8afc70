package sysmon

import (
	"strings"
	"testing"
)

// calm is a sample of a 2-CPU host with no condition: some swap used but none moving, cores busy
// but sharing the interrupts, a disk busy but not queueing.
func calm() map[string]float64 {
	return map[string]float64{
		"host.cpu.busy_pct": 60, "host.cpu0.busy_pct": 95, "host.cpu1.busy_pct": 30,
		"host.irqs_per_s": 30000, "host.cpu0.irqs_per_s": 29000, "host.cpu1.irqs_per_s": 1000,
		"host.device_irqs_per_s": 10000, "host.cpu0.device_irqs_per_s": 7000, "host.cpu1.device_irqs_per_s": 3000,
		"host.cpu0.irq_pct": 12, "host.cpu1.irq_pct": 3,
		"host.swap.used_bytes": 1 << 30, "host.swap.in_bytes_per_s": 0, "host.swap.out_bytes_per_s": 0,
		"disk.vda.util_pct": 99, "disk.vda.queue": 1.2, "disk.vda.await_ms": 0.9,
		"disk.vdb.util_pct": 40, "disk.vdb.queue": 8, "disk.vdb.await_ms": 12,
	}
}

func findingsOf(samples ...map[string]float64) []Finding {
	w := newWatch()
	for i, v := range samples {
		w.add(float64(i+1), v)
	}
	return w.findings()
}

// TestFindingsNeedTheirEvidence: no finding without a sample showing it; each with its figures.
func TestFindingsNeedTheirEvidence(t *testing.T) {
	if fs := findingsOf(calm(), calm(), calm()); len(fs) != 0 {
		t.Fatalf("findings from samples without their evidence: %v", fs)
	}
	if fs := findingsOf(); len(fs) != 0 {
		t.Fatalf("findings from no samples: %v", fs)
	}

	swap := calm()
	swap["host.swap.in_bytes_per_s"] = 8192
	swap["host.swap.out_bytes_per_s"] = 3 << 20
	irq := calm()
	irq["host.cpu0.device_irqs_per_s"], irq["host.cpu1.device_irqs_per_s"] = 9500, 500
	// cpu1 takes most device interrupts but is not busy; cpu0 takes them and is busy but spends
	// little time on them; cpu0 takes them while every core is busy (it is not the limit): none
	// is a finding.
	idle, light, allBusy := calm(), calm(), calm()
	allBusy["host.cpu0.device_irqs_per_s"], allBusy["host.cpu1.device_irqs_per_s"], allBusy["host.cpu1.busy_pct"] = 9500, 500, 99
	idle["host.cpu0.device_irqs_per_s"], idle["host.cpu1.device_irqs_per_s"] = 500, 9500
	light["host.cpu0.device_irqs_per_s"], light["host.cpu1.device_irqs_per_s"], light["host.cpu0.irq_pct"] = 9500, 500, 4
	disk := calm()
	disk["disk.vdb.util_pct"], disk["disk.vdb.queue"], disk["disk.vdb.await_ms"] = 100, 8.5, 31.25

	fs := findingsOf(calm(), swap, idle, irq, disk, disk, light, allBusy)
	want := map[string][]string{
		"SWAP_ACTIVE":       {"1 of the window's 8 samples", "the first at 2 s", "8.0 KiB/s swapped in", "3.0 MiB/s out"},
		"IRQ_CPU_SATURATED": {"cpu0 was more than 90% busy", "1 of the window's 8 samples", "the first at 4 s", "up to 95% busy", "95% of the device interrupts (9500/s), 12% of its time", "cpu1 was as little as 30% busy"},
		"DEVICE_SATURATED":  {"disk vdb", "2 of the window's 8 samples", "the first at 5 s", "up to 100% utilised, 8.5 in flight and 31.2 ms await"},
	}
	if len(fs) != len(want) {
		t.Errorf("findings = %v, want one each of %v", fs, want)
	}
	for _, f := range fs {
		for _, s := range want[f.Code] {
			if !strings.Contains(f.Message, s) {
				t.Errorf("%s says %q, want it to say %q", f.Code, f.Message, s)
			}
		}
		delete(want, f.Code)
	}
	for code := range want {
		t.Errorf("no %s", code)
	}

	// One core takes every interrupt of a one-core host: not a finding (there is no other core).
	one := map[string]float64{"host.cpu0.busy_pct": 100, "host.device_irqs_per_s": 500, "host.cpu0.device_irqs_per_s": 500, "host.cpu0.irq_pct": 50}
	if fs := findingsOf(one); len(fs) != 0 {
		t.Errorf("a one-core host: %v", fs)
	}
}
