// Command candor is a benchmark driver for transactional databases that tells the truth about tail
// latency. This file is the CLI only: flags into typed plans, then a call into package run.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	_ "github.com/candor-bench/candor/driver/mysql"
	_ "github.com/candor-bench/candor/driver/postgres"
	_ "github.com/candor-bench/candor/driver/sqlite"
	"github.com/candor-bench/candor/report"
	htmlreport "github.com/candor-bench/candor/report/html"
	"github.com/candor-bench/candor/run"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/version"
	"github.com/candor-bench/candor/workload"
	_ "github.com/candor-bench/candor/workload/all" // every workload, registered
)

func main() {
	os.Exit(execute(os.Args[1:]))
}

// execute runs the command line args and returns the exit status: 0 success, 1 a failed run or
// check (or partial results), 2 bad input (usage, URL, unreachable server, mismatched data).
func execute(args []string) int {
	return executeTo(args, os.Stdout, os.Stderr, isTerminal(os.Stderr))
}

// executeTo is execute writing to stdout and stderr (tests run several at once, as shards).
func executeTo(args []string, stdout, stderr io.Writer, terminal bool) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hurry := run.NewHurry()
	sigs := make(chan os.Signal, 3)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go interrupts(sigs, cancel, hurry, stderr)
	out := run.Out{Stdout: stdout, Stderr: stderr, Terminal: terminal, Hurry: hurry}
	root := newRoot(out)
	root.SetArgs(args)
	root.SetOut(stdout) // help and usage
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, run.ErrCheckFailed):
		fmt.Fprintln(stderr, "candor: a consistency condition is violated (see above)")
		return 1
	case errors.Is(err, run.ErrNoRate):
		fmt.Fprintln(stderr, "candor: "+err.Error()+" (see the table above)")
		return 1
	case errors.Is(err, run.ErrIncomplete):
		fmt.Fprintln(stderr, "candor: "+err.Error())
		return 1
	case errors.Is(err, run.ErrFailures):
		fmt.Fprintln(stderr, "candor: "+err.Error()+" (see the failures above)")
		return 1
	case errors.Is(err, run.ErrBudgets):
		fmt.Fprintln(stderr, "candor: "+err.Error())
		return 1
	case errors.Is(err, run.ErrPartial), errors.As(err, new(errGate)):
		fmt.Fprintln(stderr, "candor: "+err.Error())
		return 1
	case userr.Is(err) || isUsage(err):
		fmt.Fprintln(stderr, "candor: "+err.Error())
		return 2
	default:
		fmt.Fprintln(stderr, "candor: error: "+err.Error())
		return 1
	}
}

// interrupts handles Ctrl-C and SIGTERM: the first cancels the command (a run
// stops starting work, waits up to --grace for what is in flight, then saves partial results); the
// second ends a run's waits and saves what was measured at once (run.Hurry), or exits at once when
// no run is listening; the third exits at once.
func interrupts(sigs <-chan os.Signal, cancel context.CancelFunc, hurry *run.Hurry, stderr io.Writer) {
	<-sigs
	cancel()
	<-sigs
	if !hurry.Fire() {
		fmt.Fprintln(stderr, "candor: interrupted twice: exiting at once")
		os.Exit(130)
	}
	<-sigs
	fmt.Fprintln(stderr, "candor: interrupted three times: exiting at once, without saving")
	os.Exit(130)
}

// usageError marks flag-parsing problems (unknown flags, bad values) so they exit with status 2.
type usageError struct{ error }

func isUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}

