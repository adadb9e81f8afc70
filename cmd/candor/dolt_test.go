package main

import (
	"testing"

	"github.com/candor-bench/candor/internal/gmsstandin"
)

// The kv and YCSB flows (load, check --full, throughput and rate runs, report, compare; kv's search
// and YCSB's one-shot) through the dolt dialect, against go-mysql-server, Dolt's SQL engine, started inside
// the test binary (internal/gmsstandin). TPC-C's transactions on the stand-in are tested in
// workload/tpcc (TestTransactionsDoltStandin): its in-memory tables scan on every key lookup, too
// slow for a whole warehouse; for the same reason the rate run and the search start lower here.

func TestKVDoltStandinCLI(t *testing.T) {
	parallel(t)
	f := kvFlow
	f.slow = true
	f.searchOn, f.oneShotOn = "dolt", ""
	f.run(t, gmsstandin.FreshDoltURL(t, "candor_kv_cli"), t.TempDir())
}

func TestYCSBDoltStandinCLI(t *testing.T) {
	parallel(t)
	f := ycsbFlow
	f.slow = true
	f.searchOn, f.oneShotOn = "", "dolt"
	f.run(t, gmsstandin.FreshDoltURL(t, "candor_ycsb_cli"), t.TempDir())
}
