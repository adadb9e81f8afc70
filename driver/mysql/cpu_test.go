package mysql_test

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/mysql"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/internal/drivertest"
)

// processCPU is the process's CPU time so far (user and system, getrusage).
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPointSelectCPU measures the client's CPU time (user + system, getrusage of the test
// process) per prepared point select by primary key through candor's Conn, 4 sessions at once
// under a context that can be cancelled (as a run's can), with the sockets on Go's netpoller (what
// candor uses) and on blocking system calls (driver/blockconn, as driver/postgres uses):
//
//	go test ./driver/mysql -run '^$' -bench PointSelectCPU -benchtime 100000x
//
// The figure to read is cpu-µs/op.
func BenchmarkPointSelectCPU(b *testing.B) {
	db := drivertest.Open(b, dbtest.FreshMySQLURL(b, "candor_bench"))
	setup := drivertest.Connect(b, db)
	drivertest.MustExec(b, setup, "CREATE TABLE point (id INT PRIMARY KEY, v BIGINT)")
	for i := 1; i <= 10000; i += 1000 {
		drivertest.MustExec(b, setup, fmt.Sprintf("INSERT INTO point WITH RECURSIVE g(n) AS (SELECT %d UNION ALL SELECT n + 1 FROM g WHERE n < %d) SELECT n, n * 10 FROM g", i, i+999))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const clients = 4
	for _, path := range []struct {
		name     string
		blocking bool
	}{{"netpoll", false}, {"blocking", true}} {
		b.Run(path.name, func(b *testing.B) {
			mysql.UseBlockingSockets(path.blocking)
			defer mysql.UseBlockingSockets(false)
			var conns []driver.Conn
			for range clients {
				conns = append(conns, drivertest.Connect(b, db))
			}
			per := b.N / clients
			errs := make(chan error, clients)
			var wg sync.WaitGroup
			b.ResetTimer()
			cpu0 := processCPU()
			for s, c := range conns {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range per {
						id := (i*clients+s)%10000 + 1
						var v int64
						err := c.QueryRow(ctx, "SELECT v FROM point WHERE id = ?", id).Scan(&v)
						if err == nil && v != int64(id)*10 {
							err = fmt.Errorf("id %d: got %d", id, v)
						}
						if err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			cpu := processCPU() - cpu0
			b.StopTimer()
			close(errs)
			for err := range errs {
				b.Fatal(err)
			}
			n := per * clients
			b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(n), "cpu-µs/op")
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "statements/s")
		})
	}
}
