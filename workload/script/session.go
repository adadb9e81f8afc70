package script

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/loadstate"
	"github.com/candor-bench/candor/workload/script/pgscript"
	"github.com/candor-bench/candor/workload/sqlexec"
	"github.com/candor-bench/candor/workload/textfmt"
)

// session is one run (workload.Session, workload.RoundTripper).
type session struct {
	sqlexec.Run
	s      *Script
	scale  int
	loaded bool
	ex     *executor
}

var (
	_ workload.Session      = (*session)(nil)
	_ workload.RoundTripper = (*session)(nil)
)

// Open resolves a run: :scale from the load (built-in scripts need pgbench's tables; custom
// scripts run on whatever the database holds, at scale 1 without a load), terminals and
// connections from --clients (pgbench's -c), else 1 as pgbench.
func (s *Script) Open(ctx context.Context, db driver.DB, c workload.SessionConfig) (workload.Session, error) {
	run, err := sqlexec.NewRun(db, c, "script")
	if err != nil {
		return nil, err
	}
	s.compile()
	if s.progErr != nil {
		return nil, s.progErr
	}
	ss := &session{Run: run, s: s, scale: 1}
	if loadstate.IsNull(db) {
		// The null engine holds no data: :scale is --scale as given.
		ss.scale, ss.loaded = s.o.Scale, true
	} else if s.usesBuiltin() {
		_, rec, err := loadstate.ForRun(ctx, db, readRecord)
		if err != nil {
			return nil, err
		}
		ss.scale, ss.loaded = rec.Scale, true
	} else {
		st, rec, err := readRecord(ctx, db)
		if err != nil {
			return nil, err
		}
		if st.Status == loadstate.Completed {
			ss.scale, ss.loaded = rec.Scale, true
		}
	}
	if err := ss.Size(max(c.Terminals, s.o.Clients), max(c.Connections, s.o.Clients), 1, 1); err != nil {
		return nil, err
	}
	return ss, nil
}

// Setup is the run's terminals, connections and opening line.
func (s *session) Setup() workload.Setup {
	o := s.s.o
	o.Scale = s.scale
	o.Clients = s.Terms
	return workload.Setup{Terminals: s.Terms, Connections: s.Conns, Describe: s.describe(), Options: o}
}

// describe is "tpcb-like@1, select-only@5; scale 1 (loaded); 7 statements".
func (s *session) describe() string {
	p := s.s.prog
	var names []string
	n := 0
	for i, sc := range p.Scripts {
		names = append(names, fmt.Sprintf("%s@%d", s.s.names[i], sc.Weight))
		n += len(s.s.parts[i])
	}
	from := "loaded"
	if !s.loaded {
		from = "no load recorded"
	}
	if p.Defined("scale") {
		from = "-D scale"
	}
	return fmt.Sprintf("%s; scale %d (%s); %d statements timed apart", strings.Join(names, ", "), s.scale, from, n)
}

// Start opens the connections and makes the clients.
func (s *session) Start(ctx context.Context, env workload.Env) (*workload.Work, error) {
	if s.loaded {
		if err := loadstate.MarkRun(ctx, s.DB, "script"); err != nil {
			return nil, err
		}
	}
	slots, err := s.Connect(ctx, env)
	if err != nil {
		return nil, err
	}
	rate := s.Session.Mode == workload.ModeRate
	s.ex = newExecutor(s.s, s.Family, s.Session.Isolation, slots, workload.NewPartTimer(env.Rec), rate)
	s.ex.note = s.Session.Note
	seed := s.Session.Seed
	newEnv := func(client int) *pgscript.Env {
		return s.s.prog.NewEnv(pgscript.EnvOptions{ClientID: int64(client), Scale: int64(s.scale),
			RandomSeed: int64(seed), DefaultSeed: int64(gen.Derive(seed, "script", "default_seed")),
			Rand: gen.New(gen.Derive(seed, "script", "client", client)), Debug: debugOut})
	}
	if rate {
		s.ex.envs = make([]*pgscript.Env, slots.Len())
		for i := range s.ex.envs {
			s.ex.envs[i] = newEnv(i)
		}
	}
	terms := make([]*terminal, s.Terms)
	for i := range terms {
		terms[i] = &terminal{prog: s.s.prog, r: gen.New(gen.Derive(seed, "script", "choose", i))}
		if !rate {
			terms[i].env = newEnv(i)
		}
	}
	return sqlexec.Work(s.Session.Mode, s.ex, slots, terms), nil
}

// terminal is one of pgbench's clients: its variables (closed loop), the stream its scripts are
// chosen by, the script drawn, and the think time a trailing \sleep left.
type terminal struct {
	prog   *pgscript.Program
	r      *gen.Rand
	env    *pgscript.Env
	script int
	think  time.Duration
}

var _ sqlexec.Drawer = (*terminal)(nil)

// Next chooses the next script by weight (pgbench's chooseScript).
func (t *terminal) Next() (int, time.Duration) {
	t.script = t.prog.Choose(t.r)
	return t.script, 0
}

// Think is the trailing \sleep of the script just run: the client waits without a worker.
func (t *terminal) Think(int) time.Duration {
	d := t.think
	t.think = 0
	return d
}

// NewJob is a job record of the open loop.
func (t *terminal) NewJob() schedule.Terminal { return &terminal{prog: t.prog} }

