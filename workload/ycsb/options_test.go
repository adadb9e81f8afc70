package ycsb

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// newTestYCSB is ycsb with its flags for cmd parsed from args, as the CLI does.
func newTestYCSB(t testing.TB, cmd workload.Command, args ...string) *YCSB {
	t.Helper()
	y := newYCSB()
	fs := pflag.NewFlagSet("ycsb", pflag.ContinueOnError)
	y.Flags(fs, cmd)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parsing %v: %v", args, err)
	}
	return y
}

// writeFile writes a property file into a temporary directory and returns its path.
func writeFile(t testing.TB, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The core's flags (cmd/candor/workload.go: addRunFlags, addRateFlags, newLoad, the one-shot's and
// search's), with -q and cobra's -h: ycsb's flags must collide with none (pflag panics on a
// duplicate name or shorthand).
var coreFlags = []string{"db", "dialect", "mode", "terminals", "rate", "step", "step-every", "arrivals", "max-backlog",
	"connections", "duration", "warmup", "grace", "interval", "out", "seed", "isolation", "no-check", "check-full",
	"metrics-addr", "loaders", "load-seed", "peak-duration", "peak-warmup", "loads", "drop", "slo", "probe", "start-rate",
	"precision", "max-probes", "full", "cpuprofile"}

func TestFlagsBesideTheCore(t *testing.T) {
	for _, cmd := range []workload.Command{workload.CmdLoad, workload.CmdRun, workload.CmdOneShot, workload.CmdCheck} {
		fs := pflag.NewFlagSet("candor", pflag.ContinueOnError)
		for _, n := range coreFlags {
			fs.String(n, "", "")
		}
		fs.BoolP("quiet", "q", false, "")
		fs.BoolP("help", "h", false, "")
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: ycsb's flags collide with the core's: %v", cmd, r)
				}
			}()
			newYCSB().Flags(fs, cmd)
		}()
		has := fs.Lookup("workload") != nil && fs.ShorthandLookup("P") != nil && fs.ShorthandLookup("p") != nil
		if has != (cmd != workload.CmdCheck) {
			t.Errorf("%s: --workload, -P and -p bound: %v", cmd, has)
		}
	}
	if f := newTestYCSB(t, workload.CmdRun).fs; f.ShorthandLookup("P").Name != "property-file" || f.ShorthandLookup("p").Name != "property" {
		t.Errorf("-P and -p are not --property-file and --property")
	}
}

func TestInfo(t *testing.T) {
	y := New()
	i := y.Info()
	if i.Name != "ycsb" || i.KeyOp != "read" || i.DefaultDB != "sqlite:candor-ycsb.db" || len(i.ShortNames) != len(y.Ops()) ||
		i.HasMode(workload.ModeSpec) || !i.HasMode(workload.ModeThroughput) || !i.HasMode(workload.ModeRate) ||
		i.Unit != "operations" || i.SLOExample != "read.p99<=2ms" || i.Title != "YCSB core workloads" || i.Disclaimer == "" {
		t.Errorf("Info: %+v", i)
	}
	if ops := y.Ops(); strings.Join(ops, ",") != "read,update,insert,scan,read_modify_write" {
		t.Errorf("Ops: %v", ops)
	}
	for op, name := range OpNames {
		if Operation(op).String() != strings.ToUpper(strings.ReplaceAll(name, "_", "")) {
			t.Errorf("op %d is %s in the recorder, %s in YCSB", op, name, Operation(op))
		}
	}
}

