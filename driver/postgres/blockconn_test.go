package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/blockconn"
	"github.com/candor-bench/candor/userr"
)

// TestHeldConnIsUsed: with CANDOR_PG_SOCKET=held a run's own connections (blockconn.ForRun) read
// and write on held sockets, and the client path says so; without it, and for any connection
// opened outside a run, Go's netpoller. CANDOR_PG_SOCKET=blocking (removed) and unknown kinds are
// refused at open.
func TestHeldConnIsUsed(t *testing.T) {
	t.Setenv(SocketEnv, "") // the default, whatever the environment of the test says
	run := blockconn.ForRun(testCtx(t), 1)
	isHeld := func(c driver.Conn) bool {
		_, ok := c.(*Conn).pc.PgConn().Conn().(*blockconn.Conn)
		return ok
	}
	db := openDB(t).(*DB)
	if isHeld(connectIn(t, db, run)) || strings.Contains(db.ClientPath(), "sockets") {
		t.Fatalf("without %s a run's connection is held, or the client path %q says sockets", SocketEnv, db.ClientPath())
	}
	t.Setenv(SocketEnv, blockconn.Held)
	db = openDB(t).(*DB)
	if isHeld(connect(t, db)) {
		t.Fatalf("%s=held: a connection outside a run is held", SocketEnv)
	}
	if !isHeld(connectIn(t, db, run)) {
		t.Fatalf("%s=held: a run's connection is not held", SocketEnv)
	}
	if p := db.ClientPath(); !strings.Contains(p, "held sockets") || !strings.Contains(p, SocketEnv+"=held") {
		t.Fatalf("%s=held: the client path %q does not say so", SocketEnv, p)
	}
	for _, v := range []string{"blocking", "x"} {
		t.Setenv(SocketEnv, v)
		_, err := driver.Open(testCtx(t), pgURL(t))
		if !userr.Is(err) || !strings.Contains(err.Error(), SocketEnv+"=") {
			t.Fatalf("%s=%s: open gave %v, want the user's error naming it", SocketEnv, v, err)
		}
	}
}

// connectIn is a connection of db opened in ctx, closed when the test ends.
func connectIn(t *testing.T, db driver.DB, ctx context.Context) driver.Conn {
	t.Helper()
	c, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestHeldConnCancelAndTimeout: the connection's own context watch (ctxWatch), on both kinds of
// socket: a cancelled context and a passed deadline must each end a running statement at once (on
// a held socket a blocked read(2) cannot see a context: shutdown(2) of the socket) and leave the
// connection lost, not hung; a fresh connection works, and closed connections give back their
// place under blockconn.MaxHeld.
func TestHeldConnCancelAndTimeout(t *testing.T) {
	t.Run("netpoll", func(t *testing.T) { testCancelAndTimeout(t) })
	t.Run(blockconn.Held, func(t *testing.T) {
		t.Setenv(SocketEnv, blockconn.Held)
		testCancelAndTimeout(t)
	})
}

func testCancelAndTimeout(t *testing.T) {
	db := openDB(t)
	live := blockconn.Live()
	runCtx := blockconn.ForRun(testCtx(t), 2) // held with SocketEnv=held
	type statement func(ctx context.Context, c driver.Conn) error
	exec := func(ctx context.Context, c driver.Conn) error {
		_, err := c.Exec(ctx, "SELECT pg_sleep(20)")
		return err
	}
	queryRow := func(ctx context.Context, c driver.Conn) error {
		var s string
		return c.QueryRow(ctx, "SELECT pg_sleep($1)::text", 20).Scan(&s)
	}
	query := func(ctx context.Context, c driver.Conn) error {
		rows, err := c.Query(ctx, "SELECT 1 UNION ALL SELECT pg_sleep($1)::text::int", 20)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
		}
		return rows.Err()
	}
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
		run  statement
	}{
		{"cancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(200*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled, exec},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 200*time.Millisecond)
		}, context.DeadlineExceeded, exec},
		{"query row", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 200*time.Millisecond)
		}, context.DeadlineExceeded, queryRow},
		{"query", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 200*time.Millisecond)
		}, context.DeadlineExceeded, query},
	} {
		run := tc.run
		t.Run(tc.name, func(t *testing.T) {
			c, err := db.Connect(runCtx)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := tc.ctx()
			defer cancel()
			start := time.Now()
			err = run(ctx, c)
			if took := time.Since(start); took > 5*time.Second {
				t.Fatalf("the statement ended after %v, want about 200ms", took)
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			c.Close()
			c2, err := db.Connect(runCtx)
			if err != nil {
				t.Fatal(err)
			}
			var one int
			if err := c2.QueryRow(testCtx(t), "SELECT $1::int", 1).Scan(&one); err != nil || one != 1 {
				t.Fatalf("a fresh connection: %d, %v", one, err)
			}
			c2.Close()
		})
	}
	// pgconn closes an interrupted connection in the background (after its cancel request)
	for wait := time.Now(); blockconn.Live() != live; time.Sleep(10 * time.Millisecond) {
		if time.Since(wait) > 20*time.Second {
			t.Fatalf("%d held connections open 20 s after closing every one, want %d", blockconn.Live(), live)
		}
	}
}

// TestContextEndedWhileIdle: the connection watches the caller's context itself (ctxWatch); a
// context that ends while no statement runs leaves the connection usable under the next context,
// and an ended context is refused before anything is sent.
func TestContextEndedWhileIdle(t *testing.T) {
	t.Run("netpoll", testContextEndedWhileIdle)
	t.Run(blockconn.Held, func(t *testing.T) {
		t.Setenv(SocketEnv, blockconn.Held)
		testContextEndedWhileIdle(t)
	})
}

func testContextEndedWhileIdle(t *testing.T) {
	c := connectIn(t, openDB(t), blockconn.ForRun(testCtx(t), 1))
	ctx1, cancel1 := context.WithCancel(context.Background())
	var v int
	if err := c.QueryRow(ctx1, "SELECT $1::int", 1).Scan(&v); err != nil || v != 1 {
		t.Fatalf("first statement: %d, %v", v, err)
	}
	cancel1()
	time.Sleep(50 * time.Millisecond) // let the AfterFunc run
	if _, err := c.Exec(ctx1, "SELECT $1::int", 2); !errors.Is(err, context.Canceled) {
		t.Fatalf("a statement under an ended context: %v, want context.Canceled", err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	for i := range 3 {
		if err := c.QueryRow(ctx2, "SELECT $1::int", i).Scan(&v); err != nil || v != i {
			t.Fatalf("statement %d under a new context: %d, %v", i, v, err)
		}
	}
	// As a sampler does: a context per statement, cancelled just after it, many times over; the
	// AfterFuncs firing after each statement must never touch the connection.
	for i := range 2000 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := c.QueryRow(ctx, "SELECT $1::int", i).Scan(&v)
		cancel()
		if err != nil || v != i {
			t.Fatalf("statement %d under a context cancelled after each: %d, %v", i, v, err)
		}
	}
}
