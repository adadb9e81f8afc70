package kv

import (
	"crypto/sha1"
	"encoding/binary"
	"hash/crc64"
	"math"
	"math/rand/v2"
	"sync/atomic"

	"github.com/candor-bench/candor/gen"
)

// Keys as CockroachDB's kv workload makes them (pkg/workload/kv/kv.go: sequence, hashGenerator,
// sequentialGenerator, zipfGenerator). Every write takes the next number of one sequence shared by
// all terminals (the written-key counter); the key is a function of that number. Every read (and
// delete, and a bounded scan's start) picks a number below the counter's current value, uniformly,
// and turns it into a key the same way, so reads go to keys already written:
//
//   - uniform (the default): key = the first 8 bytes of SHA-1(number, seed) as a big-endian int64
//     (both as 8 big-endian bytes), so keys spread over all of BIGINT; with nothing written yet a
//     read takes key 0, as CockroachDB's does;
//   - sequential (--sequential): key = number; reads uniform among [0, counter);
//   - zipfian (--zipfian): math/rand/v2's Zipf(s, v, imax = 2^63-1), P(k) proportional to
//     (v + k)^-s over [0, imax], drawn with a uniform source whose every 64 bits are the CRC-64
//     (ECMA) of a sequence number: for writes the next number (a write may take several, one per
//     draw of the Zipf's rejection loop), for reads a number uniform below the counter. The keys
//     read are thus Zipf-distributed over the whole key space whatever was written: a read may
//     find no row, as in CockroachDB.
//
// --cycle-length wraps the sequence: number = counter mod cycle-length, and reads pick below
// counter mod cycle-length (CockroachDB's quirk: right after a wrap reads see few keys).
//
// Where candor differs: CockroachDB's --insert-count rows are spread evenly over the key range,
// keys reads never pick (kv.go, insertCountKey); candor loads the keys of sequence numbers 0 to
// insert-count-1 instead (hashed, or 0..insert-count-1 for sequential and zipfian, the zipfian's
// most likely keys) and starts the counter at insert-count, as CockroachDB's --write-seq resumes a
// run that wrote them. So reads find the loaded rows from the first operation on. The seed of the
// uniform keys' hash is the load's (recorded with it), so that a run with another --seed reads the
// keys that were loaded; the run's seed drives its terminals' random streams.

// Distribution names how keys are chosen.
type Distribution string

const (
	Uniform    Distribution = "uniform"
	Sequential Distribution = "sequential"
	Zipfian    Distribution = "zipfian"
)

// hashed reports whether keys are hashes of their sequence numbers (uniform); otherwise the loaded
// keys are the numbers themselves (dense: 0..insert-count-1).
func (d Distribution) hashed() bool { return d == Uniform }

// keyLayout is how the loaded keys are laid out: what a run must agree with.
func (d Distribution) keyLayout() string {
	if d.hashed() {
		return "hashed"
	}
	return "dense"
}

// sequence is the written-key counter, shared by every terminal of a run (the one shared state).
type sequence struct {
	val atomic.Int64
	max int64 // the cycle length
}

func newSequence(start, cycle int64) *sequence {
	s := &sequence{max: cycle}
	s.val.Store(start)
	return s
}

// write takes the next sequence number.
func (s *sequence) write() int64 { return (s.val.Add(1) - 1) % s.max }

// read is the number of keys written so far (modulo the cycle): reads pick below it. The keys of
// the last numbers may still be in flight, so a read cannot require its key to exist.
func (s *sequence) read() int64 { return s.val.Load() % s.max }

// written is the counter itself: sequence numbers taken so far.
func (s *sequence) written() int64 { return s.val.Load() }

// hashKey is the uniform distribution's key of sequence number n under seed.
func hashKey(n int64, seed uint64) int64 {
	var buf [16]byte
	binary.BigEndian.PutUint64(buf[:8], uint64(n))
	binary.BigEndian.PutUint64(buf[8:], seed)
	sum := sha1.Sum(buf[:])
	return int64(binary.BigEndian.Uint64(sum[:8]))
}

