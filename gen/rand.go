// Package gen is candor's seeded randomness: one root seed per run, and every random stream derived
// from it by name (design.md, "Randomness and reproducibility"). There are no global or clock-seeded
// generators anywhere in candor; a Rand is a small value owned by one goroutine.
package gen

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/bits"
	"math/rand/v2"
)

// Rand is a PCG generator with the distributions candor needs. It is not safe for concurrent use:
// each terminal, loader batch or test owns its own, derived by name from the root seed.
type Rand struct {
	pcg rand.PCG
}

// New returns a generator seeded with seed.
func New(seed uint64) *Rand {
	r := &Rand{}
	r.Seed(seed)
	return r
}

// Seed resets r to the stream of seed.
func (r *Rand) Seed(seed uint64) {
	r.pcg.Seed(seed, mix64(seed^0x9e3779b97f4a7c15))
}

// Derive returns the seed of the stream named by parts under root: the same root and names give the
// same stream whatever else the run does (how many loaders, which order). Parts may be strings or
// integers.
func Derive(root uint64, parts ...any) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], root)
	h.Write(b[:])
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			h.Write([]byte(v))
			h.Write([]byte{0})
		case int:
			binary.LittleEndian.PutUint64(b[:], uint64(v))
			h.Write(b[:])
		case int64:
			binary.LittleEndian.PutUint64(b[:], uint64(v))
			h.Write(b[:])
		case uint64:
			binary.LittleEndian.PutUint64(b[:], v)
			h.Write(b[:])
		default:
			panic("gen.Derive: unsupported part type")
		}
	}
	return mix64(h.Sum64())
}

// mix64 is the SplitMix64 finaliser: it spreads FNV's weak low bits over the whole word.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Uint64 returns 64 random bits.
func (r *Rand) Uint64() uint64 { return r.pcg.Uint64() }

// IntRange returns an integer uniform in [lo, hi] (both included), the standard's random(x, y).
// It uses the multiply-high reduction; its bias is below 2^-32 for the ranges TPC-C uses.
func (r *Rand) IntRange(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	n := uint64(hi-lo) + 1
	h, _ := bits.Mul64(r.pcg.Uint64(), n)
	return lo + int(h)
}

// Chance reports true with probability num/den, drawn as one uniform integer (so "10%" is exactly a
// 1-in-10 draw).
func (r *Rand) Chance(num, den int) bool { return r.IntRange(1, den) <= num }

// Float64 returns a float uniform in [0, 1).
func (r *Rand) Float64() float64 { return float64(r.pcg.Uint64()>>11) / (1 << 53) }

// OpenFloat64 returns a float uniform in (0, 1], safe for a logarithm.
func (r *Rand) OpenFloat64() float64 { return float64((r.pcg.Uint64()>>11)+1) / (1 << 53) }

// Exp returns a negative-exponential value with the given mean, -ln(u)*mean with u in (0, 1],
// truncated at maxMultiple*mean when maxMultiple > 0 (TPC-C clause 5.2.5.4 truncates at 10x).
func (r *Rand) Exp(mean float64, maxMultiple float64) float64 {
	v := -math.Log(r.OpenFloat64()) * mean
	if maxMultiple > 0 && v > maxMultiple*mean {
		v = maxMultiple * mean
	}
	return v
}

// Shuffle permutes s in place (Fisher-Yates).
func Shuffle[T any](r *Rand, s []T) {
	for i := len(s) - 1; i > 0; i-- {
		j := r.IntRange(0, i)
		s[i], s[j] = s[j], s[i]
	}
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// AppendAString appends a random alphanumeric string of length uniform in [lo, hi] (the standard's
// "random a-string", clause 4.3.2.2) and returns the extended slice.
func (r *Rand) AppendAString(dst []byte, lo, hi int) []byte {
	return r.AppendAStringN(dst, r.IntRange(lo, hi))
}

// AppendAStringN appends exactly n random alphanumeric characters. It spends one 64-bit draw per
// ten characters (6 bits each, rejection of the 2 values above 61 keeps it uniform).
func (r *Rand) AppendAStringN(dst []byte, n int) []byte {
	for n > 0 {
		x := r.pcg.Uint64()
		for k := 0; k < 10 && n > 0; k++ {
			c := x & 63
			x >>= 6
			if c >= uint64(len(alnum)) {
				continue
			}
			dst = append(dst, alnum[c])
			n--
		}
	}
	return dst
}

// AppendNString appends a random numeric string of length uniform in [lo, hi] (clause 4.3.2.2).
func (r *Rand) AppendNString(dst []byte, lo, hi int) []byte {
	n := r.IntRange(lo, hi)
	for n > 0 {
		x := r.pcg.Uint64()
		for k := 0; k < 16 && n > 0; k++ {
			c := x & 15
			x >>= 4
			if c >= 10 {
				continue
			}
			dst = append(dst, byte('0'+c))
			n--
		}
	}
	return dst
}