// The layers, as YCSB's Client builds them: the built-in workload (--workload, or alone), then the
// -P files in order, then -p on top; -P without --workload is the files alone.
func TestLayers(t *testing.T) {
	f1 := writeFile(t, "one.properties", "recordcount=5000\nreadproportion=0.7\nupdateproportion=0.3\n# comment\nfieldcount=4\n")
	f2 := writeFile(t, "two.properties", "fieldcount = 6\nrequestdistribution:uniform\n")
	for _, tc := range []struct {
		name    string
		args    []string
		builtin string
		check   func(c Config) bool
		origins map[string]string
	}{
		{"default is workload a", nil, "a", func(c Config) bool {
			return c.RecordCount == 1000 && c.Read == 0.5 && c.Update == 0.5 && c.RequestDistribution == DistZipfian
		}, map[string]string{"readproportion": "workload a", "fieldcount": "YCSB's default"}},
		{"workload e", []string{"--workload", "e"}, "e", func(c Config) bool {
			return c.Scan == 0.95 && c.Insert == 0.05 && c.MaxScanLength == 100
		}, nil},
		{"workloadf spelled out", []string{"--workload", "workloadF"}, "f", func(c Config) bool { return c.ReadModifyWrite == 0.5 }, nil},
		{"files alone", []string{"-P", f1, "--property-file", f2}, "", func(c Config) bool {
			// YCSB's defaults under the files: requestdistribution uniform, no built-in's zipfian.
			return c.RecordCount == 5000 && c.Read == 0.7 && c.FieldCount == 6 && c.RequestDistribution == DistUniform
		}, map[string]string{"fieldcount": "-P " + f2, "recordcount": "-P " + f1}},
		{"workload under files", []string{"--workload", "b", "-P", f1}, "b", func(c Config) bool {
			return c.RecordCount == 5000 && c.Read == 0.7 && c.RequestDistribution == DistZipfian && c.FieldCount == 4
		}, map[string]string{"requestdistribution": "workload b"}},
		{"-p over everything, wherever it stands", []string{"-p", "fieldcount=9", "-P", f1, "-P", f2, "-p", "recordcount=77", "-p", "fieldcount=8"}, "", func(c Config) bool {
			return c.RecordCount == 77 && c.FieldCount == 8
		}, map[string]string{"fieldcount": "-p", "readproportion": "-P " + f1}},
		{"value with =", []string{"-p", "table=a_b", "-p", "fieldnameprefix=f"}, "a", func(c Config) bool { return c.Table == "a_b" && c.FieldNamePrefix == "f" }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			y := newTestYCSB(t, workload.CmdRun, tc.args...)
			if p := y.Validate(workload.Validation{Cmd: workload.CmdRun, Mode: workload.ModeThroughput}); len(p) > 0 {
				t.Fatalf("problems %v", p)
			}
			o := y.options()
			if o.builtin != tc.builtin || !tc.check(o.cfg) {
				t.Errorf("builtin %q, config %+v", o.builtin, o.cfg)
			}
			for name, want := range tc.origins {
				if got := o.origin(name); got != want {
					t.Errorf("origin of %s: %q, want %q", name, got, want)
				}
			}
		})
	}
}

