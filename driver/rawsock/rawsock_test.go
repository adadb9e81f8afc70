//go:build linux

package rawsock

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver/blockconn"
)

// pair is a connected pair over network ("tcp" on loopback, or "unix"): the dialled end wrapped,
// the accepted end as Go made it.
func pair(t *testing.T, network string) (*Conn, net.Conn) {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "unix" {
		addr = filepath.Join(t.TempDir(), "s")
	}
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	acc := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		acc <- c
	}()
	var d net.Dialer
	c, err := Dial(d.DialContext)(t.Context(), network, l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer := <-acc
	if peer == nil {
		t.Fatal("accept failed")
	}
	rc, ok := c.(*Conn)
	if !ok {
		t.Fatalf("Dial returned %T, not a *Conn", c)
	}
	t.Cleanup(func() { rc.Close(); peer.Close() })
	return rc, peer
}

func TestReadWrite(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			c, peer := pair(t, network)
			// 8 MiB one way and back: more than the socket's buffers, so writes meet EAGAIN and wait
			// for the peer, and reads wait for the writer.
			want := make([]byte, 8<<20)
			for i := range want {
				want[i] = byte(i * 7)
			}
			echo := make(chan error, 1)
			go func() {
				got := make([]byte, len(want))
				if _, err := io.ReadFull(peer, got); err != nil {
					echo <- err
					return
				}
				_, err := peer.Write(got)
				echo <- err
			}()
			if n, err := c.Write(want); n != len(want) || err != nil {
				t.Fatalf("Write: %d bytes, %v", n, err)
			}
			got := make([]byte, len(want))
			if _, err := io.ReadFull(c, got); err != nil {
				t.Fatalf("reading the echo: %v", err)
			}
			if err := <-echo; err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatal("the echo differs from what was written")
			}
			if n, err := c.Read(nil); n != 0 || err != nil {
				t.Fatalf("Read of nothing: %d, %v", n, err)
			}
			// the peer closes: EOF
			peer.Close()
			if n, err := c.Read(got); n != 0 || err != io.EOF {
				t.Fatalf("Read after the peer closed: %d, %v (want 0, EOF)", n, err)
			}
		})
	}
}

// A read and a write at once (pgconn reads in the background while it writes) each keep their own
// buffer and outcome.
func TestReadBesideWrite(t *testing.T) {
	c, peer := pair(t, "tcp")
	out := bytes.Repeat([]byte("w"), 4<<20)
	in := bytes.Repeat([]byte("r"), 4<<20)
	peerDone := make(chan error, 2)
	go func() { _, err := io.CopyN(io.Discard, peer, int64(len(out))); peerDone <- err }()
	go func() { _, err := peer.Write(in); peerDone <- err }()
	wrote := make(chan error, 1)
	go func() {
		n, err := c.Write(out)
		if err == nil && n != len(out) {
			err = errors.New("short write")
		}
		wrote <- err
	}()
	got := make([]byte, len(in))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, in) {
		t.Fatal("read the wrong bytes beside a write")
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-peerDone; err != nil {
			t.Fatal(err)
		}
	}
}

func TestDeadlineAndClose(t *testing.T) {
	c, _ := pair(t, "tcp")
	buf := make([]byte, 16)
	c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, err := c.Read(buf)
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("Read past its deadline: %v (want a timeout, os.ErrDeadlineExceeded)", err)
	}
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "read" {
		t.Fatalf("Read past its deadline: %#v (want a *net.OpError of op read)", err)
	}
	c.SetReadDeadline(time.Time{})
	// Close from another goroutine ends a waiting read with net.ErrClosed
	go func() {
		time.Sleep(20 * time.Millisecond)
		c.Close()
	}()
	if _, err := c.Read(buf); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Read ended by Close: %v (want net.ErrClosed)", err)
	}
	if _, err := c.Write(buf); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Write after Close: %v (want net.ErrClosed)", err)
	}
}

// A connection without a descriptor is left as it is.
func TestWrapWithoutDescriptor(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if Wrap(a) != a {
		t.Fatal("Wrap of a net.Pipe end changed it")
	}
}

