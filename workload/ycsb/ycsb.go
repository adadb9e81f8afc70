package ycsb

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// The workload contract's side of the package (`candor ycsb`): ycsb.go (flags, the layers of
// properties, validation), sql.go (the table and statements per SQL family, after YCSB's JDBC
// binding), load.go (Load, Loaded, the record in candor_workloads), session.go (Open, the run's work
// and its result), terminal.go (terminals and the open loop's source), exec.go (the executor),
// check.go (Check), values.go (field values).

// Disclaimer is printed with every ycsb summary.
const Disclaimer = "ycsb: YCSB's core workloads on SQL tables as YCSB's JDBC binding lays them out, run by candor; not YCSB itself: its figures compare with YCSB's only at the same table, statements and concurrency"

// OpNames are the recorder's operation names, in ycsb.Operation's order. All five are always there,
// so that results of different workloads compare; an operation with no share has count 0.
var OpNames = []string{"read", "update", "insert", "scan", "read_modify_write"}

// defaultBuiltin is --workload's default.
const defaultBuiltin = "a"

// YCSB is the ycsb workload (workload.Workload, workload.Checker, workload.RowEstimator). Its flags
// are bound to flags; options reads them into properties and a Config.
type YCSB struct {
	flags struct {
		workload string
		files    []string
		props    []string
	}
	fs   *pflag.FlagSet // to tell the flags given from the defaulted ones
	opts *options       // read once (files included), on first use
}

var (
	_ workload.Workload     = (*YCSB)(nil)
	_ workload.Checker      = (*YCSB)(nil)
	_ workload.RowEstimator = (*YCSB)(nil)
)

// New returns ycsb with workload A.
func New() workload.Workload { return newYCSB() }

func newYCSB() *YCSB {
	y := &YCSB{}
	y.flags.workload = defaultBuiltin
	return y
}

// Info describes ycsb.
func (*YCSB) Info() workload.Info {
	return workload.Info{
		Name:            "ycsb",
		Title:           "YCSB core workloads",
		Short:           "YCSB's core workloads A-F (reads, updates, inserts, scans, read-modify-writes) on a usertable, from YCSB's own property files",
		Disclaimer:      Disclaimer,
		Modes:           []workload.Mode{workload.ModeThroughput, workload.ModeRate},
		DefaultDB:       "sqlite:candor-ycsb.db",
		KeyOp:           "read",
		ShortNames:      []string{"rd", "up", "in", "sc", "rmw"},
		SLOExample:      "read.p99<=2ms",
		Unit:            "operations",
		TerminalsHelp:   "the threadcount property when given, else 2 per CPU (GOMAXPROCS); in rate mode one per connection",
		ConnectionsHelp: "one per terminal; in rate mode the terminals given, else 2 per CPU",
	}
}

// Ops are read, update, insert, scan and read_modify_write (YCSB's READ, UPDATE, INSERT, SCAN and
// READ-MODIFY-WRITE).
func (*YCSB) Ops() []string { return slices.Clone(OpNames) }

// Flags binds ycsb's options: which properties, as YCSB takes them. Everything else is a YCSB
// property. `check` has none (it reads what the load recorded).
func (y *YCSB) Flags(fs *pflag.FlagSet, cmd workload.Command) {
	y.fs = fs
	if cmd == workload.CmdCheck {
		return
	}
	fs.StringVar(&y.flags.workload, "workload", defaultBuiltin,
		"YCSB's core workload a, b, c, d, e or f (its file workloads/workloada ... as the first layer of properties); with -P files and no --workload, the files alone, as YCSB reads them")
	fs.StringArrayVarP(&y.flags.files, "property-file", "P", nil,
		"a YCSB property file (Java .properties, read as YCSB's -P reads it); repeat for several, later ones override earlier ones")
	help := "a YCSB property, name=value (YCSB's -p), over the files; repeat for several (e.g. -p recordcount=100000 -p requestdistribution=uniform)"
	if cmd == workload.CmdRun || cmd == workload.CmdOneShot {
		help += "; the properties that decide the data (recordcount, fieldcount, fieldlength, insertorder, table ...) default to the load's"
	}
	fs.StringArrayVarP(&y.flags.props, "property", "p", nil, help)
	workload.KeyFlags(fs, "workload", "property-file", "property")
}

