package run

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
)

func codes(ws []report.Warning) string {
	var c []string
	for _, w := range ws {
		c = append(c, w.Code)
	}
	return strings.Join(c, ",")
}

func TestDurabilityOff(t *testing.T) {
	for _, c := range []struct {
		kind     string
		settings map[string]string
		want     string
	}{
		{"postgres", map[string]string{"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on"}, ""},
		{"postgres", map[string]string{"fsync": "on", "synchronous_commit": "local", "full_page_writes": "on"}, ""},
		{"postgres", map[string]string{"fsync": "off", "synchronous_commit": "on", "full_page_writes": "on"}, "fsync=off"},
		{"postgres", map[string]string{"fsync": "on", "synchronous_commit": "off", "full_page_writes": "off"}, "synchronous_commit=off,full_page_writes=off"},
		{"sqlite", map[string]string{"journal_mode": "wal", "synchronous": "full"}, ""},
		{"sqlite", map[string]string{"journal_mode": "wal", "synchronous": "extra"}, ""},
		{"sqlite", map[string]string{"journal_mode": "wal", "synchronous": "normal"}, "synchronous=NORMAL in WAL mode"},
		{"sqlite", map[string]string{"journal_mode": "wal", "synchronous": "off"}, "synchronous=OFF in WAL mode"},
		{"sqlite", map[string]string{"journal_mode": "memory", "synchronous": "full"}, "journal_mode=MEMORY"},
		{"mysql", map[string]string{"innodb_flush_log_at_trx_commit": "1", "innodb_doublewrite": "ON"}, ""},
		{"mysql", map[string]string{"innodb_flush_log_at_trx_commit": "2", "innodb_doublewrite": "OFF"}, "innodb_flush_log_at_trx_commit=2,innodb_doublewrite=OFF"},
		{"mysql", map[string]string{"innodb_flush_log_at_trx_commit": "0"}, "innodb_flush_log_at_trx_commit=0"},
		{"cockroachdb", map[string]string{"fsync": "off"}, ""}, // not judged for engines without rules
	} {
		if got := strings.Join(durabilityOff(c.kind, c.settings), ","); got != c.want {
			t.Errorf("%s %v: %q, want %q", c.kind, c.settings, got, c.want)
		}
	}
}

func TestFitsInMemory(t *testing.T) {
	const mib, gib = 1 << 20, 1 << 30
	local := func(size int64, avail, total uint64) *report.Result {
		r := &report.Result{Database: report.Database{Kind: "postgres", SizeBytes: size, OnDriverHost: true}}
		r.Driver.MemAvailableBytes, r.Driver.MemTotalBytes = avail, total
		return r
	}
	remote := func(size int64, sb, ecs string) *report.Result {
		return &report.Result{Database: report.Database{Kind: "postgres", SizeBytes: size,
			Settings: map[string]string{"shared_buffers": sb, "effective_cache_size": ecs}}}
	}
	remoteMySQL := func(kind string, size int64, bp string) *report.Result {
		return &report.Result{Database: report.Database{Kind: kind, SizeBytes: size,
			Settings: map[string]string{"innodb_buffer_pool_size": bp}}}
	}
	for _, c := range []struct {
		name string
		r    *report.Result
		want string // a part of the sentence, or "" for no warning
	}{
		{"small, local", local(100*mib, 20*gib, 24*gib), "smaller than the memory available on its host (20.0 GiB of 24.0 GiB"},
		{"larger than available, local", local(30*gib, 20*gib, 24*gib), ""},
		{"between available and total, local", local(22*gib, 20*gib, 24*gib), ""},
		{"available unknown, local", local(100*mib, 0, 24*gib), "smaller than its host's memory (24.0 GiB)"},
		{"size unknown", local(0, 20*gib, 24*gib), ""},
		{"remote, in shared_buffers", remote(100*mib, "1GB", "4GB"), "fits in PostgreSQL's shared_buffers (1.0 GiB"},
		{"remote, under effective_cache_size", remote(2*gib, "1GB", "4GB"), "smaller than effective_cache_size (4.0 GiB)"},
		{"remote, larger", remote(10*gib, "1GB", "4GB"), ""},
		{"remote MariaDB, in the buffer pool", remoteMySQL("mariadb", 100*mib, "1073741824"), "fits in the InnoDB buffer pool (1.0 GiB"},
		{"remote TiDB, no buffer pool setting", remoteMySQL("tidb", 100*mib, ""), ""},
		{"remote MySQL, larger", remoteMySQL("mysql", 2*gib, "1073741824"), ""},
	} {
		got := fitsInMemory(c.r)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want a sentence with %q", c.name, got, c.want)
		}
	}
}

