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
