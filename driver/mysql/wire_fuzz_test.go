package mysql

import (
	"bytes"
	"database/sql"
	sqldriver "database/sql/driver"
	"encoding/binary"
	"encoding/hex"
	"io"
	"net"
	"testing"
	"time"
)

// FuzzGreeting: whatever the server's first bytes are, greeting reads what it can and never panics.
func FuzzGreeting(f *testing.F) {
	// a MariaDB 10.11 greeting's start: protocol 10, version, id, auth data, filler, flags, charset,
	// status, the flags' upper half, auth length, reserved, extended flags
	g := []byte{10}
	g = append(g, "5.5.5-10.11.19-MariaDB\x00"...)
	g = append(g, 1, 0, 0, 0, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 0, 0xfe, 0xf7, 8, 2, 0, 0xff, 0x81, 21)
	g = append(g, 0, 0, 0, 0, 0, 0, 0x1d, 0, 0, 0)
	f.Add(append([]byte{byte(len(g)), 0, 0, 0}, g...))
	f.Add([]byte{5, 0, 0, 0, 10, 'x', 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		c := greeting(b)
		if !c.known && (c.flags != 0 || c.ext != 0) {
			t.Fatalf("unknown greeting with flags %#x %#x", c.flags, c.ext)
		}
	})
}

// streamConn is a socket whose reads return the bytes given, then io.EOF.
type streamConn struct {
	net.Conn
	r *bytes.Reader
}

func (c *streamConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *streamConn) Write(p []byte) (int, error) { return len(p), nil }
func (c *streamConn) Close() error                { return nil }

// packet is a protocol packet of payload with sequence number seq.
func packet(seq byte, payload ...byte) []byte {
	return append([]byte{byte(len(payload)), byte(len(payload) >> 8), byte(len(payload) >> 16), seq}, payload...)
}

// FuzzWireAnswer: whatever the server answers to an execution, the wire reads it to a result, rows
// or an error (a server's, or the stream lost) and never panics or reads for ever; every row is
// scanned into the common destinations and decoded as values.
func FuzzWireAnswer(f *testing.F) {
	// an OK; a result set of a BIGINT and a VARCHAR with one row; a DATETIME whose length is absurd
	ok := packet(1, 0, 1, 0, 2, 0, 0, 0)
	rs := packet(1, 2)
	rs = append(rs, packet(2, 1)...) // column definitions are not read: wstmt's columns stand
	row := []byte{0, 0}
	row = binary.LittleEndian.AppendUint64(row, 42)
	row = append(row, 3, 'a', 'b', 'c')
	rs = append(rs[:5], packet(2, row...)...)
	rs = append(rs, packet(3, 0xfe, 0, 0, 2, 0, 0, 0)...)
	f.Add(ok, []byte{typeLongLong, typeString}, true, false)
	f.Add(rs, []byte{typeLongLong, typeString}, true, true)
	f.Add(append(packet(1, 1), packet(2, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f)...), []byte{typeDateTime}, true, true)
	f.Add(packet(1, 0xff, 0x28, 0x04, '#', '2', '3', '0', '0', '0', 'd', 'u', 'p'), []byte{typeTiny}, false, true)
	f.Fuzz(func(t *testing.T, answer, types []byte, deprecateEOF, cacheMeta bool) {
		if len(types) > 64 {
			types = types[:64]
		}
		s := &wstmt{cols: make([]wcol, len(types)), names: make([]string, len(types))}
		for i, ty := range types {
			s.cols[i] = wcol{typ: ty, flags: uint16(i%2) * flagUnsignedColumn, decimals: byte(i % 8)}
		}
		w := &wire{ra: newReadAhead(&streamConn{r: bytes.NewReader(answer)}), deprecateEOF: deprecateEOF, cacheMeta: cacheMeta}
		w.answer()
		ncols, _, status, err := w.result(s)
		if err != nil {
			return
		}
		var r wrows
		r.start(w, s, ncols, status)
		vals := make([]sqldriver.Value, len(r.cols))
		var (
			i  int64
			st string
			tm time.Time
			ni sql.NullInt64
			ns sql.NullString
			nt sql.NullTime
		)
		dests := []any{&i, &st, &tm, &ni, &ns, &nt}
		for n := 0; n < 1000 && r.next() == nil; n++ {
			for k := range r.cols {
				d := make([]any, len(r.cols))
				for j := range d {
					d[j] = dests[(j+k)%len(dests)]
				}
				_ = r.scan(d)
			}
			_ = r.decode(vals)
		}
		_ = r.Close()
	})
}

// FuzzReadAheadGreeting: whatever the server's first bytes and however they are split between two
// reads, the read-ahead hands go-sql-driver the same bytes, and knows the capabilities exactly
// when greeting knows them from the whole stream's first packet.
func FuzzReadAheadGreeting(f *testing.F) {
	g := []byte{10}
	g = append(g, "8.0.33\x00"...)
	g = append(g, 1, 0, 0, 0, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 0, 0xff, 0xf7, 8, 2, 0, 0xff, 0x81, 21)
	g = append(g, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	whole := append([]byte{byte(len(g)), 0, 0, 0}, g...)
	f.Add(whole, 4)
	f.Add(whole, 2)
	f.Add(whole, len(whole))
	f.Add([]byte{200, 0, 0, 0, 10}, 3)
	f.Fuzz(func(t *testing.T, b []byte, cut int) {
		if len(b) == 0 || len(b) > readAheadSize {
			return
		}
		cut = min(max(cut, 1), len(b))
		src := &chunks{parts: [][]byte{append([]byte(nil), b[:cut]...), append([]byte(nil), b[cut:]...)}, err: io.EOF}
		ra := newReadAhead(src)
		got, err := io.ReadAll(ra)
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("read %d bytes (want %d), %v", len(got), len(b), err)
		}
		if want := greeting(b); ra.caps != want {
			t.Fatalf("capabilities %+v, want %+v", ra.caps, want)
		}
	})
}

// FuzzHandshakeResponse: whatever the client's first packet is, handshakeResponse reads what it
// can and never panics; flags are known only from a whole packet of sequence 1, and MariaDB's
// extended ones only with CLIENT_MYSQL clear.
func FuzzHandshakeResponse(f *testing.F) {
	for _, s := range []string{mariadbResponse, gmsResponse} {
		b, _ := hex.DecodeString(s)
		f.Add(b)
	}
	f.Add([]byte{7, 0, 0, 1, 0x0f, 0x00, 0, 0, 0, 'u', 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		c := handshakeResponse(b)
		if !c.known && (c.flags != 0 || c.ext != 0) {
			t.Fatalf("unknown with flags %+v", c)
		}
		if c.known && (len(b) < 4 || b[3] != 1 || len(b) < 4+payloadLen(b)) {
			t.Fatalf("known from %x", b)
		}
		if c.ext != 0 && c.flags&capClientMySQL != 0 {
			t.Fatalf("extended flags with CLIENT_MYSQL: %+v", c)
		}
	})
}
