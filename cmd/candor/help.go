package main

import (
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/workload"
)

// A command's help shows its flags in groups (database, what to run, mode and load shape,
// measurement, output, scale-out), after the few flags most runs set (the key flags, in the same
// order), so those come first. The groups are flag annotations (workload.FlagGroupKey,
// workload.FlagKeyKey): the core's flags get theirs here, by name (coreGroups); a workload marks its
// own key flags in its Flags (workload.KeyFlags), and its others are "What to run". The usage
// template is cobra's own with its flag list replaced by groupedFlags.

// groupSearch is search's own group: the budgets and how the search proceeds.
const groupSearch = "search"

// helpColumns is the width flag descriptions are wrapped to.
const helpColumns = 120

// groupKey holds the key flags, shown first.
const groupKey = "key"

// groupOther holds the flags of no group (--help).
const groupOther = "other"

// groupOrder is the order of the groups in a help.
var groupOrder = []string{
	groupKey, workload.GroupDatabase, workload.GroupWorkload, groupSearch, workload.GroupShape,
	workload.GroupMeasure, workload.GroupOutput, workload.GroupLoading, workload.GroupScale, groupOther,
}

// coreGroups are the groups of the core's flags, by name.
var coreGroups = map[string]string{
	"db": workload.GroupDatabase, "dialect": workload.GroupDatabase,

	"mode": workload.GroupShape, "terminals": workload.GroupShape, "connections": workload.GroupShape,
	"rate": workload.GroupShape, "step": workload.GroupShape, "step-every": workload.GroupShape,
	"ramp": workload.GroupShape, "arrivals": workload.GroupShape, "max-backlog": workload.GroupShape,
	"peak-duration": workload.GroupShape, "peak-warmup": workload.GroupShape, "loads": workload.GroupShape,

	"duration": workload.GroupMeasure, "warmup": workload.GroupMeasure, "grace": workload.GroupMeasure,
	"outage-window": workload.GroupMeasure, "interval": workload.GroupMeasure, "seed": workload.GroupMeasure,
	"isolation": workload.GroupMeasure, "no-check": workload.GroupMeasure, "check-full": workload.GroupMeasure,
	"max-failures": workload.GroupMeasure, "probe": workload.GroupMeasure, "full": workload.GroupMeasure,

	"out": workload.GroupOutput, "replace": workload.GroupOutput, "quiet": workload.GroupOutput,
	"metrics-addr": workload.GroupOutput,

	"loaders": workload.GroupLoading, "load-seed": workload.GroupLoading, "drop": workload.GroupLoading,
	"allow-large": workload.GroupLoading,

	"slo": groupSearch, "start-rate": groupSearch, "precision": groupSearch, "max-probes": groupSearch,
	"confirm": groupSearch, "confirm-probe": groupSearch, "confirm-rounds": groupSearch,

	"shard": workload.GroupScale, "shards": workload.GroupScale, "shard-wait": workload.GroupScale,
	"start-at": workload.GroupScale,

	"help": groupOther,
}

// coreKeys are the core's key flags.
var coreKeys = []string{"db", "mode", "terminals", "rate", "duration", "warmup", "out", "slo", "probe", "drop"}

// annotateWorkloadFlags gives the flags of a workload's command c their groups: the core's by name
// (load's --seed is the load's), the workload's own (those without a group) "What to run".
func annotateWorkloadFlags(c *cobra.Command, name string) {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations["candor_workload"] = name
	fs := c.Flags()
	fs.SortFlags = false // definition order: the core's first, each workload's as it lists them
	if c.Name() == "search" {
		workload.KeyFlags(fs, coreKeys...)
	} else {
		workload.KeyFlags(fs, slices.DeleteFunc(slices.Clone(coreKeys), func(k string) bool { return k == "slo" })...)
	}
	fs.VisitAll(func(f *pflag.Flag) {
		if len(f.Annotations[workload.FlagGroupKey]) > 0 {
			return
		}
		g, core := coreGroups[f.Name]
		switch {
		case c.Name() == "load" && f.Name == "seed":
			g = workload.GroupLoading
		case c.Name() == "run" && f.Name == "slo": // a run's budgets judge its measurement
			g = workload.GroupMeasure
		case !core:
			g = workload.GroupWorkload
		}
		_ = fs.SetAnnotation(f.Name, workload.FlagGroupKey, []string{g})
	})
}

