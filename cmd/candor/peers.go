package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Peer habits: a flag or subcommand of pgbench, sysbench, YCSB, go-tpc or cockroach workload that
// candor does not have is answered with candor's name for it (a usage error, exit status 2), not a
// bare "unknown flag". Only an unknown flag gets here: where a candor command defines the same
// name (`candor script -c`, ycsb's -P), that flag is parsed as candor defines it.

// peerHabit is one peer's flag or subcommand and candor's name for it.
type peerHabit struct {
	whose  string // "sysbench's", with what it means there
	candor string // candor's name for it
}

// peerFlags are peers' flags, as typed (single-dash long names are YCSB's).
var peerFlags = map[string]peerHabit{
	"--threads":         {"sysbench's and go-tpc's (concurrent clients)", "--terminals"},
	"--time":            {"sysbench's and go-tpc's (seconds to run)", "--duration, with a unit (--duration 60s)"},
	"--report-interval": {"sysbench's (seconds between progress lines)", "--interval, with a unit (--interval 10s)"},
	"--concurrency":     {"cockroach workload's (concurrent workers)", "--terminals"},
	"--max-rate":        {"cockroach workload's (operations per second)", "--rate, in --mode rate (open loop)"},
	"-T":                {"pgbench's (seconds to run)", "--duration, with a unit (--duration 60s)"},
	"-c":                {"pgbench's (clients)", "--terminals (and --connections; `candor script -c N` sets both)"},
	"-j":                {"pgbench's (threads of the driver)", "--terminals alone: candor spreads its terminals over the CPUs itself"},
	"-R":                {"pgbench's (transactions per second)", "--rate, in --mode rate (open loop)"},
	"-P":                {"pgbench's (progress every N seconds)", "--interval, with a unit (--interval 5s)"},
	"-t":                {"pgbench's (transactions per client) and YCSB's (the run phase)", "--duration: candor measures for a time (`run --duration 60s`)"},
	"-i":                {"pgbench's (initialize)", "the load subcommand (`candor script load --scale N`)"},
	"-s":                {"pgbench's (scale factor)", "--scale (`candor script load --scale N`)"},
	"-threads":          {"YCSB's (client threads)", "--terminals"},
	"-target":           {"YCSB's (operations per second)", "--rate, in --mode rate (open loop)"},
}

// peerPrefixes are peers' families of flags, by prefix.
var peerPrefixes = []struct {
	prefix string
	habit  peerHabit
}{
	{"--mysql-", peerHabit{"sysbench's (the MySQL connection)", "--db mysql://USER:PASSWORD@HOST:PORT/DB"}},
	{"--pgsql-", peerHabit{"sysbench's (the PostgreSQL connection)", "--db postgres://USER:PASSWORD@HOST:PORT/DB"}},
}

// peerCommands are peers' subcommands, with candor's (NAME is the workload's command).
var peerCommands = map[string]peerHabit{
	"prepare": {"sysbench's", "load: `candor NAME load --db URL`"},
	"cleanup": {"sysbench's and go-tpc's", "drop: `candor NAME drop --db URL`"},
	"init":    {"cockroach workload's (and pgbench -i's)", "load: `candor NAME load --db URL`"},
}

// peerFlag is candor's answer to an unknown flag that is a peer's habit, or nil.
func peerFlag(c *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return nil
	}
	var typed []string // what the user typed, the likeliest first
	if sh := ne.GetSpecifiedShortnames(); sh != "" {
		typed = []string{"-" + sh, "-" + ne.GetSpecifiedName()}
	} else {
		typed = []string{"--" + ne.GetSpecifiedName()}
	}
	for _, t := range typed {
		t, _, _ = strings.Cut(t, "=") // -threads=8
		if h, ok := peerFlags[t]; ok {
			return peerError(c, t, h)
		}
		for _, p := range peerPrefixes {
			if strings.HasPrefix(t, p.prefix) {
				return peerError(c, t, p.habit)
			}
		}
	}
	return nil
}

// peerCommand is candor's answer to a word after c that is a peer's subcommand, or nil.
func peerCommand(c *cobra.Command, word string) error {
	h, ok := peerCommands[word]
	if !ok {
		return nil
	}
	name := "WORKLOAD"
	if c.HasParent() {
		name = c.Name()
	}
	h.candor = strings.ReplaceAll(h.candor, "NAME", name)
	return peerError(c, word, h)
}

func peerError(c *cobra.Command, typed string, h peerHabit) error {
	return usageError{fmt.Errorf("%s is %s; candor's is %s: see `%s --help`", typed, h.whose, h.candor, c.CommandPath())}
}
