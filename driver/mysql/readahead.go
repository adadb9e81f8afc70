package mysql

import (
	"encoding/binary"
	"net"
)

// readAheadSize is how much one read of the socket may take: sysbench's 100-row ranges (about
// 14 KiB) and TPC-C's largest results come in one system call.
const readAheadSize = 32 << 10

// readAhead is the session's socket with reads that take as much as the socket holds, up to
// readAheadSize, and hand it to go-sql-driver from memory. go-sql-driver reads into its own
// 4 KiB buffer (not configurable), so a result of several packets cost one read per 4 KiB, and on
// Go's netpoller each read that finds the socket empty costs a park and a wake as well.
//
// candor's own statements (wire.go) read the same buffer in place through next. readAhead also
// keeps what the server's greeting, the first packet it reads, says the server can do (caps), and
// what the client's handshake response, the first packet written, asks for (client): the session
// runs with what both have (negotiated).
type readAhead struct {
	net.Conn
	buf  []byte
	r, w int
	err  error // the read's error, returned once the bytes read before it are consumed
	// caps is the server's greeting as wire needs it; greeted says the first read was seen.
	caps    serverCaps
	greeted bool
	// client is the client's handshake response (or its SSLRequest); responded says the first
	// write was seen.
	client    clientCaps
	responded bool
}

// serverCaps is what the greeting says: the capability flags, MariaDB's extended ones, and known
// whether the greeting came whole in the first read (else wire is not used on the session).
type serverCaps struct {
	flags, ext uint32
	id         uint32 // the session's connection id (KILL QUERY's argument)
	known      bool
}

// clientCaps is what the client's first packet asks for: Protocol::HandshakeResponse41 (or the
// SSLRequest that starts TLS, its first 32 bytes), known when it was read whole from one write.
type clientCaps struct {
	flags, ext uint32
	known      bool
}

// Write passes p on; the first write, go-sql-driver's handshake response (one packet in one write
// below 16 MiB), is read on its way (handshakeResponse).
func (c *readAhead) Write(p []byte) (int, error) {
	if !c.responded {
		c.responded = true
		c.client = handshakeResponse(p)
	}
	return c.Conn.Write(p)
}

// handshakeResponse reads the capabilities the client asks for from b, its first packet
// (sequence 1): the flags (4 bytes), the largest packet (4), the character set (1), 19 bytes of
// filler and MariaDB's extended capabilities (4) when CLIENT_MYSQL is clear (else 23 bytes of
// filler). A response of the protocol before 4.1 (2 bytes of flags) is known with those flags, so
// that wire sees CLIENT_PROTOCOL_41 missing.
func handshakeResponse(b []byte) clientCaps {
	if len(b) < 4 || b[3] != 1 {
		return clientCaps{}
	}
	n := payloadLen(b)
	p := b[4:]
	if len(p) < n || n < 2 {
		return clientCaps{}
	}
	p = p[:n]
	flags := uint32(binary.LittleEndian.Uint16(p))
	if flags&capProtocol41 == 0 {
		return clientCaps{flags: flags, known: true}
	}
	if len(p) < 32 {
		return clientCaps{}
	}
	c := clientCaps{flags: binary.LittleEndian.Uint32(p), known: true}
	if c.flags&capClientMySQL == 0 {
		c.ext = binary.LittleEndian.Uint32(p[28:])
	}
	return c
}

// negotiated is what the session runs with: the flags both the server's greeting and the client's
// response have, and MariaDB's extended ones when both cleared CLIENT_MYSQL. ok is false when
// either packet was not read.
func (c *readAhead) negotiated() (flags, ext uint32, ok bool) {
	if !c.caps.known || !c.client.known {
		return 0, 0, false
	}
	flags = c.caps.flags & c.client.flags
	if c.caps.flags&capClientMySQL == 0 && c.client.flags&capClientMySQL == 0 {
		ext = c.caps.ext & c.client.ext
	}
	return flags, ext, true
}

func newReadAhead(c net.Conn) *readAhead {
	return &readAhead{Conn: c, buf: make([]byte, readAheadSize)}
}

