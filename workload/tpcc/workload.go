package tpcc

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/bulkload"
	"github.com/candor-bench/candor/workload/loadstate"
	"github.com/candor-bench/candor/workload/sqlexec"
	"github.com/candor-bench/candor/workload/textfmt"
)

// TPC-C as one implementation of the workload contract (package workload): its options, load,
// consistency check and sessions. session.go runs it; result.go is its part of the result.

// Disclaimer is printed with every TPC-C summary.
const Disclaimer = "derived from TPC-C, not audited: not comparable to published TPC-C results"

// Options are TPC-C's own flags.
type Options struct {
	// Warehouses: to load (load, one-shot), or as loaded (run: 0 takes the database's count).
	Warehouses int `json:"warehouses"`
	// Procedures runs each transaction as one call of a stored procedure (proc_ops.go); with load,
	// creates them after the rows.
	Procedures bool `json:"procedures"`
	// Tablespaces (load): PostgreSQL tablespaces or MySQL/MariaDB directories the tables and
	// indexes are spread over (tablespace.go); in a run's options, the load's.
	Tablespaces []string `json:"tablespaces,omitempty"`
}

// Workload is TPC-C (workload.Workload, workload.Checker, workload.RowEstimator).
type Workload struct {
	Options
	// deliveryWorkers is --delivery-workers (0: DefaultDeliveryWorkers).
	deliveryWorkers int
	cmd             workload.Command
}

// terminalBytes bounds the memory one terminal takes in a run (see Open).
const terminalBytes = 512

// Defaults that bound a run's resources however many warehouses it has (a million
// terminals in one process).
const (
	// MaxDefaultConnections caps the default connections of spec and rate mode (2 per warehouse).
	// By Little's law, 256 connections carry the spec rate of 100,000 warehouses (about 47,600
	// transactions per second, 1,000,000 terminals) up to a mean service time of 5 ms; a slower
	// database needs --connections, and waits for a connection are measured, in response time.
	MaxDefaultConnections = 256
	// MaxDefaultDeliveryWorkers caps the default deferred-Delivery workers (one per 10 warehouses).
	MaxDefaultDeliveryWorkers = 16
	// MaxDeliveryWorkers bounds --delivery-workers: each has a connection and a queue.
	MaxDeliveryWorkers = 1024
)

// DefaultConnections is the connections a run of the mode has without --connections.
func DefaultConnections(mode Mode, warehouses, terminals int) int {
	if mode == ModeSpec || mode == ModeRate {
		// Spec terminals are idle over 99% of the time (keying and think); a pool of 2 per
		// warehouse (at least 4, at most MaxDefaultConnections) keeps connection waits rare. Waits
		// that do happen are measured. Rate mode starts from the same pool; how many connections a
		// rate needs is the user's question, and the backlog shows when they are too few.
		return min(terminals, max(4, min(2*warehouses, MaxDefaultConnections)))
	}
	return terminals
}

// DefaultDeliveryWorkers is the deferred-Delivery workers a run has without --delivery-workers: one
// per 10 warehouses (and one more), at most MaxDefaultDeliveryWorkers.
func DefaultDeliveryWorkers(warehouses int) int {
	return min(warehouses/10+1, MaxDefaultDeliveryWorkers)
}

var (
	_ workload.Workload     = (*Workload)(nil)
	_ workload.Checker      = (*Workload)(nil)
	_ workload.RowEstimator = (*Workload)(nil)
)

// New returns TPC-C with default options.
func New() workload.Workload { return &Workload{} }

