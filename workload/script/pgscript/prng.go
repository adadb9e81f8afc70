package pgscript

import "math/bits"

// pgPRNG is PostgreSQL's pg_prng (src/common/pg_prng.c): xoroshiro128** seeded by two SplitMix64
// steps. pgbench's permute() seeds one from its seed argument, so candor's permute gives pgbench's
// numbers only with the same generator.
type pgPRNG struct{ s0, s1 uint64 }

func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97f4A7C15
	v := *state
	v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9
	v = (v ^ (v >> 27)) * 0x94D049BB133111EB
	return v ^ (v >> 31)
}

func (p *pgPRNG) seed(seed uint64) {
	p.s0 = splitmix64(&seed)
	p.s1 = splitmix64(&seed)
	if p.s0 == 0 && p.s1 == 0 { // pg_prng_seed_check
		p.s0 = 0x5851F42D4C957F2D
		p.s1 = 0x14057B7EF767814F
	}
}

func (p *pgPRNG) uint64() uint64 {
	s0 := p.s0
	sx := p.s1 ^ s0
	v := bits.RotateLeft64(s0*5, 7) * 9
	p.s0 = bits.RotateLeft64(s0, 24) ^ sx ^ (sx << 16)
	p.s1 = bits.RotateLeft64(sx, 37)
	return v
}

// uint64Range is pg_prng_uint64_range: uniform in [lo, hi] by bitmask rejection.
func (p *pgPRNG) uint64Range(lo, hi uint64) uint64 {
	if hi <= lo {
		return lo
	}
	r := hi - lo
	shift := uint(bits.LeadingZeros64(r))
	for {
		v := p.uint64() >> shift
		if v <= r {
			return lo + v
		}
	}
}
