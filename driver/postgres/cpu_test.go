package postgres

import (
	"context"
	"fmt"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/blockconn"
	"github.com/candor-bench/candor/internal/drivertest"
)

// cpuTime is the process's CPU time so far (user and system, getrusage).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pointSelectClients is the number of sessions querying at once, as scripts/bench's section 8 runs
// select-only with 4 clients.
const pointSelectClients = 4

// BenchmarkPointSelectCPU measures the client's CPU time (user + system, getrusage of the test
// process) per prepared point select by primary key, with pointSelectClients sessions at once under a
// context that can be cancelled (as a run's can), on each path:
//
//	candor                   candor's Conn (driver.Conn.QueryRow, the path workloads take)
//	pgx                      a bare *pgx.Conn on Go's netpoller (pgconn's own dialer), no candor
//	pgx-background           the same under context.Background() (pgx watches no context)
//	candor-held              candor's Conn on held sockets (CANDOR_PG_SOCKET=held, a run's connection)
//	pgx-held                 a bare *pgx.Conn on candor's held socket (driver/blockconn)
//	pgx-held-background      the same under context.Background()
//
// Run: go test ./driver/postgres -run '^$' -bench PointSelectCPU -benchtime 100000x (against the
// throwaway server: CANDOR_TEST_PG_URL). The figure to read is cpu-µs/op.
func BenchmarkPointSelectCPU(b *testing.B) {
	raw := os.Getenv("CANDOR_TEST_PG_URL")
	db := drivertest.Open(b, raw).(*DB)
	setup := drivertest.Connect(b, db)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	table := fmt.Sprintf("bench_point_%d", os.Getpid())
	drivertest.MustExec(b, setup, "DROP TABLE IF EXISTS "+table)
	drivertest.MustExec(b, setup, "CREATE TABLE "+table+" (id int PRIMARY KEY, v int8)")
	drivertest.MustExec(b, setup, "INSERT INTO "+table+" SELECT g, g * 10 FROM generate_series(1, 10000) g")
	b.Cleanup(func() { setup.Exec(context.Background(), "DROP TABLE "+table) })
	query := "SELECT v FROM " + table + " WHERE id = $1"

	// A path connects one session and returns its point select.
	type session = func(id int32) (int64, error)
	onCandor := func(c driver.Conn) session {
		return func(id int32) (v int64, err error) {
			err = c.QueryRow(ctx, query, id).Scan(&v)
			return v, err
		}
	}
	// onPgx is a bare *pgx.Conn of config's, its statements under qctx.
	onPgx := func(config func(*testing.B, *DB) *pgx.ConnConfig, qctx context.Context) func(*testing.B) session {
		return func(b *testing.B) session {
			pc, err := pgx.ConnectConfig(ctx, config(b, db))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { pc.Close(context.Background()) })
			return func(id int32) (v int64, err error) {
				err = pc.QueryRow(qctx, query, id).Scan(&v)
				return v, err
			}
		}
	}
	paths := []struct {
		name    string
		connect func(b *testing.B) session
	}{
		{"candor", func(b *testing.B) session { return onCandor(drivertest.Connect(b, db)) }},
		{"candor-held", func(b *testing.B) session {
			b.Setenv(SocketEnv, blockconn.Held)
			c, err := drivertest.Open(b, raw).Connect(blockconn.ForRun(ctx, pointSelectClients))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { c.Close() })
			return onCandor(c)
		}},
		{"pgx", onPgx(netpollConfig, ctx)},
		{"pgx-background", onPgx(netpollConfig, context.Background())},
		{"pgx-held", onPgx(heldConfig, ctx)},
		{"pgx-held-background", onPgx(heldConfig, context.Background())},
	}
	for _, p := range paths {
		b.Run(p.name, func(b *testing.B) {
			var sessions []session
			for range pointSelectClients {
				sessions = append(sessions, p.connect(b))
			}
			per := b.N / pointSelectClients
			var wg sync.WaitGroup
			errs := make(chan error, pointSelectClients)
			b.ResetTimer()
			cpu0 := cpuTime()
			for s, q := range sessions {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range per {
						id := int32((i*pointSelectClients+s)%10000 + 1)
						v, err := q(id)
						if err == nil && v != int64(id)*10 {
							err = fmt.Errorf("id %d: got %d, want %d", id, v, int64(id)*10)
						}
						if err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			cpu := cpuTime() - cpu0
			b.StopTimer()
			close(errs)
			for err := range errs {
				b.Fatal(err)
			}
			n := per * pointSelectClients
			b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(n), "cpu-µs/op")
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "statements/s")
		})
	}
}

// netpollConfig is db's configuration with pgconn's own dialer: connections on Go's netpoller.
func netpollConfig(b *testing.B, db *DB) *pgx.ConnConfig {
	cfg, err := pgx.ParseConfig(os.Getenv("CANDOR_TEST_PG_URL"))
	if err != nil {
		b.Fatal(err)
	}
	cfg.StatementCacheCapacity = db.cfg.StatementCacheCapacity
	return cfg
}

// heldConfig is db's configuration on candor's held sockets (driver/blockconn).
func heldConfig(b *testing.B, db *DB) *pgx.ConnConfig {
	cfg := netpollConfig(b, db)
	cfg.DialFunc = blockconn.DialHeld(cfg.DialFunc)
	return cfg
}
