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