// Info describes TPC-C.
func (*Workload) Info() workload.Info {
	return workload.Info{
		Name:            "tpcc",
		Title:           "TPC-C (derived, not audited)",
		Short:           "TPC-C (derived, not audited): load, run, check and summarize; subcommands for each part",
		Disclaimer:      Disclaimer,
		Modes:           []workload.Mode{workload.ModeSpec, workload.ModeThroughput, workload.ModeRate},
		DefaultDB:       "sqlite:candor-tpcc.db",
		KeyOp:           "new_order",
		ShortNames:      []string{"no", "pay", "os", "dl", "sl", ""},
		SLOExample:      "new_order.p99<=50ms",
		Unit:            "transactions",
		TerminalsHelp:   "10 per warehouse in spec and rate mode, 4 in throughput mode",
		ConnectionsHelp: "one per terminal in throughput mode, 2 per warehouse, at least 4 and at most 256 in spec and rate mode",
	}
}

// Ops are the five transaction types, then the deferred Delivery (runner.go).
func (*Workload) Ops() []string { return OpNames }

// Flags binds --warehouses and --procedures.
func (w *Workload) Flags(fs *pflag.FlagSet, cmd workload.Command) {
	w.cmd = cmd
	switch cmd {
	case workload.CmdLoad:
		fs.IntVar(&w.Warehouses, "warehouses", 1, "warehouses to load")
		defer workload.KeyFlags(fs, "warehouses")
		fs.BoolVar(&w.Procedures, "procedures", false, "also create the stored procedures that run --procedures uses (PostgreSQL, MySQL, MariaDB)")
		fs.StringSliceVar(&w.Tablespaces, "tablespaces", nil, "spread the tables and their indexes round-robin over these places, largest tables first (STOCK and ORDER_LINE apart, each primary key apart from its table): on PostgreSQL existing tablespaces (CREATE TABLESPACE is yours to run, on an empty directory owned by the server's OS user); on MySQL and MariaDB absolute directories for DATA DIRECTORY (innodb_file_per_table ON; each writable by the server's OS user; InnoDB keeps a table's indexes in the table's file). Checked after the load: a table or index elsewhere fails it")
	case workload.CmdRun, workload.CmdOneShot:
		help := "warehouses (default: what was loaded)"
		if cmd == workload.CmdOneShot {
			help = "warehouses (default: what was loaded, or 1 when the database must be loaded first)"
		}
		fs.IntVar(&w.Warehouses, "warehouses", 0, help)
		fs.BoolVar(&w.Procedures, "procedures", false, "run each transaction as one call of a stored procedure (PostgreSQL, MySQL, MariaDB; create them with load --procedures or candor tpcc procedures)")
		defer workload.KeyFlags(fs, "warehouses")
		fs.IntVar(&w.deliveryWorkers, "delivery-workers", 0, fmt.Sprintf("workers running the deferred part of Delivery, each on a connection of its own; deliveries of one warehouse always go to the same worker (default: one per 10 warehouses and one more, at most %d)", MaxDefaultDeliveryWorkers))
	}
}

// Validate checks TPC-C's options against the core's flags before anything connects.
func (w *Workload) Validate(v workload.Validation) []string {
	var p []string
	add := func(format string, a ...any) { p = append(p, fmt.Sprintf(format, a...)) }
	switch v.Cmd {
	case workload.CmdLoad:
		if w.Warehouses < 1 {
			add("--warehouses must be at least 1 (got %d)", w.Warehouses)
		}
	default:
		if w.Warehouses < 0 {
			add("--warehouses must be positive (got %d)", w.Warehouses)
		}
	}
	if w.deliveryWorkers < 0 || w.deliveryWorkers > MaxDeliveryWorkers {
		add("--delivery-workers %d is out of range: give 1 to %d (or leave it out for one per 10 warehouses, at most %d)", w.deliveryWorkers, MaxDeliveryWorkers, MaxDefaultDeliveryWorkers)
	}
	lo, hi := v.Shard.Range(w.Warehouses) // a shard's own warehouses (shard.go)
	if hw := hi - lo + 1; v.Mode == workload.ModeSpec && v.Terminals != 0 && w.Warehouses != 0 && v.Terminals != TerminalsPerWarehouse*hw {
		add("--terminals %d does not fit spec mode, which has exactly 10 terminals per warehouse (%d): drop --terminals or use --mode throughput", v.Terminals, TerminalsPerWarehouse*hw)
	}
	if v.Shard.Sharded() && w.Warehouses != 0 && lo > hi {
		add("--shard %s has no warehouse of %d (shard i takes warehouses i·W/N+1 to (i+1)·W/N): use at most %d shards", v.Shard, w.Warehouses, w.Warehouses)
	}
	if e := v.Endpoints; e > 1 && w.Warehouses != 0 && w.Warehouses < e {
		add("%d warehouses cannot be spread over %d endpoints: terminals are spread by warehouse, so give at most %d --db endpoints", w.Warehouses, e, w.Warehouses)
	}
	if len(w.Tablespaces) > 0 {
		d, known := driver.URLDialect(v.DB)
		p = append(p, tablespacesProblems(w.Tablespaces, d.Name, known)...)
	}
	if w.Procedures && v.DB != "" {
		if d, ok := driver.URLDialect(v.DB); ok {
			if err := DialectProcedures(d); err != nil {
				add("%s", err.Error())
			}
		}
	}
	return p
}

