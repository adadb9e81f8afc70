package tpcc

import (
	"context"
	"fmt"
	"math"
	"strings"
	"syscall"
	"testing"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

// checkTerminalsBounded: a million terminals in throughput mode on SQLite opened a connection each,
// and ran out of open files (and of memory) after thousands; now they share the single writer's
// default connections, as spec mode's do, and connections given past the process's open files are
// refused with the figure when the run opens, before any connects.
func TestTerminalsBoundedSQLite(t *testing.T) {
	db := sqliteTestDB(t)
	if _, err := Load(context.Background(), db, LoadOptions{Warehouses: 1, Loaders: 2, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	checkTerminalsBounded(t, db)
}

// checkTerminalsBounded is TestTerminalsBoundedSQLite's check on db, a loaded SQLite database.
func checkTerminalsBounded(t *testing.T, db driver.DB) {
	t.Helper()
	ctx := context.Background()
	w := &Workload{}
	s, err := w.Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Terminals: 1_000_000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	setup := s.Setup()
	s.Close()
	if setup.Terminals != 1_000_000 || setup.Connections < 1 || setup.Connections > MaxDefaultConnections {
		t.Errorf("a million terminals in throughput mode on SQLite: %d terminals, %d connections; want a million sharing at most %d",
			setup.Terminals, setup.Connections, MaxDefaultConnections)
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
	conns := int(min(rl.Cur, math.MaxInt32/2))
	_, err = w.Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Terminals: conns, Connections: conns, Seed: 1})
	if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), fmt.Sprintf("--connections %d", conns)) || !strings.Contains(err.Error(), "ulimit -n") {
		t.Errorf("--connections %d (the open-file limit): %v, want a user error naming it and ulimit -n", conns, err)
	}
}
