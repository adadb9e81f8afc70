package main

import (
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// slotSem is the call slots' semaphore (calls, main_test.go): n slots; a waiter is served when
// its slots are free and no waiter before it in the order is still waiting: the highest priority
// first, then the first to ask. A waiter that needs more slots than are free holds back the ones
// after it (no overtaking), so a call waiting for every slot is never starved.
type slotSem struct {
	mu      sync.Mutex
	free    int64
	seq     uint64
	waiters []*slotWaiter
}

type slotWaiter struct {
	n     int64
	prio  int64
	seq   uint64
	ready chan struct{}
}

func newSlotSem(n int64) *slotSem { return &slotSem{free: n} }

// acquire takes n slots at priority prio, waiting as long as it must.
func (s *slotSem) acquire(n, prio int64) {
	s.mu.Lock()
	if len(s.waiters) == 0 && s.free >= n {
		s.free -= n
		s.mu.Unlock()
		return
	}
	s.seq++
	w := &slotWaiter{n: n, prio: prio, seq: s.seq, ready: make(chan struct{})}
	i, _ := slices.BinarySearchFunc(s.waiters, w, func(a, b *slotWaiter) int {
		if a.prio != b.prio {
			return int(b.prio - a.prio) // higher priority first
		}
		return int(a.seq - b.seq)
	})
	s.waiters = slices.Insert(s.waiters, i, w)
	s.mu.Unlock()
	<-w.ready
}

// release gives n slots back and serves the waiters they let through.
func (s *slotSem) release(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.free += n
	for len(s.waiters) > 0 && s.waiters[0].n <= s.free {
		w := s.waiters[0]
		s.waiters = s.waiters[1:]
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
var callsMade sync.Map // top-level test name -> *int64 under callsMadeMu

var callsMadeMu sync.Mutex

// callPrio is the priority of t's next shared call, and counts the call.
func callPrio(t *testing.T) int64 {
	top, _, _ := strings.Cut(t.Name(), "/")
	callsMadeMu.Lock()
	defer callsMadeMu.Unlock()
	v, _ := callsMade.LoadOrStore(top, new(int64))
	p := v.(*int64)
	*p++
	return *p - 1
}

// TestSlotSem: waiters are served by priority, then in the order they asked; a waiter for more
// slots than are free holds back the later ones (one free slot is not taken past it); every slot
// comes back.
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

	// Two slots, one held: a call for both waits, and a later call for one does not take the free
	// one past it.
	order = nil
	s = newSlotSem(2)
	s.acquire(1, 0)
	wait(s, "both", 2, exclusivePrio)
	queued(s, 1)
	wait(s, "one", 1, 0)
	queued(s, 2)
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	early := len(order)
	mu.Unlock()
	if early != 0 {
		t.Fatalf("%v served while a slot was held and a call for both waited first", order)
	}
	s.release(1)
	done.Wait()
	if want := []string{"both", "one"}; !slices.Equal(order, want) {
		t.Errorf("served %v, want %v", order, want)
	}
	if s.free != 2 || len(s.waiters) != 0 {
		t.Errorf("after every release: %d slots free, %d waiting; want 2 and 0", s.free, len(s.waiters))
	}
}