// loadWarehouses is the warehouse count a load (or the one-shot's load) writes.
func (w *Workload) loadWarehouses() int {
	if w.Warehouses == 0 {
		return 1
	}
	return w.Warehouses
}

// ExpectedRows is the rows a load writes (for the progress bar).
func (w *Workload) ExpectedRows() int64 { return ExpectedRows(w.loadWarehouses()) }

// Load loads the initial population (clause 4.3) and, with --procedures, creates the procedures.
func (w *Workload) Load(ctx context.Context, db driver.DB, o workload.LoadOptions) (workload.LoadResult, error) {
	if w.Procedures {
		if err := ProceduresSupported(db); err != nil {
			return workload.LoadResult{}, err
		}
	}
	W := w.loadWarehouses()
	info, err := Load(ctx, db, LoadOptions{Warehouses: W, Loaders: o.Loaders, Seed: o.Seed, Drop: o.Drop,
		ToolVersion: o.ToolVersion, Progress: o.Progress, Shard: o.Shard, ShardWait: o.ShardWait, Note: o.Note,
		Tablespaces: w.Tablespaces})
	if err != nil {
		return workload.LoadResult{}, err
	}
	summary := fmt.Sprintf("%d warehouse%s", info.Warehouses, plural(info.Warehouses))
	if o.Shard.Sharded() { // shard.go
		lo, hi := o.Shard.Range(W)
		summary = fmt.Sprintf("shard %s's part of %s: warehouses %d..%d", o.Shard, warehousesText(W), lo, hi)
		if o.Shard.Index == 0 {
			summary += " and ITEM"
		}
		summary += bulkload.ResumedNote(info.Resumed)
	}
	built := "keys and indexes built"
	if o.Shard.Sharded() && o.Shard.Index > 0 {
		built = "its part recorded; shard 0 builds the keys and indexes once every part is in"
	}
	if p := info.Placement; p != nil && !(o.Shard.Sharded() && o.Shard.Index > 0) {
		built += ", where --tablespaces put them (read back from the catalog)" + placementText(p)
	}
	res := workload.LoadResult{BulkPath: info.BulkPath,
		Summary: summary,
		Facts: fmt.Sprintf("%s; load C constants: c_last %d, c_id %d, ol_i_id %d",
			built, info.C.CLast, info.C.CID, info.C.OLIID)}
	if w.Procedures {
		if err := w.CreateProcedures(ctx, db, o.Note); err != nil {
			return res, err
		}
	}
	return res, nil
}

