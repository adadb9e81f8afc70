// Package blockconn is the engines' held sockets (held.go): a socket of the process's own, outside
// Go's netpoller, read and written with raw blocking system calls that keep the goroutine's thread
// and P, woken by the kernel as a C client is. They are opt-in: an engine's socket variable
// (CANDOR_PG_SOCKET, CANDOR_MYSQL_SOCKET) set to "held" asks for them (Kind), and only a run's own
// connections take them (ForRun, Tally), never the rest of the process's; see
// docs/performance/sysbench.md for what they cost and gain.
package blockconn

import (
	"context"
	"errors"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Conn is a held connection: its reads and writes are raw blocking system calls on its own file
// descriptor. A deadline cannot interrupt a blocked read(2), so one that has passed shuts the
// socket down (shutdown(2) wakes the blocked read at once): the connection is lost then, as pgconn
// and go-sql-driver treat an interrupted statement's connection anyway (they close it). Close
// shuts down first too, so closing from another goroutine ends a blocked read.
type Conn struct {
	f      *os.File // owns the descriptor (blocking mode since own)
	fd     int
	local  net.Addr
	remote net.Addr

	expired atomic.Bool // a deadline passed: the socket is shut down
	closed  atomic.Bool // the descriptor is closed (its number may be another file's now)

	mu       sync.Mutex
	timer    *time.Timer
	shutdown bool

	// reads and writes are raw system calls through rc, the descriptor's own RawConn; hr and hw
	// are the current read's and write's (one of each at a time, as the engines use a
	// connection), hrf and hwf their functions, made once
	rc       syscall.RawConn
	hr, hw   heldCall
	hrf, hwf func(fd uintptr) bool
}

// errDeadline is what a read or write reports after a deadline shut the socket down; it is a
// timeout (net.Error) and os.ErrDeadlineExceeded, as the netpoller's would be.
var errDeadline = os.ErrDeadlineExceeded

// live counts the open Conns.
var live atomic.Int64

// Live is the number of open Conns.
func Live() int64 { return live.Load() }

// DialFunc is pgconn's DialFunc and go-sql-driver's DialContextFunc.
type DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// DialHeld wraps dial (the engine's, with its timeout and keep-alive): the socket it returns is
// handed to a held Conn while fewer than MaxHeld are open; beyond, it stays on the netpoller.
func DialHeld(dial DialFunc) DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		sc, ok := nc.(syscall.Conn)
		if !ok || !admitHeld() {
			return nc, nil
		}
		live.Add(1)
		f, err := own(sc, nc)
		local, remote := nc.LocalAddr(), nc.RemoteAddr()
		nc.Close()
		if err != nil {
			release()
			return nil, err
		}
		c := &Conn{f: f, fd: int(f.Fd()), local: local, remote: remote}
		if err := c.hold(); err != nil {
			f.Close()
			release()
			return nil, err
		}
		return c, nil
	}
}

// release undoes DialHeld's count of a Conn, when it could not be made or is closed.
func release() {
	live.Add(-1)
	releaseHeld()
}

// own returns a descriptor of nc's socket that is the process's own, outside Go's netpoller: a
// duplicate made with the system call itself, then set to blocking mode, then made an os.File,
// which leaves a blocking descriptor out of the poller. net.TCPConn's File would not do: its
// duplicate is made while the socket is non-blocking, so the os.File registers it with the
// runtime's epoll set, where every answer then wakes a thread of the runtime's that waits there
// (one wasted context switch per answer whenever a P is idle), though nothing ever waits for it.
func own(sc syscall.Conn, nc net.Conn) (*os.File, error) {
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd, errno := -1, syscall.Errno(0)
	if err := rc.Control(func(s uintptr) {
		r, _, e := syscall.Syscall(syscall.SYS_FCNTL, s, syscall.F_DUPFD_CLOEXEC, 0)
		fd, errno = int(r), e
	}); err != nil {
		return nil, err
	}
	if errno != 0 {
		return nil, os.NewSyscallError("fcntl", errno)
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	return os.NewFile(uintptr(fd), "blockconn "+nc.RemoteAddr().String()), nil
}

func (c *Conn) Read(p []byte) (int, error)  { return c.heldRead(p) }
func (c *Conn) Write(p []byte) (int, error) { return c.heldWrite(p) }

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
	err := c.f.Close()
	release()
	return err
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
