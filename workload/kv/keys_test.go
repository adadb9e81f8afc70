package kv

import (
	"math"
	"slices"
	"testing"

	"github.com/candor-bench/candor/gen"
)

// hashKey against SHA-1 computed independently (Python's hashlib: the first 8 bytes of
// sha1(pack('>Q', n) + pack('>Q', seed)) as a big-endian signed integer).
func TestHashKeyVectors(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		seed uint64
		want int64
	}{
		{0, 0, -2221978325381563300},
		{5, 42, -834976812771501953},
		{123456789, math.MaxUint64, -571837105923242961},
	} {
		if got := hashKey(tc.n, tc.seed); got != tc.want {
			t.Errorf("hashKey(%d, %d) = %d, want %d", tc.n, tc.seed, got, tc.want)
		}
	}
}

func newGen(d Distribution, seq *sequence, seed uint64, stream int) *keyGen {
	return newKeyGen(d, seq, seed, gen.New(gen.Derive(1, "test", stream)), defaultZipfS, defaultZipfV)
}

// The uniform (hash) generator: writes take the sequence numbers in order, shared by every
// terminal; reads only ever pick keys already written.
func TestHashGeneratorReadsWrittenKeys(t *testing.T) {
	const seed = 77
	seq := newSequence(0, math.MaxInt64)
	a, b := newGen(Uniform, seq, seed, 1), newGen(Uniform, seq, seed, 2)
	if k := a.readKey(); k != 0 {
		t.Fatalf("a read with nothing written is key %d, want 0 (as CockroachDB)", k)
	}
	written := map[int64]bool{}
	for i := range 1000 {
		g := a
		if i%3 == 0 {
			g = b
		}
		k := g.writeKey()
		if want := hashKey(int64(i), seed); k != want {
			t.Fatalf("write %d is key %d, want hashKey(%d) = %d", i, k, i, want)
		}
		written[k] = true
	}
	seen := map[int64]bool{}
	for range 20000 {
		k := a.readKey()
		if !written[k] {
			t.Fatalf("read key %d was never written", k)
		}
		seen[k] = true
	}
	// 20,000 uniform picks among 1,000 keys miss a given key with probability (1-1/1000)^20000 ~ 2e-9.
	if len(seen) != len(written) {
		t.Errorf("reads touched %d of the %d written keys", len(seen), len(written))
	}
	if seq.written() != 1000 {
		t.Errorf("the counter is %d after 1,000 writes", seq.written())
	}
}

// A run starts its counter at the loaded count: reads find the loaded keys from the first op.
func TestReadsCoverLoadedKeys(t *testing.T) {
	for _, d := range []Distribution{Uniform, Sequential} {
		const seed, loaded = 5, 300
		keys := map[int64]bool{}
		for i := range int64(loaded) {
			keys[loadKey(d, i, seed)] = true
		}
		g := newGen(d, newSequence(loaded, math.MaxInt64), seed, 3)
		for range 5000 {
			if k := g.readKey(); !keys[k] {
				t.Fatalf("%s: read key %d is not among the %d loaded", d, k, loaded)
			}
		}
		if k := g.writeKey(); k != loadKey(d, loaded, seed) {
			t.Errorf("%s: the first write is key %d, want the key of sequence number %d", d, k, loaded)
		}
	}
}

func TestSequentialGenerator(t *testing.T) {
	seq := newSequence(0, math.MaxInt64)
	g := newGen(Sequential, seq, 0, 1)
	for i := range int64(100) {
		if k := g.writeKey(); k != i {
			t.Fatalf("write %d is key %d", i, k)
		}
	}
	hist := make([]int, 100)
	for range 100000 {
		k := g.readKey()
		if k < 0 || k >= 100 {
			t.Fatalf("read key %d outside [0, 100)", k)
		}
		hist[k]++
	}
	// Uniform: each key about 1,000 times (sd ~31.6); 6 sd either way.
	for k, n := range hist {
		if n < 810 || n > 1190 {
			t.Errorf("key %d read %d times of 100,000, want about 1,000", k, n)
		}
	}
}