func TestDriverSaturated(t *testing.T) {
	res := func(kind string, cpus, gomaxprocs int, w *report.DriverWatch) *report.Result {
		r := &report.Result{Database: report.Database{Kind: kind}, MeasureSeconds: 60}
		r.Driver.CPUs, r.Driver.GOMAXPROCS, r.Driver.Watch = cpus, gomaxprocs, w
		return r
	}
	for _, c := range []struct {
		name string
		r    *report.Result
		want []string // parts of the sentence; nil for no warning
	}{
		{"idle driver", res("postgres", 8, 8, &report.DriverWatch{CPUPct: 40, SchedLatencyP99Ms: 0.2, HostCPUBusyPct: 50}), nil},
		{"CPU at its GOMAXPROCS", res("postgres", 8, 2, &report.DriverWatch{CPUPct: 170, SchedLatencyP99Ms: 0.5, HostCPUBusyPct: 30}),
			[]string{"used 170% CPU on average, 85% of the 2 cores Go may run on"}},
		{"over half the host (DRIVER_BUSY's rule)", res("postgres", 2, 2, &report.DriverWatch{CPUPct: 120, HostCPUBusyPct: 70}),
			[]string{"used 60% of this host's CPU"}},
		{"scheduler latency", res("postgres", 8, 8, &report.DriverWatch{CPUPct: 50, SchedLatencyP99Ms: 12.5, HostCPUBusyPct: 40}),
			[]string{"scheduler latency p99 was 12.5 ms"}},
		{"host saturated, driver a large share", res("postgres", 4, 4, &report.DriverWatch{CPUPct: 150, HostCPUBusyPct: 95}),
			[]string{"host's CPU was 95% busy and the driver took 39% of that"}},
		{"host saturated by the database", res("postgres", 4, 4, &report.DriverWatch{CPUPct: 40, HostCPUBusyPct: 95}), nil},
		{"SQLite says the engine is in the process", res("sqlite", 2, 2, &report.DriverWatch{CPUPct: 190, HostCPUBusyPct: 97}),
			[]string{"the driver process (the embedded SQLite included) used 190% CPU", "the database's own work included", "give the process more CPU"}},
		{"no samples: CPU time over the run", func() *report.Result {
			r := res("postgres", 2, 2, nil)
			r.Driver.CPUSeconds = 90
			return r
		}(), []string{"used 75% of this host's CPU"}},
		{"closed loop's timer lag p99 over 1 ms", func() *report.Result {
			r := res("postgres", 4, 4, &report.DriverWatch{CPUPct: 40})
			r.Driver.TimerLagMs, r.Driver.TimerLagCount = &measure.Percentiles{P99: 2.5, Max: 7}, 1000
			return r
		}(), []string{"timer lag p99 was 2.50 ms (max 7.00 ms over 1000 dispatches)"}},
		{"closed loop's timer lag p99 at 1 ms", func() *report.Result {
			r := res("postgres", 4, 4, &report.DriverWatch{CPUPct: 40})
			r.Driver.TimerLagMs, r.Driver.TimerLagCount = &measure.Percentiles{P99: 1, Max: 7}, 1000
			return r
		}(), nil},
	} {
		got := driverSaturated(c.r)
		if c.want == nil && got != "" {
			t.Errorf("%s: %q, want no warning", c.name, got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q, want it to say %q", c.name, got, w)
			}
		}
		if got != "" && strings.Count(got, ". ") > 0 {
			t.Errorf("%s: %q is more than one sentence", c.name, got)
		}
	}
}

// TestConditionWarningsCodes: the three codes come out together, in a stable order.
func TestConditionWarningsCodes(t *testing.T) {
	r := &report.Result{Database: report.Database{Kind: "postgres", SizeBytes: 1 << 20, OnDriverHost: true,
		Settings: map[string]string{"fsync": "off"}}}
	r.Driver.MemAvailableBytes, r.Driver.MemTotalBytes, r.Driver.CPUs = 1<<30, 1<<30, 2
	r.Driver.Watch = &report.DriverWatch{CPUPct: 199}
	if got := codes(conditionWarnings(r)); got != "DURABILITY_OFF,FITS_IN_MEMORY,DRIVER_SATURATED" {
		t.Errorf("codes = %s", got)
	}
}

// TestCPUStolen: the hypervisor's steal over the window, from CPUStolenPct on.
func TestCPUStolen(t *testing.T) {
	res := func(series map[string]report.SeriesStat) *report.Result {
		r := &report.Result{Database: report.Database{Kind: "postgres"}}
		if series != nil {
			r.Resources = &report.Resources{Series: series}
		}
		return r
	}
	for _, c := range []struct {
		name string
		r    *report.Result
		want string // a part of the sentence; "" for no warning
	}{
		{"no resources", res(nil), ""},
		{"no steal series (not Linux)", res(map[string]report.SeriesStat{"host.cpu.busy_pct": {Mean: 90, Max: 99, N: 10}}), ""},
		{"series without samples", res(map[string]report.SeriesStat{"host.cpu.steal_pct": {Mean: 30, Max: 40, N: 0}}), ""},
		{"a little steal", res(map[string]report.SeriesStat{"host.cpu.steal_pct": {Mean: 4.9, Max: 30, N: 10}}), ""},
		{"at the threshold", res(map[string]report.SeriesStat{"host.cpu.steal_pct": {Mean: 5, Max: 12, N: 10}}), "took 5.0% of this host's CPU time over the window (steal; 12% in the worst sample)"},
		{"heavy steal", res(map[string]report.SeriesStat{"host.cpu.steal_pct": {Mean: 25.8, Max: 36.7, N: 10}}), "took 25.8%"},
	} {
		got := cpuStolen(c.r)
		if c.want == "" && got != "" {
			t.Errorf("%s: %q, want no warning", c.name, got)
		}
		if c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want it to say %q", c.name, got, c.want)
		}
		if got != "" && strings.Count(got, ". ") > 0 {
			t.Errorf("%s: %q is more than one sentence", c.name, got)
		}
	}
	r := res(map[string]report.SeriesStat{"host.cpu.steal_pct": {Mean: 9, Max: 20, N: 10}})
	if got := codes(conditionWarnings(r)); got != "CPU_STOLEN" {
		t.Errorf("codes = %s, want CPU_STOLEN", got)
	}
}
