package blockconn

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/candor-bench/candor/userr"
)

// Held sockets: a blocking descriptor of the process's own whose reads and writes are raw system
// calls (syscall.RawSyscall) that the Go runtime does not see. The goroutine keeps its thread and
// its P while the kernel holds it in the read, and the answer wakes that thread directly, as a C
// client's blocking read is woken: on a host whose CPUs the server shares, the client's thread and
// the server's process then hand the CPU to each other, as sysbench's threads and their server
// threads do, instead of the answer waking whichever runtime thread waits in epoll (Go's
// netpoller). What it costs: a P per held connection (DialHeld raises GOMAXPROCS so that every
// held connection has one and SpareProcs are left for the rest of the process, and the last one
// closed puts it back), and waits bounded by WaitSlice so that the garbage collector's stops and
// the scheduler's preemption are never held up for longer: a read still waiting after WaitSlice
// returns to Go (runtime.Gosched) and blocks again.

// MaxHeld bounds the held connections of the process (each holds a P while it waits); connections
// beyond it stay on the netpoller.
const MaxHeld = 64

// SpareProcs are the Ps DialHeld keeps beyond one per held connection, for the process's other
// goroutines (the scheduler's timers and dispatcher, the ticker, the resource sampler, the garbage
// collector's workers).
const SpareProcs = 2

// HeldPerCPU is the most connections per CPU for which a run takes the held sockets it asked for
// (ForRun): with more, the threads they hold cost more than the netpoller's wake-ups save. On 2
// CPUs shared with the server (docs/performance/sysbench.md, "Held sockets for kv and ycsb"), kv95
// gained 24-37% at 4 connections and 6-8% at 8, and lost 2-7% at 16 and 3-12% at 64.
const HeldPerCPU = 4

// WaitSlice is the longest a held read or write waits in the kernel before it returns to Go once
// (SO_RCVTIMEO, SO_SNDTIMEO).
const WaitSlice = time.Millisecond

var (
	heldLive  int        // open held connections (procsMu)
	baseProcs int        // GOMAXPROCS before the first raise, 0 when nothing was raised (procsMu)
	procsMu   sync.Mutex // heldLive and the GOMAXPROCS raise
)

// heldCall is a held read's or write's buffer and outcome.
type heldCall struct {
	p     []byte
	n     int
	errno syscall.Errno
}

// admitHeld counts a new held connection and raises GOMAXPROCS for it, or says MaxHeld are open;
// releaseHeld undoes it, and the last one closed puts GOMAXPROCS back.
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
	defer procsMu.Unlock()
	if heldLive--; heldLive == 0 && baseProcs != 0 {
		restoreProcs()
	}
}

// reserveProcs raises GOMAXPROCS to n, unless the user set GOMAXPROCS (then theirs stands) or it
// is n or more already; the first raise remembers what it was. procsMu held.
func reserveProcs(n int) {
	if os.Getenv("GOMAXPROCS") != "" {
		return
	}
	if p := runtime.GOMAXPROCS(0); p < n {
		if baseProcs == 0 {
			baseProcs = p
		}
		runtime.GOMAXPROCS(n)
	}
}

// restoreProcs puts GOMAXPROCS back as it was before the first raise: the runtime's default again
// (which follows the container's CPU quota as it changes), or the value the process had set.
// procsMu held.
func restoreProcs() {
	runtime.SetDefaultGOMAXPROCS()
	if runtime.GOMAXPROCS(0) != baseProcs {
		runtime.GOMAXPROCS(baseProcs)
	}
	baseProcs = 0
}

