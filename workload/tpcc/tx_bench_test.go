package tpcc

import (
	"context"
	"os"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/gen"
	"github.com/candor-bench/candor/internal/dbtest"
)

// BenchmarkPostgres runs the transactions against PostgreSQL (CANDOR_TEST_PG_URL) on one loaded
// warehouse, with no keying or think time, and reports the driver's own CPU per completed
// transaction (user + system time of this process, which includes pgx and the Go runtime, divided
// by the transactions): the brief's budget is 150 µs. The database server's CPU is not included.
// CANDOR_TX_CPUPROFILE=FILE writes a CPU profile of the transactions alone (without the load).
//
//	CANDOR_TEST_PG_URL=postgres://... go test -run '^$' -bench Postgres -benchtime 3s ./workload/tpcc/
func BenchmarkPostgres(b *testing.B) { txBenchEngine(b, pgTestDB(b), "SELECT $1::int8") }

// BenchmarkMySQL is BenchmarkPostgres against MySQL or MariaDB (CANDOR_TEST_MYSQL_URL).
//
//	CANDOR_TEST_MYSQL_URL=mysql://... go test -run '^$' -bench MySQL -benchtime 3s ./workload/tpcc/
func BenchmarkMySQL(b *testing.B) { txBenchEngine(b, mysqlTestDB(b), "SELECT CAST(? AS SIGNED)") }

// BenchmarkMySQLOneByOne is BenchmarkMySQL with pipelines=off: the same statements, each in a round
// trip of its own (driver.SeqPipe). With CANDOR_MYSQL_PREPARED=go-sql-driver in the environment,
// BenchmarkMySQL runs them one by one through go-sql-driver's prepared statements instead.
func BenchmarkMySQLOneByOne(b *testing.B) {
	db, err := driver.Open(context.Background(), dbtest.FreshMySQLURL(b, "candor_test")+"?pipelines=off")
	if err != nil {
		b.Fatalf("opening MySQL with pipelines=off: %v", err)
	}
	b.Cleanup(func() { db.Close() })
	txBenchEngine(b, db, "SELECT CAST(? AS SIGNED)")
}

// BenchmarkMySQLBatches is BenchmarkMySQL with batches=on (sql_mysql_batch.go).
func BenchmarkMySQLBatches(b *testing.B) {
	txBenchEngine(b, mysqlBatchesTestDB(b), "SELECT CAST(? AS SIGNED)")
}

