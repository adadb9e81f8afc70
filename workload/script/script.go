// Package script is pgbench's custom scripts on candor's workload contract (`candor script`): the
// scripts are read by package pgscript (pgbench's language, its built-ins, -D and weights), and
// run here on every engine candor drives, with latency from the intended start and one latency
// spectrum per script and per SQL statement.
//
// Mapping onto the contract:
//
//   - one operation per script, named by the file's base name without ".sql" (a.sql@5: "a") or
//     the built-in's name (tpcb-like); a name given twice gets "-2", "-3";
//   - every SQL statement of a script is also a part of it (workload/parts.go), named
//     SCRIPT:N, N counting the script's statements from 1 (tpcb-like:1 is its BEGIN, tpcb-like:2
//     its UPDATE of pgbench_accounts); the result's section lists each with its line and text. A
//     "." would read better, but --slo splits TYPE.PERCENTILE at the first ".";
//   - pgbench's clients are terminals: --clients N (pgbench's -c) sets --terminals and
//     --connections to N, one connection per client as pgbench has;
//   - :client_id is the terminal's index (closed loop) or the worker's (rate mode: arrivals run on
//     whichever worker is free, and each worker keeps one client's variables); :scale is the
//     load's (candor script load --scale N), 1 without a load, or -D scale=N; :random_seed is
//     the run's seed.
//
// Files: script.go (options, flags, validation, the program), load.go (pgbench's tables),
// session.go (Open, the run's work, its result), exec.go (the executor: statements, transactions,
// sleeps, \gset).
package script

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/script/pgscript"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// Disclaimer is printed with every script summary.
const Disclaimer = "script: pgbench-compatible scripts as candor runs them (variables bound as parameters, latency from the intended start, statements timed apart); not pgbench itself"

// Options are the run's scripts and definitions, as given.
type Options struct {
	Files    []string `json:"files,omitempty"`
	Builtins []string `json:"builtins,omitempty"`
	Defines  []string `json:"defines,omitempty"`
	Clients  int      `json:"clients,omitempty"`
	// MaxTries is pgbench's --max-tries: how often a script failing with a serialization failure or
	// a deadlock is tried in all (1, the default: never retried; 0: until the run ends).
	MaxTries int `json:"max_tries"`
	// Scale is the load's scale (load), or the :scale a run uses (resolved).
	Scale int `json:"scale"`
}

// Script is the workload (workload.Workload, workload.RowEstimator).
type Script struct {
	o   Options
	cmd workload.Command
	fs  *pflag.FlagSet

	// prog is the compiled program, made once from the options (compile).
	prog    *pgscript.Program
	names   []string // operation name of each script
	parts   [][]part // each script's SQL statements, as parts
	progErr error
	built   bool
}

// part is one SQL statement of a script, timed as a part of it.
type part struct {
	name string
	op   int // its index in Ops
	line int
	sql  string
}

var (
	_ workload.Workload     = (*Script)(nil)
	_ workload.RowEstimator = (*Script)(nil)
	_ workload.Checker      = (*Script)(nil)
)

// New returns the workload; without -f or -b it runs tpcb-like, as pgbench does.
func New() workload.Workload { return &Script{o: Options{Scale: 1, MaxTries: 1}} }

// Info describes the workload; its parts are those of the scripts given (before the flags are
// parsed, tpcb-like's).
func (s *Script) Info() workload.Info {
	s.compile()
	parts := map[string]string{}
	var short []string
	short = append(short, s.names...)
	for i, ps := range s.parts {
		for _, p := range ps {
			parts[p.name] = s.names[i]
			short = append(short, "")
		}
	}
	key := "tpcb-like"
	if len(s.names) > 0 {
		key = s.names[0]
	}
	return workload.Info{
		Name:            "script",
		Title:           "pgbench-compatible scripts",
		Short:           "your own workload as pgbench scripts (-f FILE@W, -b tpcb-like|simple-update|select-only), on every engine, with a latency spectrum per statement",
		Disclaimer:      Disclaimer,
		Modes:           []workload.Mode{workload.ModeThroughput, workload.ModeRate},
		DefaultDB:       "sqlite:candor-script.db",
		KeyOp:           key,
		ShortNames:      short,
		SLOExample:      key + ".p99<=20ms",
		Unit:            "transactions",
		TerminalsHelp:   "--clients, else 1 as pgbench's -c; in rate mode one per connection",
		ConnectionsHelp: "one per terminal, as pgbench's clients; in rate mode 1",
		Parts:           parts,
		PartNote:        "each SQL statement from its call to its result",
	}
}

