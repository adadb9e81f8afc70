package ycsb

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Counter is YCSB's CounterGenerator: start, start+1, ... shared safely by any number of goroutines.
// CoreWorkload's load phase numbers its records with one (keysequence, from insertstart).
type Counter struct {
	next atomic.Int64
}

var _ NumberGenerator = (*Counter)(nil)

// NewCounter returns a counter whose first value is start.
func NewCounter(start int64) *Counter {
	c := &Counter{}
	c.next.Store(start)
	return c
}

// Next returns the next value (getAndIncrement); r is not used.
func (c *Counter) Next(Source) int64 { return c.next.Add(1) - 1 }

// Last returns the last value handed out (start-1 before the first), as CounterGenerator.lastValue.
func (c *Counter) Last() int64 { return c.next.Load() - 1 }

// AckWindowSize is AcknowledgedCounterGenerator.WINDOW_SIZE, 2^20: at most this many handed-out values
// may be waiting for their acknowledgement beyond the highest contiguous acknowledged one.
const AckWindowSize = 1 << 20

// AcknowledgedCounter is YCSB's AcknowledgedCounterGenerator, CoreWorkload's
// transactioninsertkeysequence: Next hands out record numbers for inserts (from recordcount on), and
// Last is the highest value v such that every value from the start up to v has been acknowledged,
// so readers never choose a record whose insert has not completed. Safe for concurrent use.
//
// Deviation, deliberate: YCSB moves its limit only when the acknowledging thread wins a tryLock, so
// the limit can stay behind until some later acknowledgement; here every acknowledgement takes the
// lock and advances the limit, so Last is exact whenever no Acknowledge is in progress. YCSB also
// accepts a value acknowledged twice or one far beyond the window and corrupts its window; here both
// are errors.
type AcknowledgedCounter struct {
	Counter
	limit  atomic.Int64 // Last(); written under mu, read without it
	mu     sync.Mutex
	window [AckWindowSize / 64]uint64 // bit v&(size-1): v acknowledged, above limit
}

// NewAcknowledgedCounter returns a counter whose first value is start and whose Last is start-1.
func NewAcknowledgedCounter(start int64) *AcknowledgedCounter {
	c := &AcknowledgedCounter{}
	c.next.Store(start)
	c.limit.Store(start - 1)
	return c
}

// Last returns the highest acknowledged contiguous value (AcknowledgedCounterGenerator.lastValue).
func (c *AcknowledgedCounter) Last() int64 { return c.limit.Load() }

// Acknowledge marks v, a value returned by Next, as done (its insert completed or failed: YCSB
// acknowledges in a finally block either way), and moves Last over every contiguous acknowledged
// value.
func (c *AcknowledgedCounter) Acknowledge(v int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	limit := c.limit.Load()
	switch {
	case v <= limit:
		return fmt.Errorf("ycsb: insert key %d acknowledged twice (all keys up to %d already are)", v, limit)
	case v > limit+AckWindowSize:
		return fmt.Errorf("ycsb: too many unacknowledged insertion keys: %d is more than %d beyond %d",
			v, AckWindowSize, limit)
	}
	slot, bit := ackSlot(v)
	if c.window[slot]&bit != 0 {
		return fmt.Errorf("ycsb: insert key %d acknowledged twice", v)
	}
	c.window[slot] |= bit
	for {
		slot, bit := ackSlot(limit + 1)
		if c.window[slot]&bit == 0 {
			break
		}
		c.window[slot] &^= bit
		limit++
	}
	c.limit.Store(limit)
	return nil
}

func ackSlot(v int64) (int, uint64) {
	i := uint64(v) & (AckWindowSize - 1)
	return int(i / 64), 1 << (i % 64)
}

// Sequential is YCSB's SequentialGenerator (requestdistribution=sequential): start, start+1, ...,
// end, then start again, one shared cycle for all goroutines.
type Sequential struct {
	counter         atomic.Int64
	start, interval int64
}

var _ NumberGenerator = (*Sequential)(nil)

// NewSequential returns the cycle over [start, end]; end must not be below start.
func NewSequential(start, end int64) (*Sequential, error) {
	if end < start {
		return nil, fmt.Errorf("ycsb: sequential generator: end %d below start %d", end, start)
	}
	return &Sequential{start: start, interval: end - start + 1}, nil
}

// Next returns start + (n mod (end-start+1)) for the n-th call overall (from 0); r is not used.
func (s *Sequential) Next(Source) int64 { return s.start + (s.counter.Add(1)-1)%s.interval }
