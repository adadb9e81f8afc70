package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
)

// TestSilentlyAcceptedInput: input that used to be accepted or answered with
// exit status 1 gets one sentence and exit status 2, and nothing runs.
func TestSilentlyAcceptedInput(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "x.db")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"tpcc", "run", "--db", db, "--terminals", "0"}, "--terminals must be at least 1 (got 0)"},
		{[]string{"tpcc", "run", "--db", db, "--connections", "0"}, "--connections must be at least 1 (got 0)"},
		{[]string{"tpcc", "--db", db, "--mode", "throughput", "--terminals", "0"}, "--terminals must be at least 1"},
		{[]string{"tpcc", "runn", "--db", db}, `"runn" is not a command of candor tpcc: did you mean run?`},
		{[]string{"tpcc", "lod"}, "did you mean load?"},
		{[]string{"tpcc", "run", "--db", db, "stray"}, `candor tpcc run takes no arguments (got "stray")`},
		{[]string{"tpcc", "check", "--db", db, "x", "y"}, `takes no arguments (got "x y")`},
		{[]string{"compar"}, `"compar" is not a command of candor: did you mean compare?`},
		{[]string{"nothing"}, `"nothing" is not a command of candor`},
		// Item 4: a rate the driver cannot schedule is refused with the figure.
		{[]string{"tpcc", "run", "--db", db, "--mode", "rate", "--rate", "50000000", "--duration", "5s", "--warmup", "2s"},
			"--rate 50000000/s is more than the driver can schedule"},
		{[]string{"tpcc", "run", "--db", db, "--mode", "rate", "--rate", "10..2000000", "--ramp"}, "at most 1,000,000/s"},
	}
	for _, c := range cases {
		code, out := runCLI(t, c.args...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != 2 || !strings.Contains(out, c.want) || len(lines) != 1 || !strings.HasPrefix(lines[0], "candor: ") {
			t.Errorf("candor %s: exit %d, output %q; want exit 2 and one line with %q", strings.Join(c.args, " "), code, out, c.want)
		}
	}
	if code, out := runCLI(t); code != 0 || !strings.Contains(out, "Usage:") {
		t.Errorf("candor alone: exit %d, want its help and 0", code)
	}
}

// snapshot reads every file of dir by name.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = string(b)
	}
	return m
}

func sameFiles(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for n, b := range before {
		if a, ok := after[n]; !ok || a != b {
			t.Errorf("%s: %s changed (%d bytes before, %d after, present %v)", what, n, len(b), len(a), ok)
		}
	}
	for n := range after {
		if _, ok := before[n]; !ok {
			t.Errorf("%s: %s appeared", what, n)
		}
	}
}

