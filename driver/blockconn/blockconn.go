// Package blockconn is the engines' socket: a TCP (or Unix) connection whose reads and writes are
// blocking system calls on its own descriptor, as libpq's and libmysqlclient's are, instead of Go's
// netpoller (write, read -> EAGAIN, park, epoll_wait, futex wakes). driver/postgres dials through
// Dial only with CANDOR_PG_SOCKET=blocking (less CPU per point select, fewer transactions per second
// on sysbench's oltp_read_only: see README's "Where the driver's CPU goes"); driver/mysql likewise
// only with CANDOR_MYSQL_SOCKET=blocking (less CPU with one connection, more with more connections
// than CPUs).
package blockconn

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Conn is a connection whose reads and writes are blocking system calls on its own file descriptor.
// A deadline cannot interrupt a blocked read(2), so one that has passed shuts the socket down
// (shutdown(2) wakes the blocked read at once): the connection is lost then, as pgconn and
// go-sql-driver treat an interrupted statement's connection anyway (they close it). Close shuts
// down first too, so closing from another goroutine ends a blocked read.
type Conn struct {
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

// MaxLive bounds the live blocking connections of the process: each one blocked in a read
// holds an OS thread (Go's limit is 10,000 threads), so connections beyond it use the netpoller, as
// a run of thousands of mostly idle spec-mode terminals may.
const MaxLive = 256

// live counts the open Conns.
var live atomic.Int64

// Live is the number of open Conns.
func Live() int64 { return live.Load() }

// DialFunc is pgconn's DialFunc and go-sql-driver's DialContextFunc.
type DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// Dial wraps dial (the engine's, with its timeout and keep-alive): the socket it returns is handed
// to a Conn, while fewer than MaxLive are open; beyond, it stays on the netpoller.
func Dial(dial DialFunc) DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		fc, ok := nc.(interface{ File() (*os.File, error) })
		if !ok {
			return nc, nil
		}
		if live.Add(1) > MaxLive {
			live.Add(-1)
			return nc, nil
		}
		f, err := fc.File() // a duplicate descriptor, made blocking by Fd below
		local, remote := nc.LocalAddr(), nc.RemoteAddr()
		nc.Close()
		if err != nil {
			live.Add(-1)
			return nil, err
		}
		return &Conn{f: f, fd: int(f.Fd()), local: local, remote: remote}, nil
	}
}

// Read and Write go through the os.File, whose reference count keeps the descriptor open (its
// number not reused) until a read or write in progress returns, even while Close runs beside it.
func (c *Conn) Read(p []byte) (int, error) {
	n, err := c.f.Read(p)
	if err != nil && err != io.EOF {
		return n, c.opError("read", err)
	}
	if err == io.EOF && c.expired.Load() {
		return n, errDeadline
	}
	return n, err
}

func (c *Conn) Write(p []byte) (int, error) {
	n, err := c.f.Write(p)
	if err != nil {
		return n, c.opError("write", err)
	}
	return n, nil
}

// opError is err as the netpoller's connection would report it: a passed deadline as
// os.ErrDeadlineExceeded (a timeout), a closed connection as net.ErrClosed.
func (c *Conn) opError(op string, err error) error {
	if c.expired.Load() {
		return errDeadline
	}
	if errors.Is(err, os.ErrClosed) {
		err = net.ErrClosed
	} else if pe, ok := err.(*os.PathError); ok {
		err = os.NewSyscallError(op, pe.Err)
	}
	return &net.OpError{Op: op, Net: c.remote.Network(), Source: c.local, Addr: c.remote, Err: err}
}

func (c *Conn) Close() error {
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
	live.Add(-1)
	return c.f.Close()
}

// shutdownLocked wakes any blocked read or write (c.mu held); never after Close, whose shutdown
// comes first.
func (c *Conn) shutdownLocked() {
	if !c.shutdown {
		c.shutdown = true
		syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	}
}

func (c *Conn) LocalAddr() net.Addr  { return c.local }
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline: the zero time clears a pending deadline; a passed one shuts the socket down now; a
// future one, when it passes.
func (c *Conn) SetDeadline(t time.Time) error {
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
	var timer *time.Timer
	timer = time.AfterFunc(d, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.timer != timer { // replaced or cleared while this one fired
			return
		}
		c.expired.Store(true)
		c.shutdownLocked()
	})
	c.timer = timer
	return nil
}

func (c *Conn) SetReadDeadline(t time.Time) error  { return c.SetDeadline(t) }
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }
