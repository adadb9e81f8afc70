package run

import (
	"context"
	"runtime"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/sysmon"
)

// monitor is a run's disclosure and resource sampling: the disclosure is read
// before the run's clock starts, the sampler runs from the start until the run's output is in, and
// finish puts both into the result with the warnings they call for.
type monitor struct {
	disc    sysmon.Disclosure
	sampler *sysmon.Sampler
	file    string
	// client is the database's ClientPath when it has one, read again at finish: how the
	// sessions reached the server is known only once they are open (driver/mysql counts the
	// sessions that could not take candor's wire).
	client func() string
}

// newMonitor reads the disclosure and prepares the sampler (its database connection and baseline
// readings), so that begin costs nothing on the run's clock. Call stop on every path.
func newMonitor(ctx context.Context, p *RunPlan, db driver.DB) *monitor {
	m := &monitor{disc: sysmon.Disclose(ctx, db)}
	if p, ok := db.(interface{ ClientPath() string }); ok {
		m.client = p.ClientPath
	}
	cfg := sysmon.Config{Every: time.Second, DB: db, MeasureFrom: p.Warmup, MeasureTo: p.Warmup + p.Duration, Cut: ctx}
	m.sampler = sysmon.New(ctx, cfg)
	return m
}

// writeTo sends the samples to f, the run's resources.jsonl (created once the run is ready);
// call it before begin.
func (m *monitor) writeTo(f *outFile) {
	m.file = report.ResourcesFile
	m.sampler.SetWriter(f)
}

// begin starts sampling on the run's clock: samples carry seconds since started.
func (m *monitor) begin(started time.Time) { m.sampler.Begin(started) }

// stop ends sampling (it is safe to call after finish).
func (m *monitor) stop() { m.sampler.Stop() }

// finish stops sampling and records the disclosure, the resource summary, the driver's self-watch
// and the warnings DURABILITY_OFF, FITS_IN_MEMORY, DRIVER_SATURATED, CPU_STOLEN, SWAP_ACTIVE,
// IRQ_CPU_SATURATED and DEVICE_SATURATED in r.
func (m *monitor) finish(r *report.Result) {
	sum := m.sampler.Stop()
	d := m.disc
	r.Database.Settings = d.Settings
	r.Database.SizeBytes = d.SizeBytes
	r.Database.OnDriverHost = d.OnDriverHost
	r.Database.Client = d.Client
	r.System = d.System
	if m.client != nil {
		r.Database.Client = m.client()
	}
	h := d.Host
	r.Driver.OS, r.Driver.Kernel, r.Driver.GoVersion = h.OS, h.Kernel, h.GoVersion
	// GOMAXPROCS as the run ended (held sockets, driver/blockconn, raise it while their connections
	// are open and put it back as the last closes: the client path says how far)
	r.Driver.GOMAXPROCS = max(h.GOMAXPROCS, runtime.GOMAXPROCS(0))
	r.Driver.MemTotalBytes, r.Driver.MemAvailableBytes = h.MemTotalBytes, h.MemAvailableBytes
	res := &report.Resources{EverySeconds: sum.EverySeconds, Samples: sum.Samples, WindowSamples: sum.Window,
		Series: make(map[string]report.SeriesStat, len(sum.Series)), Errors: sum.Errors}
	if sum.Samples > 0 {
		res.File = m.file
	}
	for k, st := range sum.Series {
		res.Series[k] = report.SeriesStat{Mean: st.Mean, Max: st.Max, N: st.N}
	}
	for _, e := range d.Errors {
		res.Errors = append(res.Errors, "disclosure: "+e)
	}
	res.NotKept = d.NotKept
	res.USE = report.USETable(res, r.Driver.CPUs)
	r.Resources = res
	if cpu, ok := sum.Series["driver.cpu_pct"]; ok && cpu.N > 0 {
		gcMax, gcTotal := sum.Series["driver.gc_pause_max_ms"], sum.Series["driver.gc_pause_total_ms"]
		r.Driver.Watch = &report.DriverWatch{CPUPct: cpu.Mean, CPUPctMax: cpu.Max, SchedLatencyP99Ms: sum.SchedLatencyP99Ms,
			GCPauseMaxMs: gcMax.Max, GCPauseTotalMs: gcTotal.Mean * float64(gcTotal.N),
			HostCPUBusyPct: sum.Series["host.cpu.busy_pct"].Mean}
	}
	r.Warnings = append(r.Warnings, conditionWarnings(r)...)
	// SWAP_ACTIVE, IRQ_CPU_SATURATED, DEVICE_SATURATED: what the window's samples showed, one sample
	// at a time (sysmon/findings.go)
	for _, f := range sum.Findings {
		r.Warnings = append(r.Warnings, report.Warning{Code: f.Code, Message: f.Message})
	}
}
