package postgres

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// slowWrites is a socket whose every write returns 40 ms after it is made: longer than the 15 ms
// after which pgconn starts its background reader beside a write, which then reads the answer and
// waits in a second read before the writer stops it (a busy host's scheduling can hold a writer
// that long).
// Only while slow is set: a stall is transient (pgconn's SyncConn, which stops the background
// reader, writes too).
type slowWrites struct{ net.Conn }

var slow atomic.Bool

func (s slowWrites) Write(p []byte) (int, error) {
	n, err := s.Conn.Write(p)
	if slow.Load() {
		time.Sleep(40 * time.Millisecond)
	}
	return n, err
}

// TestWireAfterSlowPgxWrite: after an exchange through pgx whose write was slow, pgconn's
// background reader is left blocked in a read of the socket; candor's wire must stop it (SyncConn)
// before its own exchange, or that exchange waits behind the read forever (its answer taken by the
// background read). Every exchange candor makes through pgx on a connection (its setup, the pooler
// probe's backend pid) marks the connection for it.
func TestWireAfterSlowPgxWrite(t *testing.T) {
	testDialWrap = func(c net.Conn) net.Conn { return slowWrites{c} }
	t.Cleanup(func() { testDialWrap = nil })
	ctx := testCtx(t)
	db := openDB(t).(*DB)
	for name, viaPgx := range map[string]func(c *Conn) error{
		"connection's setup": nil,
		"backend pid":        func(c *Conn) error { _, err := backendPID(ctx, c); return err },
	} {
		if viaPgx == nil {
			slow.Store(true)
		}
		c := connect(t, db).(*Conn)
		if viaPgx != nil {
			slow.Store(true)
			if err := viaPgx(c); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		slow.Store(false)
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		var n int64
		err := c.QueryRow(qctx, "SELECT $1::int8 + 1", int64(41)).Scan(&n)
		cancel()
		if err != nil || n != 42 {
			t.Errorf("after the %s through pgx, a statement on candor's wire: %d, %v (want 42 within 5 s)", name, n, err)
		}
	}
}
