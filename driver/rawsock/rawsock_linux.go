//go:build linux

package rawsock

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// Conn is a net.Conn whose Read and Write are raw system calls on its descriptor. As on any
// net.Conn, its methods may be called from several goroutines at once: reads queue behind one
// another, and so do writes (a read and a write run side by side, as pgconn's background read
// beside its write does).
type Conn struct {
	net.Conn // the dialled connection: addresses, deadlines, Close
	rc       syscall.RawConn

	// r and w are the current read's and write's buffer and outcome, each under its own lock, set
	// before rc.Read or rc.Write calls its function (rf, wf: made once, no closure per call).
	rmu, wmu sync.Mutex
	r, w     rawCall
	rf, wf   func(fd uintptr) bool
	// qf is Request's function (made once); queued says its write is made and it waits for the
	// answer, stalled that the write met a full socket buffer.
	qf              func(fd uintptr) bool
	queued, stalled bool
}

type rawCall struct {
	p     []byte
	n     int
	errno syscall.Errno
}

// Wrap returns c with raw reads and writes, or c itself if it has no descriptor to make them on
// or its descriptor is in blocking mode (a raw read of it would hold its thread and its P, and
// stall the whole process's garbage collection, for as long as it waited).
func Wrap(c net.Conn) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	nonblocking := false
	if err := rc.Control(func(fd uintptr) {
		fl, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		nonblocking = e == 0 && fl&syscall.O_NONBLOCK != 0
	}); err != nil || !nonblocking {
		return c
	}
	w := &Conn{Conn: c, rc: rc}
	w.rf, w.wf, w.qf = w.read, w.write, w.request
	return w
}

// read is rc.Read's function: one read(2) into c.r.p; false (wait for the socket) on EAGAIN.
func (c *Conn) read(fd uintptr) bool {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(c.r.p))), uintptr(len(c.r.p)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		case 0:
			c.r.n = int(r)
		default:
			c.r.errno = e
		}
		return true
	}
}

// write is rc.Write's function: write(2) of c.w.p until it is all written; false (wait for the
// socket) on EAGAIN with some left.
func (c *Conn) write(fd uintptr) bool {
	for len(c.w.p) > 0 {
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(c.w.p))), uintptr(len(c.w.p)))
		switch e {
		case 0:
			if r == 0 { // never on a stream socket; net.Conn's Write says the same
				c.w.errno = syscall.EIO
				return true
			}
			c.w.n += int(r)
			c.w.p = c.w.p[r:]
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			c.w.errno = e
			return true
		}
	}
	return true
}

// request is Request's function, which RawConn's Read calls: first the write of c.w.p (false: wait
// for the answer; true if the socket's buffer is full, which Request's Write then waits for), then,
// once the socket is readable, true without reading.
func (c *Conn) request(fd uintptr) bool {
	if c.queued {
		return true
	}
	if !c.write(fd) {
		c.stalled = true
		return true
	}
	c.queued = true
	if afterRequestWrite != nil {
		afterRequestWrite()
	}
	return c.w.errno != 0
}

// afterRequestWrite, when a test sets it, runs between a request's write and its wait: the answer
// can arrive there.
var afterRequestWrite func()

// Request writes p whole, as Write does, and then waits until the connection has something to read:
// p is a request whose answer the caller reads next. It spares the read that would find the socket
// empty (EAGAIN) before the wait, one system call per round trip: the wait is armed before the
// write (RawConn's Read clears the socket's readiness on entry, then calls request, which writes),
// so the answer's arrival, however soon, wakes it, which a write followed by a wait could miss.
// After a write that met a full socket buffer (a request of megabytes), the rest is written as Write
// does and the answer is read the usual way. The wait ends with the connection's read deadline, or
// its closing.
func (c *Conn) Request(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.w = rawCall{p: p}
	c.queued, c.stalled = false, false
	err := c.rc.Read(c.qf)
	if c.stalled && err == nil && c.w.errno == 0 {
		return c.w.result(c, "write", c.rc.Write(c.wf))
	}
	if err != nil { // the poller's error, before the write (closed, deadline) or in the wait
		n := c.w.n
		c.w.p = nil
		if c.queued {
			return n, c.opError("read", err)
		}
		return n, c.opError("write", err)
	}
	return c.w.result(c, "write", nil)
}

// Read reads into p. A read of nothing returns at once, without checking the connection.
func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	c.r = rawCall{p: p}
	return c.r.result(c, "read", c.rc.Read(c.rf))
}

// Write writes p whole, or returns the bytes written with the error that stopped it. A write of
// nothing returns at once, without checking the connection.
func (c *Conn) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.w = rawCall{p: p}
	return c.w.result(c, "write", c.rc.Write(c.wf))
}

// result is what Read or Write (op) returns once RawConn's call returned err: the bytes moved, and
// the poller's error, the system call's, or io.EOF for a read of nothing (the peer closed).
func (rc *rawCall) result(c *Conn, op string, err error) (int, error) {
	n, errno := rc.n, rc.errno
	rc.p = nil
	switch {
	case err != nil:
		return n, c.opError(op, err)
	case errno != 0:
		return n, c.opError(op, os.NewSyscallError(op, errno))
	case n == 0 && op == "read":
		return 0, io.EOF
	}
	return n, nil
}

// opError is err as net.Conn's Read and Write report it: a *net.OpError naming the operation and
// the addresses, around the poller's error (os.ErrDeadlineExceeded, net.ErrClosed) or the system
// call's. RawConn's own errors are a *net.OpError already (op "raw-read", "raw-write"): a copy
// with the operation's name.
func (c *Conn) opError(op string, err error) error {
	if oe, ok := err.(*net.OpError); ok {
		e := *oe
		e.Op = op
		return &e
	}
	oe := &net.OpError{Op: op, Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
	if oe.Addr != nil {
		oe.Net = oe.Addr.Network()
	}
	return oe
}
