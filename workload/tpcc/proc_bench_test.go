package tpcc

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
)

// BenchmarkPostgresModes runs the mix and each transaction type in the interactive and the procedure
// mode on one loaded warehouse, and reports, besides the driver's CPU, the CPU the server's backends
// used per transaction (read from /proc when the server runs on this machine):
//
//	CANDOR_TEST_PG_URL=postgres://... go test -run '^$' -bench PostgresModes -benchtime 2000x ./workload/tpcc/
func BenchmarkPostgresModes(b *testing.B) {
	db := pgTestDB(b)
	info := txLoad(b, db)
	if _, err := CreateProcedures(context.Background(), db); err != nil {
		b.Fatal(err)
	}
	c := RunConstants(txTestSeed, info.C)
	proc := func(db driver.DB) *Client {
		cl, err := NewProcClient(db)
		if err != nil {
			b.Fatal(err)
		}
		return cl
	}
	for _, m := range []struct {
		name string
		mk   func(driver.DB) *Client
	}{{"interactive", NewClient}, {"procedures", proc}} {
		b.Run(m.name+"/mix", func(b *testing.B) { txBenchWith(b, db, c, 1, -1, m.mk) })
		b.Run(m.name+"/mix-4-workers", func(b *testing.B) { txBenchWith(b, db, c, 4, -1, m.mk) })
		for op := 0; op < NumTxTypes; op++ {
			b.Run(m.name+"/"+TxNames[op], func(b *testing.B) { txBenchWith(b, db, c, 1, op, m.mk) })
		}
	}
}

// serverCPU sums the CPU time of the server processes behind some connections, from
// /proc/PID/stat, when the server is a local PostgreSQL whose processes this user can read.
type serverCPU struct {
	pids []int
	tick float64 // clock ticks per second
}

func newServerCPU(ctx context.Context, db driver.DB, c driver.Conn) *serverCPU {
	s := &serverCPU{tick: 100} // USER_HZ on Linux
	if db.Dialect().Name == "postgres" {
		s.add(ctx, c)
	}
	return s
}

func (s *serverCPU) add(ctx context.Context, c driver.Conn) {
	if s == nil {
		return
	}
	var pid int32
	if err := c.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		return
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(int(pid)) + "/stat"); err != nil {
		return
	}
	s.pids = append(s.pids, int(pid))
}

func (s *serverCPU) ok() bool { return len(s.pids) > 0 }

// total is the user + system CPU of the processes so far.
func (s *serverCPU) total() time.Duration {
	var ticks int64
	for _, pid := range s.pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		// fields after the command name (which is in parentheses): utime and stime are 14 and 15
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 12 {
			u, _ := strconv.ParseInt(f[11], 10, 64)
			st, _ := strconv.ParseInt(f[12], 10, 64)
			ticks += u + st
		}
	}
	return time.Duration(float64(ticks) / s.tick * float64(time.Second))
}
