package blockconn

import (
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// The held kind: a blocking descriptor of the process's own, as Dial's, whose reads and writes are
// raw system calls (syscall.RawSyscall) that the Go runtime does not see. The goroutine keeps its
// thread and its P while the kernel holds it in the read, and the answer wakes that thread
// directly, as a C client's blocking read is woken: on a host whose CPUs the server shares, the
// client's thread and the server's process then hand the CPU to each other, as sysbench's threads
// and their server threads do, instead of the answer waking whichever runtime thread waits in
// epoll (Go's netpoller) or the runtime handing the P on and taking one back around the system
// call (Dial's blocking kind). What it costs: a P per held connection (DialHeld raises GOMAXPROCS
// so that every held connection has one and SpareProcs are left for the rest of the process), and
// waits bounded by WaitSlice so that the garbage collector's stops and the scheduler's preemption
// are never held up for longer: a read still waiting after WaitSlice returns to Go (runtime.Gosched)
// and blocks again.

// MaxHeld bounds the held connections of the process (each holds a P while it waits); connections
// beyond it stay on the netpoller.
const MaxHeld = 64

// SpareProcs are the Ps DialHeld keeps beyond one per held connection, for the process's other
// goroutines (the scheduler's timers and dispatcher, the ticker, the resource sampler, the garbage
// collector's workers).
const SpareProcs = 2

// HeldPerCPU is the most connections per CPU for which a run prefers held sockets (HeldFits):
// with more, the threads they hold cost more than the netpoller's wake-ups save. On 2 CPUs shared
// with the server (docs/performance/sysbench.md, "Held sockets for kv and ycsb"), kv95 gained
// 24-37% at 4 connections and 6-8% at 8, and lost 2-7% at 16 and 3-12% at 64.
const HeldPerCPU = 4

// HeldFits says whether a run of conns connections is one for held sockets: at most HeldPerCPU
// per CPU of this host.
func HeldFits(conns int) bool { return conns <= HeldPerCPU*runtime.NumCPU() }

// WaitSlice is the longest a held read or write waits in the kernel before it returns to Go once
// (SO_RCVTIMEO, SO_SNDTIMEO).
const WaitSlice = time.Millisecond

var (
	heldLive int        // open held connections (procsMu)
	procsMu  sync.Mutex // heldLive and the GOMAXPROCS raise
)

// heldCall is a held read's or write's buffer and outcome.
type heldCall struct {
	p     []byte
	n     int
	errno syscall.Errno
}

// DialHeld wraps dial (the engine's): the connection it returns is held (see above), while fewer
// than MaxHeld are open; beyond, it stays on the netpoller.
func DialHeld(dial DialFunc) DialFunc { return dialOwn(dial, true) }

// admitHeld counts a new held connection and raises GOMAXPROCS for it, or says MaxHeld are open;
// releaseHeld undoes it.
func admitHeld() bool {
	procsMu.Lock()
	defer procsMu.Unlock()
	if heldLive >= MaxHeld {
		return false
	}
	heldLive++
	reserveProcs(heldLive + SpareProcs)
	return true
}

func releaseHeld() {
	procsMu.Lock()
	heldLive--
	procsMu.Unlock()
}

// reserveProcs raises GOMAXPROCS to n, unless the user set GOMAXPROCS (then theirs stands) or it
// is n or more already. procsMu held.
func reserveProcs(n int) {
	if os.Getenv("GOMAXPROCS") != "" {
		return
	}
	if runtime.GOMAXPROCS(0) < n {
		runtime.GOMAXPROCS(n)
	}
}

// hold makes c held: its waits bounded by WaitSlice, its reads and writes raw system calls through
// its descriptor's RawConn.
func (c *Conn) hold() (err error) {
	c.held = true
	tv := syscall.NsecToTimeval(int64(WaitSlice))
	for _, opt := range []int{syscall.SO_RCVTIMEO, syscall.SO_SNDTIMEO} {
		if err := syscall.SetsockoptTimeval(c.fd, syscall.SOL_SOCKET, opt, &tv); err != nil {
			return os.NewSyscallError("setsockopt", err)
		}
	}
	if c.rc, err = c.f.SyscallConn(); err != nil {
		return err
	}
	c.hrf, c.hwf = c.rawRead, c.rawWrite
	return nil
}

// rawRead is one read(2) into c.hr.p (the RawConn's function: true, so it never waits on a poller;
// the RawConn's reference keeps the descriptor's number ours while it runs, even beside Close).
func (c *Conn) rawRead(fd uintptr) bool {
	r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(c.hr.p))), uintptr(len(c.hr.p)))
	c.hr.n, c.hr.errno = int(r), e
	if e != 0 {
		c.hr.n = 0
	}
	return true
}

