package run

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Interrupts: the first Ctrl-C cancels the command's context: a run starts
// nothing more, waits up to --grace for the work in flight (and TPC-C's deferred Deliveries), then
// saves its partial results. A second Ctrl-C fires the Hurry: the waits end at once, the
// consistency check is skipped, and what was measured is saved as it is. The CLI exits at once on
// a second Ctrl-C when no run is listening (a load, a check), and on a third in any case.

// Hurry is the second Ctrl-C of a command. The zero value is not usable; nil is a Hurry that never
// fires.
type Hurry struct {
	ch        chan struct{}
	once      sync.Once
	listening atomic.Int32
}

// NewHurry returns a Hurry that has not fired.
func NewHurry() *Hurry { return &Hurry{ch: make(chan struct{})} }

// C is closed when the Hurry fires (nil for a nil Hurry: never).
func (h *Hurry) C() <-chan struct{} {
	if h == nil {
		return nil
	}
	return h.ch
}

// Fire fires the Hurry and says whether a run was listening for it (otherwise the caller should
// exit at once).
func (h *Hurry) Fire() bool {
	if h == nil {
		return false
	}
	h.once.Do(func() { close(h.ch) })
	return h.listening.Load() > 0
}

// Fired says whether the Hurry has fired.
func (h *Hurry) Fired() bool {
	if h == nil {
		return false
	}
	select {
	case <-h.ch:
		return true
	default:
		return false
	}
}

// listen marks a run as listening until the returned func is called.
func (h *Hurry) listen() func() {
	if h == nil {
		return func() {}
	}
	h.listening.Add(1)
	return func() { h.listening.Add(-1) }
}

// sayInterrupt prints, once ctx is cancelled by the user (not when the run ends on its own: call
// the returned stop first), what the run waits for; and when the Hurry fires, that it waits no
// more.
func sayInterrupt(ctx context.Context, out Out, grace time.Duration, h *Hurry) (stop func()) {
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		if context.Cause(ctx) != context.Canceled {
			return // the run aborted itself (the database was lost): it says why
		}
		fmt.Fprintf(out.Stderr, "\ninterrupted: starting nothing more; waiting up to %s (--grace) for the work in flight, then saving the partial results; Ctrl-C again stops waiting and saves at once\n", grace)
		select {
		case <-done:
		case <-h.C():
			fmt.Fprintln(out.Stderr, "interrupted again: waiting for nothing more; saving what was measured (the consistency check is skipped); Ctrl-C a third time exits without saving")
		}
	}()
	return func() {
		close(done)
		<-ended
	}
}