// --cycle-length wraps the sequence: the keys repeat, and reads pick below counter mod cycle.
func TestCycleLengthWraps(t *testing.T) {
	seq := newSequence(0, 10)
	g := newGen(Sequential, seq, 0, 1)
	var got []int64
	for range 25 {
		got = append(got, g.writeKey())
	}
	want := []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4}
	if !slices.Equal(got, want) {
		t.Fatalf("sequential writes with cycle 10: %v", got)
	}
	for range 1000 {
		if k := g.readKey(); k < 0 || k >= 5 {
			t.Fatalf("after 25 writes with cycle 10 a read picked %d, want [0, 5)", k)
		}
	}
	h := newGen(Uniform, newSequence(0, 10), 9, 1)
	for i := range 25 {
		if k := h.writeKey(); k != hashKey(int64(i%10), 9) {
			t.Fatalf("hashed write %d with cycle 10 is %d, want hashKey(%d)", i, k, i%10)
		}
	}
}

// hurwitz is sum_{k=0}^{n} (v+k)^-s, the Zipf's normalising constant over [0, n]: the first terms
// summed, the rest by Euler-Maclaurin (error far below the test's tolerance).
func hurwitz(s, v float64, n float64) float64 {
	const m = 1000
	f := func(x float64) float64 { return math.Pow(v+x, -s) }
	df := func(x float64) float64 { return -s * math.Pow(v+x, -s-1) }
	sum := 0.0
	for k := 0; k < m; k++ {
		sum += f(float64(k))
	}
	integral := (math.Pow(v+m, 1-s) - math.Pow(v+n, 1-s)) / (s - 1)
	return sum + integral + (f(m)+f(n))/2 + (df(n)-df(m))/12
}

// The zipfian generator against its definition: P(k) = (v+k)^-s / H over [0, 2^63-1], for the
// writes (drawn from the sequence) and the reads (drawn from the terminal's stream).
func TestZipfianShares(t *testing.T) {
	const n = 200000
	s, v := defaultZipfS, defaultZipfV
	h := hurwitz(s, v, math.MaxInt64)
	p := func(k float64) float64 { return math.Pow(v+k, -s) / h }
	below := func(m int) float64 { // P(k < m)
		sum := 0.0
		for k := range m {
			sum += p(float64(k))
		}
		return sum
	}
	seq := newSequence(0, math.MaxInt64)
	g := newGen(Zipfian, seq, 0, 1)
	for _, kind := range []string{"write", "read"} {
		draw := g.writeKey
		if kind == "read" {
			draw = g.readKey
		}
		counts := map[int64]int{}
		under1000 := 0
		for range n {
			k := draw()
			if k < 0 {
				t.Fatalf("%s key %d is negative", kind, k)
			}
			counts[k]++
			if k < 1000 {
				under1000++
			}
		}
		check := func(what string, got int, want float64) {
			sd := math.Sqrt(want * (1 - want) / n)
			share := float64(got) / n
			if math.Abs(share-want) > 5*sd {
				t.Errorf("%s keys: %s has share %.5f, want %.5f (5 sd = %.5f)", kind, what, share, want, 5*sd)
			}
		}
		for k := range int64(4) {
			check("key "+string(rune('0'+k)), counts[k], p(float64(k)))
		}
		check("keys below 1,000", under1000, below(1000))
	}
	if seq.written() < n {
		t.Errorf("%d zipfian writes took %d sequence numbers, want at least one each", n, seq.written())
	}
}

