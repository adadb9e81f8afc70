package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/run"
	"github.com/candor-bench/candor/workload"
)

// helpOf is `candor ARGS --help` as a user sees it.
func helpOf(t *testing.T, path []string) string {
	t.Helper()
	var buf bytes.Buffer
	if code := executeTo(append(append([]string{}, path...), "--help"), &buf, &buf, false); code != 0 {
		t.Fatalf("candor %s --help: exit %d\n%s", strings.Join(path, " "), code, buf.String())
	}
	return buf.String()
}

// TestNoBackquotedUsage: pflag takes a back-quoted word of a flag's description for the name of its
// value ("--drop candor kv drop"), so no description has one.
func TestNoBackquotedUsage(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if strings.Contains(f.Usage, "`") {
				t.Errorf("%s --%s: a back quote in its description: %q", c.CommandPath(), f.Name, f.Usage)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(run.Out{}))
}

// everyCommand is the path of every command under candor (without cobra's help and completion).
func everyCommand() [][]string {
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			if sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			walk(sub, append(append([]string{}, path...), sub.Name()))
		}
	}
	walk(newRoot(run.Out{}), nil)
	return paths
}

// workloadTerms are the words of each workload's own concepts: no other workload's help says them.
var workloadTerms = map[string][]string{
	"tpcc":     {"TPC-C", "warehouse", "New-Order", "new_order", "tpmC"},
	"tpch":     {"TPC-H", "QphH", "Power@Size", "refresh stream"},
	"ycsb":     {"YCSB", "usertable", "recordcount"},
	"sysbench": {"sysbench", "sbtest", "oltp_"},
	"kv":       {"kv95", "kv0", "--batch"},
	"script":   {"pgbench", "tpcb-like"},
}

// flagLine is a flag's first line in a help: its names, its value's type and its description.
var flagLine = regexp.MustCompile(`^  (?:-\S, |    )--(\S+)(?: \S+)?\s{2,}(\S.*)$`)

// TestHelpIsGroupedAndNeutral walks every command's help: no "(default" twice in a line; no
// workload's help speaks of another workload's concepts; a workload's commands group their flags
// (Database first, the flags most runs set ahead of the rest); no flag shown that cannot be set;
// the one-shot's --mode shows no default (it runs in two modes); every command's description starts
// with a capital (a verb), every flag's with a small letter or a name.
func TestHelpIsGroupedAndNeutral(t *testing.T) {
	names := workload.Names()
	for _, path := range everyCommand() {
		help := helpOf(t, path)
		where := "candor " + strings.Join(path, " ") + " --help"
		lines := strings.Split(help, "\n")
		var flagNames []string
		for _, l := range lines {
			if strings.Count(l, "(default") > 1 {
				t.Errorf("%s: two defaults in one line: %q", where, l)
			}
			if m := flagLine.FindStringSubmatch(l); m != nil {
				flagNames = append(flagNames, m[1])
				if w := strings.Fields(m[2])[0]; regexp.MustCompile(`^[A-Z][a-z]+$`).MatchString(w) {
					t.Errorf("%s: --%s's description starts with a capital word, unlike the others: %q", where, m[1], m[2])
				}
			}
		}
		if sub := strings.Index(help, "Available Commands:\n"); sub >= 0 {
			list, _, _ := strings.Cut(help[sub+len("Available Commands:\n"):], "\n\n")
			for _, l := range strings.Split(list, "\n") {
				// the list of commands: each description starts with a capital (a verb)
				if f := strings.Fields(l); len(f) > 1 {
					if r := []rune(f[1])[0]; !unicode.IsUpper(r) {
						t.Errorf("%s: %s's description does not start with a capital: %q", where, f[0], l)
					}
				}
			}
		}
		if len(path) == 0 {
			continue
		}
		own := path[0]
		if own == "capture" && (!strings.Contains(help, "\nFlags most runs set:\n") || len(flagNames) < 3 || flagNames[0] != "db") {
			t.Errorf("%s: its flags are not grouped, --db first: %v", where, flagNames)
		}
		if _, ok := workloadTerms[own]; !ok {
			continue // not a workload's command
		}
		// neutral: no other workload's concepts (the root's one-line list is the root's)
		for _, other := range names {
			if other == own {
				continue
			}
			for _, term := range workloadTerms[other] {
				if strings.Contains(help, term) {
					t.Errorf("%s speaks of %s's %q", where, other, term)
				}
			}
		}
		cmd := ""
		if len(path) > 1 {
			cmd = path[1]
		}
		if cmd == "check" || cmd == "procedures" {
			continue
		}
		// grouped: Database first, then the flags that matter, each group's key flags first
		if !strings.Contains(help, "\nDatabase:\n") || len(flagNames) == 0 || flagNames[0] != "db" {
			t.Errorf("%s: --db is not first, under Database", where)
		}
		want := []string{"db"}
		if cmd != "load" && cmd != "drop" {
			want = append(want, "duration", "warmup")
			switch cmd {
			case "search":
			case "compare-engines": // its runs are in throughput mode: no --mode
				want = append(want, "out")
			default:
				want = append(want, "mode", "out")
			}
		}
		first := flagNames
		if len(first) > 10 {
			first = first[:10]
		}
		for _, w := range want {
			if !contains(first, w) && !(w == "duration" && cmd == "search") && !(w == "warmup" && own == "tpch") {
				t.Errorf("%s: --%s is not among the first 10 flags %v", where, w, first)
			}
		}
		reg, _ := workload.Lookup(own)
		in := reg.New().Info()
		if in.Finite && (contains(flagNames, "terminals") || contains(flagNames, "connections")) {
			t.Errorf("%s shows --terminals or --connections, which %s's runs refuse", where, own)
		}
		if cmd == "" && !in.Finite && in.HasMode(workload.ModeRate) {
			for _, l := range lines {
				if strings.Contains(l, "--mode string") && strings.Contains(l, "(default") {
					t.Errorf("%s: the one-shot runs in two modes but --mode shows a default: %q", where, l)
				}
			}
		}
	}
}

func contains(s []string, w string) bool {
	for _, x := range s {
		if x == w {
			return true
		}
	}
	return false
}