// given reports whether the flag name was set on the command line.
func (y *YCSB) given(name string) bool {
	if y.fs == nil {
		return false
	}
	f := y.fs.Lookup(name)
	return f != nil && f.Changed
}

// layer is one source of properties, in YCSB's order: the built-in workload, each -P file, the -p
// overrides.
type layer struct {
	// name says where the properties came from: "workload a", "-P FILE", "-p".
	name  string
	props Properties
	user  bool // given by the user (-P, -p), not the built-in file
}

// options is what the flags say, read once: the layers, their merge, its Config and what
// FromProperties did not apply, and the problems found on the way.
type options struct {
	// builtin is the built-in workload used as the first layer ("" when -P files alone).
	builtin string
	layers  []layer
	merged  Properties
	cfg     Config
	rep     Report
	// problems are every problem with the flags and properties, one sentence each.
	problems []string
}

// options reads the flags: the built-in workload (--workload given, or no -P file), then each -P file
// in order, then the -p overrides (YCSB's Client: files in command-line order, -p on top wherever it
// stood), and builds the Config.
func (y *YCSB) options() *options {
	if y.opts != nil {
		return y.opts
	}
	o := &options{}
	y.opts = o
	bad := func(format string, a ...any) { o.problems = append(o.problems, fmt.Sprintf(format, a...)) }
	f := &y.flags
	if y.given("workload") || len(f.files) == 0 {
		p, err := Builtin(f.workload)
		if err != nil {
			bad("--workload %q is not one of YCSB's core workloads: use a, b, c, d, e or f, or -P FILE for a property file of your own", f.workload)
		} else {
			o.builtin = strings.TrimPrefix(strings.ToLower(f.workload), "workload")
			o.layers = append(o.layers, layer{name: "workload " + o.builtin, props: p})
		}
	}
	for _, path := range f.files {
		b, err := os.ReadFile(path)
		if err != nil {
			bad("-P %s cannot be read (%v): give the path of a YCSB property file", path, unwrapPathError(err))
			continue
		}
		p, err := ParsePropertiesString(string(b))
		if err != nil {
			bad("-P %s is not a property file: %v: fix it (Java .properties syntax, name=value lines)", path, strings.TrimPrefix(err.Error(), "ycsb: "))
			continue
		}
		o.layers = append(o.layers, layer{name: "-P " + path, props: p, user: true})
	}
	over := Properties{}
	for _, a := range f.props {
		k, v, err := ParseOverride(a)
		if err != nil {
			bad("-p %q is not name=value: give a YCSB property and its value, for example -p recordcount=100000", a)
			continue
		}
		over[k] = v
	}
	if len(over) > 0 {
		o.layers = append(o.layers, layer{name: "-p", props: over, user: true})
	}
	o.merged = o.merge(nil)
	cfg, rep, err := FromProperties(o.merged)
	o.cfg, o.rep = cfg, rep
	if err != nil {
		o.problems = append(o.problems, o.propertyProblems(err, len(o.problems) > 0)...)
	} else {
		o.problems = append(o.problems, sqlProblems(cfg, o.origin)...)
	}
	return o
}

