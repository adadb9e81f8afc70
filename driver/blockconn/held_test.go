package blockconn

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
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

func TestKindOf(t *testing.T) {
	for v, want := range map[string]string{"": Netpoll, "netpoll": Netpoll, "blocking": Blocking, "held": Held, "Held": Netpoll, "x": Netpoll} {
		t.Setenv("CANDOR_TEST_SOCKET", v)
		if got := KindOf("CANDOR_TEST_SOCKET"); got != want {
			t.Errorf("KindOf with %q = %q, want %q", v, got, want)
		}
	}
	// Prefer's kind when the variable is unset or empty; the variable's when it names one.
	Prefer(Held)
	defer Prefer(Netpoll)
	for v, want := range map[string]string{"": Held, "netpoll": Netpoll, "blocking": Blocking, "x": Netpoll} {
		t.Setenv("CANDOR_TEST_SOCKET", v)
		if got := KindOf("CANDOR_TEST_SOCKET"); got != want {
			t.Errorf("KindOf with %q, Held preferred = %q, want %q", v, got, want)
		}
	}
	if Describe(Netpoll, "E") != "" || !strings.Contains(Describe(Held, "E"), "held sockets") || !strings.Contains(Describe(Blocking, "E"), "E=blocking") {
		t.Errorf("Describe: %q %q %q", Describe(Netpoll, "E"), Describe(Held, "E"), Describe(Blocking, "E"))
	}
}