// Ops are the scripts, then every script's statements.
func (s *Script) Ops() []string {
	s.compile()
	ops := append([]string(nil), s.names...)
	for _, ps := range s.parts {
		for _, p := range ps {
			ops = append(ops, p.name)
		}
	}
	return ops
}

// Flags binds pgbench's options: -f, -b, -D and -c for a run, --scale for a load.
func (s *Script) Flags(fs *pflag.FlagSet, cmd workload.Command) {
	s.fs, s.cmd, s.built = fs, cmd, false
	o := &s.o
	if cmd == workload.CmdCheck {
		return
	}
	if cmd == workload.CmdLoad || cmd == workload.CmdOneShot {
		fs.IntVar(&o.Scale, "scale", 1, "pgbench's scale factor: 1 branch, 10 tellers and 100,000 accounts per unit")
		workload.KeyFlags(fs, "scale")
	}
	if cmd == workload.CmdLoad {
		return
	}
	fs.StringArrayVarP(&o.Files, "file", "f", nil, "a pgbench script FILE[@WEIGHT] (repeatable; pgbench's -f)")
	fs.StringArrayVarP(&o.Builtins, "builtin", "b", nil, "a built-in script NAME[@WEIGHT]: tpcb-like, simple-update, select-only (repeatable; default tpcb-like when no -f)")
	fs.StringArrayVarP(&o.Defines, "define", "D", nil, "a variable NAME=VALUE every client starts with (repeatable; pgbench's -D)")
	fs.IntVarP(&o.Clients, "clients", "c", 0, "pgbench's clients: sets --terminals and --connections to N (one connection per client)")
	workload.KeyFlags(fs, "file", "builtin")
	workload.FlagGroup(fs, workload.GroupShape, "clients") // another name of --terminals and --connections
	fs.IntVar(&o.MaxTries, "max-tries", 1, "pgbench's --max-tries: tries in all for a script failing with a serialization failure or a deadlock, each from the same random state (1: no retry; 0: until the run ends)")
}

// given reports whether the flag name was set on the command line.
func (s *Script) given(name string) bool {
	if s.fs == nil {
		return false
	}
	f := s.fs.Lookup(name)
	return f != nil && f.Changed
}

// compile builds the program from the options once the flags are parsed (Validate builds it
// again; Flags forgets an earlier build); between Flags and the parse it describes tpcb-like
// alone, and on an error a single operation "script".
func (s *Script) compile() {
	if s.built {
		return
	}
	if s.fs != nil && !s.fs.Parsed() {
		s.prog, s.names, s.parts = nil, []string{"tpcb-like"}, nil
		s.progErr = nil
		if p, err := buildProgram(nil, []string{"tpcb-like"}, nil); err == nil {
			s.prog = p
			s.names, s.parts = opNames(p, nil, []string{"tpcb-like"})
		}
		return
	}
	s.built = true
	builtins := s.o.Builtins
	if len(s.o.Files) == 0 && len(builtins) == 0 {
		builtins = []string{"tpcb-like"}
	}
	p, err := buildProgram(s.o.Files, builtins, s.o.Defines)
	if err != nil {
		s.progErr = err
		s.names = []string{"script"}
		return
	}
	s.prog = p
	s.names, s.parts = opNames(p, s.o.Files, builtins)
}

// buildProgram reads the files, then the built-ins (pgbench numbers them in the order given; candor
// takes the files first), then the definitions, and checks the whole.
func buildProgram(files, builtins, defines []string) (*pgscript.Program, error) {
	p := pgscript.NewProgram()
	for _, f := range files {
		if _, err := p.AddFile(f); err != nil {
			return nil, err
		}
	}
	for _, b := range builtins {
		if _, err := p.AddBuiltin(b); err != nil {
			return nil, err
		}
	}
	for _, d := range defines {
		if err := p.Define(d); err != nil {
			return nil, err
		}
	}
	if err := p.Check(); err != nil {
		return nil, err
	}
	return p, nil
}

