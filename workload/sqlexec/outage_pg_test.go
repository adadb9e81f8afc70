package sqlexec

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	_ "github.com/candor-bench/candor/driver/postgres"
	"github.com/candor-bench/candor/workload"
)

// ownPostgres starts a PostgreSQL server of the test's own (scripts/pg-throwaway), which it may
// restart and stop without disturbing other tests; it fails, never skips, when none can start.
func ownPostgres(t *testing.T) (url string, pgctl func(cmd string)) {
	t.Helper()
	dir, err := os.MkdirTemp("", "candor-outage-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755) // the server runs as postgres when the tests run as root
	script, _ := filepath.Abs(filepath.Join("..", "..", "scripts", "pg-throwaway"))
	pgctl = func(cmd string) {
		var stderr bytes.Buffer
		c := exec.Command("bash", script, cmd, filepath.Join(dir, "pg"))
		c.Stderr = &stderr
		if err := c.Run(); err != nil {
			t.Fatalf("pg-throwaway %s: %v\n%s", cmd, err, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	c := exec.Command("bash", script, "start", filepath.Join(dir, "pg"))
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("starting a PostgreSQL server of the test's own (scripts/pg-throwaway): %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		exec.Command("bash", script, "stop", filepath.Join(dir, "pg")).Run()
		os.RemoveAll(dir)
	})
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	url, ok := strings.CutPrefix(lines[len(lines)-1], "CANDOR_TEST_PG_URL=")
	if !ok {
		t.Fatalf("pg-throwaway printed %q, not CANDOR_TEST_PG_URL=...", stdout.String())
	}
	return url, pgctl
}

// TestOutagePostgresRestart: the fault pass's `pg_ctl restart -m fast` mid-run ended the run
// ("20 reconnects in a row failed"). The slots now wait the restart out, reconnect, and record the
// outage; a server that stays down past the window aborts the run, saying so.
func TestOutagePostgresRestart(t *testing.T) {
	url, pgctl := ownPostgres(t)
	ctx := context.Background()
	db, err := driver.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var cause atomic.Value
	abort := func(err error) { cause.CompareAndSwap(nil, err) }
	outages := workload.NewOutages(30 * time.Second)
	const n = 3
	s, err := Open(workload.WithOutages(ctx, outages), []driver.DB{db}, n, abort)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	var restarted atomic.Bool
	var after, errs, reconnects atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				out := s.Run(ctx, i, func(ctx context.Context, c driver.Conn) (int, error) {
					_, err := c.Exec(ctx, "SELECT pg_sleep(0.002)")
					return 0, err
				})
				reconnects.Add(int64(out.Reconnects))
				switch {
				case out.Err != nil:
					errs.Add(1)
				case restarted.Load():
					after.Add(1)
				}
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	pgctl("restart")
	restarted.Store(true)
	time.Sleep(1500 * time.Millisecond)
	close(stop)
	wg.Wait()
	if c := cause.Load(); c != nil {
		t.Fatalf("the restart aborted the run: %v", c)
	}
	if after.Load() == 0 || reconnects.Load() < n {
		t.Fatalf("after the restart: %d operations, %d reconnects (want operations, and a reconnect per connection)", after.Load(), reconnects.Load())
	}
	l := outages.List()
	if len(l) == 0 || l[0].End.IsZero() || l[0].Attempts == 0 {
		t.Errorf("outages %+v, want the restart recorded as an outage that ended", l)
	}
	t.Logf("restart: %d operations after it, %d errors, %d reconnects, outages %+v", after.Load(), errs.Load(), reconnects.Load(), l)

	// Down for good: the window (1 s here) ends the run.
	s.outages = workload.NewOutages(time.Second)
	pgctl("stop")
	t0 := time.Now()
	out := s.Run(ctx, 0, func(ctx context.Context, c driver.Conn) (int, error) {
		_, err := c.Exec(ctx, "SELECT 1")
		return 0, err
	})
	c, _ := cause.Load().(error)
	if out.Err == nil || c == nil || !strings.Contains(c.Error(), "lost the database: no connection") || time.Since(t0) > 5*time.Second {
		t.Errorf("a server down past the window: %+v, cause %v after %s; want the run aborted after about 1 s", out, c, time.Since(t0))
	}
}