// loadKey is the key of the i-th loaded row (sequence number i).
func loadKey(d Distribution, i int64, seed uint64) int64 {
	if d.hashed() {
		return hashKey(i, seed)
	}
	return i
}

var crcECMA = crc64.MakeTable(crc64.ECMA)

func crcOf(n int64) uint64 {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n))
	return crc64.Checksum(b[:], crcECMA)
}

// writeSource is the zipfian writes' uniform source: each 64 bits are the CRC of the next sequence
// number.
type writeSource struct{ seq *sequence }

func (w writeSource) Uint64() uint64 { return crcOf(w.seq.write()) }

// readSource is the zipfian reads' uniform source: each 64 bits are the CRC of a sequence number
// drawn uniformly below the counter from the terminal's stream.
type readSource struct {
	seq *sequence
	r   *gen.Rand
}

func (s readSource) Uint64() uint64 {
	v := s.seq.read()
	if v != 0 {
		v = int64N(s.r, v)
	}
	return crcOf(v)
}

// int64N is uniform in [0, n), n > 0.
func int64N(r *gen.Rand, n int64) int64 { return int64(r.IntRange(0, int(n-1))) }

// Zipf parameters, CockroachDB's defaults (--zipfian-s, --zipfian-v).
const (
	defaultZipfS = 1.1
	defaultZipfV = 1.0
)

// keyGen draws one terminal's keys: its random stream, the shared sequence, and for the zipfian
// distribution its two Zipf generators. It is what a terminal keeps between operations.
type keyGen struct {
	dist  Distribution
	seq   *sequence
	seed  uint64 // the load's seed: the uniform keys' hash
	r     *gen.Rand
	readZ *rand.Zipf
	wrZ   *rand.Zipf
}

func newKeyGen(d Distribution, seq *sequence, loadSeed uint64, r *gen.Rand, zipfS, zipfV float64) *keyGen {
	g := &keyGen{dist: d, seq: seq, seed: loadSeed, r: r}
	if d == Zipfian {
		g.readZ = rand.NewZipf(rand.New(readSource{seq: seq, r: r}), zipfS, zipfV, math.MaxInt64)
		g.wrZ = rand.NewZipf(rand.New(writeSource{seq: seq}), zipfS, zipfV, math.MaxInt64)
	}
	return g
}

// writeKey is the key of the next write.
func (g *keyGen) writeKey() int64 {
	switch g.dist {
	case Sequential:
		return g.seq.write()
	case Zipfian:
		return int64(g.wrZ.Uint64())
	}
	return hashKey(g.seq.write(), g.seed)
}

// readKey is a key already written (or in flight), for a read, a delete or a scan's start.
func (g *keyGen) readKey() int64 {
	if g.dist == Zipfian {
		return int64(g.readZ.Uint64())
	}
	v := g.seq.read()
	if v == 0 {
		return 0
	}
	n := int64N(g.r, v)
	if g.dist == Sequential {
		return n
	}
	return hashKey(n, g.seed)
}

// keyBounds are the keys the distribution can produce, [lo, hi] inclusive, for the check.
func keyBounds(d Distribution, cycle int64) (lo, hi int64) {
	switch d {
	case Sequential:
		return 0, cycle - 1
	case Zipfian:
		return 0, math.MaxInt64
	}
	return math.MinInt64, math.MaxInt64
}

// fillBlock appends a value of length uniform in [minBytes, maxBytes] of random bytes to dst, from
// r (CockroachDB's randBlock with --target-compression-ratio 1: every byte random). It draws the
// length, then 8 bytes per 64-bit draw.
func fillBlock(r *gen.Rand, dst []byte, minBytes, maxBytes int) []byte {
	n := r.IntRange(minBytes, maxBytes)
	for n >= 8 {
		dst = binary.LittleEndian.AppendUint64(dst, r.Uint64())
		n -= 8
	}
	if n > 0 {
		x := r.Uint64()
		for ; n > 0; n-- {
			dst = append(dst, byte(x))
			x >>= 8
		}
	}
	return dst
}