// txBenchEngine loads one warehouse into db and runs the benchmarks of BenchmarkPostgres;
// roundTrip is a trivial statement of one parameter in the engine's dialect.
func txBenchEngine(b *testing.B, db driver.DB, roundTrip string) {
	info := txLoad(b, db)
	c := RunConstants(txTestSeed, info.C)
	// The CPU of one round trip of a trivial statement through the same driver: the floor every
	// statement pays (syscalls, wake-ups), which rises with the load of the machine. It puts the
	// figures below in proportion: the mix averages 1.9 round trips per transaction on PostgreSQL,
	// 2.3 on MySQL and MariaDB with batches, 2.7 with pipelines and about 7 one by one (BEGIN and
	// COMMIT included, see sql_mysql.go); each figure's trips/tx is the connections' own count.
	b.Run("round_trip", func(b *testing.B) {
		conn, err := db.Connect(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		var v int64
		user0, sys0 := cpuTime(b)
		for i := 0; i < b.N; i++ {
			if err := conn.QueryRow(context.Background(), roundTrip, int64(i)).Scan(&v); err != nil {
				b.Fatal(err)
			}
		}
		user1, sys1 := cpuTime(b)
		b.ReportMetric(float64((user1-user0+sys1-sys0).Microseconds())/float64(b.N), "cpu-us/tx")
	})
	b.Run("mix", func(b *testing.B) { txBench(b, db, c, 1, -1) })
	b.Run("mix-4-workers", func(b *testing.B) { txBench(b, db, c, 4, -1) })
	for op := 0; op < NumTxTypes; op++ {
		b.Run(TxNames[op], func(b *testing.B) { txBench(b, db, c, 1, op) })
	}
}

// cpuTime is the user and system CPU time this process has used.
func cpuTime(b *testing.B) (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// txBench runs b.N transactions on workers connections: the deck's mix when only < 0, else only
// that type.
func txBench(b *testing.B, db driver.DB, c Constants, workers, only int) {
	txBenchWith(b, db, c, workers, only, NewClient)
}

// txBenchWith is txBench with the clients newClient makes (interactive or procedure mode).
func txBenchWith(b *testing.B, db driver.DB, c Constants, workers, only int, newClient func(driver.DB) *Client) {
	// cancellable, as in a run (pgx then watches it during every statement)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type worker struct {
		conn driver.Conn
		cl   *Client
		r    *gen.Rand
		deck Deck
		no   NewOrderInput
		pay  PaymentInput
		os   OrderStatusInput
		dl   DeliveryInput
		sl   StockLevelInput
	}
	ws := make([]*worker, workers)
	for k := range ws {
		conn, err := db.Connect(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		ws[k] = &worker{conn: conn, cl: newClient(db), r: gen.New(gen.Derive(txTestSeed, "bench", k, b.N))}
	}
	var next, retries atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	if p := os.Getenv("CANDOR_TX_CPUPROFILE"); p != "" { // a profile of the transactions alone
		f, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	server := newServerCPU(ctx, db, ws[0].conn)
	for _, w := range ws[1:] {
		server.add(ctx, w.conn)
	}
	server0 := server.total()
	// the round trips of the workers' connections so far (driver.RoundTripCounter)
	benchTrips := func() (n int64, counted bool) {
		for _, w := range ws {
			t, ok := driver.RoundTrips(w.conn)
			n, counted = n+t, ok
		}
		return n, counted
	}
	trips0, counted := benchTrips()
	user0, sys0 := cpuTime(b)
	wall0 := time.Now()
	for k, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := 1 + k%DistrictsPerWarehouse
			for next.Add(1) <= int64(b.N) {
				op := only
				if op < 0 {
					op = w.deck.Next(w.r)
				}
				var out Outcome
				switch op {
				case NewOrder:
					GenNewOrder(w.r, c, 1, 1, &w.no)
					out = w.cl.NewOrder(ctx, w.conn, &w.no, driver.IsolationReadCommitted)
				case Payment:
					GenPayment(w.r, c, 1, 1, &w.pay)
					out = w.cl.Payment(ctx, w.conn, &w.pay, driver.IsolationReadCommitted)
				case OrderStatus:
					GenOrderStatus(w.r, c, 1, 1, &w.os)
					out = w.cl.OrderStatus(ctx, w.conn, &w.os, driver.IsolationReadCommitted)
				case Delivery:
					GenDelivery(w.r, c, 1, 1, &w.dl)
					out, _ = w.cl.Delivery(ctx, w.conn, 1, &w.dl, driver.IsolationReadCommitted)
				case StockLevel:
					GenStockLevel(w.r, c, 1, 1, &w.sl)
					out, _ = w.cl.StockLevel(ctx, w.conn, 1, d, &w.sl, driver.IsolationReadCommitted)
				}
				retries.Add(int64(out.Retries))
				if out.Err != nil {
					firstErr.CompareAndSwap(nil, out.Err)
					return
				}
			}
		}()
	}
	wg.Wait()
	user1, sys1 := cpuTime(b)
	user, sys, wall := user1-user0, sys1-sys0, time.Since(wall0)
	b.StopTimer()
	if err, _ := firstErr.Load().(error); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64((user+sys).Microseconds())/float64(b.N), "cpu-us/tx")
	b.ReportMetric(float64(user.Microseconds())/float64(b.N), "user-us/tx")
	b.ReportMetric(float64(b.N)/wall.Seconds(), "tx/s")
	b.ReportMetric(float64(retries.Load())/float64(b.N), "retries/tx")
	if trips1, _ := benchTrips(); counted {
		b.ReportMetric(float64(trips1-trips0)/float64(b.N), "trips/tx")
	}
	if server.ok() {
		b.ReportMetric(float64((server.total()-server0).Microseconds())/float64(b.N), "server-cpu-us/tx")
	}
}
