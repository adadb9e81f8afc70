package kv

import (
	"math"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/textfmt"
)

// newTestKV is kv with its flags for cmd parsed from args, as the CLI does.
func newTestKV(t testing.TB, cmd workload.Command, args ...string) *KV {
	t.Helper()
	k := newKV()
	fs := pflag.NewFlagSet("kv", pflag.ContinueOnError)
	k.Flags(fs, cmd)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parsing %v: %v", args, err)
	}
	return k
}

func TestPresets(t *testing.T) {
	for _, tc := range []struct {
		args                    []string
		read, span, del, writes int
		mix                     string
	}{
		{nil, 95, 0, 0, 5, "kv95"},
		{[]string{"--preset", "kv0"}, 0, 0, 0, 100, "kv0"},
		{[]string{"--preset", "kv50"}, 50, 0, 0, 50, "kv50"},
		{[]string{"--preset", "kv100"}, 100, 0, 0, 0, "kv100"},
		// Explicit percentages override the preset's, each on its own.
		{[]string{"--preset", "kv95", "--del-percent", "3"}, 95, 0, 3, 2, "reads 95%, writes 2%, scans 0%, deletes 3%"},
		{[]string{"--read-percent", "50"}, 50, 0, 0, 50, "kv50"},
		{[]string{"--read-percent", "0"}, 0, 0, 0, 100, "kv0"},
		{[]string{"--preset", "", "--read-percent", "10", "--span-percent", "20", "--del-percent", "30"}, 10, 20, 30, 40, "reads 10%, writes 40%, scans 20%, deletes 30%"},
		{[]string{"--preset", ""}, 0, 0, 0, 100, "kv0"},
	} {
		k := newTestKV(t, workload.CmdRun, tc.args...)
		if p := k.Validate(workload.Validation{Cmd: workload.CmdRun, Mode: workload.ModeThroughput}); len(p) > 0 {
			t.Errorf("%v: problems %v", tc.args, p)
		}
		o := k.resolve()
		if o.ReadPercent != tc.read || o.SpanPercent != tc.span || o.DelPercent != tc.del || o.WritePercent != tc.writes {
			t.Errorf("%v: read %d span %d del %d write %d, want %d %d %d %d", tc.args, o.ReadPercent, o.SpanPercent, o.DelPercent, o.WritePercent, tc.read, tc.span, tc.del, tc.writes)
		}
		if m := o.mixName(); m != tc.mix {
			t.Errorf("%v: mix %q, want %q", tc.args, m, tc.mix)
		}
	}
}