// DrawInto chooses the job's script.
func (t *terminal) DrawInto(job schedule.Terminal) int {
	j := job.(*terminal)
	j.script = t.prog.Choose(t.r)
	return j.script
}

// Finish adds the headline (transactions per second, as pgbench's tps) and a table of every
// statement's latency (what pgbench -r prints as averages).
func (s *session) Finish(f *workload.Finished) {
	d := Details{Scale: s.scale, Loaded: s.loaded, Scripts: s.scripts()}
	if s.ex != nil {
		for i, msg := range s.ex.first {
			if msg != "" {
				d.Scripts[i].FirstError = msg
			}
		}
	}
	finish(f, d, "its first error in the run")
}

// finish is the headline, statements' table, warnings and details of a run (Finish) or of a run
// merged from shards (MergeFinish), from d and the result's operations; firstWhat says whose
// first error a SCRIPT_ERROR quotes.
func finish(f *workload.Finished, d Details, firstWhat string) {
	r := f.Result
	var txs int64
	for _, sc := range d.Scripts {
		if t := r.Operations[sc.Name]; t != nil {
			txs += t.Count
		}
	}
	r.Headline = append(r.Headline, report.Figure{Name: "transactions", Value: f.PerSecond(txs), Unit: "per second", Note: "pgbench's tps: every script"})
	sec := report.Section{
		Title:   "script: statements of the measured transactions",
		Columns: []string{"statement", "line", "SQL", "count", "p50 ms", "p99 ms", "p99.9 ms", "max ms"},
	}
	for _, sc := range d.Scripts {
		for _, p := range sc.Statements {
			t := r.Operations[p.Op]
			if t == nil {
				continue
			}
			sec.Rows = append(sec.Rows, []string{p.Op, strconv.Itoa(p.Line), p.SQL, textfmt.Thousands(t.Count),
				ms(t.ResponseMs.P50), ms(t.ResponseMs.P99), ms(t.ResponseMs.P999), ms(t.ResponseMs.Max)})
		}
	}
	sec.Notes = []string{"Each SQL statement is timed from its call to its result on the client's connection; a script's BEGIN is sent with its next statement on PostgreSQL, so it times near zero there and that statement carries it. \\set, \\if and a \\sleep inside a script count in the script's latency only; a \\sleep ending a script is the client's think time, outside it."}
	r.Sections = append(r.Sections, sec)
	for _, sc := range d.Scripts {
		if sc.FirstError != "" {
			r.Warnings = append(r.Warnings, report.Warning{Code: "SCRIPT_ERROR", Message: fmt.Sprintf("%s failed (%s): %s", sc.Name, firstWhat, sc.FirstError)})
		}
	}
	r.Details = d
}

var _ workload.Merger = (*Script)(nil)

// MergeFinish is script's part of a result merged from shards (candor merge): the same finish as
// a run's, from the merged operations (every script's and statement's percentiles from the
// histograms summed bucket by bucket). The scripts are the shards' common ones (merge.Check
// refuses shards run with other flags); a script's first error is the first shard's (in shard
// order) that had one, since the shards' clocks do not order their errors exactly.
func (w *Script) MergeFinish(m *workload.Merged) error {
	ds, err := workload.ShardDetails[Details](m, "script")
	if err != nil {
		return err
	}
	d := ds[0]
	d.Scripts = append([]scriptEntry(nil), d.Scripts...)
	for i := range d.Scripts {
		d.Scripts[i].FirstError = ""
		for k, x := range ds {
			if len(x.Scripts) != len(d.Scripts) || x.Scripts[i].Name != d.Scripts[i].Name {
				return userr.Errorf("the shards ran other scripts (shard %d's script %d is %q, not %q): merge the shards of one run", shardOf(m, k), i+1, scriptName(x.Scripts, i), d.Scripts[i].Name)
			}
			if d.Scripts[i].FirstError == "" && x.Scripts[i].FirstError != "" {
				d.Scripts[i].FirstError = x.Scripts[i].FirstError
			}
		}
	}
	finish(&m.Finished, d, "its first error in the first shard that had one")
	return nil
}

func shardOf(m *workload.Merged, k int) int {
	if r := m.Shards[k]; r.Shard != nil {
		return r.Shard.Index
	}
	return k
}

func scriptName(s []scriptEntry, i int) string {
	if i < len(s) {
		return s[i].Name
	}
	return "absent"
}

// Details is the workload's part of result.json ("details").
type Details struct {
	Scale   int           `json:"scale"`
	Loaded  bool          `json:"loaded"`
	Scripts []scriptEntry `json:"scripts"`
}

type scriptEntry struct {
	Name       string      `json:"name"`
	Weight     int         `json:"weight"`
	Statements []stmtEntry `json:"statements"`
	// FirstError is the script's first error in the run (warm-up included), if any.
	FirstError string `json:"first_error,omitempty"`
}

type stmtEntry struct {
	Op   string `json:"op"`
	Line int    `json:"line"`
	SQL  string `json:"sql"`
}

func (s *session) scripts() []scriptEntry {
	var out []scriptEntry
	for i, sc := range s.s.prog.Scripts {
		e := scriptEntry{Name: s.s.names[i], Weight: sc.Weight}
		for _, p := range s.s.parts[i] {
			e.Statements = append(e.Statements, stmtEntry{Op: p.name, Line: p.line, SQL: p.sql})
		}
		out = append(out, e)
	}
	return out
}

func ms(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
