package main

import (
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// slotSem is the call slots' semaphore (calls, main_test.go): n slots; waiters are served in
// order, the highest priority first, then the first to ask, each as soon as its slots are free. A
// waiter for more slots than are free holds back the ones after it (no overtaking), so that a
// call waiting for every slot is not starved; but for its first holdBackAfter a call for every
// slot lets the ones after it through while it waits, so that the package does not stop for a
// long call still running when it asked.
type slotSem struct {
	mu      sync.Mutex
	free    int64
	total   int64
	seq     uint64
	waiters []*slotWaiter
	now     func() time.Time
}

type slotWaiter struct {
	n     int64
	prio  int64
	seq   uint64
	asked time.Time
	ready chan struct{}
}

// holdBackAfter is how long a call for every slot waits before it holds back the calls after it.
const holdBackAfter = 30 * time.Second

func newSlotSem(n int64) *slotSem { return &slotSem{free: n, total: n, now: time.Now} }

// acquire takes n slots at priority prio, waiting as long as it must.
func (s *slotSem) acquire(n, prio int64) {
	s.mu.Lock()
	s.seq++
	w := &slotWaiter{n: n, prio: prio, seq: s.seq, asked: s.now(), ready: make(chan struct{})}
	i, _ := slices.BinarySearchFunc(s.waiters, w, func(a, b *slotWaiter) int {
		if a.prio != b.prio {
			return int(b.prio - a.prio) // higher priority first
		}
		return int(a.seq - b.seq)
	})
	s.waiters = slices.Insert(s.waiters, i, w)
	s.serve()
	s.mu.Unlock()
	<-w.ready
}

// release gives n slots back and serves the waiters they let through.
func (s *slotSem) release(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.free += n
	s.serve()
}

// serve hands free slots to the waiters, in order, under s.mu.
func (s *slotSem) serve() {
	now := s.now()
	for i := 0; i < len(s.waiters) && s.free > 0; {
		w := s.waiters[i]
		if w.n > s.free {
			if w.n < s.total || now.Sub(w.asked) >= holdBackAfter {
				return // it holds back the ones after it
			}
			i++ // a call for every slot, new: the ones after it may pass
			continue
		}
		s.waiters = slices.Delete(s.waiters, i, i+1)
		s.free -= w.n
		close(w.ready)
	}
}

// exclusivePrio is the priority of a call that takes every slot: before any other waiting call, so
// that the package drains once for the capacity-bound calls waiting together, not once for each.
const exclusivePrio = math.MaxInt32

// callsMade counts each top-level test's calls so far: a shared call's priority. A test that has
// made many calls is likely to make many more (the end-to-end flows, TPC-H's, the compare gates):
// served first, its chain of calls starts early instead of ending the package alone.
var (
	callsMadeMu sync.Mutex
	callsMade   = map[string]int64{} // top-level test name -> calls so far
)

// callPrio is the priority of t's next shared call, and counts the call.
func callPrio(t *testing.T) int64 {
	top, _, _ := strings.Cut(t.Name(), "/")
	callsMadeMu.Lock()
	defer callsMadeMu.Unlock()
	callsMade[top]++
	return callsMade[top] - 1
}

// TestSlotSem: waiters are served by priority, then in the order they asked; a call for every
// slot that has waited holdBackAfter holds back the later ones (one free slot is not taken past
// it), a newer one lets them through; every slot comes back.
func TestSlotSem(t *testing.T) {
	queued := func(s *slotSem, n int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
			s.mu.Lock()
			q := len(s.waiters)
			s.mu.Unlock()
			if q == n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d waiters queued, want %d", q, n)
			}
		}
	}
	var mu sync.Mutex
	var order []string
	var done sync.WaitGroup
	wait := func(s *slotSem, name string, n, prio int64) {
		done.Add(1)
		go func() {
			defer done.Done()
			s.acquire(n, prio)
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			s.release(n)
		}()
	}

	// One slot, held: the waiters come through one at a time, in priority order, then asking order.
	s := newSlotSem(1)
	s.acquire(1, 0)
	for i, w := range []struct {
		name string
		prio int64
	}{{"low-first", 0}, {"low-second", 0}, {"high", 5}, {"exclusive", exclusivePrio}} {
		wait(s, w.name, 1, w.prio)
		queued(s, i+1)
	}
	s.release(1)
	done.Wait()
	if want := []string{"exclusive", "high", "low-first", "low-second"}; !slices.Equal(order, want) {
		t.Errorf("served %v, want %v", order, want)
	}

	// Two slots, one held: a call for both that has waited holdBackAfter holds back a later call
	// for one; a new one lets it through.
	for _, waited := range []time.Duration{holdBackAfter, time.Second} {
		order = nil
		s = newSlotSem(2)
		clock := time.Unix(1_800_000_000, 0)
		s.now = func() time.Time { return clock }
		s.acquire(1, 0)
		wait(s, "both", 2, exclusivePrio)
		queued(s, 1)
		clock = clock.Add(waited)
		wait(s, "one", 1, 0)
		want := []string{"both", "one"}
		if waited < holdBackAfter {
			// "one" goes past, and "both" still waits for the held slot
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
				mu.Lock()
				got := slices.Clone(order)
				mu.Unlock()
				if len(got) > 0 || time.Now().After(deadline) {
					if !slices.Equal(got, []string{"one"}) {
						t.Fatalf("a new call for every slot: %v served, want [one]", got)
					}
					break
				}
			}
			want = []string{"one", "both"}
		} else {
			queued(s, 2)
			time.Sleep(20 * time.Millisecond)
			mu.Lock()
			early := len(order)
			mu.Unlock()
			if early != 0 {
				t.Fatalf("%v served while a slot was held and a call for both had waited first", order)
			}
		}
		s.release(1)
		done.Wait()
		if !slices.Equal(order, want) {
			t.Errorf("waited %s: served %v, want %v", waited, order, want)
		}
	}
	if s.free != 2 || len(s.waiters) != 0 {
		t.Errorf("after every release: %d slots free, %d waiting; want 2 and 0", s.free, len(s.waiters))
	}
}