// hold makes c held: its waits bounded by WaitSlice, its reads and writes raw system calls through
// its descriptor's RawConn.
func (c *Conn) hold() (err error) {
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

// Kinds are the socket kinds an engine's socket variable names (Kind): Netpoll (Go's netpoller,
// raw system calls on it: driver/rawsock; the default) and Held (DialHeld, for a run's own
// connections: ForRun).
const (
	Netpoll = "netpoll"
	Held    = "held"
)

// Kind is the socket kind the environment variable env names: Netpoll when it is unset, empty or
// "netpoll", Held for "held"; anything else is the user's error (the blocking kind, which cost more
// CPU than the netpoller, was removed).
func Kind(env string) (string, error) {
	switch k := os.Getenv(env); k {
	case "", Netpoll:
		return Netpoll, nil
	case Held:
		return Held, nil
	case "blocking":
		return "", userr.Errorf("%s=blocking: blocking sockets were removed (they cost more CPU per transaction than Go's netpoller): unset %s, or set it to held for held sockets", env, env)
	default:
		return "", userr.Errorf("%s=%q names no socket kind: unset it for Go's netpoller, or set it to held for held sockets", env, k)
	}
}

// runKey is the context key of a run's mark (ForRun).
type runKey struct{}

// runMark is what ForRun knows of the run: its connections and the CPUs it may use.
type runMark struct{ conns, procs int }

// ForRun marks ctx as a run's own, of conns connections: an engine whose socket variable asks for
// held sockets dials the connections opened in it held (Tally.Dial), when the run has at most
// HeldPerCPU per CPU that the process may use (GOMAXPROCS as the run starts: the container's
// quota, Go's default, unless the user set it; held connections of an earlier run have put it
// back as they closed). Connections opened outside it (the lock's, the resource sampler's, a load's
// or check's) stay on the netpoller.
func ForRun(ctx context.Context, conns int) context.Context {
	procsMu.Lock()
	procs := runtime.GOMAXPROCS(0)
	if baseProcs != 0 {
		procs = baseProcs
	}
	procsMu.Unlock()
	return context.WithValue(ctx, runKey{}, runMark{conns: conns, procs: procs})
}

// Tally is one engine database's choice of sockets (its socket variable's Kind) and what its
// connections got, for its client path (Describe).
type Tally struct {
	env, kind    string
	held, polled atomic.Int64 // a run's connections held; those past MaxHeld
	procs        atomic.Int64 // the highest GOMAXPROCS while they were open
	declined     atomic.Value // string: why a run's connections stayed on the netpoller
}

// NewTally reads env's kind (Kind).
func NewTally(env string) (*Tally, error) {
	k, err := Kind(env)
	if err != nil {
		return nil, err
	}
	return &Tally{env: env, kind: k}, nil
}

// Kind is the kind the socket variable names.
func (t *Tally) Kind() string { return t.kind }

// Dial wraps dial for a connection opened in ctx: held (DialHeld) when the socket variable asks
// for held sockets and ctx is a run's that fits them (ForRun); dial itself otherwise.
func (t *Tally) Dial(ctx context.Context, dial DialFunc) DialFunc {
	if t == nil || t.kind != Held {
		return dial
	}
	m, ok := ctx.Value(runKey{}).(runMark)
	if !ok {
		return dial
	}
	if m.conns > HeldPerCPU*m.procs {
		t.declined.Store(fmt.Sprintf("the run's %d connections are more than %d per CPU of the %d it may use (GOMAXPROCS)", m.conns, HeldPerCPU, m.procs))
		return dial
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := DialHeld(dial)(ctx, network, addr)
		if err == nil {
			if _, ok := c.(*Conn); ok {
				t.held.Add(1)
				for p := int64(runtime.GOMAXPROCS(0)); ; {
					if old := t.procs.Load(); old >= p || t.procs.CompareAndSwap(old, p) {
						break
					}
				}
			} else {
				t.polled.Add(1)
			}
		}
		return c, err
	}
}

// Describe is the sockets a run's connections got, for the engine's disclosure of its client path,
// or "" when they were Go's netpoller's as by default.
func (t *Tally) Describe() string {
	if t == nil || t.kind != Held {
		return ""
	}
	if t.held.Load() > 0 {
		s := fmt.Sprintf("held sockets for the run's connections (raw blocking reads, a thread and a P each: GOMAXPROCS up to %d while they were open; %s=held)", t.procs.Load(), t.env)
		polled := t.polled.Load()
		if polled > 0 {
			s += fmt.Sprintf(", %d more on Go's netpoller (past the %d held a process may have)", polled, MaxHeld)
		}
		return s
	}
	if why, _ := t.declined.Load().(string); why != "" {
		return fmt.Sprintf("%s=held, but Go's netpoller: %s", t.env, why)
	}
	return t.env + "=held, but no run's connection was held"
}
