package blockconn

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/userr"
)

// polled is the descriptors in the runtime's epoll sets (the netpoller's), from /proc/self/fdinfo.
func polled(t *testing.T) map[int]bool {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	in, sets := map[int]bool{}, 0
	for _, e := range fds {
		if l, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); l != "anon_inode:[eventpoll]" {
			continue
		}
		sets++
		info, err := os.ReadFile(filepath.Join("/proc/self/fdinfo", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(info), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "tfd:" {
				n, _ := strconv.Atoi(f[1])
				in[n] = true
			}
		}
	}
	if sets == 0 {
		t.Fatal("no epoll set in /proc/self/fd: the netpoller should have one once a listener is open")
	}
	return in
}

// A Conn's descriptor is the process's own, never in the netpoller's epoll set, where each answer
// would wake a runtime thread for nothing (as net.TCPConn's File left it). The listener's end,
// which is on the netpoller, is there.
func TestDescriptorOutsideNetpoller(t *testing.T) {
	eachKind(t, func(t *testing.T, pair func(t *testing.T) (*Conn, net.Conn)) {
		c, server := pair(t)
		in := polled(t)
		if in[c.fd] {
			t.Fatalf("the Conn's descriptor %d is in the netpoller's epoll set", c.fd)
		}
		sfd := -1
		rc, _ := server.(*net.TCPConn).SyscallConn()
		rc.Control(func(fd uintptr) { sfd = int(fd) })
		if !in[sfd] {
			t.Fatalf("the server's end (descriptor %d) is not in the epoll set: the check reads the wrong thing", sfd)
		}
	})
}

// Held connections raise GOMAXPROCS to one P each and SpareProcs more, unless GOMAXPROCS is set.
func TestHeldReservesProcs(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(1)
	c1, _ := pairOf(t, DialHeld)
	pairOf(t, DialHeld)
	procsMu.Lock()
	want := heldLive + SpareProcs
	procsMu.Unlock()
	if got := runtime.GOMAXPROCS(0); got < want || got < 2+SpareProcs {
		t.Fatalf("GOMAXPROCS = %d with %d held connections, want at least %d", got, want-SpareProcs, want)
	}
	c1.Close()
	t.Setenv("GOMAXPROCS", "1")
	runtime.GOMAXPROCS(1)
	pairOf(t, DialHeld)
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("GOMAXPROCS = %d after a held dial with GOMAXPROCS=1 set by the user, want 1", got)
	}
}

// A held read waiting for an answer that takes seconds returns to Go every WaitSlice, so a garbage
// collection (which stops every goroutine) is not held up by it.
func TestHeldReadLetsTheCollectorStop(t *testing.T) {
	c, server := pairOf(t, DialHeld)
	got := make(chan error, 1)
	go func() {
		buf := make([]byte, 4)
		_, err := io.ReadFull(c, buf)
		if err == nil && string(buf) != "late" {
			err = io.ErrUnexpectedEOF
		}
		got <- err
	}()
	time.Sleep(50 * time.Millisecond) // the read is blocked in the kernel now
	start := time.Now()
	runtime.GC()
	if d := time.Since(start); d > time.Second {
		t.Fatalf("runtime.GC took %v beside a held read: the read held its P until the answer", d)
	}
	time.Sleep(2 * time.Second)
	server.Write([]byte("late"))
	if err := <-got; err != nil {
		t.Fatalf("the held read: %v", err)
	}
}

// A write larger than the socket's buffers waits (WaitSlice at a time) until the peer reads, and
// arrives whole.
func TestHeldLargeWrite(t *testing.T) {
	c, server := pairOf(t, DialHeld)
	msg := bytes.Repeat([]byte("0123456789abcdef"), 1<<19) // 8 MiB
	got := make(chan []byte, 1)
	go func() {
		time.Sleep(200 * time.Millisecond) // the writer fills the buffers and waits
		b, _ := io.ReadAll(io.LimitReader(server, int64(len(msg))))
		got <- b
	}()
	if n, err := c.Write(msg); err != nil || n != len(msg) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(msg))
	}
	if b := <-got; !bytes.Equal(b, msg) {
		t.Fatalf("the peer read %d bytes, not the %d written", len(b), len(msg))
	}
}

