package blockconn

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// eachKind runs f with pair dialling a held Conn (the one kind left; the helper keeps the tests'
// shape).
func eachKind(t *testing.T, f func(t *testing.T, pair func(t *testing.T) (*Conn, net.Conn))) {
	f(t, func(t *testing.T) (*Conn, net.Conn) { return pairOf(t, DialHeld) })
}

// pairOf is a Conn dialled through wrap to a loopback listener, and the listener's end of it.
func pairOf(t *testing.T, wrap func(DialFunc) DialFunc) (*Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	nc, err := wrap((&net.Dialer{}).DialContext)(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c, ok := nc.(*Conn)
	if !ok {
		t.Fatalf("Dial gave a %T, want a *Conn", nc)
	}
	server := <-accepted
	t.Cleanup(func() { c.Close(); server.Close() })
	return c, server
}

// readWithin reads from c in a goroutine and returns its error, failing if the read has not
// returned within limit.
func readWithin(t *testing.T, c net.Conn, limit time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 16))
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		t.Fatalf("a blocked read did not return within %v", limit)
		return nil
	}
}

func TestReadWrite(t *testing.T) {
	eachKind(t, func(t *testing.T, pair func(t *testing.T) (*Conn, net.Conn)) {
		c, server := pair(t)
		if _, err := c.Write([]byte("ping")); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4)
		if _, err := io.ReadFull(server, buf); err != nil || string(buf) != "ping" {
			t.Fatalf("server read %q, %v", buf, err)
		}
		server.Write([]byte("pong"))
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "pong" {
			t.Fatalf("client read %q, %v", buf, err)
		}
		server.Close()
		if _, err := c.Read(buf); err != io.EOF {
			t.Fatalf("read after the peer closed: %v, want io.EOF", err)
		}
	})
}

// A deadline that passes while a read is blocked ends it at once with a timeout, as the netpoller's
// would; so does one already passed when set.
func TestDeadlineEndsBlockedRead(t *testing.T) {
	eachKind(t, func(t *testing.T, pair func(t *testing.T) (*Conn, net.Conn)) {
		for _, tc := range []struct {
			name string
			set  func(c *Conn)
		}{
			{"future", func(c *Conn) { c.SetDeadline(time.Now().Add(100 * time.Millisecond)) }},
			{"passed", func(c *Conn) {
				time.AfterFunc(100*time.Millisecond, func() { c.SetReadDeadline(time.Now()) })
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				c, _ := pair(t)
				tc.set(c)
				err := readWithin(t, c, 5*time.Second)
				var ne net.Error
				if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
					t.Fatalf("read: %v, want a timeout (os.ErrDeadlineExceeded)", err)
				}
			})
		}
	})
}

// A deadline cleared (the zero time) or moved before it passes does not fire.
func TestDeadlineCleared(t *testing.T) {
	eachKind(t, func(t *testing.T, pair func(t *testing.T) (*Conn, net.Conn)) {
		c, server := pair(t)
		c.SetDeadline(time.Now().Add(50 * time.Millisecond))
		c.SetDeadline(time.Time{})
		time.Sleep(150 * time.Millisecond)
		server.Write([]byte("x"))
		if err := readWithin(t, c, 5*time.Second); err != nil {
			t.Fatalf("read after the deadline was cleared: %v", err)
		}
	})
}

// Close from another goroutine ends a blocked read, and gives back its place under MaxHeld.
func TestCloseEndsBlockedReadAndCounts(t *testing.T) {
	eachKind(t, func(t *testing.T, pair func(t *testing.T) (*Conn, net.Conn)) {
		before := Live()
		c, _ := pair(t)
		if Live() != before+1 {
			t.Fatalf("Live = %d after a dial, want %d", Live(), before+1)
		}
		time.AfterFunc(100*time.Millisecond, func() { c.Close() })
		if err := readWithin(t, c, 5*time.Second); err == nil {
			t.Fatal("a read ended by Close returned no error")
		}
		for wait := time.Now(); Live() != before; time.Sleep(time.Millisecond) { // Close counts after its shutdown wakes the read
			if time.Since(wait) > 5*time.Second {
				t.Fatalf("Live = %d after Close, want %d", Live(), before)
			}
		}
		if err := c.Close(); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("a second Close: %v, want net.ErrClosed", err)
		}
	})
}

// dialOnce dials a loopback listener through wrap and returns the connection, closed when the
// test ends.
func dialOnce(t *testing.T, wrap func(DialFunc) DialFunc) net.Conn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			defer c.Close()
			time.Sleep(100 * time.Millisecond)
		}
	}()
	nc, err := wrap((&net.Dialer{}).DialContext)(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return nc
}
