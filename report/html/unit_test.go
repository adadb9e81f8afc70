package html

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/report"
)

func TestNines(t *testing.T) {
	want := []string{"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"}
	for e, w := range want {
		if got := nines(e); got != w {
			t.Errorf("nines(%d) = %q, want %q", e, got, w)
		}
	}
}

func TestLinearTicks(t *testing.T) {
	cases := []struct {
		lo, hi float64
		n      int
		want   []float64
	}{
		{0, 100, 5, []float64{0, 20, 40, 60, 80, 100}},
		{0, 1, 2, []float64{0, 0.5, 1}},
		{0, 730, 4, []float64{0, 200, 400, 600}},
		{0.5, 3.2, 3, []float64{1, 2, 3}},
	}
	for _, c := range cases {
		if got := linearTicks(c.lo, c.hi, c.n); !reflect.DeepEqual(got, c.want) {
			t.Errorf("linearTicks(%g, %g, %d) = %v, want %v", c.lo, c.hi, c.n, got, c.want)
		}
	}
}

func TestTimeTicks(t *testing.T) {
	got := timeTicks(0, 70, 5)
	var labels []string
	for _, tk := range got {
		labels = append(labels, tk.label)
	}
	if want := "0s 15s 30s 45s 60s"; strings.Join(labels, " ") != want {
		t.Errorf("timeTicks(0, 70, 5) = %v, want %s", labels, want)
	}
	got = timeTicks(0, 3600, 6)
	if got[1].label != "10m" {
		t.Errorf("an hour in 6 ticks: second tick %q, want 10m", got[1].label)
	}
}

