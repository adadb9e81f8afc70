package driver

import (
	"sync/atomic"
	"time"
)

// Cancels counts the statements an engine stopped on the server (PostgreSQL's CancelRequest, MySQL's
// KILL QUERY) after their context ended, for ServerCanceller. A cancel is sent after the statement's
// caller was let go (so that it fails at once), from another goroutine: Count waits for those in
// flight, so that a run that reads the count as it ends counts them all, and the process does not
// exit before the server has been told.
type Cancels struct {
	done, inflight atomic.Int64
}

// Begin marks a cancel in flight; End(ok) marks it over, counted when the server took it.
func (c *Cancels) Begin() { c.inflight.Add(1) }

func (c *Cancels) End(ok bool) {
	if ok {
		c.done.Add(1)
	}
	c.inflight.Add(-1)
}

// Count is how many cancels the server took, once those in flight are over (waiting at most
// wait: each is bounded by its own timeout).
func (c *Cancels) Count(wait time.Duration) int64 {
	deadline := time.Now().Add(wait)
	for c.inflight.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	return c.done.Load()
}