// CreateProcedures creates (or replaces) the stored procedures of --procedures on a loaded
// database and records them in candor_load (`candor tpcc procedures`).
func (w *Workload) CreateProcedures(ctx context.Context, db driver.DB, note func(string)) error {
	v, err := CreateProcedures(ctx, db)
	if err != nil {
		return err
	}
	if note != nil {
		note(fmt.Sprintf("created the TPC-C stored procedures in %s (version %s): `candor tpcc run --procedures` runs each transaction as one call", db.Redacted(), v))
	}
	return nil
}

// Loaded reports whether db holds a complete load of the warehouses asked for (1 by default). No
// candor data at all is "not loaded"; a half-finished load or one of another size is a user error
// naming the fix, never silently replaced.
func (w *Workload) Loaded(ctx context.Context, db driver.DB) (bool, error) {
	has, err := HasData(ctx, db)
	if err != nil || !has {
		return false, err
	}
	info, err := ReadLoadInfo(ctx, db)
	if err != nil {
		return false, err
	}
	W := w.loadWarehouses()
	switch {
	case !info.Completed:
		if err := shardsIncomplete(ctx, db); err != nil { // shard.go: name what is missing
			return false, err
		}
		return false, loadstate.MarkHalfLoaded(userr.Errorf("the load of %s never completed (it was interrupted): reload it with candor tpcc load --drop --db %s --warehouses %d", db.Redacted(), db.Redacted(), W))
	case w.Warehouses != 0 && info.Warehouses != W:
		return false, userr.Errorf("%s holds %d warehouses, not %d: pass --warehouses %d, or reload with candor tpcc load --drop --db %s --warehouses %d", db.Redacted(), info.Warehouses, W, info.Warehouses, db.Redacted(), W)
	}
	if w.Procedures && w.cmd == workload.CmdOneShot {
		// The one-shot on data already loaded: (re)create the procedures, as its load would have.
		return true, w.CreateProcedures(ctx, db, nil)
	}
	return true, nil
}

// Check runs the consistency conditions of clause 3.3.2 (the expensive ones with full).
func (*Workload) Check(ctx context.Context, db driver.DB, full bool) ([]report.Check, error) {
	res, err := Check(ctx, db, CheckOptions{Full: full})
	if err != nil {
		return nil, err
	}
	out := make([]report.Check, len(res))
	for i, c := range res {
		out[i] = report.Check{Condition: c.Condition, Name: c.Name, Skipped: c.Skipped, Reason: c.Reason,
			OK: c.OK, Violations: c.Violations, Seconds: c.Duration.Seconds()}
	}
	return out, nil
}

