package tpcc

import (
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/dbtest"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/workload"
)

// TestOpenLoopStallPostgres is the test candor exists for (design.md, habit 8), on a real server:
// an open-loop run against PostgreSQL during which EVERY process of the server (the postmaster and
// all its children: backends, WAL writer, checkpointer...) is frozen with SIGSTOP for 2 s. Arrivals
// keep coming at their scheduled times, wait in the backlog, and their response time, from the
// intended arrival, shows the stall; the service time of all but the few operations caught in
// flight does not. Nothing is dropped or lost. The stall is connection wait, not the driver's
// lateness.
//
// It pauses the whole server of CANDOR_TEST_PG_URL (scripts/test's throwaway one) for 2 s, so it
// needs to run on the server's host as root or as the server's user. SIGCONT is always sent: by
// the pausing goroutine, again by a test cleanup, and by a detached shell that outlives this process.
func TestOpenLoopStallPostgres(t *testing.T) {
	db := dbtest.FreshPostgresStall(t, "candor_stall")
	ctx := context.Background()
	_, err := Load(ctx, db, LoadOptions{Warehouses: 1, Loaders: 2, Seed: 3, ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	postmaster := postmasterPID(t, db)

	const (
		warmup   = 2 * time.Second
		measured = 12 * time.Second
		rate     = 100.0
		stallAt  = warmup + 4*time.Second
		stall    = 2 * time.Second
	)
	// The safety net first: resume the server even if this process dies mid-stall.
	net := osexec.Command("sh", "-c", fmt.Sprintf("sleep %d; %s", int((stallAt+stall).Seconds())+10, contCommand(postmaster)))
	net.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := net.Start(); err != nil {
		t.Fatalf("starting the SIGCONT safety net: %v", err)
	}
	go net.Wait() // reaped when it ends (by itself, about 20 s from now)

	var paused []int
	t.Cleanup(func() { resume(postmaster, paused) })
	stalled := make(chan error, 1)
	start := time.Now()
	go func() {
		time.Sleep(time.Until(start.Add(stallAt)))
		// The postmaster first, so that it forks nothing while its children are being paused.
		if err := syscall.Kill(postmaster, syscall.SIGSTOP); err != nil {
			stalled <- fmt.Errorf("SIGSTOP to the postmaster %d: %v", postmaster, err)
			return
		}
		paused = children(postmaster)
		defer resume(postmaster, paused)
		for _, pid := range paused {
			_ = syscall.Kill(pid, syscall.SIGSTOP) // a child may just have exited
		}
		t.Logf("paused the postmaster %d and its %d children at %.2f s", postmaster, len(paused), time.Since(start).Seconds())
		time.Sleep(stall)
		stalled <- nil
	}()

	out := drive(t, ctx, db, &Workload{}, workload.SessionConfig{
		Mode: ModeRate, Terminals: TerminalsPerWarehouse, Connections: 4,
		Warmup: warmup, Grace: 30 * time.Second, Seed: 17, Isolation: db.DefaultIsolation(),
	}, workload.RateOptions{Steps: []schedule.Step{{Rate: rate, Duration: measured}}, Process: schedule.Poisson, MaxBacklog: 100000})
	if err := <-stalled; err != nil {
		t.Fatal(err)
	}
	if out.Summary.Partial {
		t.Fatalf("the run is partial: %s", out.Aborted)
	}

	resp, svc := measure.NewHistogram(), measure.NewHistogram()
	var completed, errs, incomplete, dropped int64
	for op := 0; op < NumTxTypes; op++ {
		c := out.Totals.Counts[op]
		completed += c.Completed
		errs += c.Errors
		incomplete += c.Incomplete
		dropped += c.Dropped
		if err := measure.Merge(resp, out.Totals.Hist[op][measure.Response]); err != nil {
			t.Fatal(err)
		}
		if err := measure.Merge(svc, out.Totals.Hist[op][measure.Service]); err != nil {
			t.Fatal(err)
		}
	}
	rs := out.Rate
	resp99, svc99 := measure.ValueAt(resp, measure.Q99), measure.ValueAt(svc, measure.Q99)
	late99, wait99 := measure.ValueAt(rs.Lateness, measure.Q99), measure.ValueAt(rs.ConnWait, measure.Q99)
	t.Logf("%d arrivals: %d completed, %d errors, %d incomplete, %d dropped; deepest backlog %d", rs.Arrived, completed, errs, incomplete, dropped, rs.MaxBacklogSeen)
	t.Logf("p99 response %.1f ms, service %.1f ms; lag split p99: timer lateness %.1f ms, connection wait %.1f ms",
		float64(resp99)/1000, float64(svc99)/1000, float64(late99)/1000, float64(wait99)/1000)

	if want := rate * measured.Seconds(); float64(rs.Arrived) < 0.8*want || float64(rs.Arrived) > 1.2*want {
		t.Fatalf("%d arrivals in the window, want about %.0f", rs.Arrived, want)
	}
	if dropped != 0 || rs.Dropped != 0 || incomplete != 0 || rs.Incomplete != 0 {
		t.Errorf("dropped %d, incomplete %d: nothing may be dropped or lost with a backlog bound of 100000", dropped, incomplete)
	}
	if completed+errs != rs.Arrived {
		t.Errorf("%d completed + %d failed != %d arrived: arrivals were lost", completed, errs, rs.Arrived)
	}
	if resp99 < measure.Micros(time.Second) {
		t.Errorf("response-time p99 is %.1f ms: the 2 s stall does not show", float64(resp99)/1000)
	}
	if svc99 > measure.Micros(300*time.Millisecond) {
		t.Errorf("service-time p99 is %.1f ms: only the few operations in flight during the stall may show it", float64(svc99)/1000)
	}
	if wait99 < measure.Micros(500*time.Millisecond) {
		t.Errorf("connection-wait p99 is %.1f ms: the stall is the database's queue and should show there", float64(wait99)/1000)
	}
	if late99 > measure.Micros(200*time.Millisecond) {
		t.Errorf("timer-lateness p99 is %.1f ms: the driver itself was not stalled", float64(late99)/1000)
	}
	if rs.MaxBacklogSeen < int(rate*stall.Seconds()/2) {
		t.Errorf("deepest backlog %d: the arrivals of a 2 s stall at %.0f/s should have queued", rs.MaxBacklogSeen, rate)
	}
}

// postmasterPID reads the server's postmaster PID from postmaster.pid in its data directory.
func postmasterPID(t *testing.T, db driver.DB) int {
	t.Helper()
	ctx := context.Background()
	c, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows, err := c.Query(ctx, "SHOW data_directory")
	if err != nil {
		t.Fatalf("SHOW data_directory (the test needs a superuser or pg_read_all_settings): %v", err)
	}
	var dir string
	for rows.Next() {
		if err := rows.Scan(&dir); err != nil {
			t.Fatal(err)
		}
	}
	rows.Close()
	b, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		t.Fatalf("reading the postmaster's PID (the test must run on the server's host, as root or its owner): %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil || pid <= 1 {
		t.Fatalf("postmaster.pid in %s does not start with a PID: %q", dir, b)
	}
	return pid
}

// children lists the processes whose parent is pid (from /proc).
func children(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ')'.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 {
			if pp, _ := strconv.Atoi(f[1]); pp == pid {
				out = append(out, p)
			}
		}
	}
	return out
}

// resume sends SIGCONT to the postmaster's children and to the postmaster (harmless when running).
func resume(postmaster int, kids []int) {
	for _, pid := range append(kids, children(postmaster)...) {
		_ = syscall.Kill(pid, syscall.SIGCONT)
	}
	_ = syscall.Kill(postmaster, syscall.SIGCONT)
}

// contCommand is a shell command sending SIGCONT to the postmaster and all its children.
func contCommand(postmaster int) string {
	return fmt.Sprintf(`kill -CONT %[1]d; for s in /proc/[0-9]*/stat; do set -- $(cat "$s" 2>/dev/null); [ "$4" = %[1]d ] && kill -CONT "$1"; done; kill -CONT %[1]d; true`, postmaster)
}
