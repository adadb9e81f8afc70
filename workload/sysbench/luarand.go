package sysbench

import (
	"math"
	"strconv"
)

// luaRand is LuaJIT 2.1's math.random (src/lib_math.c, which sysbench 1.0.20 runs its scripts
// on): a combined Tausworthe generator of four 64-bit LFSRs (period 2^223), seeded by
// math.randomseed(d). Dolt's scripts (dolt_common.lua, types_common.lua) call math.randomseed(0)
// and draw their rows' values from it, so the rows candor loads for Dolt's tests are the rows
// Dolt's prepare inserts, value for value.
type luaRand struct{ gen [4]uint64 }

// newLuaRand is math.randomseed(d): each generator's state from d*pi+e iterated, its top bits
// made non-zero, then ten steps.
func newLuaRand(d float64) *luaRand {
	r := &luaRand{}
	k := uint32(0x11090601) // 64-k[i] as four 8-bit constants
	for i := range r.gen {
		m := uint64(1) << (k & 255)
		k >>= 8
		d = d*3.14159265358979323846 + 2.7182818284590452354
		u := math.Float64bits(d)
		if u < m {
			u += m
		}
		r.gen[i] = u
	}
	for range 10 {
		r.step()
	}
	return r
}

// tw223 advances one generator: k its width, q and s its shifts.
func tw223(z uint64, k, q, s uint) uint64 {
	return (((z << q) ^ z) >> (k - s)) ^ ((z & (^uint64(0) << (64 - k))) << s)
}

// step is lj_math_random_step: the bits of a double in [1, 2).
func (r *luaRand) step() uint64 {
	var x uint64
	r.gen[0] = tw223(r.gen[0], 63, 31, 18)
	x ^= r.gen[0]
	r.gen[1] = tw223(r.gen[1], 58, 19, 28)
	x ^= r.gen[1]
	r.gen[2] = tw223(r.gen[2], 55, 24, 7)
	x ^= r.gen[2]
	r.gen[3] = tw223(r.gen[3], 47, 21, 8)
	x ^= r.gen[3]
	return (x & 0x000fffffffffffff) | 0x3ff0000000000000
}

// float is math.random(): a double in [0, 1).
func (r *luaRand) float() float64 { return math.Float64frombits(r.step()) - 1 }

// between is math.random(lo, hi): floor(d*(hi-lo+1)) + lo in doubles, as LuaJIT computes it (so
// a range past 2^53 is the doubles' range, as in the scripts' BIGINT columns).
func (r *luaRand) between(lo, hi float64) float64 {
	return math.Floor(r.float()*(hi-lo+1)) + lo
}

// luaNum is a number as Lua's tostring and the .. operator write it: C's "%.14g" (so a BIGINT
// drawn past 10^14 reaches the server as 1.2345678901235e+18).
func luaNum(b []byte, d float64) []byte { return strconv.AppendFloat(b, d, 'g', 14, 64) }
