package run

import (
	"fmt"
	"syscall"
	"time"
)

// clockSource says what the kernel knows of this host's clock synchronisation (adjtimex(2), read
// only): synchronised or not by an NTP/PTP daemon, and the kernel's estimate of its maximum error.
// A container may read the host's state; when the call fails it is "unknown".
func clockSource() string {
	var tx syscall.Timex // Modes 0: read only
	state, err := syscall.Adjtimex(&tx)
	if err != nil {
		return "unknown"
	}
	const staUnsync = 0x0040 // STA_UNSYNC
	const timeError = 5      // TIME_ERROR: the clock is not synchronised
	maxErr := time.Duration(tx.Maxerror) * time.Microsecond
	if tx.Status&staUnsync != 0 || state == timeError {
		return fmt.Sprintf("not synchronised (adjtimex: STA_UNSYNC; the kernel's maximum error estimate %s): offsets between shards are unknown", maxErr)
	}
	return fmt.Sprintf("synchronised (adjtimex), maximum error %s, estimated error %s", maxErr, time.Duration(tx.Esterror)*time.Microsecond)
}
