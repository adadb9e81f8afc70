package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/blockconn"
)

// TestBlockingConnIsUsed: with CANDOR_PG_SOCKET=blocking candor's connections read and write with
// blocking system calls; without it, on Go's netpoller.
func TestBlockingConnIsUsed(t *testing.T) {
	t.Setenv(SocketEnv, "") // the default, whatever the environment of the test says
	c := connect(t, openDB(t).(*DB)).(*Conn)
	if _, ok := c.pc.PgConn().Conn().(*blockconn.Conn); ok {
		t.Fatalf("without %s the connection is a *blockconn.Conn, want the netpoller's", SocketEnv)
	}
	for _, kind := range []string{blockconn.Blocking, blockconn.Held} {
		t.Setenv(SocketEnv, kind)
		db := openDB(t).(*DB)
		c = connect(t, db).(*Conn)
		if _, ok := c.pc.PgConn().Conn().(*blockconn.Conn); !ok {
			t.Fatalf("%s=%s: the connection is a %T, want a *blockconn.Conn", SocketEnv, kind, c.pc.PgConn().Conn())
		}
		if p := db.ClientPath(); !strings.Contains(p, kind+" sockets") {
			t.Fatalf("%s=%s: the client path %q does not say so", SocketEnv, kind, p)
		}
	}
}

// TestBlockingConnCancelAndTimeout: the connection's own context watch (ctxWatch), on both kinds
// of socket: a cancelled context and a passed deadline must each end a running statement at once
// (on a blocking socket a blocked read(2) cannot see a context: shutdown(2) of the socket) and leave
// the connection lost, not hung; a fresh connection works, and closed connections give back their
// place under blockconn.MaxLive.
func TestBlockingConnCancelAndTimeout(t *testing.T) {
	t.Run("netpoll", func(t *testing.T) { testCancelAndTimeout(t) })
	for _, kind := range []string{blockconn.Blocking, blockconn.Held} {
		t.Run(kind, func(t *testing.T) {
			t.Setenv(SocketEnv, kind)
			testCancelAndTimeout(t)
		})
	}
}

func testCancelAndTimeout(t *testing.T) {
	db := openDB(t)
	live := blockconn.Live()
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
			c, err := db.Connect(testCtx(t))
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
			c2, err := db.Connect(testCtx(t))
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
			t.Fatalf("%d blocking connections open 20 s after closing every one, want %d", blockconn.Live(), live)
		}
	}
}

// TestContextEndedWhileIdle: the connection watches the caller's context itself (ctxWatch); a
// context that ends while no statement runs leaves the connection usable under the next context,
// and an ended context is refused before anything is sent.
func TestContextEndedWhileIdle(t *testing.T) {
	t.Run("netpoll", testContextEndedWhileIdle)
	for _, kind := range []string{blockconn.Blocking, blockconn.Held} {
		t.Run(kind, func(t *testing.T) {
			t.Setenv(SocketEnv, kind)
			testContextEndedWhileIdle(t)
		})
	}
}

func testContextEndedWhileIdle(t *testing.T) {
	c := connect(t, openDB(t))
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