// A terminal's draws follow the percentages (in CockroachDB's order), fill --batch keys and values
// of the block sizes, and depend on its seed alone.
func TestTerminalDraws(t *testing.T) {
	m := &mix{read: 50, del: 10, span: 15, spanLimit: 5, batch: 3, minBytes: 2, maxBytes: 11}
	mk := func() *terminal {
		return &terminal{mix: m, g: newKeyGen(Uniform, newSequence(100, math.MaxInt64), 1, gen.New(gen.Derive(4, "kv", "terminal", 0)), 0, 0)}
	}
	a, b := mk(), mk()
	const n = 100000
	var counts [numOps]int
	for range n {
		op, keying := a.Next()
		if keying != 0 || a.Think(op) != 0 {
			t.Fatal("kv terminals have no keying or think time")
		}
		if op2, _ := b.Next(); op2 != op || !slices.Equal(a.in.keys, b.in.keys) {
			t.Fatal("two terminals of the same seed drew different inputs")
		}
		counts[op]++
		in := &a.in
		switch op {
		case OpRead, OpDelete, OpWrite:
			if len(in.keys) != 3 {
				t.Fatalf("%s drew %d keys, want the batch of 3", OpNames[op], len(in.keys))
			}
		case OpScan:
			if len(in.keys) != 1 {
				t.Fatalf("a bounded scan drew %d start keys", len(in.keys))
			}
		}
		if op == OpWrite {
			for i, v := range in.vals {
				if len(v) < 2 || len(v) > 11 {
					t.Fatalf("value %d has %d bytes, want 2..11", i, len(v))
				}
				if !slices.Equal(v, b.in.vals[i]) {
					t.Fatal("two terminals of the same seed drew different values")
				}
			}
		}
	}
	for op, want := range map[int]float64{OpRead: 0.50, OpDelete: 0.10, OpScan: 0.15, OpWrite: 0.25} {
		share := float64(counts[op]) / n
		if sd := math.Sqrt(want * (1 - want) / n); math.Abs(share-want) > 5*sd {
			t.Errorf("%s share %.4f, want %.2f", OpNames[op], share, want)
		}
	}
}

// The block values: lengths uniform over [min, max], every byte value appearing.
func TestFillBlock(t *testing.T) {
	r := gen.New(3)
	lens := map[int]int{}
	var bytes [256]int
	for range 20000 {
		v := fillBlock(r, nil, 0, 9)
		lens[len(v)]++
		for _, c := range v {
			bytes[c]++
		}
	}
	for l := 0; l <= 9; l++ {
		if lens[l] < 1700 || lens[l] > 2300 {
			t.Errorf("length %d drawn %d times of 20,000, want about 2,000", l, lens[l])
		}
	}
	if len(lens) != 10 {
		t.Errorf("lengths drawn: %v, want 0..9", lens)
	}
	for c, n := range bytes {
		if n == 0 {
			t.Errorf("byte %d never drawn", c)
		}
	}
	if v := fillBlock(r, nil, 4, 4); len(v) != 4 {
		t.Errorf("a fixed size of 4 gave %d bytes", len(v))
	}
}

// A load's chunk: the same rows whatever else happens, sorted by key, the keys of its sequence
// numbers.
func TestLoadChunkDeterministic(t *testing.T) {
	s := loadSpec{dist: Uniform, seed: 11, count: loadChunk + 7, minBytes: 1, maxBytes: 20}
	a, b := makeChunk(s, 1), makeChunk(s, 1)
	if len(a.keys) != 7 {
		t.Fatalf("the last chunk has %d rows, want 7", len(a.keys))
	}
	if !slices.Equal(a.keys, b.keys) {
		t.Fatal("the same chunk twice gave other keys")
	}
	for i := range a.vals {
		if !slices.Equal(a.vals[i], b.vals[i]) {
			t.Fatal("the same chunk twice gave other values")
		}
	}
	if !slices.IsSorted(a.keys) {
		t.Error("a chunk's rows are not in key order")
	}
	want := map[int64]bool{}
	for i := int64(loadChunk); i < loadChunk+7; i++ {
		want[hashKey(i, 11)] = true
	}
	for _, k := range a.keys {
		if !want[k] {
			t.Errorf("chunk key %d is not the key of one of its sequence numbers", k)
		}
	}
	d := makeChunk(loadSpec{dist: Sequential, seed: 11, count: 30, minBytes: 0, maxBytes: 0}, 0)
	for i, k := range d.keys {
		if k != int64(i) || len(d.vals[i]) != 0 {
			t.Fatalf("dense row %d: key %d, %d value bytes", i, k, len(d.vals[i]))
		}
	}
}