func TestValidate(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.properties")
	broken := writeFile(t, "broken.properties", "recordcount=\\u12\n")
	for _, tc := range []struct {
		name string
		cmd  workload.Command
		mode workload.Mode
		args []string
		// want are substrings, one per expected problem, in order.
		want []string
	}{
		{"defaults run", workload.CmdRun, workload.ModeThroughput, nil, nil},
		{"defaults load", workload.CmdLoad, "", nil, nil},
		{"one-shot load", workload.CmdOneShot, "", []string{"-p", "target=100"}, nil},
		{"check has no options", workload.CmdCheck, "", nil, nil},
		{"spec mode", workload.CmdRun, workload.ModeSpec, nil, []string{"--mode spec is TPC-C's"}},
		{"unknown workload", workload.CmdRun, workload.ModeRate, []string{"--workload", "g"}, []string{`--workload "g" is not one of YCSB's core workloads`}},
		{"missing file", workload.CmdLoad, "", []string{"-P", missing}, []string{"-P " + missing + " cannot be read (no such file or directory)"}},
		{"broken file", workload.CmdLoad, "", []string{"-P", broken}, []string{"-P " + broken + " is not a property file: properties line 1: malformed"}},
		{"not name=value", workload.CmdRun, workload.ModeRate, []string{"-p", "recordcount"}, []string{`-p "recordcount" is not name=value`}},
		{"bad values", workload.CmdLoad, "", []string{"-p", "recordcount=lots", "-p", "readallfields=yes", "-p", "fieldcount=0"},
			[]string{"ycsb property readallfields=yes (-p): must be true or false", "ycsb property recordcount=lots (-p): must be a whole number", "ycsb property fieldcount=0 (-p): must be >= 1"}},
		{"recordcount missing", workload.CmdLoad, "", []string{"-P", writeFile(t, "empty", "# nothing\n")},
			[]string{"ycsb property recordcount=0 (YCSB's default): must be set to the number of records"}},
		{"from a file", workload.CmdLoad, "", []string{"-P", writeFile(t, "w", "requestdistribution=zipfan\n")},
			[]string{"ycsb property requestdistribution=zipfan (-P "}},
		{"target in throughput mode", workload.CmdRun, workload.ModeThroughput, []string{"-p", "target=500"},
			[]string{"ycsb property target=500 (-p) asks for 500 operations per second, a pace candor's open loop sets, not the workload: add --mode rate --rate 500"}},
		{"target in rate mode", workload.CmdRun, workload.ModeRate, []string{"-p", "target=500"}, nil},
		{"table not an identifier", workload.CmdLoad, "", []string{"-p", "table=user table"}, []string{`ycsb property table=user table (-p): candor creates the table unquoted`}},
		{"candor's table", workload.CmdLoad, "", []string{"-p", "table=candor_load"}, []string{"candor's own tables"}},
		{"prefix", workload.CmdLoad, "", []string{"-p", "fieldnameprefix=9f"}, []string{"ycsb property fieldnameprefix=9f (-p): the columns are named by it"}},
		{"prefix is the key", workload.CmdLoad, "", []string{"-p", "fieldnameprefix=ycsb_key"}, []string{"a column would be named YCSB_KEY"}},
		{"limits", workload.CmdLoad, "", []string{"-p", "fieldcount=1001", "-p", "zeropadding=252", "-p", "fieldlength=100000000"},
			[]string{"fieldcount=1001", "zeropadding=252", "fieldlength=100000000"}},
		{"engine", workload.CmdLoad, "", []string{}, nil},
		{"every problem at once", workload.CmdRun, workload.ModeThroughput, []string{"--workload", "z", "-P", missing, "-p", "x", "-p", "recordcount=-1", "-p", "target=5"},
			[]string{"--workload", "-P " + missing, `-p "x"`, "recordcount=-1", "target=5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			y := newTestYCSB(t, tc.cmd, tc.args...)
			got := y.Validate(workload.Validation{Cmd: tc.cmd, Mode: tc.mode})
			if len(got) != len(tc.want) {
				t.Fatalf("problems %q, want %d: %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d %q does not say %q", i+1, got[i], w)
				}
				if strings.Contains(got[i], "\n") {
					t.Errorf("problem %q should be one sentence", got[i])
				}
			}
		})
	}
}

// Unknown properties and YCSB's own that candor does not apply are no problems: they are reported.
func TestUnknownPropertiesReported(t *testing.T) {
	f := writeFile(t, "db.properties", "db.driver=org.postgresql.Driver\ndb.url=jdbc:postgresql://x/ycsb\nexportfile=out.txt\n")
	y := newTestYCSB(t, workload.CmdLoad, "-P", f, "--workload", "c", "-p", "recordcout=5", "-p", "threadcount=8", "-p", "measurementtype=raw")
	if p := y.Validate(workload.Validation{Cmd: workload.CmdLoad}); len(p) > 0 {
		t.Fatalf("problems %v", p)
	}
	o := y.options()
	var unknown []string
	for _, u := range o.rep.Unknown {
		unknown = append(unknown, u.Name+"->"+u.Suggestion)
	}
	if !slices.Equal(unknown, []string{"db.driver->", "db.url->", "recordcout->recordcount"}) {
		t.Errorf("unknown %v", unknown)
	}
	if len(o.rep.Ignored) != 1 || o.rep.Ignored[0].Name != "exportfile" {
		t.Errorf("ignored %+v", o.rep.Ignored)
	}
	notes := strings.Join(loadNotes(o), "\n")
	for _, want := range []string{`unknown property recordcout="5": did you mean recordcount?`, `unknown property db.url=`, `ignored property exportfile="out.txt"`,
		`ignored property threadcount="8" for the load: the load runs on --loaders connections`} {
		if !strings.Contains(notes, want) {
			t.Errorf("load notes do not say %q:\n%s", want, notes)
		}
	}

	// A run's notes and warnings (Open and Finish, without a database).
	s := &session{opts: o, cfg: o.cfg, termsFrom: "--terminals", Run: sqlexec.Run{Terms: 4}, fromLoad: map[string]bool{}}
	notes = strings.Join(s.notes(), "\n")
	for _, want := range []string{"did you mean recordcount?", `ignored property measurementtype="raw": candor always records HdrHistograms`,
		"threadcount=8 (-p) is overridden by --terminals 4"} {
		if !strings.Contains(notes, want) {
			t.Errorf("run notes do not say %q:\n%s", want, notes)
		}
	}
	f2 := &workload.Finished{Result: &report.Result{}, Totals: measure.NewTotals(OpNames), Minutes: 1}
	s.Finish(f2)
	codes := warningCodes(f2.Result.Warnings)
	if !slices.Equal(codes, []string{"UNKNOWN_PROPERTIES", "IGNORED_PROPERTIES"}) {
		t.Errorf("warnings %v", f2.Result.Warnings)
	}
	if m := f2.Result.Warnings[0].Message; !strings.Contains(m, "db.driver, db.url, recordcout (did you mean recordcount?)") {
		t.Errorf("UNKNOWN_PROPERTIES says %q", m)
	}
	if m := f2.Result.Warnings[1].Message; !strings.Contains(m, "exportfile") || !strings.Contains(m, "measurementtype") {
		t.Errorf("IGNORED_PROPERTIES says %q", m)
	}
	d := f2.Result.Details.(Details)
	if len(d.Unknown) != 3 || len(d.Ignored) != 2 || d.Workload != "c" || d.PropertyFiles[0] != f || d.Origins["recordcount"] != "workload c" ||
		d.Origins["threadcount"] != "-p" || d.OperationCountBoundsRun {
		t.Errorf("details %+v", d)
	}
}

