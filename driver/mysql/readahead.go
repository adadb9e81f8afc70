package mysql

import "net"

// readAheadSize is how much one read of the socket may take: sysbench's 100-row ranges (about
// 14 KiB) and TPC-C's largest results come in one system call.
const readAheadSize = 32 << 10

// readAhead is the session's socket with reads that take as much as the socket holds, up to
// readAheadSize, and hand it to go-sql-driver from memory. go-sql-driver reads into its own
// 4 KiB buffer (not configurable), so a result of several packets cost one read per 4 KiB, and on
// Go's netpoller each read that finds the socket empty costs a park and a wake as well.
type readAhead struct {
	net.Conn
	buf  []byte
	r, w int
	err  error // the read's error, returned once the bytes read before it are consumed
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
