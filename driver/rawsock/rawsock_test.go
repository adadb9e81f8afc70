//go:build linux

package rawsock

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
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