// The engines dial through Dial(blockconn.DialHeld(...)) with held sockets on: blockconn's own
// connections are left to it (no descriptor to give), and the netpoller's it returns past its
// MaxHeld get raw calls as any other.
func TestBlockconnLeftAlone(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	var d net.Dialer
	c, err := Dial(blockconn.DialHeld(d.DialContext))(context.Background(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := c.(*blockconn.Conn); !ok {
		t.Fatalf("Dial(blockconn.DialHeld(...)) gave a %T, want blockconn's own *blockconn.Conn", c)
	}
	if c, err = Dial(d.DialContext)(context.Background(), "tcp", l.Addr().String()); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := c.(*Conn); !ok {
		t.Fatalf("Dial of the netpoller's dialer gave a %T, want *rawsock.Conn", c)
	}
}

// The system call's errors come back as net.Conn's would: a reset connection on read, a broken
// pipe (or reset) on write, each a *net.OpError around an *os.SyscallError.
func TestErrno(t *testing.T) {
	c, peer := pair(t, "tcp")
	peer.(*net.TCPConn).SetLinger(0) // Close sends RST
	peer.Close()
	buf := make([]byte, 16)
	_, err := c.Read(buf)
	var se *os.SyscallError
	if !errors.Is(err, syscall.ECONNRESET) || !errors.As(err, &se) {
		t.Fatalf("Read after the peer's reset: %v (want ECONNRESET in an *os.SyscallError)", err)
	}
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "read" || oe.Net != "tcp" || oe.Addr == nil {
		t.Fatalf("Read after the peer's reset: %#v (want a *net.OpError of op read, net tcp, with addresses)", err)
	}
	var werr error
	for range 100 {
		if _, werr = c.Write(buf); werr != nil {
			break
		}
	}
	if !errors.Is(werr, syscall.EPIPE) && !errors.Is(werr, syscall.ECONNRESET) {
		t.Fatalf("Write after the peer's reset: %v (want EPIPE or ECONNRESET)", werr)
	}
}

// A write that fills the socket's buffers waits; its deadline, or Close from another goroutine (as
// driver/mysql's context watch does), ends it with the bytes it wrote and the poller's error.
func TestWriteWaitEnds(t *testing.T) {
	big := make([]byte, 64<<20) // more than the socket buffers hold while the peer reads nothing
	t.Run("deadline", func(t *testing.T) {
		c, _ := pair(t, "tcp")
		c.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
		n, err := c.Write(big)
		if n <= 0 || n >= len(big) || !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("Write past its deadline: %d bytes, %v (want some bytes and os.ErrDeadlineExceeded)", n, err)
		}
	})
	t.Run("close", func(t *testing.T) {
		c, _ := pair(t, "tcp")
		go func() {
			time.Sleep(50 * time.Millisecond)
			c.Close()
		}()
		n, err := c.Write(big)
		if n <= 0 || n >= len(big) || !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Write ended by Close: %d bytes, %v (want some bytes and net.ErrClosed)", n, err)
		}
	})
}

// Reads from two goroutines at once queue behind one another: each gets bytes into its own buffer
// only, and together they get every byte once.
func TestConcurrentReads(t *testing.T) {
	c, peer := pair(t, "tcp")
	const total = 4 << 20
	go func() {
		peer.Write(bytes.Repeat([]byte{1}, total))
		peer.Close()
	}()
	counts := make(chan int, 2)
	for i := range 2 {
		go func() {
			// buffers of different lengths: a read given the other's length would overrun
			buf := make([]byte, 1000+i*3000)
			got := 0
			for {
				n, err := c.Read(buf)
				if n > len(buf) {
					t.Errorf("Read returned %d bytes into a buffer of %d", n, len(buf))
				}
				got += n
				if err != nil {
					break
				}
			}
			counts <- got
		}()
	}
	if got := <-counts + <-counts; got != total {
		t.Fatalf("two readers got %d bytes in all, want %d", got, total)
	}
}

// A descriptor in blocking mode is not wrapped: a raw read of it would hold its thread.
func TestBlockingNotWrapped(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fds[0]), "pair")
	defer syscall.Close(fds[1])
	nc, err := net.FileConn(f) // a duplicate, made non-blocking
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, ok := Wrap(nc).(*Conn); !ok {
		t.Fatal("a non-blocking socket was not wrapped")
	}
	rc, err := nc.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	rc.Control(func(fd uintptr) { syscall.SetNonblock(int(fd), false) })
	if Wrap(nc) != nc {
		t.Fatal("a blocking socket was wrapped")
	}
}