// Past MaxHeld, DialHeld hands back the netpoller's connection, and counts nothing.
func TestMaxHeld(t *testing.T) {
	procsMu.Lock()
	heldLive += MaxHeld
	procsMu.Unlock()
	defer func() {
		procsMu.Lock()
		heldLive -= MaxHeld
		procsMu.Unlock()
	}()
	before := Live()
	if _, ok := dialOnce(t, DialHeld).(*Conn); ok {
		t.Fatal("DialHeld gave a held Conn past MaxHeld")
	}
	if Live() != before {
		t.Fatalf("Live = %d after a dial past MaxHeld, want %d", Live(), before)
	}
}

// Kind: unset, empty and "netpoll" are the netpoller, "held" held sockets; "blocking" (removed)
// and anything else the user's error, naming the variable and what to set.
func TestKind(t *testing.T) {
	for v, want := range map[string]string{"": Netpoll, "netpoll": Netpoll, "held": Held} {
		t.Setenv("CANDOR_TEST_SOCKET", v)
		if got, err := Kind("CANDOR_TEST_SOCKET"); got != want || err != nil {
			t.Errorf("Kind with %q = %q, %v; want %q", v, got, err, want)
		}
	}
	for _, v := range []string{"blocking", "Held", "x"} {
		t.Setenv("CANDOR_TEST_SOCKET", v)
		_, err := Kind("CANDOR_TEST_SOCKET")
		if !userr.Is(err) || !strings.Contains(err.Error(), "CANDOR_TEST_SOCKET") || !strings.Contains(err.Error(), "set it to held") {
			t.Errorf("Kind with %q: %v, want the user's error naming the variable", v, err)
		}
	}
}

// A Tally of held sockets holds only a run's own connections (ForRun), and only while the run fits
// HeldPerCPU per CPU of GOMAXPROCS as it started; its Describe says what ran. GOMAXPROCS, raised
// for the held connections, is back as it was once they are closed, its default again (container
// aware) when it was the default.
func TestTallyScopedAndProcsRestored(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	runtime.SetDefaultGOMAXPROCS()
	before := runtime.GOMAXPROCS(0)
	t.Setenv("CANDOR_TEST_SOCKET", Held)
	tally, err := NewTally("CANDOR_TEST_SOCKET")
	if err != nil {
		t.Fatal(err)
	}
	wrapIn := func(ctx context.Context) func(DialFunc) DialFunc {
		return func(d DialFunc) DialFunc { return tally.Dial(ctx, d) }
	}
	if _, ok := dialOnce(t, wrapIn(context.Background())).(*Conn); ok {
		t.Fatal("a connection outside a run (no ForRun) was held")
	}
	if d := tally.Describe(); strings.Contains(d, "held sockets for") {
		t.Fatalf("Describe = %q before any run's connection", d)
	}
	many := ForRun(context.Background(), HeldPerCPU*before+1)
	if _, ok := dialOnce(t, wrapIn(many)).(*Conn); ok {
		t.Fatalf("a run of %d connections on GOMAXPROCS %d was held", HeldPerCPU*before+1, before)
	}
	if d := tally.Describe(); !strings.Contains(d, "Go's netpoller") || !strings.Contains(d, "per CPU") {
		t.Fatalf("Describe = %q after a run too large for held sockets", d)
	}
	run := ForRun(context.Background(), 3)
	var conns []*Conn
	for range 3 {
		c, _ := pairOf(t, wrapIn(run))
		conns = append(conns, c)
	}
	if got := runtime.GOMAXPROCS(0); got < 3+SpareProcs {
		t.Fatalf("GOMAXPROCS = %d with 3 held connections, want at least %d", got, 3+SpareProcs)
	}
	if d := tally.Describe(); !strings.Contains(d, fmt.Sprintf("GOMAXPROCS up to %d", runtime.GOMAXPROCS(0))) || !strings.Contains(d, "CANDOR_TEST_SOCKET=held") {
		t.Fatalf("Describe = %q after 3 held connections", d)
	}
	for _, c := range conns {
		c.Close()
	}
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Fatalf("GOMAXPROCS = %d once the held connections closed, want %d as before", got, before)
	}
	t.Setenv("CANDOR_TEST_SOCKET", "")
	off, _ := NewTally("CANDOR_TEST_SOCKET")
	if _, ok := dialOnce(t, func(d DialFunc) DialFunc { return off.Dial(run, d) }).(*Conn); ok || off.Describe() != "" {
		t.Fatalf("without held sockets asked for, a run's connection was held or described (%q)", off.Describe())
	}
}
