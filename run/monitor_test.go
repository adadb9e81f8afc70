package run

import (
	"bytes"
	"github.com/candor-bench/candor/workload"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/sysmon"
	"github.com/candor-bench/candor/workload/tpcc"
)

// loadOne loads one warehouse (about 100 MB) into the database at url.
func loadOne(t *testing.T, url string) {
	t.Helper()
	err := Load(t.Context(), LoadPlan{Workload: tpccW(1, false), DB: url, Loaders: 2, Seed: 1, Quiet: true}, Out{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatalf("loading one warehouse: %v", err)
	}
}

// shortRun runs a short throughput run with results in a new directory; it returns the result,
// the directory and the printed summary.
func shortRun(t *testing.T, url string, measure time.Duration) (*report.Result, string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	var stdout bytes.Buffer
	res, err := Run(t.Context(), RunPlan{Workload: tpccW(0, false), DB: url, Mode: workload.ModeThroughput, Terminals: 2, Duration: measure,
		Warmup: time.Second, Grace: 10 * time.Second, Interval: time.Second, Out: dir, Seed: 3, Quiet: true},
		Out{Stdout: &stdout, Stderr: io.Discard})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stdout.String())
	}
	t.Logf("summary:\n%s", stdout.String())
	return res, dir, stdout.String()
}

func warning(r *report.Result, code string) (report.Warning, bool) {
	for _, w := range r.Warnings {
		if w.Code == code {
			return w, true
		}
	}
	return report.Warning{}, false
}

// checkResources: resources.jsonl has one sample a second on the run's clock, with the host, the
// driver and the database series, and result.json summarises them.
func checkResources(t *testing.T, r *report.Result, dir string, dbSeries []string) {
	t.Helper()
	samples, err := sysmon.ReadSamples(filepath.Join(dir, report.ResourcesFile))
	if err != nil {
		t.Fatal(err)
	}
	// 1 s of warm-up and 4 s measured on the run's clock, which starts once the session's
	// connections are open: samples at 1, 2, 3 and 4 s, and the one at 5 s races the run's end.
	if len(samples) < 4 {
		t.Fatalf("%d samples for a run of 5 s", len(samples))
	}
	for i, s := range samples {
		if i > 0 && (s.T <= samples[i-1].T || s.T-samples[i-1].T > 2.5) {
			t.Errorf("sample %d at t=%v after t=%v: want increasing t, a second apart", i, s.T, samples[i-1].T)
		}
		// The run's clock: samples taken on whole seconds since started_at (late only by scheduling).
		if frac := s.T - float64(int(s.T)); frac > 0.3 {
			t.Errorf("sample %d at t=%v is %.0f ms after a whole second of the run's clock", i, s.T, 1000*frac)
		}
	}
	want := append([]string{"host.cpu.busy_pct", "host.cpu0.busy_pct", "host.runq", "host.mem.used_bytes",
		"host.mem.available_bytes", "net.lo.rx_bytes_per_s", "driver.cpu_pct", "driver.sched_latency_p99_ms",
		"driver.gc_pause_max_ms", "driver.heap_bytes", "host.cpu.irq_pct", "host.irqs_per_s", "host.softirqs_per_s",
		"host.context_switches_per_s", "host.net.rx_bytes_per_s", "host.tcp.retrans_per_s"}, dbSeries...)
	last := samples[len(samples)-1]
	for _, k := range want {
		if _, ok := last.V[k]; !ok {
			t.Errorf("the last sample has no %s", k)
		}
	}
	res := r.Resources
	if res == nil || res.File != report.ResourcesFile || res.Samples != len(samples) || res.WindowSamples < 3 || res.WindowSamples > 5 {
		t.Fatalf("result.json resources = %+v; want the file, %d samples, about 4 in the window", res, len(samples))
	}
	for _, k := range want {
		if st := res.Series[k]; st.N == 0 || st.Max < st.Mean {
			t.Errorf("result.json resources.series[%s] = %+v", k, st)
		}
	}
	if len(res.Errors) > 0 {
		t.Errorf("resource sampling errors: %v", res.Errors)
	}
	// The USE table: CPU, memory and the network at least (a disk only when it did I/O).
	var use []string
	for _, row := range res.USE {
		use = append(use, row.Resource)
	}
	if len(use) < 3 || use[0] != "CPU" || use[1] != "memory" || use[len(use)-1] != "network" {
		t.Errorf("result.json resources.use has %v, want CPU, memory, the disks that did I/O, network", use)
	}
	if w := r.Driver.Watch; w == nil || w.CPUPct <= 0 {
		t.Errorf("driver self-watch = %+v", w)
	}
	h := r.Driver
	if h.OS == "" || h.Kernel == "" || h.GoVersion == "" || h.GOMAXPROCS < 1 || h.MemTotalBytes == 0 {
		t.Errorf("driver host disclosure = %+v", h)
	}
	// The saved result reads back with the same disclosure.
	back, err := report.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.Resources == nil || len(back.Resources.Series) != len(res.Series) || back.Database.SizeBytes != r.Database.SizeBytes {
		t.Error("result.json does not hold the resources and the disclosure")
	}
}

