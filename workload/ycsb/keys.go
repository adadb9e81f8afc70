package ycsb

import "strconv"

// FNV constants of YCSB's Utils (FNV_OFFSET_BASIS_64, FNV_PRIME_64): the standard FNV-1 64-bit
// parameters.
const (
	fnvOffsetBasis64 = 0xCBF29CE484222325
	fnvPrime64       = 1099511628211
)

// FNVHash64 is YCSB's Utils.fnvhash64 (and Utils.hash): FNV-1a over the eight bytes of the long,
// low byte first (octet = val & 0xff; val >>= 8, an arithmetic shift), multiplying modulo 2^64 as
// Java's long arithmetic does, and then Math.abs of the signed result. Like Math.abs, it leaves
// math.MinInt64 negative (the one hash value with no positive counterpart); callers must allow it.
func FNVHash64(val int64) int64 {
	h := uint64(fnvOffsetBasis64)
	for i := 0; i < 8; i++ {
		octet := uint64(val & 0xff)
		val >>= 8
		h ^= octet
		h *= fnvPrime64
	}
	s := int64(h)
	if s < 0 {
		s = -s // -MinInt64 overflows to MinInt64, as Math.abs does
	}
	return s
}

// InsertOrder is the insertorder property: how record numbers become keys.
type InsertOrder string

const (
	// InsertHashed ("hashed", YCSB's default) names record n "user" + FNVHash64(n), so consecutive
	// inserts land all over the key space.
	InsertHashed InsertOrder = "hashed"
	// InsertOrdered ("ordered") names record n "user" + n, so inserts arrive in key order (with
	// zeropadding wide enough, also in string order).
	InsertOrdered InsertOrder = "ordered"
)

// BuildKeyName is CoreWorkload.buildKeyName: "user", then zeros up to zeropadding digits, then the
// decimal record number (hashed with FNVHash64 unless ordered). zeropadding counts the digits of
// the number, not the key: with zeropadding=8 record 5 is "user00000005"; YCSB's default 1 pads
// nothing. A hash is at most 19 digits, so zeropadding=19 or more makes hashed keys sort as numbers.
func BuildKeyName(keynum int64, zeropadding int, ordered bool) string {
	return string(AppendKeyName(make([]byte, 0, 4+20+max(zeropadding-20, 0)), keynum, zeropadding, ordered))
}

// AppendKeyName appends BuildKeyName(keynum, zeropadding, ordered) to dst.
func AppendKeyName(dst []byte, keynum int64, zeropadding int, ordered bool) []byte {
	if !ordered {
		keynum = FNVHash64(keynum)
	}
	var digits [20]byte
	value := strconv.AppendInt(digits[:0], keynum, 10)
	dst = append(dst, "user"...)
	// Java pads with zeropadding - value.length(); the minus sign of a negative hash counts as a digit.
	for fill := zeropadding - len(value); fill > 0; fill-- {
		dst = append(dst, '0')
	}
	return append(dst, value...)
}