func TestDefaults(t *testing.T) {
	o := newTestKV(t, workload.CmdLoad).resolve()
	if o.Batch != 1 || o.MinBlockBytes != 1 || o.MaxBlockBytes != 1 || o.SpanLimit != 0 || o.CycleLength != math.MaxInt64 ||
		o.Distribution != Uniform || o.InsertCount != 0 {
		t.Errorf("defaults are not CockroachDB's: %+v", o)
	}
	// The one-shot loads keys for its reads to find (CockroachDB's default loads none).
	if o := newTestKV(t, workload.CmdOneShot).resolve(); o.InsertCount != OneShotInsertCount {
		t.Errorf("the one-shot loads %d keys, want %d", o.InsertCount, OneShotInsertCount)
	}
	z := newTestKV(t, workload.CmdRun, "--zipfian").resolve()
	if z.Distribution != Zipfian || z.ZipfianS != 1.1 || z.ZipfianV != 1 {
		t.Errorf("--zipfian: %+v", z)
	}
	if s := newTestKV(t, workload.CmdLoad, "--sequential").resolve(); s.Distribution != Sequential {
		t.Errorf("--sequential: %+v", s)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cmd  workload.Command
		mode workload.Mode
		args []string
		// want are substrings, one per expected problem, in order.
		want []string
	}{
		{"defaults run", workload.CmdRun, workload.ModeThroughput, nil, nil},
		{"defaults load", workload.CmdLoad, "", []string{"--insert-count", "1000"}, nil},
		{"defaults one-shot", workload.CmdOneShot, workload.ModeRate, nil, nil},
		{"check has no options", workload.CmdCheck, "", nil, nil},
		{"spec mode", workload.CmdRun, workload.ModeSpec, nil, []string{"--mode spec"}},
		{"sum over 100 with preset", workload.CmdRun, workload.ModeThroughput, []string{"--del-percent", "10"},
			[]string{"add up to 105% (with --preset kv95)"}},
		{"sum over 100", workload.CmdRun, workload.ModeThroughput, []string{"--read-percent", "60", "--span-percent", "30", "--del-percent", "20"},
			[]string{"--read-percent 60, --span-percent 30 and --del-percent 20 add up to 110%"}},
		{"percent out of range", workload.CmdRun, workload.ModeThroughput, []string{"--read-percent", "120", "--span-percent", "-1"},
			[]string{"--read-percent 120 is not a percentage", "--span-percent -1 is not a percentage", "add up to 119%"}},
		{"unknown preset", workload.CmdRun, workload.ModeThroughput, []string{"--preset", "kv99"}, []string{`--preset "kv99" is not a preset: use one of kv0, kv50, kv95, kv100`}},
		{"batch", workload.CmdRun, workload.ModeThroughput, []string{"--batch", "0"}, []string{"--batch 0 is below 1"}},
		{"batch too large", workload.CmdRun, workload.ModeThroughput, []string{"--batch", "20000"}, []string{"--batch 20000 is above 16383"}},
		{"span limit", workload.CmdRun, workload.ModeThroughput, []string{"--span-limit", "-5"}, []string{"--span-limit -5 is negative"}},
		{"negative sizes", workload.CmdLoad, "", []string{"--min-block-bytes", "-1", "--max-block-bytes", "-2"},
			[]string{"--min-block-bytes -1 is negative", "--max-block-bytes -2 is negative"}},
		{"min above max", workload.CmdRun, workload.ModeThroughput, []string{"--min-block-bytes", "10", "--max-block-bytes", "5"},
			[]string{"--min-block-bytes 10 is above --max-block-bytes 5"}},
		{"huge values", workload.CmdLoad, "", []string{"--max-block-bytes", "100000000"}, []string{"--max-block-bytes 100000000 is above"}},
		{"two distributions", workload.CmdLoad, "", []string{"--sequential", "--zipfian"}, []string{"--sequential and --zipfian cannot both be given"}},
		{"zipf parameters", workload.CmdRun, workload.ModeThroughput, []string{"--zipfian", "--zipfian-s", "1", "--zipfian-v", "0.5"},
			[]string{"--zipfian-s 1 must be above 1", "--zipfian-v 0.5 must be 1 or more"}},
		{"zipf parameters unused", workload.CmdRun, workload.ModeThroughput, []string{"--zipfian-s", "0.5"}, nil},
		{"cycle length", workload.CmdRun, workload.ModeThroughput, []string{"--cycle-length", "0"}, []string{"--cycle-length 0 is below 1"}},
		{"insert count", workload.CmdLoad, "", []string{"--insert-count", "-3"}, []string{"--insert-count -3 is negative"}},
		{"insert count above cycle", workload.CmdOneShot, workload.ModeThroughput, []string{"--insert-count", "100", "--cycle-length", "50"},
			[]string{"--insert-count 100 is above --cycle-length 50"}},
		{"every problem at once", workload.CmdOneShot, workload.ModeThroughput,
			[]string{"--batch", "0", "--min-block-bytes", "3", "--max-block-bytes", "2", "--sequential", "--zipfian", "--insert-count", "-1"},
			[]string{"--batch 0", "--min-block-bytes 3 is above", "--sequential and --zipfian", "--insert-count -1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newTestKV(t, tc.cmd, tc.args...)
			got := k.Validate(workload.Validation{Cmd: tc.cmd, Mode: tc.mode})
			if len(got) != len(tc.want) {
				t.Fatalf("problems %q, want %d: %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d %q does not say %q", i+1, got[i], w)
				}
				if strings.Contains(got[i], "\n") || !strings.Contains(got[i], "--") && !strings.Contains(got[i], "mode") {
					t.Errorf("problem %q should be one sentence naming the flag", got[i])
				}
			}
		})
	}
}

// Flags: each command binds its own.
func TestFlagsPerCommand(t *testing.T) {
	has := func(cmd workload.Command, name string) bool {
		fs := pflag.NewFlagSet("kv", pflag.ContinueOnError)
		newKV().Flags(fs, cmd)
		return fs.Lookup(name) != nil
	}
	for _, tc := range []struct {
		flag                      string
		load, run, oneshot, check bool
	}{
		{"preset", false, true, true, false},
		{"read-percent", false, true, true, false},
		{"batch", false, true, true, false},
		{"span-limit", false, true, true, false},
		{"insert-count", true, true, true, false}, // on run: for the null engine only (Validate)
		{"min-block-bytes", true, true, true, false},
		{"sequential", true, true, true, false},
		{"cycle-length", true, true, true, false},
	} {
		for cmd, want := range map[workload.Command]bool{workload.CmdLoad: tc.load, workload.CmdRun: tc.run,
			workload.CmdOneShot: tc.oneshot, workload.CmdCheck: tc.check} {
			if got := has(cmd, tc.flag); got != want {
				t.Errorf("--%s bound for %s: %v, want %v", tc.flag, cmd, got, want)
			}
		}
	}
}