// TestOutHoldingARun: a run into an --out that holds a run is refused before
// anything is written (exit 2), unless --replace; --replace replaces the run's files only.
func TestOutHoldingARun(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	db := tpccSQLiteCopy(t, filepath.Join(dir, "x.db"))
	out := filepath.Join(dir, "out")
	run := func(extra ...string) (int, string) {
		args := append([]string{"tpcc", "--mode", "throughput", "--db", db, "--duration", "2s", "--warmup", "0s", "--interval", "500ms",
			"--terminals", "2", "--no-check", "-q", "--out", out}, extra...)
		return runCLI(t, args...)
	}
	if code, _ := run("--seed", "1"); code != 0 {
		t.Fatalf("first run: exit %d", code)
	}
	before := snapshot(t, out)
	for _, n := range []string{"result.json", "latency.hlog", "deliveries.csv", "resources.jsonl", "report.html"} {
		if _, ok := before[n]; !ok {
			t.Fatalf("the first run wrote no %s", n)
		}
	}
	code, text := run("--seed", "2")
	if code != 2 || !strings.Contains(text, "holds a saved run already (result.json): choose another --out, or add --replace") {
		t.Fatalf("a second run into the same --out: exit %d, want 2 and the refusal", code)
	}
	sameFiles(t, "refused run", before, snapshot(t, out))
	// A search and a one-shot refuse it too.
	if code, text := refusedCLI(t, "tpcc", "search", "--db", db, "--slo", "new_order.p99<=1s", "--out", out); code != 2 || !strings.Contains(text, "holds a saved run already") {
		t.Errorf("search into an --out holding a run: exit %d, want 2", code)
	}
	if code, text := refusedCLI(t, "tpcc", "--db", db, "--out", filepath.Dir(out)); code != 2 || !strings.Contains(text, "holds a saved run already (out/result.json)") {
		t.Errorf("one-shot into a directory holding a run: exit %d, want 2", code)
	}
	sameFiles(t, "refused search and one-shot", before, snapshot(t, out))

	// --replace: the run's files are replaced, a file of the user's is left alone.
	if err := os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _ := run("--seed", "2", "--replace"); code != 0 {
		t.Fatalf("--replace: exit %d", code)
	}
	if r := readResult(t, out); r["seed"].(float64) != 2 {
		t.Errorf("--replace: result.json has seed %v, want 2", r["seed"])
	}
	after := snapshot(t, out)
	if after["notes.txt"] != "mine" {
		t.Error("--replace removed or changed a file that is not the run's")
	}
	if after["latency.hlog"] == before["latency.hlog"] {
		t.Error("--replace left the earlier latency.hlog")
	}
}

// TestOutKeptWhenConnectFails: a run that cannot open its connections ("too many
// connections") creates nothing: with --replace, the earlier run's files are left as they were;
// into a new --out, the directory is not even created.
func TestOutKeptWhenConnectFails(t *testing.T) {
	parallel(t)
	admin := dbtest.PostgresURL(t)
	var b [4]byte
	rand.Read(b[:])
	role := "candor_limited_" + hex.EncodeToString(b[:])
	pgExec(t, admin, "CREATE ROLE "+role+" LOGIN")
	t.Cleanup(func() { dbtest.Exec(admin, "DROP ROLE IF EXISTS "+role) }) // after the database's drop
	// A copy of the loaded template, its tables the role's to use.
	copied := tpccPostgresCopy(t, "faults_out")
	pgExec(t, copied, "GRANT ALL ON ALL TABLES IN SCHEMA public TO "+role)
	u, err := url.Parse(copied)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	db := u.String()
	out := filepath.Join(t.TempDir(), "out")
	args := func(extra ...string) []string {
		return append([]string{"tpcc", "run", "--mode", "throughput", "--db", db, "--duration", "2s", "--warmup", "0s",
			"--interval", "500ms", "--no-check", "-q"}, extra...)
	}
	if code, _ := runCLI(t, args("--terminals", "2", "--connections", "2", "--out", out)...); code != 0 {
		t.Fatalf("first run: exit %d", code)
	}
	before := snapshot(t, out)
	pgExec(t, admin, "ALTER ROLE "+role+" CONNECTION LIMIT 3")
	code, text := runCLI(t, args("--terminals", "8", "--connections", "8", "--out", out, "--replace")...)
	if code == 0 || !strings.Contains(text, "too many connections") {
		t.Fatalf("a run beyond the role's connection limit: exit %d, want a failure naming too many connections", code)
	}
	sameFiles(t, "failed run with --replace", before, snapshot(t, out))
	fresh2 := filepath.Join(filepath.Dir(out), "new")
	if code, _ := runCLI(t, args("--terminals", "8", "--connections", "8", "--out", fresh2)...); code == 0 {
		t.Fatal("a run beyond the role's connection limit succeeded")
	}
	if _, err := os.Stat(fresh2); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a run that could not connect created its --out %s (%v)", fresh2, err)
	}
}