// opNames names the scripts (files first, then built-ins, the program's order) and their
// statements' parts, numbering the parts' operations after the scripts'.
func opNames(p *pgscript.Program, files, builtins []string) ([]string, [][]part) {
	var names []string
	seen := map[string]int{}
	add := func(n string) {
		n = strings.ReplaceAll(n, ".", "_")
		seen[n]++
		if k := seen[n]; k > 1 {
			n = fmt.Sprintf("%s-%d", n, k)
		}
		names = append(names, n)
	}
	for _, f := range files {
		path, _, _ := pgscript.ParseWeight(f)
		add(strings.TrimSuffix(filepath.Base(path), ".sql"))
	}
	for _, b := range builtins {
		name, _, _ := pgscript.ParseWeight(b)
		if bi, err := pgscript.FindBuiltin(name); err == nil {
			name = bi.Name
		}
		add(name)
	}
	parts := make([][]part, len(p.Scripts))
	op := len(names)
	for i, sc := range p.Scripts {
		n := 0
		for _, c := range sc.Commands {
			if c.Kind != pgscript.SQL {
				continue
			}
			for _, st := range c.Statements {
				n++
				parts[i] = append(parts[i], part{name: fmt.Sprintf("%s:%d", names[i], n), op: op, line: c.Pos.Line, sql: oneLine(st.SQL)})
				op++
			}
		}
	}
	return names, parts
}

// oneLine is a statement's text on one line, cut to 80 characters, for the report.
func oneLine(sql string) string {
	t := strings.Join(strings.Fields(sql), " ")
	if len(t) > 80 {
		t = t[:77] + "..."
	}
	return t
}

// Validate checks the options before anything connects: the scripts compile, the scale and
// clients are in range, and --clients agrees with --terminals and --connections.
func (s *Script) Validate(v workload.Validation) []string {
	var p []string
	add := func(format string, a ...any) { p = append(p, fmt.Sprintf(format, a...)) }
	if v.Cmd == workload.CmdCheck {
		return nil
	}
	if (v.Cmd == workload.CmdLoad || v.Cmd == workload.CmdOneShot) && (s.o.Scale < 1 || s.o.Scale > maxScale) {
		add("--scale %d is outside 1..%d: give pgbench's scale factor", s.o.Scale, maxScale)
	}
	if v.Cmd == workload.CmdRun || v.Cmd == workload.CmdOneShot {
		s.built = false
		s.compile()
		if s.progErr != nil {
			p = append(p, s.progErr.Error())
		}
		if s.o.MaxTries < 0 {
			add("--max-tries %d is negative: give the tries in all (1: no retry, 0: until the run ends)", s.o.MaxTries)
		}
		if s.o.Clients < 0 || s.o.Clients > 100000 {
			add("--clients %d is outside 1..100000: give the number of clients", s.o.Clients)
		}
		if s.o.Clients > 0 && v.Terminals > 0 && v.Terminals != s.o.Clients {
			add("--clients %d and --terminals %d disagree: give one of them", s.o.Clients, v.Terminals)
		}
		if s.o.Clients > 0 && v.Connections > 0 && v.Connections != s.o.Clients {
			add("--clients %d and --connections %d disagree: give --clients alone (one connection per client) or --terminals and --connections", s.o.Clients, v.Connections)
		}
	}
	if problem := sqlexec.DialectProblem(v.DB, "script"); problem != "" {
		p = append(p, problem)
	}
	return p
}

// usesBuiltin reports whether the run's scripts include a built-in (they need pgbench's tables).
func (s *Script) usesBuiltin() bool {
	return len(s.o.Builtins) > 0 || len(s.o.Files) == 0
}

// ExpectedRows is the rows a load writes.
func (s *Script) ExpectedRows() int64 {
	sc := int64(s.o.Scale)
	return sc * (1 + 10 + accountsPerBranch)
}

// EstimateLoad is the load's size (workload.LoadEstimator): pgbench's accounts at 96 bytes each
// (three integers and an 84-character filler), the branches and tellers beside them; the rows are
// made one at a time as they are copied, so the memory held is a row's per loader.
func (s *Script) EstimateLoad(loaders int) workload.LoadEstimate {
	rows := s.ExpectedRows()
	return workload.LoadEstimate{
		Rows:       rows,
		Bytes:      workload.Product(int64(max(0, s.o.Scale)), accountsPerBranch, 96),
		PeakMemory: workload.Product(int64(max(1, loaders)), 1<<10),
	}
}

var _ workload.LoadEstimator = (*Script)(nil)