// showValue is a property's value as the problems show it: quoted when empty or spaced.
func showValue(v string) string {
	if v == "" || strings.ContainsAny(v, " \t") {
		return strconv.Quote(v)
	}
	return v
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// merge is every layer merged, with under beneath the user's layers (-P, -p) and above the built-in
// file: the load's properties, for a run.
func (o *options) merge(under Properties) Properties {
	var ls []Properties
	for _, l := range o.layers {
		if l.user && under != nil {
			ls, under = append(ls, under), nil
		}
		ls = append(ls, l.props)
	}
	if under != nil {
		ls = append(ls, under)
	}
	return Merge(ls...)
}

// set reports whether any layer (the built-in file, -P, -p) sets the property.
func (o *options) set(name string) bool {
	for _, l := range o.layers {
		if _, ok := l.props[name]; ok {
			return true
		}
	}
	return false
}

// userSet reports whether a -P file or -p sets the property.
func (o *options) userSet(name string) bool {
	for _, l := range o.layers {
		if _, ok := l.props[name]; ok && l.user {
			return true
		}
	}
	return false
}

// origin names the layer a property's value comes from: the last that sets it, or YCSB's default.
func (o *options) origin(name string) string {
	for i := len(o.layers) - 1; i >= 0; i-- {
		if _, ok := o.layers[i].props[name]; ok {
			return o.layers[i].name
		}
	}
	return "YCSB's default"
}

// propertyProblems turns FromProperties' problems into sentences naming the property, its value,
// where it was set and what to do. A problem with a property no layer sets (recordcount missing
// because its file could not be read; insertcount derived from a bad recordcount) follows from
// another one, and is left out when there is another.
func (o *options) propertyProblems(err error, others bool) []string {
	probs, ok := err.(Problems)
	if !ok {
		return []string{err.Error()}
	}
	derivedBad := false // insertcount's default comes from recordcount and insertstart
	for _, pe := range probs {
		others = others || o.set(pe.Name)
		derivedBad = derivedBad || pe.Name == "recordcount" || pe.Name == "insertstart"
	}
	var out []string
	for _, pe := range probs {
		if others && !o.set(pe.Name) || pe.Name == "insertcount" && !o.set(pe.Name) && derivedBad {
			continue
		}
		out = append(out, fmt.Sprintf("ycsb property %s=%s (%s): %s", pe.Name, showValue(pe.Value), o.origin(pe.Name), pe.Problem))
	}
	return out
}

// Limits of what candor creates: a plain SQL identifier for the table and the columns, few enough
// columns for every engine (InnoDB allows 1,017, PostgreSQL 1,600), keys that fit YCSB_KEY's
// VARCHAR(255) ("user" + zeropadding digits), and values a statement can carry.
const (
	maxFieldCount  = 1000
	maxZeroPadding = 255 - len("user")
	maxFieldLength = 64 << 20
	maxIdentifier  = 63 // PostgreSQL's NAMEDATALEN-1; MySQL takes 64
)

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// sqlProblems are the limits of candor's SQL on a valid Config.
// reservedWords are SQL words PostgreSQL, MySQL/MariaDB or SQLite reserve, which an unquoted table
// name may not be (the common ones a property file could hold; the engine's error names any other).
var reservedWords = setOf("all", "alter", "and", "any", "as", "asc", "between", "by", "case", "check",
	"column", "constraint", "create", "cross", "current", "default", "delete", "desc", "distinct", "drop",
	"else", "end", "exists", "false", "for", "foreign", "from", "full", "grant", "group", "having", "in",
	"index", "inner", "insert", "into", "is", "join", "key", "left", "like", "limit", "not", "null",
	"offset", "on", "or", "order", "outer", "primary", "references", "right", "row", "rows", "select",
	"set", "table", "then", "to", "true", "union", "unique", "update", "user", "using", "values", "when",
	"where", "with")

// otherTables are the tables of candor's other workloads, which a ycsb load --drop must not drop.
var otherTables = setOf("kv", "warehouse", "district", "customer", "history", "new_order", "orders",
	"order_line", "item", "stock")

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func sqlProblems(c Config, origin func(string) string) []string {
	var p []string
	bad := func(name string, value any, format string, a ...any) {
		p = append(p, fmt.Sprintf("ycsb property %s=%v (%s): %s", name, value, origin(name), fmt.Sprintf(format, a...)))
	}
	if !identifier.MatchString(c.Table) || len(c.Table) > maxIdentifier {
		bad("table", c.Table, "candor creates the table unquoted, so give a plain SQL name (letters, digits and _, not starting with a digit, at most %d characters)", maxIdentifier)
	} else if strings.HasPrefix(strings.ToLower(c.Table), "candor_") {
		bad("table", c.Table, "names starting with candor_ are candor's own tables: choose another name")
	} else if reservedWords[strings.ToLower(c.Table)] {
		bad("table", c.Table, "%s is a reserved word of SQL, and candor creates the table unquoted: choose another name (YCSB's default is usertable)", c.Table)
	} else if otherTables[strings.ToLower(c.Table)] {
		bad("table", c.Table, "%s is a table of another candor workload (TPC-C or kv), which load --drop would drop: choose another name", c.Table)
	}
	last := c.FieldNamePrefix + strconv.FormatInt(max(c.FieldCount-1, 0), 10)
	if !identifier.MatchString(c.FieldNamePrefix) || len(last) > maxIdentifier {
		bad("fieldnameprefix", c.FieldNamePrefix, "the columns are named by it (%s0, %s1 ...), so give letters, digits and _, not starting with a digit, short enough for %s to have at most %d characters", strings.ToUpper(c.FieldNamePrefix), strings.ToUpper(c.FieldNamePrefix), strings.ToUpper(last), maxIdentifier)
	} else if strings.EqualFold(c.FieldNamePrefix, keyColumn) || strings.EqualFold(c.FieldNamePrefix+"0", keyColumn) {
		bad("fieldnameprefix", c.FieldNamePrefix, "a column would be named %s, the key's column: choose another prefix", keyColumn)
	}
	if c.FieldCount > maxFieldCount {
		bad("fieldcount", c.FieldCount, "give at most %d fields (each is a column, and InnoDB takes at most 1,017)", maxFieldCount)
	}
	if c.ZeroPadding > maxZeroPadding {
		bad("zeropadding", c.ZeroPadding, "keys would not fit YCSB_KEY VARCHAR(255): give at most %d", maxZeroPadding)
	}
	if c.FieldLength > maxFieldLength {
		bad("fieldlength", c.FieldLength, "give at most %d (64 MiB) characters per field", maxFieldLength)
	}
	return p
}

// Validate checks the options for the command, returning every problem: unreadable files and
// properties YCSB would refuse (or misread), and, for a run, a mode the properties cannot run in.
// Properties candor does not apply are not problems: a run reports them (Open's notes and the
// result's warnings), as a load does (its notes).
func (y *YCSB) Validate(v workload.Validation) []string {
	if v.Cmd == workload.CmdCheck {
		return nil
	}
	o := y.options()
	p := slices.Clone(o.problems)
	run := v.Cmd == workload.CmdRun || v.Cmd == workload.CmdOneShot
	if run && v.Mode != "" {
		if v.Mode == workload.ModeSpec {
			p = append(p, "--mode spec is TPC-C's: YCSB has no keying or think times; use --mode throughput or --mode rate")
		}
		if t := o.cfg.TargetOpsPerSec; t > 0 && v.Mode != workload.ModeRate {
			p = append(p, fmt.Sprintf("ycsb property target=%s (%s) asks for %s operations per second, a pace candor's open loop sets, not the workload: add --mode rate --rate %s (or drop target for a closed loop without waits)",
				o.merged["target"], o.origin("target"), formatRate(t), formatRate(t)))
		}
	}
	if problem := sqlexec.DialectProblem(v.DB, "ycsb"); problem != "" {
		p = append(p, problem)
	}
	return p
}

func formatRate(r float64) string { return strconv.FormatFloat(r, 'f', -1, 64) }

// ExpectedRows is the records a load writes: insertcount (recordcount - insertstart by default).
func (y *YCSB) ExpectedRows() int64 {
	o := y.options()
	if len(o.problems) > 0 {
		return 0
	}
	return o.cfg.InsertCount
}

// EstimateLoad is the load's size (workload.LoadEstimator): on disk, each record's key and its
// fields at their least length; in memory, the chunks held at once, each field at its most.
func (y *YCSB) EstimateLoad(loaders int) workload.LoadEstimate {
	o := y.options()
	if len(o.problems) > 0 {
		return workload.LoadEstimate{}
	}
	c := o.cfg
	lo, _ := lengthBounds(c)
	rows := max(0, c.InsertCount)
	return workload.LoadEstimate{
		Rows:       rows,
		Bytes:      workload.Product(rows, workload.Sum(10, workload.Product(c.FieldCount, lo))),
		PeakMemory: y.PeakMemory(loaders),
	}
}

var _ workload.LoadEstimator = (*YCSB)(nil)