func newRoot(out run.Out) *cobra.Command {
	root := &cobra.Command{
		Use:           "candor",
		Short:         "A benchmark driver for transactional databases that tells the truth about tail latency",
		Version:       version.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		// A word that is no command is a usage error with the closest commands (args.go); alone,
		// candor prints its help.
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	if out.Stdout != nil {
		root.SetOut(out.Stdout) // --help and the version go where the run's output goes
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if pe := peerFlag(c, err); pe != nil { // peers.go: --threads is sysbench's ...
			return pe
		}
		return usageError{fmt.Errorf("%v: see `%s --help`", err, c.CommandPath())}
	})
	var cpuProfile string
	root.PersistentFlags().StringVar(&cpuProfile, "cpuprofile", "", "write a Go CPU profile of candor itself to this file (for candor's developers)")
	_ = root.PersistentFlags().MarkHidden("cpuprofile")
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		if cpuProfile == "" {
			return nil
		}
		f, err := os.Create(cpuProfile)
		if err != nil {
			return userr.Errorf("cannot write the CPU profile %s: %v", cpuProfile, err)
		}
		return pprof.StartCPUProfile(f)
	}
	root.PersistentPostRun = func(*cobra.Command, []string) { pprof.StopCPUProfile() }
	for _, name := range workload.Names() {
		reg, _ := workload.Lookup(name)
		root.AddCommand(newWorkloadCommand(out, reg)) // workload.go
	}
	capture := newCapture(out)
	workload.KeyFlags(capture.Flags(), "for") // help.go: its flags in groups, as a workload's
	annotateWorkloadFlags(capture, "capture")
	root.AddCommand(newReport(out), newCompare(out), capture, newMerge(out))
	root.AddCommand(newSelftest(out)) // selftest.go: the driver's own ceiling
	setUsage(root)                    // help.go: flags in groups
	return root
}

// freshSeed draws a root seed when the user gave none; it is printed and stored, so the run can be
// repeated with --seed.
func freshSeed() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return uint64(time.Now().UnixNano())
	}
	return binary.LittleEndian.Uint64(b[:]) >> 1 // fits a signed 64-bit column too
}

func newReport(out run.Out) *cobra.Command {
	var htmlFile string
	c := &cobra.Command{
		Use:   "report DIR",
		Short: "Print the summary of a saved run (its --out directory) without a database",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{fmt.Errorf("candor report takes one directory, the --out of a run (got %d arguments)", len(args))}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			// The results directory of a one-shot holds its runs (peak, rate-50, ...): side by side.
			if runs, ok, err := report.ReadLoads(args[0]); ok {
				if err != nil {
					return err
				}
				return reportLoads(out, runs, htmlFile)
			}
			r, err := report.Read(args[0])
			if err != nil {
				return err
			}
			if htmlFile != "" {
				if err := htmlreport.WriteFile(args[0], htmlFile); err != nil {
					return err
				}
				fmt.Fprintf(out.Stderr, "report written to %s\n", htmlFile)
				return nil
			}
			report.Summary(out.Stdout, r)
			return nil
		},
	}
	c.Flags().StringVar(&htmlFile, "html", "", "write the run's report as one self-contained HTML page to this file instead of printing the summary")
	return c
}

// reportLoads prints a one-shot's runs side by side, or writes their page (index.html's) to
// htmlFile, its links to each run's report.html relative to where the file goes.
func reportLoads(out run.Out, runs []report.LoadRun, htmlFile string) error {
	if htmlFile == "" {
		report.PrintLoads(out.Stdout, runs)
		return nil
	}
	abs, err := filepath.Abs(htmlFile)
	if err != nil {
		return userr.Errorf("cannot write %s: %v", htmlFile, err)
	}
	for i := range runs {
		if runs[i].Dir, err = filepath.Abs(runs[i].Dir); err != nil {
			return userr.Errorf("cannot resolve %s: %v", runs[i].Dir, err)
		}
	}
	var buf bytes.Buffer
	if err := htmlreport.RenderLoads(&buf, filepath.Dir(abs), runs); err != nil {
		return err
	}
	if err := os.WriteFile(htmlFile, buf.Bytes(), 0o644); err != nil {
		return userr.Errorf("cannot write %s: %v: choose another file", htmlFile, err)
	}
	fmt.Fprintf(out.Stderr, "report written to %s\n", htmlFile)
	return nil
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
