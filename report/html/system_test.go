package html_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/report"
	htmlreport "github.com/candor-bench/candor/report/html"
	"github.com/candor-bench/candor/sysinfo"
)

// TestPageSystem: the disclosure has a table of the system under test (storage, memory, cpu, irqs)
// and every value read; a result without a system has neither.
func TestPageSystem(t *testing.T) {
	dir := t.TempDir()
	kvRun(t, dir, 500, nil)
	render := func() string {
		var sb strings.Builder
		if err := htmlreport.Render(&sb, dir); err != nil {
			t.Fatal(err)
		}
		return sb.String()
	}
	if page := render(); strings.Contains(page, "System under test") {
		t.Error("a result without a system shows one")
	}
	path := filepath.Join(dir, report.ResultFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	raw["system"] = sysinfo.System{Host: "the database's and the driver's", Kernel: "6.8.0",
		Storage: []sysinfo.Placement{{Role: "data", Path: "/srv/kv.db", Device: "nvme0n1p1", Disk: "nvme0n1", FS: "xfs", MountOptions: "rw"}},
		Devices: []sysinfo.Device{{Name: "nvme0n1", Kind: "disk", Model: "Samsung SSD", Rotational: "no", Scheduler: "none", NrRequests: "1023", ReadAheadKB: "128"}},
		Memory:  sysinfo.Memory{THP: "never", THPDefrag: "madvise", SwapTotalBytes: "0"},
		CPU:     sysinfo.CPU{Model: "EPYC", Governor: sysinfo.Unknown(sysinfo.NoCPUFreq)}, IRQBalance: "not running"}
	if b, err = json.Marshal(raw); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	page := render()
	for _, want := range []string{
		"<h3>System under test</h3>", "<th>storage</th><td>data /srv/kv.db on nvme0n1p1 (xfs rw; nvme0n1: Samsung SSD, not rotational, scheduler none",
		"<th>memory</th><td>THP never (defrag madvise)", "governor unknown: no cpufreq (a VM usually hides it)", "<th>irqs</th><td>nvme0n1 IRQs unknown · irqbalance not running",
		"<h3>System under test, every value read</h3>", "<th>devices[0].scheduler</th><td>none</td>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(page, "Other recorded fields") {
		t.Error("the system is disclosed as an unknown field")
	}
}