// groupTitle is a group's heading in the help of c.
func groupTitle(c *cobra.Command, group string) string {
	name := c.Annotations["candor_workload"]
	switch group {
	case groupKey:
		return "Flags most runs set"
	case workload.GroupDatabase:
		return "Database"
	case workload.GroupWorkload:
		if c.Name() == "capture" {
			return "What to capture"
		}
		if c.Name() == "load" {
			return "What to load (" + name + ")"
		}
		return "What to run (" + name + ")"
	case groupSearch:
		return "The search"
	case workload.GroupShape:
		return "Mode and load shape"
	case workload.GroupMeasure:
		return "Measurement"
	case workload.GroupOutput:
		return "Output"
	case workload.GroupLoading:
		return "Loading"
	case workload.GroupScale:
		return "Scale-out (one run from several driver processes)"
	}
	return "Other"
}

// groupedFlags is the flag part of c's usage: cobra's one list when no flag has a group, else the
// key flags, then one list per group of the others. A flag whose description already says its
// default does not get pflag's "(default ...)" too.
func groupedFlags(c *cobra.Command) string {
	local := c.LocalFlags()
	grouped := false
	local.VisitAll(func(f *pflag.Flag) {
		grouped = grouped || len(f.Annotations[workload.FlagGroupKey]) > 0
	})
	if !grouped {
		return "\n\nFlags:\n" + strings.TrimRight(usagesOf(local), " \n")
	}
	sets := map[string]*pflag.FlagSet{}
	var rest []*pflag.Flag // the others, after the key flags
	add := func(f *pflag.Flag, g string) {
		if sets[g] == nil {
			sets[g] = pflag.NewFlagSet(g, pflag.ContinueOnError)
			sets[g].SortFlags = false
		}
		sets[g].AddFlag(withOwnDefault(f))
	}
	keys := map[string]bool{} // the key flags by group, to show them in the groups' order
	local.VisitAll(func(f *pflag.Flag) {
		if len(f.Annotations[workload.FlagKeyKey]) == 0 {
			rest = append(rest, f)
		} else {
			keys[groupOf(f)] = true
		}
	})
	for _, g := range groupOrder {
		if keys[g] {
			local.VisitAll(func(f *pflag.Flag) {
				if len(f.Annotations[workload.FlagKeyKey]) > 0 && groupOf(f) == g {
					add(f, groupKey)
				}
			})
		}
	}
	for _, f := range rest {
		add(f, groupOf(f))
	}
	var b strings.Builder
	for _, g := range groupOrder {
		s := sets[g]
		if s == nil || !s.HasAvailableFlags() {
			continue
		}
		b.WriteString("\n\n" + groupTitle(c, g) + ":\n")
		b.WriteString(strings.TrimRight(s.FlagUsagesWrapped(helpColumns), " \n"))
	}
	return b.String()
}

// groupOf is f's group (groupOther for none).
func groupOf(f *pflag.Flag) string {
	if a := f.Annotations[workload.FlagGroupKey]; len(a) > 0 {
		return a[0]
	}
	return groupOther
}

// usagesOf is fs's flag list, each flag as withOwnDefault shows it.
func usagesOf(fs *pflag.FlagSet) string {
	s := pflag.NewFlagSet("", pflag.ContinueOnError)
	s.SortFlags = fs.SortFlags
	fs.VisitAll(func(f *pflag.Flag) { s.AddFlag(withOwnDefault(f)) })
	return s.FlagUsagesWrapped(helpColumns)
}

// withOwnDefault is f, or a copy of it with its default left out of pflag's "(default ...)" when
// its description says the default in its own words.
func withOwnDefault(f *pflag.Flag) *pflag.Flag {
	if !strings.Contains(f.Usage, "(default") && !strings.Contains(f.Usage, "default:") {
		return f
	}
	cp := *f
	switch f.Value.Type() {
	case "bool":
		cp.DefValue = "false"
	case "duration":
		cp.DefValue = "0s"
	case "string":
		cp.DefValue = ""
	case "stringArray", "stringSlice":
		cp.DefValue = "[]"
	default:
		cp.DefValue = "0"
	}
	return &cp
}

// usageTemplate is cobra's default usage template with its flag list replaced by groupedFlags.
const usageTemplate = `Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}

Available Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}{{candorFlags .}}{{end}}{{if .HasAvailableInheritedFlags}}

Global Flags:
{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help" for more information about a command.{{end}}
`

var templateOnce sync.Once

// setUsage gives root (and so every command under it) the grouped usage.
func setUsage(root *cobra.Command) {
	templateOnce.Do(func() { cobra.AddTemplateFunc("candorFlags", groupedFlags) })
	root.SetUsageTemplate(usageTemplate)
}
