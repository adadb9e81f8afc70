//go:build linux

package rawsock

import (
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// Conn is a net.Conn whose Read and Write are raw system calls on its descriptor.
type Conn struct {
	net.Conn // the dialled connection: addresses, deadlines, Close
	rc       syscall.RawConn

	// The current read's and the current write's buffer and outcome, set before rc.Read or
	// rc.Write calls its function (made once: no closure per call). A read and a write may run at
	// once (pgconn reads in the background while it writes), each on its own fields; like every
	// driver's, one read at a time and one write at a time.
	r, w rawCall
	rf   func(fd uintptr) bool
	wf   func(fd uintptr) bool
}

type rawCall struct {
	p     []byte
	n     int
	errno syscall.Errno
}

// Wrap returns c with raw reads and writes, or c itself if it has no descriptor to make them on.
func Wrap(c net.Conn) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	w := &Conn{Conn: c, rc: rc}
	w.rf, w.wf = w.read, w.write
	return w
}

// read is rc.Read's function: one read(2) into c.p; false (wait for the socket) on EAGAIN.
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

// write is rc.Write's function: write(2) of c.p until it is all written; false (wait for the
// socket) on EAGAIN with some left.
func (c *Conn) write(fd uintptr) bool {
	for len(c.w.p) > 0 {
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(c.w.p))), uintptr(len(c.w.p)))
		switch e {
		case 0:
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

func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.r = rawCall{p: p}
	return c.r.result(c, "read", c.rc.Read(c.rf))
}

func (c *Conn) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
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
// the addresses, around the poller's error (os.ErrDeadlineExceeded, net.ErrClosed) or the
// system call's. RawConn's own errors come as an *net.OpError already ("raw-read"): its inner
// error is taken.
func (c *Conn) opError(op string, err error) error {
	if oe, ok := err.(*net.OpError); ok {
		err = oe.Err
	}
	return &net.OpError{Op: op, Net: c.RemoteAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