func TestInfo(t *testing.T) {
	k := New()
	i := k.Info()
	if i.Name != "kv" || i.KeyOp != "read" || i.DefaultDB != "sqlite:candor-kv.db" || len(i.ShortNames) != len(k.Ops()) ||
		i.HasMode(workload.ModeSpec) || !i.HasMode(workload.ModeThroughput) || !i.HasMode(workload.ModeRate) {
		t.Errorf("Info: %+v", i)
	}
	if ops := k.Ops(); strings.Join(ops, ",") != "read,write,scan,delete" {
		t.Errorf("Ops: %v", ops)
	}
}

// A run takes the load's key distribution, cycle length and block sizes unless given, and refuses
// given ones that do not fit the loaded keys.
func TestRunOptionsFromLoad(t *testing.T) {
	rec := record{InsertCount: 100, Distribution: Sequential, Keys: "dense", CycleLength: 1000, MinBlockBytes: 5, MaxBlockBytes: 9}
	for _, tc := range []struct {
		args    []string
		dist    Distribution
		cycle   int64
		lo, hi  int
		problem string
	}{
		{nil, Sequential, 1000, 5, 9, ""},
		{[]string{"--zipfian"}, Zipfian, 1000, 5, 9, ""}, // the same dense keys
		{[]string{"--max-block-bytes", "20", "--cycle-length", "100"}, Sequential, 100, 5, 20, ""},
		{[]string{"--cycle-length", "99"}, Sequential, 99, 5, 9, "--cycle-length 99 is below the 100 keys loaded"},
		{[]string{"--max-block-bytes", "4"}, Sequential, 1000, 5, 4, "values of 5 to 4 bytes"},
	} {
		o, err := newTestKV(t, workload.CmdRun, tc.args...).runOptions(rec)
		if tc.problem != "" {
			if err == nil || !strings.Contains(err.Error(), tc.problem) {
				t.Errorf("%v: %v, want %q", tc.args, err, tc.problem)
			}
			continue
		}
		if err != nil || o.Distribution != tc.dist || o.CycleLength != tc.cycle || o.MinBlockBytes != tc.lo || o.MaxBlockBytes != tc.hi || o.InsertCount != 100 {
			t.Errorf("%v: %+v, %v", tc.args, o, err)
		}
	}
	hashed := record{InsertCount: 10, Distribution: Uniform, Keys: "hashed", CycleLength: math.MaxInt64, MinBlockBytes: 1, MaxBlockBytes: 1}
	if _, err := newTestKV(t, workload.CmdRun, "--sequential").runOptions(hashed); err == nil || !strings.Contains(err.Error(), "drop --sequential and --zipfian") {
		t.Errorf("sequential on hashed keys: %v", err)
	}
}

// READS_MISSED: only when reads should find every key (no zipfian keys, no deletes), beyond the
// share in-flight writes explain when there are writes.
func TestReadsMissedWarning(t *testing.T) {
	for _, tc := range []struct {
		name        string
		o           Options
		deleted     bool
		keys, found int64
		warn        bool
	}{
		{"all found", Options{WritePercent: 5, Distribution: Uniform}, false, 1000, 1000, false},
		{"in flight", Options{WritePercent: 5, Distribution: Uniform}, false, 1000, 995, false},
		{"too many", Options{WritePercent: 5, Distribution: Uniform}, false, 1000, 900, true},
		{"read only", Options{ReadPercent: 100, Distribution: Sequential}, false, 1000, 999, true},
		{"zipfian", Options{WritePercent: 5, Distribution: Zipfian}, false, 1000, 500, false},
		{"deletes", Options{WritePercent: 5, DelPercent: 5, Distribution: Uniform}, false, 1000, 500, false},
		{"earlier deletes", Options{WritePercent: 5, Distribution: Uniform}, true, 1000, 500, false},
	} {
		w, ok := missedWarning(tc.o, tc.deleted, tally{ReadKeys: tc.keys, ReadFound: tc.found})
		if ok != tc.warn || ok && (w.Code != "READS_MISSED" || !strings.Contains(w.Message, textfmt.Thousands(tc.keys-tc.found)+" of the")) {
			t.Errorf("%s: %v %+v", tc.name, ok, w)
		}
	}
}
