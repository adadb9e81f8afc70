package ycsb

import "math"

// Source is the random source every generator draws from: *rand.Rand (math/rand/v2) and *gen.Rand
// satisfy it. A Source is owned by one goroutine (a terminal); generators never keep one.
type Source interface {
	// Uint64 returns 64 uniformly random bits (Java's nextLong).
	Uint64() uint64
	// Float64 returns a float uniform in [0, 1) (Java's nextDouble).
	Float64() float64
}

// NumberGenerator is YCSB's NumberGenerator reduced to what CoreWorkload uses: the next value, drawn
// from the caller's source. Generators that need no randomness (counters) ignore r.
type NumberGenerator interface {
	Next(r Source) int64
}

// nonNegativeLong stands for Java's Math.abs(random.nextLong()): a uniform value in [0, 2^63).
// (Math.abs(Long.MIN_VALUE) stays negative in Java, a 2^-64 event that made YCSB return a value below
// its lower bound; taking the top 63 bits keeps the distribution and drops that event.)
func nonNegativeLong(r Source) int64 { return int64(r.Uint64() >> 1) }

// javaDoubleToLong is Java's narrowing of a double to a long (JLS 5.1.3): NaN becomes 0, values
// beyond the range saturate, others truncate toward zero. Go leaves out-of-range conversions
// implementation-defined, so generators that can produce +Inf (exponential) go through this.
func javaDoubleToLong(x float64) int64 {
	switch {
	case math.IsNaN(x):
		return 0
	case x >= math.MaxInt64:
		return math.MaxInt64
	case x <= math.MinInt64:
		return math.MinInt64
	}
	return int64(x)
}
