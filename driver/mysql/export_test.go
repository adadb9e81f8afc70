package mysql

import "github.com/candor-bench/candor/driver"

// Negotiated is, for package mysql_test, what the session c negotiated (its capability flags and
// MariaDB's extended ones) when it runs on candor's wire, or why it does not.
func Negotiated(c driver.Conn) (flags, ext uint32, onWire bool, why string) {
	mc := c.(*Conn)
	if mc.w == nil {
		return 0, 0, false, mc.offWire
	}
	return mc.w.flags, mc.w.ext, true, ""
}

// For the tests of package mysql_test.

// WstmtCap is wstmtCap.
const WstmtCap = wstmtCap

// PipeCap is pipeCap.
const PipeCap = pipeCap

// BufKeep is bufKeep.
const BufKeep = bufKeep

// Buffers are the sizes of c's buffers on candor's wire: the commands written, a large packet read,
// the socket's read-ahead; ok is false when c is not on the wire.
func Buffers(c driver.Conn) (out, big, read int, ok bool) {
	mc, isMC := c.(*Conn)
	if !isMC || mc.w == nil {
		return 0, 0, 0, false
	}
	return cap(mc.w.out), cap(mc.w.big), len(mc.w.ra.buf), true
}

// Prepared is the number of statements c keeps prepared, on candor's wire and through go-sql-driver.
func Prepared(c driver.Conn) int { return len(c.(*Conn).wstmts) + len(c.(*Conn).stmts) }