func pgExec(t *testing.T, u, sql string) {
	t.Helper()
	if err := dbtest.Exec(u, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// TestDiskFull: with --out on a 16 KiB tmpfs, the run still prints its summary,
// says at the first failed write of each file that it failed, names each incomplete file, never
// says the results were saved, leaves no temporary file, and exits 1. It needs root for the mount
// (scripts/test runs as root in CI); TestOutFileFullDisk and TestSaveResultsFails in package run
// cover the same paths without it.
func TestDiskFull(t *testing.T) {
	parallel(t)
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root; package run's TestOutFileFullDisk covers the writes without it")
	}
	dir := t.TempDir()
	mnt := filepath.Join(dir, "full")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Fatalf("mount -t tmpfs -o size=16k: %v: %s", err, b)
	}
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	db := tpccSQLiteCopy(t, filepath.Join(dir, "x.db"))
	out := filepath.Join(mnt, "run")
	code, text := runCLI(t, "tpcc", "run", "--mode", "throughput", "--db", db, "--duration", "3s", "--warmup", "1s", "--interval", "500ms",
		"--terminals", "2", "--no-check", "-q", "--out", out)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{
		"new_order", // the summary
		"warning: writing latency.hlog failed (no space left on device)",
		"results only partly saved in " + out,
		"report.html (not written", // result.json did not fit either
		"candor: the results could not be saved completely",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	if strings.Count(text, "warning: writing latency.hlog failed") != 1 {
		t.Error("the failed write of latency.hlog is not said exactly once")
	}
	if strings.Contains(text, "results saved in") {
		t.Error("the run says its results were saved")
	}
	if _, err := os.Stat(filepath.Join(out, "result.json.tmp")); err == nil {
		t.Error("result.json.tmp was left behind")
	}
}

// bgCLI is candor running in the background as a child process (startCLI): its Ctrl-C is its own,
// and the test may run beside others; wait returns its exit status, what it printed and how long it
// ran after signalled (see interrupt).
type bgCLI struct {
	cmd      *exec.Cmd
	done     chan struct{}
	code     int
	buf      syncBuffer
	signaled time.Time
}

// startCLI starts candor with args in the background (childCLI), holding one call slot until it
// exits. (startChildCLI writes to a file and leaves the slots to its caller, which starts several.)
func startCLI(t *testing.T, args ...string) *bgCLI {
	t.Helper()
	b := &bgCLI{done: make(chan struct{})}
	release := holdSlots(1) // a call of this package, until it exits; the test calls no other meanwhile
	b.cmd = exec.Command(childCLI(t), args...)
	b.cmd.Stdout, b.cmd.Stderr = &b.buf, &b.buf
	if err := b.cmd.Start(); err != nil {
		release()
		t.Fatalf("starting candor %s: %v", strings.Join(args, " "), err)
	}
	go func() {
		err := b.cmd.Wait()
		release()
		b.code = 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			b.code = ee.ExitCode()
		} else if err != nil {
			b.code = -1
		}
		close(b.done)
	}()
	t.Cleanup(func() {
		select {
		case <-b.done:
		default:
			_ = b.cmd.Process.Kill()
			<-b.done
		}
	})
	return b
}

// output is what it printed so far.
func (b *bgCLI) output() string { return b.buf.String() }

