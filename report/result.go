// Package report turns a finished (or interrupted) run into what people and tools read: result.json
// (a contract other tools and candor's CI read), the console summary and the progress lines.
package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/sysinfo"
	"github.com/candor-bench/candor/userr"
)

// ResultFile, LogFile and DeliveriesFile are the names of files a run writes into its --out
// directory.
const (
	ResultFile = "result.json"
	LogFile    = "latency.hlog"
	// DeliveriesFile is the Delivery result file of clause 2.7.4.2: one CSV line per deferred
	// Delivery that ran (the format is described in workload/tpcc/deliverylog.go).
	DeliveriesFile = "deliveries.csv"
)

// FormatVersion is the version of result.json's layout. Version 2 (the workload-neutral core) adds the
// envelope every workload shares (format_version, operations, op_order, headline, sections, details)
// and keeps, for TPC-C, every key of version 1 where it was (tpmC, efficiency, warehouses,
// transactions, delivery_deferred, audit, constants, ...), so scripts reading version 1 keep working.
const FormatVersion = 2

// Result is the content of result.json. Field names are a contract: add fields, never rename.
type Result struct {
	// FormatVersion is the layout's version (FormatVersion); 0 in a file of version 1.
	FormatVersion int    `json:"format_version"`
	Tool          Tool   `json:"tool"`
	Workload      string `json:"workload"`
	// Disclaimer is printed with every summary (TPC-C: these numbers are not audited results).
	Disclaimer string `json:"disclaimer"`
	Mode       string `json:"mode"`
	// Partial is true when the run ended early (Ctrl-C, lost database, every attempt failing); PartialReason says why.
	Partial       bool   `json:"partial"`
	PartialReason string `json:"partial_reason,omitempty"`

	// Setup is the workload's one-line description of what ran ("1 warehouse, interactive";
	// "kv95, batch 1, 10,000 keys").
	Setup       string `json:"setup,omitempty"`
	Terminals   int    `json:"terminals"`
	Connections int    `json:"connections"`
	Seed        uint64 `json:"seed"`
	Isolation   string `json:"isolation"`
	// IsolationEffective is the level the engine reported running Isolation at (it may be
	// stronger: CockroachDB and YugabyteDB can run READ COMMITTED at a stronger level); empty
	// when the engine cannot tell.
	IsolationEffective string `json:"isolation_effective,omitempty"`
	// Endpoints are the database endpoints the terminals were spread over, with their counts.
	Endpoints []Endpoint `json:"endpoints,omitempty"`

	// Shard is this run's part of a sharded run (--shard i/N), Clock its window on the wall clock
	// and how far it can be trusted; both absent from an unsharded run without --start-at.
	Shard *Shard `json:"shard,omitempty"`
	Clock *Clock `json:"clock,omitempty"`

	StartedAt      time.Time `json:"started_at"`
	WarmupSeconds  float64   `json:"warmup_seconds"`
	MeasureSeconds float64   `json:"measure_seconds"`

	Database Database `json:"database"`
	Driver   Host     `json:"driver_host"`
	// System is the system under test: the devices holding the database's files and their I/O
	// settings, memory, CPUs, interrupts, kernel and virtualisation (package sysinfo); absent from
	// results made before it was disclosed.
	System *sysinfo.System `json:"system,omitempty"`

	// Operations are the figures per operation over the measurement interval, by the workload's
	// operation names; OpOrder is the workload's order of them (for display).
	Operations map[string]*TxResult `json:"operations"`
	OpOrder    []string             `json:"op_order,omitempty"`
	// KeyOp is the operation a short view shows (the progress line, the one-shot's and a search's
	// tables, the steps of a rate run): TPC-C's new_order, kv's read.
	KeyOp string `json:"key_op,omitempty"`
	// Headline are the workload's headline figures (TPC-C: tpmC and efficiency; kv: operations per
	// second), first the one a reader should take away.
	Headline []Figure `json:"headline,omitempty"`
	// Sections are the workload's own tables (TPC-C: the deferred Delivery, the run-time audit).
	Sections []Section `json:"sections,omitempty"`
	// Repeats are each operation's timings in seconds, one per repeat, when a workload runs each
	// operation only a few times (TPC-H's --repeat power tests): too few operations for interval
	// statistics, so compare judges these instead.
	Repeats map[string][]float64 `json:"repeats,omitempty"`
	// Details is the workload's own part, in its own layout (kv: its mix and key space).
	Details any `json:"details,omitempty"`

	// Verdicts are the workload's pass/fail rules (TPC-C: the 90th-percentile limits).
	Verdicts []Verdict `json:"verdicts,omitempty"`
	// FailureVerdict judges every operation's failures against --max-failures (failures.go).
	FailureVerdict *FailureVerdict `json:"failure_verdict,omitempty"`
	// Budgets are the latency budgets of --slo judged on the measurement window (slo.go); any
	// one not met fails the run (exit status 1).
	Budgets  []Budget  `json:"budgets,omitempty"`
	Warnings []Warning `json:"warnings"`
	Checks   []Check   `json:"checks,omitempty"`
	// Plan is the fully resolved plan the run executed (every flag, defaulted or given; the
	// workload's own under "options").
	Plan any `json:"plan"`
	// Resources summarises the per-second resource samples (resources.jsonl) over the window.
	Resources *Resources `json:"resources,omitempty"`
	// Rate is the open-loop part of a run in mode rate (rate.go); null in the other modes.
	Rate *RateResult `json:"rate,omitempty"`
	// Outages are the spans during which the database refused new connections; the run rode them
	// out, reconnecting (or ended when one outlasted the outage window).
	Outages []Outage `json:"outages,omitempty"`
	// Shards are the shards a merged run was made of (candor merge, package merge); absent from a
	// single run's result.
	Shards []ShardRun `json:"shards,omitempty"`

	// TPCC holds TPC-C's keys of result format 1, at the top level of the file as they always
	// were; nil (and absent from the file) for other workloads.
	*TPCC
}