func (c *readAhead) Read(p []byte) (int, error) {
	if c.r == c.w {
		if err := c.err; err != nil {
			c.err = nil
			return 0, err
		}
		if len(p) >= len(c.buf) {
			return c.Conn.Read(p)
		}
		n, err := c.Conn.Read(c.buf)
		c.r, c.w, c.err = 0, max(n, 0), err
		if !c.greeted && c.w > 0 {
			c.greeted = true
			c.wholeGreeting()
			c.caps = greeting(c.buf[:c.w])
		}
		if c.w == 0 {
			c.err = nil
			return 0, err
		}
	}
	n := copy(p, c.buf[c.r:c.w])
	c.r += n
	if c.r == c.w && c.err != nil {
		err := c.err
		c.err = nil
		return n, err
	}
	return n, nil
}

// wholeGreeting reads on until the buffer holds the server's first packet whole: a server may
// write a packet's header and its body in two system calls (go-mysql-server, so Dolt, does), and
// the first read can then take the header alone. It stops at an error (kept for Read) or when the
// packet would not fit, and greeting then finds it incomplete.
func (c *readAhead) wholeGreeting() {
	for c.err == nil {
		if c.w >= 4 {
			if n := 4 + payloadLen(c.buf); c.w >= n || n > len(c.buf) {
				return
			}
		}
		m, err := c.Conn.Read(c.buf[c.w:])
		c.w += max(m, 0)
		c.err = err
	}
}

// next returns the next n bytes read from the socket, in place: they stay valid until the next call
// of next or Read. It reads as much as the socket holds, and grows the buffer for n beyond it.
func (c *readAhead) next(n int) ([]byte, error) {
	for c.w-c.r < n {
		if err := c.err; err != nil {
			c.err = nil
			return nil, err
		}
		if len(c.buf)-c.r < n { // the bytes left go to the front, into a larger buffer if n needs it
			b := c.buf
			if len(b) < n {
				b = make([]byte, max(n, 2*len(b)))
			}
			c.w = copy(b, c.buf[c.r:c.w])
			c.r, c.buf = 0, b
		}
		m, err := c.Conn.Read(c.buf[c.w:])
		c.w += max(m, 0)
		if err != nil {
			c.err = err
		}
	}
	p := c.buf[c.r : c.r+n : c.r+n]
	c.r += n
	return p, nil
}

// shrink lets a buffer that next grew past bufKeep for a large packet go, back to readAheadSize,
// once everything in it is consumed (wire.flush: the last exchange is read whole).
func (c *readAhead) shrink() {
	if len(c.buf) > bufKeep && c.r == c.w {
		c.buf, c.r, c.w = make([]byte, readAheadSize), 0, 0
	}
}

// payloadLen is the payload length in the header a packet starts with (3 bytes, little-endian);
// b holds at least the 4 header bytes.
func payloadLen(b []byte) int { return int(b[0]) | int(b[1])<<8 | int(b[2])<<16 }

// greeting reads the server's capabilities from b, the first bytes it sent: its greeting
// (Protocol::HandshakeV10), which must be whole.
func greeting(b []byte) serverCaps {
	if len(b) < 4 {
		return serverCaps{}
	}
	n := payloadLen(b)
	p := b[4:]
	if len(p) < n || n == 0 || p[0] != 10 {
		return serverCaps{}
	}
	p = p[:n]
	// protocol version, server version (NUL-terminated), connection id 4, auth data 8, filler 1
	i := 1
	for i < len(p) && p[i] != 0 {
		i++
	}
	if i+1+4 > len(p) {
		return serverCaps{}
	}
	id := binary.LittleEndian.Uint32(p[i+1:])
	i += 1 + 4 + 8 + 1
	if i+2 > len(p) {
		return serverCaps{}
	}
	caps := serverCaps{flags: uint32(binary.LittleEndian.Uint16(p[i:])), id: id, known: true}
	i += 2
	// charset 1, status 2, the flags' upper half 2, auth data length 1, reserved 6, MariaDB's
	// extended capabilities 4 (when the lowest flag, CLIENT_MYSQL, is clear)
	if i+3+2 <= len(p) {
		caps.flags |= uint32(binary.LittleEndian.Uint16(p[i+3:])) << 16
		if caps.flags&capClientMySQL == 0 && i+3+2+7+4 <= len(p) {
			caps.ext = binary.LittleEndian.Uint32(p[i+3+2+7:])
		}
	}
	return caps
}
