package mysql

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
)

// chunks is a net.Conn whose reads return its chunks one per call, then err.
type chunks struct {
	net.Conn
	parts [][]byte
	err   error
	reads int
}

func (c *chunks) Read(p []byte) (int, error) {
	c.reads++
	if len(c.parts) == 0 {
		return 0, c.err
	}
	n := copy(p, c.parts[0])
	c.parts[0] = c.parts[0][n:]
	if len(c.parts[0]) == 0 {
		c.parts = c.parts[1:]
	}
	if len(c.parts) == 0 && c.err != nil {
		return n, c.err // the data and the error in one call, as a socket may
	}
	return n, nil
}

// TestReadAhead: small reads are served from one read of the socket; the bytes read with an
// error come first, then the error once; a read as large as the buffer goes straight through.
func TestReadAhead(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 2000) // 20,000 bytes in one chunk
	src := &chunks{parts: [][]byte{append([]byte(nil), data...)}, err: io.EOF}
	ra := newReadAhead(src)
	var got []byte
	p := make([]byte, 4096) // go-sql-driver's buffer
	var err error
	for {
		var n int
		n, err = ra.Read(p)
		got = append(got, p[:n]...)
		if err != nil {
			break
		}
	}
	if !errors.Is(err, io.EOF) || !bytes.Equal(got, data) {
		t.Fatalf("read %d bytes (want %d), then %v", len(got), len(data), err)
	}
	if src.reads != 1 {
		t.Fatalf("%d reads of the socket for %d bytes, want 1", src.reads, len(data))
	}
	if n, err := ra.Read(p); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("after the end: %d, %v", n, err)
	}

	big := make([]byte, readAheadSize)
	src = &chunks{parts: [][]byte{[]byte("abc")}}
	ra = newReadAhead(src)
	if n, err := ra.Read(big); n != 3 || err != nil || string(big[:3]) != "abc" {
		t.Fatalf("a large read: %d, %v", n, err)
	}
}

// TestReadAheadGreetingInParts: a greeting whose header and body come in separate reads (as
// go-mysql-server writes them) is still read whole, so the session's capabilities are known;
// go-sql-driver then reads the same bytes as before.
func TestReadAheadGreetingInParts(t *testing.T) {
	g := []byte{10}
	g = append(g, "8.0.33\x00"...)
	g = append(g, 1, 0, 0, 0, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 0, 0xff, 0xf7, 8, 2, 0, 0xff, 0x81, 21)
	g = append(g, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	header := []byte{byte(len(g)), 0, 0, 0}
	for _, parts := range [][][]byte{
		{header, g},
		{header[:2], header[2:], g[:5], g[5:]},
		{append(append([]byte(nil), header...), g...)},
	} {
		var want []byte
		for _, p := range parts {
			want = append(want, p...)
		}
		src := &chunks{parts: parts, err: io.EOF}
		ra := newReadAhead(src)
		got := make([]byte, len(want))
		if _, err := io.ReadFull(ra, got); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d parts: read %q, %v", len(parts), got, err)
		}
		if !ra.caps.known || ra.caps.flags&capDeprecateEOF == 0 {
			t.Errorf("%d parts: capabilities %+v, want known with DEPRECATE_EOF", len(parts), ra.caps)
		}
	}
	// a greeting cut short by the end of the stream: unknown, and the bytes and the error still come
	src := &chunks{parts: [][]byte{header, g[:5]}, err: io.EOF}
	ra := newReadAhead(src)
	b, err := io.ReadAll(ra)
	if err != nil || len(b) != 9 || ra.caps.known {
		t.Fatalf("a short greeting: %d bytes, %v, capabilities %+v", len(b), err, ra.caps)
	}
}
