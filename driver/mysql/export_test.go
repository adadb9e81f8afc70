package mysql

import (
	"net"

	"github.com/candor-bench/candor/driver/blockconn"
)

// UseBlockingSockets makes the connections dialed from now on use blocking system calls
// (driver/blockconn; on = true) or Go's netpoller (the default), for BenchmarkPointSelectCPU's
// comparison.
func UseBlockingSockets(on bool) {
	if on {
		socketDial = blockconn.Dial((&net.Dialer{}).DialContext)
	} else {
		socketDial = (&net.Dialer{}).DialContext
	}
}
