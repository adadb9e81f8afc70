package ycsb

import (
	"sync"
	"sync/atomic"
	"testing"
)

func TestCounter(t *testing.T) {
	c := NewCounter(5)
	if c.Last() != 4 {
		t.Errorf("Last before the first value = %d, want 4", c.Last())
	}
	for want := int64(5); want < 10; want++ {
		if got := c.Next(nil); got != want {
			t.Fatalf("Next = %d, want %d", got, want)
		}
	}
	if c.Last() != 9 {
		t.Errorf("Last = %d, want 9", c.Last())
	}
}

// TestAcknowledgedCounterOutOfOrder: Last moves only over a contiguous run of acknowledged values.
func TestAcknowledgedCounterOutOfOrder(t *testing.T) {
	c := NewAcknowledgedCounter(100)
	if c.Last() != 99 {
		t.Fatalf("Last = %d, want 99", c.Last())
	}
	for i := 0; i < 5; i++ {
		c.Next(nil) // 100..104
	}
	steps := []struct {
		ack, wantLast int64
	}{
		{101, 99}, {103, 99}, {100, 101}, {104, 101}, {102, 104},
	}
	for _, s := range steps {
		if err := c.Acknowledge(s.ack); err != nil {
			t.Fatal(err)
		}
		if got := c.Last(); got != s.wantLast {
			t.Errorf("after acknowledging %d: Last = %d, want %d", s.ack, got, s.wantLast)
		}
	}
}

func TestAcknowledgedCounterErrors(t *testing.T) {
	c := NewAcknowledgedCounter(0)
	if err := c.Acknowledge(0); err != nil {
		t.Fatal(err)
	}
	if err := c.Acknowledge(0); err == nil {
		t.Error("a value at or below Last acknowledged twice without error")
	}
	if err := c.Acknowledge(5); err != nil {
		t.Fatal(err)
	}
	if err := c.Acknowledge(5); err == nil {
		t.Error("a pending value acknowledged twice without error")
	}
	if err := c.Acknowledge(AckWindowSize); err != nil {
		t.Errorf("the window's last slot (Last + %d) refused: %v", AckWindowSize, err)
	}
	if err := c.Acknowledge(AckWindowSize + 1); err == nil {
		t.Error("a value beyond the window accepted")
	}
	// Wrapping around the window: values far beyond the start reuse slots once Last has passed.
	for v := int64(1); v < AckWindowSize+10; v++ {
		if v == 5 || v == AckWindowSize {
			continue
		}
		if err := c.Acknowledge(v); err != nil {
			t.Fatalf("Acknowledge(%d): %v", v, err)
		}
	}
	if got := c.Last(); got != AckWindowSize+9 {
		t.Errorf("Last = %d, want %d", got, AckWindowSize+9)
	}
}

// TestAcknowledgedCounterConcurrent: 8 goroutines take values and acknowledge them in a scrambled
// order while a reader checks that Last never passes a value not yet acknowledged and never goes
// back (run with -race). At the end Last is the last value handed out.
func TestAcknowledgedCounterConcurrent(t *testing.T) {
	const workers, each = 8, 20_000
	c := NewAcknowledgedCounter(0)
	done := make([]atomic.Bool, workers*each)
	stop := make(chan struct{})
	var readerErr atomic.Value
	var rw sync.WaitGroup
	rw.Add(1)
	go func() {
		defer rw.Done()
		prev := int64(-1)
		for {
			select {
			case <-stop:
				return
			default:
			}
			last := c.Last()
			if last < prev {
				readerErr.Store("Last went back")
				return
			}
			for v := prev + 1; v <= last; v++ {
				if !done[v].Load() {
					readerErr.Store("Last passed an unacknowledged value")
					return
				}
			}
			prev = last
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := newRand(uint64(w))
			var pending []int64
			for i := 0; i < each; i++ {
				pending = append(pending, c.Next(nil))
				if len(pending) == 16 || i == each-1 {
					r.Shuffle(len(pending), func(i, j int) { pending[i], pending[j] = pending[j], pending[i] })
					for _, v := range pending {
						done[v].Store(true)
						if err := c.Acknowledge(v); err != nil {
							t.Error(err)
							return
						}
					}
					pending = pending[:0]
				}
			}
		}(w)
	}
	wg.Wait()
	close(stop)
	rw.Wait()
	if e := readerErr.Load(); e != nil {
		t.Error(e)
	}
	if got := c.Last(); got != workers*each-1 {
		t.Errorf("Last = %d, want %d", got, workers*each-1)
	}
}

// TestSequential: start..end then start again, one cycle shared by all callers.
func TestSequential(t *testing.T) {
	s, err := NewSequential(3, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{3, 4, 5, 3, 4, 5, 3}
	for i, w := range want {
		if got := s.Next(nil); got != w {
			t.Fatalf("draw %d = %d, want %d", i, got, w)
		}
	}
	if _, err := NewSequential(5, 4); err == nil {
		t.Error("end below start accepted")
	}
	// Concurrent callers share the cycle: 4 x 3000 draws over 3 values give each value 4000 times.
	s, _ = NewSequential(0, 2)
	var counts [3]atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 3000; i++ {
				counts[s.Next(nil)].Add(1)
			}
		}()
	}
	wg.Wait()
	for v := range counts {
		if n := counts[v].Load(); n != 4000 {
			t.Errorf("value %d drawn %d times, want 4000", v, n)
		}
	}
}