func warningCodes(ws []report.Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Code)
	}
	return out
}

// operationcount given by the user is reported (OPERATIONCOUNT_IGNORED); the built-in files' 1000
// is not. A target that is not the run's rate is.
func TestRunLengthAndTargetWarnings(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		rate  float64
		codes []string
	}{
		{nil, 0, nil},
		{[]string{"-p", "operationcount=5000"}, 0, []string{"OPERATIONCOUNT_IGNORED"}},
		{[]string{"-p", "maxexecutiontime=60"}, 0, []string{"IGNORED_PROPERTIES"}},
		{[]string{"-p", "target=100"}, 100, nil},
		{[]string{"-p", "target=100"}, 250, []string{"TARGET_NOT_RATE"}},
	} {
		y := newTestYCSB(t, workload.CmdRun, tc.args...)
		o := y.options()
		s := &session{opts: o, cfg: o.cfg, termsFrom: "default", fromLoad: map[string]bool{}}
		r := &report.Result{}
		if tc.rate > 0 {
			r.Rate = &report.RateResult{TargetRate: tc.rate}
		}
		f := &workload.Finished{Result: r, Totals: measure.NewTotals(OpNames), Minutes: 1}
		s.Finish(f)
		if got := warningCodes(r.Warnings); !slices.Equal(got, tc.codes) {
			t.Errorf("%v at rate %g: warnings %v, want %v", tc.args, tc.rate, r.Warnings, tc.codes)
		}
	}
}

// READS_NOT_FOUND: only when every record a read may choose exists (a full load from 0, no failed
// insert ever), beyond a tiny share.
func TestReadsNotFoundWarning(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		rec    record
		failed int64
		t      tally
		warn   bool
	}{
		{"all found", nil, record{NextInsert: 1000}, 0, tally{Reads: 1000}, false},
		{"missing", nil, record{NextInsert: 1000}, 0, tally{Reads: 1000, ReadsNotFound: 3}, true},
		{"updates too", nil, record{NextInsert: 1000}, 0, tally{Updates: 1000, UpdatesNotFound: 3}, true},
		{"failed inserts this run", nil, record{NextInsert: 1000}, 2, tally{Reads: 1000, ReadsNotFound: 3}, false},
		{"failed inserts before", nil, record{NextInsert: 1010, Inserted: 9}, 0, tally{Reads: 1000, ReadsNotFound: 3}, false},
		{"inserts all succeeded", nil, record{NextInsert: 1010, Inserted: 10}, 0, tally{Reads: 1000, ReadsNotFound: 3}, true},
		{"partial load", []string{"-p", "insertstart=100"}, record{NextInsert: 1000}, 0, tally{Reads: 1000, ReadsNotFound: 3}, false},
	} {
		o := newTestYCSB(t, workload.CmdRun, tc.args...).options()
		s := &session{opts: o, cfg: o.cfg, rec: tc.rec, insertFrom: tc.rec.NextInsert, fromLoad: map[string]bool{}}
		f := &workload.Finished{Result: &report.Result{}}
		ws := warnings(f, s.details(tc.t, tc.failed))
		if got := slices.Contains(warningCodes(ws), "READS_NOT_FOUND"); got != tc.warn {
			t.Errorf("%s: warned %v, want %v (%v)", tc.name, got, tc.warn, ws)
		}
	}
}

