package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestUSETable: each resource's figures from its series, the run queue per CPU, memory's share of
// used + available, only the disks that did I/O; errors "not kept" where no series counts them.
func TestUSETable(t *testing.T) {
	res := &Resources{Series: map[string]SeriesStat{
		"host.cpu.busy_pct": {Mean: 55, Max: 80, N: 10}, "host.runq": {Mean: 3, Max: 8, N: 10},
		"host.cpu.irq_pct":    {Mean: 2, Max: 5, N: 10},
		"host.mem.used_bytes": {Mean: 3 << 30, Max: 4 << 30, N: 10}, "host.mem.available_bytes": {Mean: 5 << 30, Max: 5 << 30, N: 10},
		"host.swap.in_bytes_per_s": {Mean: 0, Max: 0, N: 10}, "host.swap.out_bytes_per_s": {Mean: 1024, Max: 4096, N: 10},
		"disk.vda.util_pct": {Mean: 25, Max: 97, N: 10}, "disk.vda.queue": {Mean: 0.9, Max: 4.5, N: 10},
		"disk.vda.await_ms": {Mean: 8, Max: 21.5, N: 10}, "disk.vda.iops": {Mean: 100, Max: 400, N: 10},
		"disk.zram0.util_pct": {N: 10}, "disk.zram0.iops": {N: 10}, "disk.zram0.queue": {N: 10},
		"host.net.rx_bytes_per_s": {Mean: 1 << 20, Max: 2 << 20, N: 10}, "host.net.tx_bytes_per_s": {Mean: 1 << 19, Max: 1 << 20, N: 10},
		"host.net.drops_per_s": {N: 10}, "host.tcp.retrans_per_s": {Mean: 0.5, Max: 3, N: 10}, "host.net.errors_per_s": {N: 10},
	}}
	rows := USETable(res, 2)
	var out bytes.Buffer
	printUSE(&out, rows)
	text := out.String()
	t.Log("\n" + text)
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	want := []struct{ resource, cells string }{
		{"CPU", "busy 55/80% run queue/CPU 1.50/4.00, irq 2/5% not kept"},
		{"memory", "used 38/50% swap in 0/0 B/s, out 1.0/4.0 KiB/s not kept"},
		{"disk vda", "utilised 25/97% queue 0.90/4.50, await 8.00/21.5 ms not kept"},
		{"network", "rx 1.0/2.0 MiB/s, tx 512.0 KiB/1.0 MiB/s drops 0/0/s, TCP retrans 0.50/3.00/s errors 0/0/s"},
	}
	if len(lines) != 1+len(want) {
		t.Fatalf("%d lines, want a header and %d rows (the idle zram0 left out)", len(lines), len(want))
	}
	for i, w := range want {
		got := strings.Join(strings.Fields(lines[1+i]), " ")
		exp := w.resource + " " + strings.Join(strings.Fields(w.cells), " ")
		if got != exp {
			t.Errorf("row %d = %q, want %q", i, got, exp)
		}
	}
	// result.json keeps the table with the series each figure comes from.
	b, _ := json.Marshal(rows[2])
	if !strings.Contains(string(b), `"series":"disk.vda.queue"`) || !strings.Contains(string(b), `"errors_not_kept":true`) {
		t.Errorf("the disk row in JSON: %s", b)
	}
}

// TestUSEOfAnOldResult: a result from before the table has the older series only; the summary
// builds what it can from them (no interrupts, no network totals) and says nothing it lacks.
func TestUSEOfAnOldResult(t *testing.T) {
	b, err := os.ReadFile("testdata/results/kv.json")
	if err != nil {
		t.Fatal(err)
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Resources == nil || r.Resources.USE != nil {
		t.Fatalf("the seed result must have resources and no USE table")
	}
	var out bytes.Buffer
	printDisclosure(&out, &r)
	text := out.String()
	for _, s := range []string{"USE ", "CPU", "busy", "run queue/CPU", "memory", "disk vda", "utilised"} {
		if !strings.Contains(text, s) {
			t.Errorf("the disclosure of an old result has no %q:\n%s", s, text)
		}
	}
	if strings.Contains(text, "network") || strings.Contains(text, "irq") {
		t.Errorf("figures the old result has no series for:\n%s", text)
	}
}
