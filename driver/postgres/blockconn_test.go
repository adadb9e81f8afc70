package postgres

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestBlockingConnIsUsed: candor's connections read and write with blocking system calls.
func TestBlockingConnIsUsed(t *testing.T) {
	db := openDB(t).(*DB)
	c := connect(t, db).(*Conn)
	if _, ok := c.pc.PgConn().Conn().(*blockingConn); !ok {
		t.Fatalf("the connection is a %T, want a *blockingConn", c.pc.PgConn().Conn())
	}
}

// TestBlockingConnCancelAndTimeout: a blocked read(2) cannot see a context, so a cancelled context
// and a passed deadline must each end a running statement at once (shutdown(2) of the socket) and
// leave the connection lost, not hung; a fresh connection works, and closed connections give back
// their place under maxBlockingConns.
func TestBlockingConnCancelAndTimeout(t *testing.T) {
	db := openDB(t)
	live := liveBlocking.Load()
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"cancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(200*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 200*time.Millisecond)
		}, context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := db.Connect(testCtx(t))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := tc.ctx()
			defer cancel()
			start := time.Now()
			_, err = c.Exec(ctx, "SELECT pg_sleep(20)")
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
	if got := liveBlocking.Load(); got != live {
		t.Fatalf("%d blocking connections open after closing every one, want %d", got, live)
	}
}