// Request writes a request and returns once its answer begins to arrive; the answer is then read
// as usual. Every wait has a deadline, so that a missed wake fails the test instead of hanging it.
func TestRequest(t *testing.T) {
	answer := func(peer net.Conn, reqLen int, ans []byte) chan error {
		done := make(chan error, 1)
		go func() {
			buf := make([]byte, reqLen)
			for {
				if _, err := io.ReadFull(peer, buf); err != nil {
					done <- err
					return
				}
				if _, err := peer.Write(ans); err != nil {
					done <- err
					return
				}
			}
		}()
		return done
	}
	for _, network := range []string{"tcp", "unix"} {
		t.Run("round trips/"+network, func(t *testing.T) {
			c, peer := pair(t, network)
			c.SetReadDeadline(time.Now().Add(time.Minute))
			req, ans := []byte("request!"), []byte("the answer")
			answer(peer, len(req), ans)
			got := make([]byte, len(ans))
			for i := range 20000 {
				if n, err := c.Request(req); n != len(req) || err != nil {
					t.Fatalf("Request %d: %d bytes, %v", i, n, err)
				}
				if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, ans) {
					t.Fatalf("answer %d: %q, %v", i, got, err)
				}
			}
		})
	}
	t.Run("bytes waiting before the request", func(t *testing.T) {
		// the socket's readiness for bytes that came before the request is cleared before the
		// write: the wait ends with the answer's arrival, not on the stale bytes, and not never
		c, peer := pair(t, "tcp")
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := peer.Write([]byte("early")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
		answer(peer, 3, []byte("late"))
		if n, err := c.Request([]byte("req")); n != 3 || err != nil {
			t.Fatalf("Request: %d bytes, %v", n, err)
		}
		got := make([]byte, len("earlylate"))
		if _, err := io.ReadFull(c, got); err != nil || string(got) != "earlylate" {
			t.Fatalf("read %q, %v (want earlylate)", got, err)
		}
	})
	t.Run("the answer before the wait", func(t *testing.T) {
		// the answer arrives between the write and the wait: the wait ends at once
		c, peer := pair(t, "tcp")
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		answer(peer, 3, []byte("ans"))
		afterRequestWrite = func() { time.Sleep(50 * time.Millisecond) }
		defer func() { afterRequestWrite = nil }()
		for i := range 3 {
			if n, err := c.Request([]byte("req")); n != 3 || err != nil {
				t.Fatalf("Request %d: %d bytes, %v", i, n, err)
			}
			got := make([]byte, 3)
			if _, err := io.ReadFull(c, got); err != nil || string(got) != "ans" {
				t.Fatalf("answer %d: %q, %v", i, got, err)
			}
		}
	})
	t.Run("more than the socket holds", func(t *testing.T) {
		// the write meets a full socket buffer: the rest is written after a wait for the socket
		c, peer := pair(t, "tcp")
		c.SetReadDeadline(time.Now().Add(time.Minute))
		req := bytes.Repeat([]byte("q"), 16<<20)
		answer(peer, len(req), []byte("ok"))
		if n, err := c.Request(req); n != len(req) || err != nil {
			t.Fatalf("Request of 16 MiB: %d bytes, %v", n, err)
		}
		got := make([]byte, 2)
		if _, err := io.ReadFull(c, got); err != nil || string(got) != "ok" {
			t.Fatalf("answer %q, %v", got, err)
		}
	})
	t.Run("no answer by the read deadline", func(t *testing.T) {
		c, _ := pair(t, "tcp")
		c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		n, err := c.Request([]byte("req"))
		var oe *net.OpError
		if n != 3 || !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &oe) || oe.Op != "read" {
			t.Fatalf("Request unanswered: %d bytes, %v (want 3 bytes written, a read past its deadline)", n, err)
		}
	})
	t.Run("the peer closes", func(t *testing.T) {
		c, peer := pair(t, "tcp")
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		go func() {
			io.ReadFull(peer, make([]byte, 3))
			peer.Close()
		}()
		if n, err := c.Request([]byte("req")); n != 3 || err != nil {
			t.Fatalf("Request: %d bytes, %v (want 3, nil: the end of the stream is read next)", n, err)
		}
		if n, err := c.Read(make([]byte, 8)); n != 0 || err != io.EOF {
			t.Fatalf("Read after the peer closed: %d, %v (want 0, EOF)", n, err)
		}
	})
	t.Run("closed", func(t *testing.T) {
		c, _ := pair(t, "tcp")
		c.Close()
		var oe *net.OpError
		if n, err := c.Request([]byte("req")); n != 0 || !errors.Is(err, net.ErrClosed) || !errors.As(err, &oe) || oe.Op != "write" {
			t.Fatalf("Request after Close: %d, %v (want 0, net.ErrClosed from a write)", n, err)
		}
		if n, err := c.Request(nil); n != 0 || err != nil {
			t.Fatalf("Request of nothing: %d, %v", n, err)
		}
	})
}
