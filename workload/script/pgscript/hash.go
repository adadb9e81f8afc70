package pgscript

import "math/bits"

// The hash functions and permute of pgbench.c (getHashFnv1a, getHashMurmur2, permute); they must
// give pgbench's numbers for the same arguments (hash_test.go holds vectors checked against
// pgbench 15).

const (
	fnvPrime       = 0x100000001b3
	fnvOffsetBasis = 0xcbf29ce484222325
	mm2Mul         = 0xc6a4a7935bd1e995
	mm2MulTimes8   = 0x35253c9ade8f4ca8
	mm2Rot         = 47
)

// hashFNV1a is FNV-1a over the 8 bytes of val, low byte first, with the offset basis xored with seed.
func hashFNV1a(val int64, seed uint64) int64 {
	r := uint64(fnvOffsetBasis) ^ seed
	for i := 0; i < 8; i++ {
		r ^= uint64(val & 0xff)
		r *= fnvPrime
		val >>= 8
	}
	return int64(r)
}

// hashMurmur2 is MurmurHash64A of the 8 bytes of val.
func hashMurmur2(val int64, seed uint64) int64 {
	r := seed ^ mm2MulTimes8
	k := uint64(val)
	k *= mm2Mul
	k ^= k >> mm2Rot
	k *= mm2Mul
	r ^= k
	r *= mm2Mul
	r ^= r >> mm2Rot
	r *= mm2Mul
	r ^= r >> mm2Rot
	return int64(r)
}

// permute is pgbench's pseudorandom permutation of [0, size): six rounds of an odd multiply, xor
// and rotate on overlapping lower and upper halves, and a random offset, drawn from pg_prng seeded
// with seed. size < 2 gives 0.
func permute(val, isize, seed int64) int64 {
	if isize < 2 {
		return 0
	}
	var st pgPRNG
	st.seed(uint64(seed))
	size := uint64(isize)
	v := uint64(val) % size
	masklen := uint(63 - bits.LeadingZeros64(size)) // pg_leftmost_one_pos64
	mask := uint64(1)<<masklen - 1
	for i := 0; i < 6; i++ {
		m := (st.uint64() & mask) | 1
		r := st.uint64() & mask
		if v <= mask {
			v = ((v * m) ^ r) & mask
			v = ((v << 1) & mask) | (v >> (masklen - 1))
		}
		m = (st.uint64() & mask) | 1
		r = st.uint64() & mask
		t := size - 1 - v
		if t <= mask {
			t = ((t * m) ^ r) & mask
			t = ((t << 1) & mask) | (t >> (masklen - 1))
			v = size - 1 - t
		}
		r = st.uint64Range(0, size-1)
		v = (v + r) % size
	}
	return int64(v)
}