// TPCC is TPC-C's part of result.json, under the top-level keys of format 1.
type TPCC struct {
	Warehouses int `json:"warehouses"`
	// Procedures: the transactions ran as stored procedures, one call each (--procedures); false
	// means interactive statements.
	Procedures bool `json:"procedures"`
	// StockLevelIsolation is Stock-Level's level (clause 2.8.2.1).
	StockLevelIsolation string  `json:"stock_level_isolation,omitempty"`
	TpmC                float64 `json:"tpmC"`
	// Efficiency is tpmC / (12.86 x W) in percent, only in spec mode (null otherwise); 12.86 is the
	// customary ceiling (the mix at clause 5.2.3's minimums), kept for comparability, while the
	// deck's own ceiling is about 12.6 x W (EFFICIENCY_ABOVE_100).
	Efficiency *float64 `json:"efficiency"`
	// Transactions is Operations without the deferred Delivery (format 1's name).
	Transactions map[string]*TxResult `json:"transactions"`
	// DeliveryDeferred is the deferred part of Delivery (clause 2.7.2): completion time from queueing.
	DeliveryDeferred *Deferred `json:"delivery_deferred,omitempty"`
	Audit            *Audit    `json:"audit,omitempty"`
	// Constants are the NURand C values of the load and of the run (clause 2.1.6).
	Constants any `json:"constants,omitempty"`
	// Qualified says tpmC may be read as the run's result; NotQualifiedReasons say why it may not
	// (failures above --max-failures, a 90th-percentile limit failed, more than 1% of deferred
	// Delivery districts skipped, the mix below clause 5.2.3's minimums).
	Qualified           *bool    `json:"qualified,omitempty"`
	NotQualifiedReasons []string `json:"not_qualified_reasons,omitempty"`
}

// Figure is one headline number.
type Figure struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	// Unit says what it counts ("new-orders per minute", "%", "operations per second").
	Unit string `json:"unit,omitempty"`
	// Note qualifies it ("of the 12.86 x W spec ceiling"); Bad marks a value that breaks a rule.
	Note string `json:"note,omitempty"`
	Bad  bool   `json:"bad,omitempty"`
	// NotQualified, when set, says why the figure is not a qualified result (TPC-C: a
	// 90th-percentile limit failed, too many failures, the mix below clause 5.2.3's minimums):
	// it is then shown as "not qualified", never as the result.
	NotQualified string `json:"not_qualified,omitempty"`
}