// rawWrite is one write(2) of what is left of c.hw.p.
func (c *Conn) rawWrite(fd uintptr) bool {
	r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(c.hw.p))), uintptr(len(c.hw.p)))
	c.hw.errno = e
	if e == 0 {
		if r == 0 { // never on a stream socket
			c.hw.errno = syscall.EIO
			return true
		}
		c.hw.n += int(r)
		c.hw.p = c.hw.p[r:]
	}
	return true
}

// heldRead reads into p, waiting in the kernel WaitSlice at a time.
func (c *Conn) heldRead(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.hr = heldCall{p: p}
	defer func() { c.hr.p = nil }()
	for {
		if err := c.rc.Read(c.hrf); err != nil {
			return 0, c.opError("read", err)
		}
		switch c.hr.errno {
		case 0:
			if c.hr.n == 0 { // the peer closed, or a deadline's or Close's shutdown
				if c.expired.Load() || c.closed.Load() {
					return 0, c.opError("read", os.ErrClosed)
				}
				return 0, io.EOF
			}
			return c.hr.n, nil
		case syscall.EAGAIN, syscall.EINTR: // WaitSlice passed, or a signal (the runtime's preemption)
			if c.expired.Load() || c.closed.Load() {
				return 0, c.opError("read", os.ErrClosed)
			}
			runtime.Gosched()
		default:
			return 0, c.opError("read", os.NewSyscallError("read", c.hr.errno))
		}
	}
}

// heldWrite writes p whole, waiting in the kernel WaitSlice at a time while the socket's buffer is
// full.
func (c *Conn) heldWrite(p []byte) (int, error) {
	c.hw = heldCall{p: p}
	defer func() { c.hw.p = nil }()
	for len(c.hw.p) > 0 {
		if err := c.rc.Write(c.hwf); err != nil {
			return c.hw.n, c.opError("write", err)
		}
		switch c.hw.errno {
		case 0:
		case syscall.EAGAIN, syscall.EINTR:
			if c.expired.Load() || c.closed.Load() {
				return c.hw.n, c.opError("write", os.ErrClosed)
			}
			runtime.Gosched()
		default:
			return c.hw.n, c.opError("write", os.NewSyscallError("write", c.hw.errno))
		}
	}
	return c.hw.n, nil
}

// Kinds are the socket kinds an engine's SocketEnv names: Netpoll (Go's netpoller, raw system
// calls on it: driver/rawsock; the default), Blocking (Dial), Held (DialHeld).
const (
	Netpoll  = "netpoll"
	Blocking = "blocking"
	Held     = "held"
)

// preferred is the kind KindOf gives when the environment names none (Prefer).
var preferred atomic.Value // string

// Prefer sets the kind that connections dialled from now on get when the engine's SocketEnv is
// unset or empty (Netpoll until it is called): a run whose workload gains from held sockets asks
// for them (workload.Info.HeldSockets) and sets Netpoll back when it ends.
func Prefer(kind string) { preferred.Store(kind) }

// KindOf is the socket kind the environment variable env names: Blocking, Held or Netpoll; when it
// is unset or empty, the kind Prefer set; Netpoll for anything else.
func KindOf(env string) string {
	switch k := os.Getenv(env); k {
	case Blocking, Held, Netpoll:
		return k
	case "":
		if k, ok := preferred.Load().(string); ok && k != "" {
			return k
		}
	}
	return Netpoll
}

// DialKind wraps dial for kind: Dial for Blocking, DialHeld for Held, dial itself for Netpoll.
func DialKind(kind string, dial DialFunc) DialFunc {
	switch kind {
	case Blocking:
		return Dial(dial)
	case Held:
		return DialHeld(dial)
	}
	return dial
}

// Describe is kind for an engine's disclosure of its client path (env: its SocketEnv), or "" for
// the default.
func Describe(kind, env string) string {
	switch kind {
	case Blocking:
		return "blocking sockets (" + env + "=blocking)"
	case Held:
		return "held sockets (raw blocking reads, a thread and a P per connection; " + env + " chooses the kind)"
	}
	return ""
}