// TestDisclosureSQLite: a run on SQLite records the pragmas, the file's size against memory, the
// resource samples, and DURABILITY_OFF exactly when synchronous is NORMAL.
func TestDisclosureSQLite(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "tpcc.db")
	loadOne(t, url)
	r, dir, summary := shortRun(t, url, 4*time.Second)
	checkResources(t, r, dir, []string{"db.file_bytes", "db.wal_bytes"})
	if s := r.Database.Settings; s["synchronous"] != "full" || s["journal_mode"] != "wal" || s["cache_size"] == "" {
		t.Errorf("settings = %v", s)
	}
	if _, ok := warning(r, "DURABILITY_OFF"); ok {
		t.Error("DURABILITY_OFF with synchronous=FULL")
	}
	if w, ok := warning(r, "FITS_IN_MEMORY"); !ok || r.Database.SizeBytes < 50<<20 || !r.Database.OnDriverHost {
		t.Errorf("one warehouse (%d bytes) on this host: FITS_IN_MEMORY %v (%q), on the driver's host %v", r.Database.SizeBytes, ok, w.Message, r.Database.OnDriverHost)
	}
	for _, s := range []string{"disclosure:", "synchronous full", "resources  host CPU", report.ResourcesFile, "[FITS_IN_MEMORY]",
		"USE        resource", "run queue/CPU"} {
		if !strings.Contains(summary, s) {
			t.Errorf("the summary does not say %q", s)
		}
	}
	// The same file opened with synchronous=normal: the last commits can be lost on power loss.
	r, _, summary = shortRun(t, url+"?synchronous=normal", time.Second)
	if w, ok := warning(r, "DURABILITY_OFF"); !ok || !strings.Contains(w.Message, "synchronous=NORMAL") {
		t.Errorf("synchronous=normal: DURABILITY_OFF %v (%q)", ok, w.Message)
	}
	if !strings.Contains(summary, "[DURABILITY_OFF]") {
		t.Error("the summary does not print DURABILITY_OFF")
	}
}

// TestDisclosurePostgres: on the durable test server, the settings are disclosed, the database
// statistics sampled, FITS_IN_MEMORY raised for one warehouse on this host and DURABILITY_OFF not.
func TestDisclosurePostgres(t *testing.T) {
	url := dbtest.FreshPostgresURL(t, "candor_disclose")
	loadOne(t, url)
	r, dir, summary := shortRun(t, url, 4*time.Second)
	checkResources(t, r, dir, []string{"db.commits_per_s", "db.blks_hit_per_s", "db.wal_bytes_per_s",
		"db.wait.Lock", "db.sessions_active", "db.checkpoints_req", "db.pgfaults_per_s"})
	for _, k := range sysmon.PGSettings {
		if r.Database.Settings[k] == "" {
			t.Errorf("setting %s not disclosed: %v", k, r.Database.Settings)
		}
	}
	if r.Database.Settings["fsync"] != "on" {
		t.Errorf("fsync = %q on the durable test server", r.Database.Settings["fsync"])
	}
	if w, ok := warning(r, "DURABILITY_OFF"); ok {
		t.Errorf("DURABILITY_OFF on a durable server: %s", w.Message)
	}
	if w, ok := warning(r, "FITS_IN_MEMORY"); !ok || r.Database.SizeBytes < 50<<20 || !r.Database.OnDriverHost {
		t.Errorf("one warehouse (%d bytes) on this host: FITS_IN_MEMORY %v (%q)", r.Database.SizeBytes, ok, w.Message)
	}
	if st := r.Resources.Series["db.commits_per_s"]; st.Mean < 5 {
		t.Errorf("db.commits_per_s mean %v during a throughput run", st.Mean)
	}
	if !strings.Contains(summary, "fsync on") || !strings.Contains(summary, "commits/s") {
		t.Error("the summary's disclosure does not show fsync or the commit rate")
	}
	// the system under test: the server's data directory is on this host, on a device
	if s := r.System; s == nil || len(s.Storage) == 0 || s.Storage[0].Role != "data" || s.Storage[0].Path == "" {
		t.Errorf("system %+v", r.System)
	}
	for _, line := range []string{"\n  storage    data /", "\n  memory     THP ", "\n  cpu        ", "\n  irqs       "} {
		if !strings.Contains(summary, line) {
			t.Errorf("the summary's disclosure lacks %q", line)
		}
	}
}

// TestDurabilityOffPostgres: a server started with fsync=off (the second throwaway server of
// scripts/test) gets DURABILITY_OFF, naming fsync, in the result and the summary.
func TestDurabilityOffPostgres(t *testing.T) {
	url := dbtest.FreshPostgresNoFsyncURL(t, "candor_nofsync")
	loadOne(t, url)
	r, _, summary := shortRun(t, url, 2*time.Second)
	if r.Database.Settings["fsync"] != "off" {
		t.Fatalf("fsync = %q on the server of %s; it must be started with fsync=off", r.Database.Settings["fsync"], dbtest.EnvPGNoFsync)
	}
	w, ok := warning(r, "DURABILITY_OFF")
	if !ok || !strings.Contains(w.Message, "fsync=off") {
		t.Errorf("DURABILITY_OFF %v (%q), want it naming fsync=off", ok, w.Message)
	}
	if !strings.Contains(summary, "[DURABILITY_OFF]") || !strings.Contains(summary, "fsync off") {
		t.Error("the summary does not show fsync off and DURABILITY_OFF")
	}
	if _, ok := warning(r, "FITS_IN_MEMORY"); !ok {
		t.Error("no FITS_IN_MEMORY for one warehouse on this host")
	}
}

// tpccW is TPC-C with the given options, for the plans of these tests.
func tpccW(warehouses int, procedures bool) workload.Workload {
	return &tpcc.Workload{Options: tpcc.Options{Warehouses: warehouses, Procedures: procedures}}
}