// Section is one of the workload's own tables, rendered as it is by the console and report.html.
type Section struct {
	Title   string     `json:"title"`
	Columns []string   `json:"columns,omitempty"`
	Rows    [][]string `json:"rows,omitempty"`
	// Notes are sentences under the table.
	Notes []string `json:"notes,omitempty"`
}

// Ops lists the result's operations in the workload's order (OpOrder), then any others sorted.
func (r *Result) Ops() []string {
	var names []string
	seen := map[string]bool{}
	for _, k := range r.OpOrder {
		if _, ok := r.Operations[k]; ok && !seen[k] {
			names, seen[k] = append(names, k), true
		}
	}
	var rest []string
	for k := range r.Operations {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(names, rest...)
}

// Lead is the result's first headline figure, or a zero Figure when it has none.
func (r *Result) Lead() Figure {
	if len(r.Headline) == 0 {
		return Figure{}
	}
	return r.Headline[0]
}

// Key is the operation a short view shows: KeyOp, or the first operation when the result names
// none (or names one it has no figures of).
func (r *Result) Key() string {
	if _, ok := r.Operations[r.KeyOp]; ok || r.KeyOp != "" && len(r.Operations) == 0 {
		return r.KeyOp
	}
	if ops := r.Ops(); len(ops) > 0 {
		return ops[0]
	}
	return r.KeyOp
}

// Completed is the operations completed in the measurement interval, each counted once: the
// operations that are a part of another (TxResult.PartOf) are left out.
func (r *Result) Completed() int64 {
	var n int64
	for _, t := range r.Operations {
		if t != nil && t.PartOf == "" {
			n += t.Count
		}
	}
	return n
}

// Tool identifies the program that produced the result.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Database describes the engine measured.
type Database struct {
	Kind    string `json:"kind"`
	Version string `json:"version"`
	URL     string `json:"url"` // redacted: never holds a password
	// Settings are the engine settings that decide durability and memory, as read from it.
	Settings map[string]string `json:"settings,omitempty"`
	// SizeBytes is the database's size when the run started (0: unknown); OnDriverHost says the
	// server runs on the driver's host, whose memory (driver_host.mem_*) is then the server's.
	SizeBytes    int64 `json:"size_bytes,omitempty"`
	OnDriverHost bool  `json:"on_driver_host"`
	// Client is how candor's driver sent the statements and used its sockets (its statement path,
	// pipelines or not and why, blocking sockets), where the engine's driver says.
	Client string `json:"client,omitempty"`
}

// Host is the machine the driver ran on.
type Host struct {
	Hostname string `json:"hostname"`
	CPUs     int    `json:"cpus"`
	GoOS     string `json:"goos"`
	GoArch   string `json:"goarch"`
	// CPUMicrosPerTx is the driver process's own CPU time (user+system) per completed transaction.
	CPUMicrosPerTx float64 `json:"cpu_us_per_tx"`
	CPUSeconds     float64 `json:"cpu_seconds"`
	// RoundTripsPerTx is the round trips to the database per completed transaction of the five
	// types (a Delivery's deferred part included in its one), warm-up included: what a network
	// between driver and database multiplies. Absent for an embedded engine (SQLite).
	RoundTripsPerTx float64 `json:"round_trips_per_tx,omitempty"`
	RoundTrips      int64   `json:"round_trips,omitempty"`
	// The host's system, memory and the driver's own behaviour over the window (package sysmon).
	OS                string       `json:"os,omitempty"`
	Kernel            string       `json:"kernel,omitempty"`
	GoVersion         string       `json:"go_version,omitempty"`
	GOMAXPROCS        int          `json:"gomaxprocs,omitempty"`
	MemTotalBytes     uint64       `json:"mem_total_bytes,omitempty"`
	MemAvailableBytes uint64       `json:"mem_available_bytes,omitempty"`
	Watch             *DriverWatch `json:"watch,omitempty"`
	// TimerLagMs is a closed-loop run's timer lag over the window: how late the driver itself
	// dispatched operations after their intended starts (a connection wait left out;
	// schedule.TimerLag). TimerLagCount is the dispatches it covers. Absent for open-loop runs,
	// whose lateness is in the rate section.
	TimerLagMs    *measure.Percentiles `json:"timer_lag_ms,omitempty"`
	TimerLagCount int64                `json:"timer_lag_count,omitempty"`
}

// TxResult is one transaction type's figures over the measurement interval.
type TxResult struct {
	Count      int64 `json:"count"` // completed, including business rollbacks, excluding errors
	Errors     int64 `json:"errors"`
	Retries    int64 `json:"retries"`
	Rollbacks  int64 `json:"rollbacks"`
	Reconnects int64 `json:"reconnects"`
	// Incomplete: started in the window but not finished within the grace period.
	Incomplete int64 `json:"incomplete"`
	// Overflow: latencies above the histogram's range (counted at its highest value).
	Overflow   int64               `json:"overflow,omitempty"`
	PerMinute  float64             `json:"per_minute"`
	ResponseMs measure.Percentiles `json:"response_ms"`
	ServiceMs  measure.Percentiles `json:"service_ms"`
	LagMs      measure.Percentiles `json:"lag_ms"`
	// Dropped: open-loop arrivals of this type that found the backlog full and never ran.
	Dropped int64 `json:"dropped"`
	// PartOf names the operation this one is a part of, when it is (TPC-C's delivery_deferred is
	// the deferred part of delivery, its response time running from when delivery handed it on):
	// such an operation has its own row, but is not counted again among all operations.
	PartOf string `json:"part_of,omitempty"`
	// Failures are the errors by class with their first distinct messages (failures.go); absent
	// when there were none.
	Failures *Failures `json:"failures,omitempty"`
	// RetryCauses are what the retried attempts failed with: the first distinct messages
	// (measure.MaxFailureMessages at most), each with its class and the retries it caused, counted
	// by the operation's first retried attempt (failures.go); absent without retries.
	RetryCauses []FailureMessage `json:"retry_causes,omitempty"`
	// PartNote says how a part is timed ("from the statement's call to its result"); empty for
	// TPC-C's delivery_deferred, timed from when delivery handed it on.
	PartNote string `json:"part_note,omitempty"`
}

// Deferred is the deferred Delivery's figures.
type Deferred struct {
	Count            int64               `json:"count"`
	Errors           int64               `json:"errors"`
	Incomplete       int64               `json:"incomplete"`
	SkippedDistricts int64               `json:"skipped_districts"`
	Districts        int64               `json:"districts"`
	CompletionMs     measure.Percentiles `json:"completion_ms"`
	// File is the Delivery result file (DeliveriesFile) in the results directory and Lines its
	// number of lines after the header: every deferred Delivery that ran, warm-up and drain
	// included (its measured column tells the ones counted here). Empty without --out.
	File  string `json:"file,omitempty"`
	Lines int64  `json:"lines,omitempty"`
}

// Verdict is one pass/fail rule, such as a 90th-percentile response-time limit of clause 5.2.5.3.
type Verdict struct {
	Rule    string  `json:"rule"`
	LimitMs float64 `json:"limit_ms"`
	ValueMs float64 `json:"value_ms"`
	// Samples is the number of transactions the value comes from; with none there is no verdict.
	Samples int64 `json:"samples"`
	// Status is "pass", "fail" or "no data"; Pass is true only for "pass".
	Status string `json:"status"`
	Pass   bool   `json:"pass"`
	// Unfinished: the percentile falls among failed or incomplete transactions, which have no
	// latency; ValueMs is then 0 and the verdict fails.
	Unfinished bool `json:"unfinished,omitempty"`
}

// NewVerdict judges value against limit (lower is better) from samples transactions.
func NewVerdict(rule string, limitMs, valueMs float64, samples int64) Verdict {
	v := Verdict{Rule: rule, LimitMs: limitMs, ValueMs: valueMs, Samples: samples}
	switch {
	case math.IsInf(valueMs, 1):
		v.ValueMs, v.Unfinished, v.Status = 0, true, "fail"
	case samples == 0:
		v.Status = "no data"
	case valueMs <= limitMs:
		v.Status, v.Pass = "pass", true
	default:
		v.Status = "fail"
	}
	return v
}

// Audit is the run-time audit of the generated inputs (TPC-C clause 9.2).
type Audit struct {
	Transactions int64 `json:"transactions"`
	// Enough is false below the number of transactions the audit needs to be meaningful.
	Enough bool        `json:"enough"`
	Items  []AuditItem `json:"items"`
}

// AuditItem is one audited share with its bounds.
type AuditItem struct {
	Name   string  `json:"name"`
	Clause string  `json:"clause"`
	Value  float64 `json:"value"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	Unit   string  `json:"unit"`
	// Status is pass, fail, "not enough transactions" or "not applicable".
	Status string `json:"status"`
	Pass   bool   `json:"pass"`
}

// Check is one consistency condition's outcome (TPC-C clause 3.3.2).
type Check struct {
	Condition int    `json:"condition"`
	Name      string `json:"name"`
	Skipped   bool   `json:"skipped"`
	// NotRun: the condition was never evaluated because the check failed before it could be (its
	// statement's error, a lost connection): Skipped too, and Reason says why; never a failure.
	NotRun     bool     `json:"not_run,omitempty"`
	Reason     string   `json:"reason,omitempty"`
	OK         bool     `json:"ok"`
	Violations []string `json:"violations,omitempty"`
	Seconds    float64  `json:"seconds"`
}

// Warning is a condition that makes a number misleading, with a stable code and one sentence.
type Warning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Write stores r as DIR/result.json (creating DIR), atomically: a crash never leaves half a file.
func Write(dir string, r *Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return userr.Errorf("cannot create the results directory %s: %v: choose another --out", dir, err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, ResultFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, ResultFile))
}

// Read loads DIR/result.json.
func Read(dir string) (*Result, error) {
	b, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, userr.Errorf("%s has no %s: pass the --out directory of a candor run", dir, ResultFile)
		}
		return nil, userr.Errorf("cannot read %s: %v", filepath.Join(dir, ResultFile), err)
	}
	return Parse(b, filepath.Join(dir, ResultFile))
}

// Parse reads the content of a result.json (name is its path, for messages), upgrades a file of
// format 1 and validates what every reader relies on (validate.go): a damaged or hand-edited file
// is a user error naming what is wrong, never a panic in a reader.
func Parse(b []byte, name string) (*Result, error) {
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, userr.Errorf("%s is not a candor result (%v): pass the --out directory of a candor run", name, err)
	}
	if r.Workload == "" {
		return nil, userr.Errorf("%s has no workload field: it is not a candor result; pass the --out directory of a candor run", name)
	}
	if err := r.validate(); err != nil {
		return nil, userr.Errorf("%s is damaged: %v; re-run, or restore the file the run wrote", name, err)
	}
	r.upgrade()
	if err := r.validateWindow(); err != nil {
		return nil, userr.Errorf("%s is damaged: %v; re-run, or restore the file the run wrote", name, err)
	}
	return &r, nil
}

// Shard is one process's part of a sharded load or run (`--shard i/N`): Index is 0-based, RootSeed
// the seed the user gave or drew for the whole sharded run, from which each shard's own seed (the
// result's seed) is derived: gen.Derive(RootSeed, "shard", Index).
type Shard struct {
	Index    int    `json:"index"`
	Count    int    `json:"count"`
	RootSeed uint64 `json:"root_seed"`
}

// Clock is where a run's window lay on this host's wall clock, for merging shards: StartAt is the
// common start the shards were given (--start-at; absent without it), MeasureStart the wall time
// this run's measurement window began, OffsetSeconds how late it began against StartAt + warm-up
// (0 without --start-at), and ClockSource what is known of the host clock's synchronisation
// ("synchronised (kernel), max error 12 ms", or "unknown").
type Clock struct {
	StartAt       *time.Time `json:"start_at,omitempty"`
	MeasureStart  time.Time  `json:"measure_start"`
	OffsetSeconds float64    `json:"offset_seconds"`
	ClockSource   string     `json:"clock_source"`
}
