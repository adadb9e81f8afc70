package schedule

import (
	"runtime"
	"syscall"
	"time"
)

// Precise waits for the open-loop dispatcher. Go's timers fire up to about 1 ms late when the
// process has nothing else to do (the runtime then sleeps in epoll with millisecond resolution): at
// 1000 arrivals per second that made the median arrival half a millisecond late, measured as timer
// lateness but still in every response time. So the dispatcher runs on its own OS thread and waits
// its last stretch before each arrival in the kernel (clock_nanosleep), with the thread's timer
// slack at 1 µs instead of the default 50 µs: lateness of a few tens of microseconds, for one
// system call per arrival.

// preciseWaits says whether this platform has the precise wait.
const preciseWaits = true

// prSetTimerSlack is prctl's PR_SET_TIMERSLACK.
const prSetTimerSlack = 29

// lockForWaits binds the calling goroutine to its OS thread and lowers the thread's timer slack;
// the returned function undoes the binding (the thread is then discarded with its slack).
func lockForWaits() func() {
	runtime.LockOSThread()
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerSlack, 1000, 0); e != 0 {
		return runtime.UnlockOSThread // the default slack; still far better than the runtime's
	}
	// The thread's slack changed: do not give it back to the runtime's pool.
	return func() {}
}

// nanosleep blocks the thread for d (or until a signal; the caller checks the clock again).
func nanosleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil)
}