// The run takes the load's data properties unless given; given ones must agree.
func TestRunConfigFromLoad(t *testing.T) {
	loadCfg := newTestYCSB(t, workload.CmdLoad, "-p", "recordcount=10000", "-p", "fieldcount=3", "-p", "insertorder=ordered").options().cfg
	rec := record{Properties: dataOf(loadCfg), NextInsert: 10000}
	if _, ok := rec.Properties["minfieldlength"]; ok || len(rec.Properties) != len(dataProperties)-1 {
		t.Errorf("data properties of a constant-length load: %v", rec.Properties)
	}
	for _, tc := range []struct {
		args    []string
		given   []string
		problem string
		check   func(c Config) bool
	}{
		{[]string{"--workload", "e"}, nil, "", func(c Config) bool {
			return c.RecordCount == 10000 && c.InsertCount == 10000 && c.FieldCount == 3 && c.Ordered() && c.Scan == 0.95
		}},
		{[]string{"-p", "recordcount=10000", "-p", "fieldcount=3"}, []string{"recordcount", "fieldcount"}, "", func(c Config) bool { return c.RecordCount == 10000 && c.Ordered() }},
		{[]string{"-p", "recordcount=5000", "-p", "fieldlength=10"}, nil, "recordcount=5000 (-p; loaded: 10000) and fieldlength=10 (-p; loaded: 100)", nil},
		{[]string{"-P", writeFile(t, "w", "recordcount=1000\n")}, nil, "recordcount=1000 (-P ", nil},
		{[]string{"-p", "dataintegrity=true"}, nil, "dataintegrity=true (-p; loaded: false)", nil},
		{[]string{"-p", "fieldlengthdistribution=uniform", "-p", "minfieldlength=5"}, nil, "minfieldlength=5 (-p; loaded: unused)", nil},
	} {
		cfg, from, err := newTestYCSB(t, workload.CmdRun, tc.args...).runConfig(fakeDB{}, rec)
		if tc.problem != "" {
			if err == nil || !strings.Contains(err.Error(), tc.problem) || !strings.Contains(err.Error(), "candor ycsb load --drop --db fake://db") {
				t.Errorf("%v: %v, want %q", tc.args, err, tc.problem)
			}
			continue
		}
		if err != nil || !tc.check(cfg) {
			t.Errorf("%v: %+v, %v", tc.args, cfg, err)
		}
		for k := range rec.Properties {
			if from[k] == slices.Contains(tc.given, k) {
				t.Errorf("%v: %s taken from the load: %v", tc.args, k, from[k])
			}
		}
	}
}

// fakeDB is enough of a driver.DB for the user errors' URLs.
type fakeDB struct{ driver.DB }

func (fakeDB) Redacted() string { return "fake://db" }

func TestExpectedRows(t *testing.T) {
	if n := newTestYCSB(t, workload.CmdLoad, "-p", "recordcount=500", "-p", "insertstart=100").ExpectedRows(); n != 400 {
		t.Errorf("expected rows %d, want 400 (recordcount - insertstart)", n)
	}
	if n := newTestYCSB(t, workload.CmdLoad, "-p", "recordcount=x").ExpectedRows(); n != 0 {
		t.Errorf("expected rows of a bad load %d", n)
	}
}

func TestDescribe(t *testing.T) {
	o := newTestYCSB(t, workload.CmdRun, "--workload", "e", "-p", "readallfields=false").options()
	s := &session{opts: o, cfg: o.cfg}
	want := "workload e (insert 5%, scan 95%), zipfian requests, 1,000 records of 10 fields of 100 characters, scans of 1..100 records (uniform), reads of one field"
	if got := s.describe(); got != want {
		t.Errorf("describe:\n got %s\nwant %s", got, want)
	}
}
