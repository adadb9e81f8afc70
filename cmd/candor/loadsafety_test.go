package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/internal/memcap"
)

// TestLoadSafetyCLI: the loads that dropped the loaded tables, then loaded until killed (a
// 1,000-record usertable left with 280,000 rows), and TPC-H at SF 100,000 (an ETA of 1,213 hours),
// each run as the fault pass ran them, under a 4 GiB address-space cap: refused with exit status
// 2, its figures and the override named, in little memory, before anything is dropped (the loaded
// tables keep their rows) or created (no SQLite file).
func TestLoadSafetyCLI(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	lite := "sqlite:" + filepath.Join(dir, "loaded.db")
	pg := dbtest.FreshPostgresURL(t, "candor_test")
	for _, args := range [][]string{
		{"ycsb", "load", "--db", lite, "-p", "recordcount=1000"},
		{"kv", "load", "--db", lite, "--insert-count", "1000"},
		{"sysbench", "load", "--db", lite, "--tables", "1", "--table-size", "1000"},
		{"kv", "load", "--db", pg, "--insert-count", "1000"},
	} {
		if code, _ := runCLI(t, args...); code != 0 {
			t.Fatalf("candor %s: exit %d", strings.Join(args, " "), code)
		}
	}
	fresh := filepath.Join(dir, "tpch.db")
	for _, tc := range []struct {
		args         []string
		db, table    string // the loaded table whose 1,000 rows must stay
		want1, want2 string
	}{
		{[]string{"ycsb", "load", "--drop", "--db", lite, "-p", "recordcount=1000000000000000000"}, lite, "usertable",
			"this ycsb load of 1,000,000,000,000,000,000 rows", "years at"},
		{[]string{"kv", "load", "--drop", "--db", lite, "--insert-count", "1000000000000000"}, lite, "kv",
			"this kv load of 1,000,000,000,000,000 rows", "years at"},
		{[]string{"sysbench", "load", "--drop", "--db", lite, "--tables", "1000", "--table-size", "1073741824"}, lite, "sbtest1",
			"this sysbench load of 1,073,741,824,000 rows", "days at"},
		{[]string{"kv", "load", "--drop", "--db", pg, "--insert-count", "1000000000000000"}, pg, "kv",
			"this kv load of 1,000,000,000,000,000 rows", "candor's default for postgres"},
		{[]string{"tpch", "load", "--db", "sqlite:" + fresh, "--sf", "100000"}, "", "",
			"this tpch load of 866,000,000,030 rows", "days at"},
	} {
		// A load that is not refused runs until killed: 2 minutes make it a failure, not a hang.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		c := exec.CommandContext(ctx, childCLI(t), tc.args...)
		r := memcap.Run(t, 4<<30, c)
		if r.Code != 2 || !strings.Contains(r.Output, tc.want1) || !strings.Contains(r.Output, tc.want2) ||
			!strings.Contains(r.Output, "more than the 24 hours a load may take") || !strings.Contains(r.Output, "--allow-large") {
			t.Errorf("candor %s: exit %d, %q; want exit 2 with %q, %q, the bound and the override", strings.Join(tc.args, " "), r.Code, r.Output, tc.want1, tc.want2)
		}
		if r.PeakRSS > 200<<20 {
			t.Errorf("candor %s: peak RSS %d MiB, want under 200 MiB", strings.Join(tc.args, " "), r.PeakRSS>>20)
		}
		if tc.table == "" {
			continue
		}
		_, conn := connectURL(t, tc.db)
		var n int64
		if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM "+tc.table).Scan(&n); err != nil || n != 1000 {
			t.Errorf("after the refused candor %s: %s holds %d rows (%v), want its 1,000", strings.Join(tc.args, " "), tc.table, n, err)
		}
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("the refused tpch load created %s (%v)", fresh, err)
	}
	// A load within the bounds prints its estimate first (run's TestJudgeLoad shows the override).
	code, out := runCLI(t, "kv", "load", "--drop", "--db", lite, "--insert-count", "2000")
	if code != 0 || !strings.Contains(out, "load estimate: 2,000 rows") {
		t.Errorf("kv load --drop of 2,000 rows: exit %d, %q", code, out)
	}
}