// Open resolves a run against the loaded database: the warehouse count, the terminals and
// connections the mode implies, several endpoints (each must hold the same load), the procedures.
func (w *Workload) Open(ctx context.Context, db driver.DB, c workload.SessionConfig) (workload.Session, error) {
	var info LoadInfo
	var err error
	if loadstate.IsNull(db) {
		// The null engine holds no data: the run takes --warehouses as given (1 by default), with
		// the NURand load constants a load of the run's seed would have drawn.
		info = LoadInfo{Warehouses: w.loadWarehouses(), Seed: c.Seed, C: LoadConstants(c.Seed), Completed: true,
			ToolVersion: "none (the null engine)", StartedAt: time.Now().UTC()}
	} else if info, err = ReadLoadInfo(ctx, db); err != nil {
		return nil, err
	}
	if !info.Completed {
		if err := shardsIncomplete(ctx, db); err != nil { // shard.go: name the missing shards
			return nil, err
		}
		return nil, userr.Errorf("the load of %s never completed (started %s): it is half-loaded and must not be benchmarked; reload with candor tpcc load --drop --db URL --warehouses N", db.Redacted(), info.StartedAt.Format(time.RFC3339))
	}
	W := w.Warehouses
	if W == 0 {
		W = info.Warehouses
	}
	if W != info.Warehouses {
		return nil, userr.Errorf("--warehouses %d does not match the database, which holds %d warehouses: drop --warehouses, or reload with candor tpcc load --drop --warehouses %d", W, info.Warehouses, W)
	}
	o := RunOptions{Mode: c.Mode, Warehouses: W, Terminals: c.Terminals, Connections: c.Connections,
		Warmup: c.Warmup, Measure: c.Measure, Grace: c.Grace,
		Seed: c.Seed, Isolation: c.Isolation, Procedures: w.Procedures, Endpoints: c.Endpoints}
	// A shard drives the terminals of its warehouses only (shard.go); HW is their count.
	o.HomeLo, o.HomeHi = c.Shard.Range(W)
	HW := o.HomeHi - o.HomeLo + 1
	if HW < 1 {
		return nil, userr.Errorf("shard %s has no warehouse of the %d loaded (shard i takes warehouses i·W/N+1 to (i+1)·W/N): use at most %d shards", c.Shard, W, W)
	}
	o.DeliveryWorkers = DefaultDeliveryWorkers(HW)
	switch {
	case c.Mode == workload.ModeSpec && c.Terminals != 0 && c.Terminals != TerminalsPerWarehouse*HW:
		return nil, userr.Errorf("--terminals %d does not fit spec mode, which has exactly 10 terminals per warehouse (%d for the %d %s): drop --terminals or use --mode throughput", c.Terminals, TerminalsPerWarehouse*HW, HW, map[bool]string{true: "of this shard", false: "loaded"}[c.Shard.Sharded()])
	case c.Mode == workload.ModeSpec:
		o.Terminals = TerminalsPerWarehouse * HW
	case o.Terminals == 0 && c.Mode == workload.ModeRate:
		// The pool arrivals are drawn from: one terminal state per district (arrivals.go).
		o.Terminals = TerminalsPerWarehouse * HW
	case o.Terminals == 0:
		// A handful: enough to keep a small server busy, few enough not to hide queueing.
		o.Terminals = 4
	}
	if w.deliveryWorkers > 0 {
		o.DeliveryWorkers = w.deliveryWorkers
	}
	if o.Connections == 0 {
		o.Connections = DefaultConnections(c.Mode, HW, o.Terminals)
		if db.Dialect().SingleWriter {
			// A connection per terminal in throughput mode, but on one writer at a time (SQLite) a
			// few hundred do all there is to do: the rest share them, as spec mode's terminals do.
			o.Connections = min(o.Connections, sqlexec.MaxSingleWriterConnections)
		}
	}
	// A terminal and its place in the scheduler take about 160 bytes of the process's resident
	// memory (1.6 GiB at 10,000,000 terminals, 60 s into a spec-mode warm-up on the null engine;
	// docs/performance/million-terminals.md): 512 bytes each bounds what a run's terminals take,
	// so that an absurd --warehouses is refused before it exhausts the host's memory.
	if err := sqlexec.CheckRunMemory(o.Terminals, o.Connections, terminalBytes, "the terminals' state (up to 512 bytes each)",
		"give fewer --warehouses (spec mode runs 10 terminals for each), or fewer --terminals in throughput or rate mode"); err != nil {
		return nil, err
	}
	dw := max(1, min(o.DeliveryWorkers, W))
	what := fmt.Sprintf("the default for %s terminals in %s mode, and %d Delivery workers'", textfmt.Thousands(int64(o.Terminals)), c.Mode, dw)
	if c.Connections > 0 {
		what = fmt.Sprintf("--connections %d, and %d Delivery workers'", c.Connections, dw)
	}
	if err := sqlexec.CheckConnections(db, o.Connections+dw, what); err != nil {
		return nil, err
	}
	if err := checkEndpoints(ctx, &o, info, c); err != nil { // endpoints.go
		return nil, err
	}
	if w.Procedures {
		if err := ProceduresSupported(db); err != nil {
			return nil, err
		}
		if err := CheckProcedures(ctx, db); err != nil {
			return nil, err
		}
	}
	return newSession(ctx, db, info, o, c), nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