// TestChartKeys: series that differ by a number share a chart, as do same-unit series of one
// object and families of unitless ones; the rest get a chart each (sysmon's names).
func TestChartKeys(t *testing.T) {
	names := []string{
		"db.commits_per_s", "db.rollbacks_per_s", "db.wait.IO", "db.wait.Lock", "db.wait.running",
		"disk.vda.iops", "disk.vda.queue", "disk.vda.read_bytes_per_s", "disk.vda.write_bytes_per_s",
		"host.cpu.busy_pct", "host.cpu.user_pct", "host.cpu0.busy_pct", "host.cpu1.busy_pct", "host.runq",
		"disk.nvme0n1.reads_per_s", "disk.nvme0n1.writes_per_s", "disk.nvme0n1.await_ms",
	}
	got := map[string][]string{}
	for _, c := range chartKeys(names) {
		got[c.key] = c.names
	}
	want := map[string][]string{
		"db.commits_per_s":     {"db.commits_per_s"},
		"db.rollbacks_per_s":   {"db.rollbacks_per_s"},
		"db.wait.*":            {"db.wait.IO", "db.wait.Lock", "db.wait.running"},
		"disk.vda.iops":        {"disk.vda.iops"},
		"disk.vda.queue":       {"disk.vda.queue"},
		"disk.vda.* (bytes/s)": {"disk.vda.read_bytes_per_s", "disk.vda.write_bytes_per_s"},
		"host.cpu.* (%)":       {"host.cpu.busy_pct", "host.cpu.user_pct"},
		"host.cpu*.busy_pct":   {"host.cpu0.busy_pct", "host.cpu1.busy_pct"},
		"host.runq":            {"host.runq"},
		// a lone device with a number in its name groups as any other
		"disk.nvme0n1.* (/s)":   {"disk.nvme0n1.reads_per_s", "disk.nvme0n1.writes_per_s"},
		"disk.nvme0n1.await_ms": {"disk.nvme0n1.await_ms"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chartKeys:\n got %v\nwant %v", got, want)
	}
	if l := legendLabels([]string{"host.cpu0.busy_pct", "host.cpu1.busy_pct"}); !reflect.DeepEqual(l, []string{"cpu0", "cpu1"}) {
		t.Errorf("legendLabels = %v, want [cpu0 cpu1]", l)
	}
}

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{fmtCount(1234567), "1\u202f234\u202f567"}, {fmtCount(999), "999"}, {fmtCount(-1000), "-1\u202f000"},
		{fmtRate(31665), "31\u202f665.0"}, {fmtCell(0.0234), "0.023"}, {fmtCell(21.647), "21.6"}, {fmtCell(1736.7), "1\u202f737"},
		{fmtMs(2500), "2.5 s"}, {fmtMs(0.01), "0.01"}, {fmtNum(15000), "15k"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestOldResult: a result without an interval log or resource samples (an interrupted run, an old
// version) still renders, says what is missing, and shows placeholders instead of charts.
func TestOldResult(t *testing.T) {
	dir := t.TempDir()
	r := &report.Result{FormatVersion: report.FormatVersion, Workload: "tpcc", Mode: "throughput", Setup: "1 warehouse, interactive",
		Terminals: 4, Connections: 4, StartedAt: time.Now(), WarmupSeconds: 2, MeasureSeconds: 5,
		Headline:   []report.Figure{{Name: "tpmC", Value: 1234, Unit: "new-orders per minute"}},
		Operations: map[string]*report.TxResult{"new_order": {Count: 100}}, KeyOp: "new_order",
		Warnings: []report.Warning{{Code: "SHORT_RUN", Message: "short <b>run</b>"}},
		Plan:     map[string]any{"seed": uint64(18446744073709551615)}, Seed: 18446744073709551615}
	if err := report.Write(dir, r); err != nil {
		t.Fatal(err)
	}
	// A field a newer candor might add is disclosed as it is.
	b, _ := os.ReadFile(filepath.Join(dir, report.ResultFile))
	b = []byte(strings.Replace(string(b), `"workload"`, `"future_field": {"x": 1.5}, "workload"`, 1))
	os.WriteFile(filepath.Join(dir, report.ResultFile), b, 0o644)

	var sb strings.Builder
	if err := Render(&sb, dir); err != nil {
		t.Fatal(err)
	}
	page := sb.String()
	for _, want := range []string{
		"this run has no latency.hlog", "no resource samples", `data-empty="true"`, "1\u202f234",
		"short &lt;b&gt;run&lt;/b&gt;", "18446744073709551615", "future_field.x", "1.5",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page does not contain %q", want)
		}
	}
	if err := Render(&sb, filepath.Join(dir, "nothing")); err == nil || !strings.Contains(err.Error(), "no result.json") {
		t.Errorf("rendering a directory without result.json: err %v", err)
	}
}

// TestResourcesFile: samples are read as sysmon writes them; a run without them says so.
func TestResourcesFile(t *testing.T) {
	dir := t.TempDir()
	lines := `{"t":1,"v":{"host.cpu.busy_pct":50,"host.runq":2}}
{"t":2,"v":{"host.cpu.busy_pct":70,"host.runq":3,"db.commits_per_s":800}}
{"t":3,"v":{"host.cpu.busy_pct":60}}
`
	os.WriteFile(filepath.Join(dir, "resources.jsonl"), []byte(lines), 0o644)
	r, err := readResources(filepath.Join(dir, "resources.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.names, []string{"db.commits_per_s", "host.cpu.busy_pct", "host.runq"}) || len(r.series["host.cpu.busy_pct"]) != 3 || r.last != 3 {
		t.Errorf("read %v, %d cpu samples, last %g", r.names, len(r.series["host.cpu.busy_pct"]), r.last)
	}
	if _, err := readResources(filepath.Join(dir, "absent.jsonl")); !os.IsNotExist(err) {
		t.Errorf("absent file: err %v, want not-exist", err)
	}
}

// TestResourceSections: the interrupts have a section of their own, the host's network totals go
// with the interfaces, a disk's request figures share charts by unit, and a disk that did no I/O
// in any sample has no chart.
func TestResourceSections(t *testing.T) {
	dir := t.TempDir()
	lines := `{"t":1,"v":{"host.cpu.busy_pct":50,"host.cpu0.irqs_per_s":900,"host.cpu1.irqs_per_s":100,"host.softirq.net_rx_per_s":40,"host.context_switches_per_s":5000,"host.tcp.retrans_per_s":0,"net.lo.rx_bytes_per_s":10,"disk.vda.iops":100,"disk.vda.reads_per_s":40,"disk.vda.writes_per_s":60,"disk.vda.write_size_bytes":4096,"disk.zram0.iops":0,"disk.zram0.reads_per_s":0}}
{"t":2,"v":{"host.cpu.busy_pct":60,"host.cpu0.irqs_per_s":800,"host.cpu1.irqs_per_s":200,"host.softirq.net_rx_per_s":30,"host.context_switches_per_s":4000,"host.tcp.retrans_per_s":1,"net.lo.rx_bytes_per_s":20,"disk.vda.iops":0,"disk.vda.reads_per_s":0,"disk.vda.writes_per_s":0,"disk.zram0.iops":0,"disk.zram0.reads_per_s":0}}
`
	os.WriteFile(filepath.Join(dir, "resources.jsonl"), []byte(lines), 0o644)
	r, err := readResources(filepath.Join(dir, "resources.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, g := range (&runData{samples: r}).resourceCharts() {
		for _, c := range g.Charts {
			got[g.Name] = append(got[g.Name], c.Title)
		}
	}
	want := map[string][]string{
		"host: CPU, run queue, memory, swap":           {"host.cpu.busy_pct"},
		"host: interrupts, softirqs, context switches": {"host.context_switches_per_s", "host.cpu*.irqs_per_s", "host.softirq.net_rx_per_s"},
		"disks":   {"disk.vda.* (/s)", "disk.vda.write_size_bytes"},
		"network": {"host.tcp.retrans_per_s", "net.lo.rx_bytes_per_s"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sections and charts:\n got %v\nwant %v", got, want)
	}
}

// TestUSETableOnThePage: the page shows the USE table, built from the series of a result from
// before the table (the seed result), as the console summary does.
func TestUSETableOnThePage(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../testdata/results/kv.json")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, report.ResultFile), b, 0o644)
	var sb strings.Builder
	if err := Render(&sb, dir); err != nil {
		t.Fatal(err)
	}
	page := sb.String()
	i := strings.Index(page, "data-use")
	if i < 0 {
		t.Fatal("the page has no USE table")
	}
	table := page[i:]
	table = table[:strings.Index(table, "</table>")]
	for _, want := range []string{"<td class=\"text\">CPU</td>", "busy ", "run queue/CPU", "disk vda", "utilised ", "not kept"} {
		if !strings.Contains(table, want) {
			t.Errorf("the USE table has no %q:\n%s", want, table)
		}
	}
}