// waitFor waits until the output holds s.
func (b *bgCLI) waitFor(t *testing.T, s string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !strings.Contains(b.output(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q within %s; output so far:\n%s", s, within, b.output())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// interrupt sends candor's process SIGINT, as Ctrl-C does (execute's handler takes it).
func (b *bgCLI) interrupt(t *testing.T) {
	t.Helper()
	if b.signaled.IsZero() {
		b.signaled = time.Now()
	}
	if err := b.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
}

// wait waits for the exit (at most within after the first signal) and returns the exit status,
// the output and the time from the first signal to the exit.
func (b *bgCLI) wait(t *testing.T, within time.Duration) (int, string, time.Duration) {
	t.Helper()
	select {
	case <-b.done:
	case <-time.After(within):
		t.Fatalf("candor did not exit within %s of the signal; output:\n%s", within, b.buf.String())
	}
	took := time.Since(b.signaled)
	t.Logf("exit %d after %s\n%s", b.code, took.Round(time.Millisecond), b.buf.String())
	return b.code, b.buf.String(), took
}

// lockNewOrder holds an ACCESS EXCLUSIVE lock on NEW_ORDER until the test ends: every New-Order and
// every deferred Delivery waits for it.
func lockNewOrder(t *testing.T, db string) {
	t.Helper()
	ctx := context.Background()
	d, err := driver.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"BEGIN", "LOCK TABLE new_order IN ACCESS EXCLUSIVE MODE"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { c.Exec(ctx, "ROLLBACK"); c.Close(); d.Close() })
}

// TestInterruptHonoursGrace: with every New-Order and deferred Delivery blocked
// on a lock, Ctrl-C ends a run with --grace 3s in about 3 s (not 83 s: the deferred Deliveries'
// 80 s allowance is for a run that ends on its own), says what it waits for, and saves partial
// results.
func TestInterruptHonoursGrace(t *testing.T) {
	parallel(t)
	db := tpccPostgresCopy(t, "faults_sigint")
	out := filepath.Join(t.TempDir(), "out")
	b := startCLI(t, "tpcc", "run", "--mode", "throughput", "--db", db, "--duration", "5m", "--warmup", "1s",
		"--grace", "3s", "--interval", "500ms", "--terminals", "10", "--out", out)
	b.waitFor(t, "running TPC-C", 30*time.Second)
	time.Sleep(2 * time.Second) // warm-up over, Deliveries queued
	lockNewOrder(t, db)
	time.Sleep(2 * time.Second) // every terminal blocked on New-Order
	b.interrupt(t)
	code, text, took := b.wait(t, 30*time.Second)
	if code != 1 {
		t.Errorf("exit %d, want 1 (partial results)", code)
	}
	if took > 7*time.Second {
		t.Errorf("exited %s after Ctrl-C with --grace 3s", took.Round(time.Millisecond))
	}
	for _, want := range []string{"interrupted: starting nothing more; waiting up to 3s (--grace) for the work in flight", "candor: the run was interrupted"} {
		if !strings.Contains(text, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	if r := readResult(t, out); r["partial"] != true {
		t.Errorf("result.json: partial %v, want true", r["partial"])
	}
}

// TestSecondInterruptSaves: a second Ctrl-C during a long grace stops waiting at
// once and still writes result.json (partial), skipping the check that the lock would block.
func TestSecondInterruptSaves(t *testing.T) {
	parallel(t)
	db := tpccPostgresCopy(t, "faults_sigint2")
	out := filepath.Join(t.TempDir(), "out")
	b := startCLI(t, "tpcc", "run", "--mode", "throughput", "--db", db, "--duration", "5m", "--warmup", "1s",
		"--grace", "5m", "--interval", "500ms", "--terminals", "10", "--out", out)
	b.waitFor(t, "running TPC-C", 30*time.Second)
	time.Sleep(2 * time.Second)
	lockNewOrder(t, db)
	time.Sleep(2 * time.Second)
	b.interrupt(t)
	b.waitFor(t, "interrupted: starting nothing more", 5*time.Second)
	time.Sleep(time.Second)
	b.interrupt(t)
	code, text, took := b.wait(t, 60*time.Second)
	if code != 1 {
		t.Errorf("exit %d, want 1 (partial results)", code)
	}
	if took > 6*time.Second {
		t.Errorf("exited %s after the first Ctrl-C, %s after the second", took.Round(time.Millisecond), (took - time.Second).Round(time.Millisecond))
	}
	if !strings.Contains(text, "interrupted again: waiting for nothing more") {
		t.Error("the second Ctrl-C is not acknowledged")
	}
	r := readResult(t, out)
	if r["partial"] != true {
		t.Errorf("result.json: partial %v, want true", r["partial"])
	}
}
