package tpcc

import (
	"context"
	"strings"
	"testing"

	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

// TestCapacityValidate: a warehouse count that cannot load is refused before anything connects,
// with its rows, bytes and time; the largest accepted count passes.
func TestCapacityValidate(t *testing.T) {
	w := &Workload{Options: Options{Warehouses: 1_000_000_000}}
	p := strings.Join(w.Validate(workload.Validation{Cmd: workload.CmdLoad}), "\n")
	for _, want := range []string{"--warehouses 1,000,000,000 cannot be loaded", "499 trillion rows", "TiB", "years", "load at most"} {
		if !strings.Contains(p, want) {
			t.Errorf("Validate: %q, want %q in it", p, want)
		}
	}
	w.Warehouses = MaxWarehouses()
	if p := w.Validate(workload.Validation{Cmd: workload.CmdLoad}); len(p) != 0 {
		t.Errorf("Validate(--warehouses %d) = %q, want no problem", w.Warehouses, p)
	}
	if capacityProblem(MaxWarehouses()+1) == "" || capacityProblem(1<<62) == "" {
		t.Error("counts above MaxWarehouses are accepted")
	}
}

// TestCapacityRefusedBeforeDrop: the fault pass's `load --warehouses 1000000000 --drop` dropped the
// loaded tables, then ran out of memory. Now Load refuses a count that cannot load, and a count
// whose rows do not fit on the SQLite file's disk, before anything is dropped: the loaded
// warehouse is still there, complete. On it, a run's terminals too (checkTerminalsBounded).
func TestCapacityRefusedBeforeDrop(t *testing.T) {
	ctx := context.Background()
	db := sqliteTestDB(t)
	if _, err := Load(ctx, db, LoadOptions{Warehouses: 1, Loaders: 2, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		W    int
		want string
	}{
		{1_000_000_000, "cannot be loaded"},
		{MaxWarehouses(), "of disk, and the disk of"},
	} {
		_, err := Load(ctx, db, LoadOptions{Warehouses: tc.W, Loaders: 2, Seed: 7, Drop: true})
		if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(--warehouses %d --drop) = %v, want a user error with %q", tc.W, err, tc.want)
		}
		info, err := ReadLoadInfo(ctx, db)
		if err != nil || !info.Completed || info.Warehouses != 1 {
			t.Fatalf("after the refused load of %d warehouses: %+v, %v; want the complete load of 1 warehouse", tc.W, info, err)
		}
	}
	checkTerminalsBounded(t, db)
}

// TestCapacityServerDisk: a server on this host that says where its data directory is (the test
// servers: PostgreSQL to its superuser, MariaDB's @@datadir) has its disk judged too, before
// anything is created.
func TestCapacityServerDisk(t *testing.T) {
	ctx := context.Background()
	for _, e := range testDBs {
		if e.name == "sqlite" {
			continue // TestCapacityRefusedBeforeDrop
		}
		t.Run(e.name, func(t *testing.T) {
			db := e.open(t)
			_, err := Load(ctx, db, LoadOptions{Warehouses: MaxWarehouses(), Loaders: 2, Seed: 7, Drop: true})
			if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), "of disk, and the disk of") {
				t.Fatalf("Load(--warehouses %d) = %v, want a user error naming the disk", MaxWarehouses(), err)
			}
			if _, err := ReadLoadInfo(ctx, db); err == nil || !strings.Contains(err.Error(), "has no candor TPC-C data") {
				t.Errorf("after the refused load: %v, want nothing created", err)
			}
		})
	}
}
