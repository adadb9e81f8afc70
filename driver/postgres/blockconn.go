package postgres

import (
	"context"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// blockingConn is a TCP connection whose reads and writes are blocking system calls on its own file
// descriptor, as libpq's are, instead of Go's netpoller (write, read → EAGAIN, park, epoll_wait,
// wake). A deadline cannot interrupt a blocked read(2), so one that has passed shuts the socket down
// (shutdown(2) wakes the blocked read at once): the connection is lost then, as pgconn treats any
// interrupted statement's connection anyway (it closes it).
type blockingConn struct {
	f      *os.File // owns the descriptor (blocking mode since Fd)
	fd     int
	local  net.Addr
	remote net.Addr

	expired atomic.Bool // a deadline passed: the socket is shut down
	closed  atomic.Bool // the descriptor is closed (its number may be another file's now)

	mu       sync.Mutex
	timer    *time.Timer
	shutdown bool
}

// errDeadline is what a read or write reports after a deadline shut the socket down; it is a
// timeout (net.Error) and os.ErrDeadlineExceeded, as the netpoller's would be.
var errDeadline = os.ErrDeadlineExceeded

// maxBlockingConns bounds the live blocking connections of the process: each one blocked in a read
// holds an OS thread (Go's limit is 10,000 threads), so connections beyond it use the netpoller, as
// a run of thousands of mostly idle spec-mode terminals may.
const maxBlockingConns = 256

// liveBlocking counts the open blockingConns.
var liveBlocking atomic.Int64

// dialFunc is pgconn's DialFunc.
type dialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// blockingDial wraps dial (pgconn's, with its timeout and keep-alive): the socket it returns is
// handed to a blockingConn, while fewer than maxBlockingConns are open.
func blockingDial(dial dialFunc) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		fc, ok := nc.(interface{ File() (*os.File, error) })
		if !ok {
			return nc, nil
		}
		if liveBlocking.Add(1) > maxBlockingConns {
			liveBlocking.Add(-1)
			return nc, nil
		}
		f, err := fc.File() // a duplicate descriptor, made blocking by Fd below
		local, remote := nc.LocalAddr(), nc.RemoteAddr()
		nc.Close()
		if err != nil {
			liveBlocking.Add(-1)
			return nil, err
		}
		return &blockingConn{f: f, fd: int(f.Fd()), local: local, remote: remote}, nil
	}
}

func (c *blockingConn) Read(p []byte) (int, error) {
	if c.closed.Load() {
		return 0, net.ErrClosed
	}
	for {
		n, err := syscall.Read(c.fd, p)
		if err == syscall.EINTR {
			continue
		}
		if c.expired.Load() {
			return 0, errDeadline
		}
		if err != nil {
			return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.local, Addr: c.remote, Err: os.NewSyscallError("read", err)}
		}
		if n == 0 && len(p) > 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *blockingConn) Write(p []byte) (int, error) {
	if c.closed.Load() {
		return 0, net.ErrClosed
	}
	written := 0
	for written < len(p) {
		n, err := syscall.Write(c.fd, p[written:])
		if err == syscall.EINTR {
			continue
		}
		if c.expired.Load() {
			return written, errDeadline
		}
		if err != nil {
			return written, &net.OpError{Op: "write", Net: "tcp", Source: c.local, Addr: c.remote, Err: os.NewSyscallError("write", err)}
		}
		written += n
	}
	return written, nil
}

func (c *blockingConn) Close() error {
	c.mu.Lock()
	if c.closed.Load() {
		c.mu.Unlock()
		return net.ErrClosed
	}
	c.closed.Store(true)
	if c.timer != nil {
		c.timer.Stop()
	}
	c.shutdownLocked()
	c.mu.Unlock()
	liveBlocking.Add(-1)
	return c.f.Close()
}

// shutdownLocked wakes any blocked read or write (c.mu held); never after Close, whose shutdown
// comes first.
func (c *blockingConn) shutdownLocked() {
	if !c.shutdown {
		c.shutdown = true
		syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	}
}

func (c *blockingConn) LocalAddr() net.Addr  { return c.local }
func (c *blockingConn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline: the zero time clears a pending deadline; a passed one shuts the socket down now; a
// future one, when it passes.
func (c *blockingConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if t.IsZero() || c.expired.Load() || c.closed.Load() {
		return nil
	}
	d := time.Until(t)
	if d <= 0 {
		c.expired.Store(true)
		c.shutdownLocked()
		return nil
	}
	c.timer = time.AfterFunc(d, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.expired.Store(true)
		c.shutdownLocked()
	})
	return nil
}

func (c *blockingConn) SetReadDeadline(t time.Time) error  { return c.SetDeadline(t) }
func (c *blockingConn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }
