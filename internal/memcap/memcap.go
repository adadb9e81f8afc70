// Package memcap is test support: it runs a command under a cap on its address space (as
// `prlimit --as`, util-linux, sets it: RLIMIT_AS, which ulimit -v sets too) and returns its peak
// resident memory, so that a test can show an input is refused, or a load runs, in little memory
// instead of exhausting the machine's.
//
//	c := exec.Command(candorBinary, "kv", "load", "--db", url, "--insert-count", "1000000000000000")
//	r := memcap.Run(t, 4<<30, c)
//	if r.Code != 2 || r.PeakRSS > 200<<20 { ... }
//
// A missing prlimit fails the test: it is never skipped.
package memcap

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Result is how a capped command ended.
type Result struct {
	// Code is the exit status; -1 when a signal ended the command (as the kernel's OOM killer or a
	// failed allocation's abort may).
	Code int
	// Output is what it printed, stdout and stderr together (unless the caller set c.Stdout or
	// c.Stderr).
	Output string
	// PeakRSS is the most resident memory the command held, in bytes (getrusage's ru_maxrss).
	PeakRSS int64
}

// Run runs c (not started; its Env and Dir as the caller set them) under an address-space cap of
// limit bytes and returns how it ended. It fails t when the command cannot be started at all.
//
// The peak is GNU time's (%M): time forks the command from its own small process. The rusage of a
// child Go starts itself would not do: Go starts it with vfork (CLONE_VM), sharing the test
// process's memory until the exec, and the kernel counts that memory, all of the test process's
// resident set, in the child's peak.
func Run(t testing.TB, limit int64, c *exec.Cmd) Result {
	t.Helper()
	pl, err := exec.LookPath("prlimit")
	if err != nil {
		t.Fatalf("memcap: prlimit (util-linux) is needed to cap a command's memory: %v", err)
	}
	gt := "/usr/bin/time" // GNU time, not the shell's keyword
	if _, err := os.Stat(gt); err != nil {
		t.Fatalf("memcap: GNU time (%s, Debian's package time) is needed to measure a command's peak memory: %v", gt, err)
	}
	peakFile := filepath.Join(t.TempDir(), "peak")
	var out bytes.Buffer
	if c.Stdout == nil {
		c.Stdout = &out
	}
	if c.Stderr == nil {
		c.Stderr = &out
	}
	// time forks prlimit, which sets the limit on itself, then execs the command: the same process,
	// whose peak time writes to peakFile.
	shown := strings.Join(append([]string{c.Path}, c.Args[1:]...), " ")
	c.Args = append([]string{gt, "-f", "%M", "-o", peakFile, pl, "--as=" + strconv.FormatInt(limit, 10), "--", c.Path}, c.Args[1:]...)
	c.Path = gt
	err = c.Run()
	r := Result{Output: out.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		t.Fatalf("memcap: %s: %v", strings.Join(c.Args, " "), err)
	}
	// The last line is the peak in KiB; before it, "Command terminated by signal N" or "Command
	// exited with non-zero status N".
	b, err := os.ReadFile(peakFile)
	lines := strings.Fields(strings.TrimSpace(string(b)))
	if err != nil || len(lines) == 0 {
		t.Fatalf("memcap: GNU time left no peak for %s: %v %q", shown, err, b)
	}
	kib, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
	if err != nil {
		t.Fatalf("memcap: GNU time's peak for %s: %q", shown, b)
	}
	if strings.Contains(string(b), "terminated by signal") {
		r.Code = -1
	}
	r.PeakRSS = kib << 10
	t.Logf("memcap: %s (cap %d MiB) -> exit %d, peak RSS %.1f MiB\n%s", shown, limit>>20, r.Code, float64(r.PeakRSS)/(1<<20), r.Output)
	return r
}

// RunTest runs the test called name of this test binary (os.Args[0]) as a child process, with env
// added to its environment, under an address-space cap of limit bytes, and returns its peak
// resident memory in bytes; the child failing fails t. The child tells itself apart by env.
func RunTest(t testing.TB, limit int64, name string, env ...string) int64 {
	t.Helper()
	c := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.count=1")
	c.Env = append(os.Environ(), env...)
	r := Run(t, limit, c)
	if r.Code != 0 {
		t.Fatalf("%s under a %d MiB address-space cap: exit %d\n%s", name, limit>>20, r.Code, r.Output)
	}
	return r.PeakRSS
}
