package ycsb

import (
	"math"
	"slices"
	"testing"
)

// TestFNVHash64KnownValues checks Utils.fnvhash64 on values worked out from its definition, outside
// this code: h = 0xCBF29CE484222325; eight times: h ^= val & 0xff, val >>= 8 (arithmetic), h *= 1099511628211
// (mod 2^64); then Math.abs of h as a signed long. The expected values were computed with Python's
// big integers (reducing mod 2^64 by hand) and agree with YCSB's own Utils.fnvhash64 run on OpenJDK 17.
func TestFNVHash64KnownValues(t *testing.T) {
	// val = 0: every octet is 0, so h = basis * prime^8 mod 2^64. Round by round:
	//   0xaf63bd4c8601b7df, 0x08328807b4eb6fed, 0xd94d12186c0f2fb7, 0x4d25767f9dce13f5,
	//   0xe4bc4fd9252be94f, 0xd7e4fcfa299d713d, 0x778b1a14b6876aa7, 0xa8c7f832281a39c5.
	//   As a signed long 0xa8c7f832281a39c5 is -6284781860667377211, so Math.abs gives
	//   6284781860667377211.
	// val = 1: round 0 xors 0x01 first: (0xcbf29ce484222325 ^ 1) * prime = 0xaf63bc4c8601b62c, then
	//   0x082f2207b4e88cc4, 0xd0a397186727310c, 0xad2aca7747985764, 0xd80d6caea7dc7eec,
	//   0xfb4e98c73babab04, 0xb2389e8a64b397cc, 0x89cd31291d2aefa4 = -8517097267634966620 signed,
	//   so 8517097267634966620.
	// val = -1: every octet is 0xff (the arithmetic shift keeps the sign bits).
	cases := []struct {
		val, want int64
	}{
		{0, 6284781860667377211},
		{1, 8517097267634966620},
		{2, 1820151046732198393},
		{5, 1000385178204227360},
		{42, 55488592825689361},
		{1000, 5952875239596136740},
		{999999, 2744965632448235251},
		{-1, 8289690350564177859},
		{1 << 40, 6908947124047430886},
	}
	for _, c := range cases {
		if got := FNVHash64(c.val); got != c.want {
			t.Errorf("FNVHash64(%d) = %d, want %d", c.val, got, c.want)
		}
	}
}

func TestFNVHash64NonNegative(t *testing.T) {
	for v := int64(-1000); v < 100000; v++ {
		if h := FNVHash64(v); h < 0 && h != math.MinInt64 {
			t.Fatalf("FNVHash64(%d) = %d < 0", v, h)
		}
	}
}

// TestBuildKeyName checks CoreWorkload.buildKeyName: "user" + zeros to zeropadding digits + the
// number, hashed unless ordered. Expected strings agree with YCSB's code run on OpenJDK 17.
func TestBuildKeyName(t *testing.T) {
	cases := []struct {
		keynum      int64
		zeropadding int
		ordered     bool
		want        string
	}{
		{5, 1, true, "user5"},                    // default padding pads nothing
		{5, 8, true, "user00000005"},             // the javadoc's example
		{12345, 3, true, "user12345"},            // padding narrower than the number
		{0, 0, true, "user0"},                    // zeropadding 0 behaves as 1
		{1, 1, false, "user8517097267634966620"}, // hashed: FNVHash64(1)
		{0, 20, false, "user06284781860667377211"},
		{42, 20, false, "user00055488592825689361"},
		{42, 1, false, "user55488592825689361"},
	}
	for _, c := range cases {
		if got := BuildKeyName(c.keynum, c.zeropadding, c.ordered); got != c.want {
			t.Errorf("BuildKeyName(%d, %d, %v) = %q, want %q", c.keynum, c.zeropadding, c.ordered, got, c.want)
		}
		if got := string(AppendKeyName([]byte("x"), c.keynum, c.zeropadding, c.ordered)); got != "x"+c.want {
			t.Errorf("AppendKeyName(x, %d, ...) = %q", c.keynum, got)
		}
	}
}

// TestHashedKeysDistinct: two records with one hash would be one key; none of the first 10^6 share.
func TestHashedKeysDistinct(t *testing.T) {
	const n = 1_000_000
	hashes := make([]int64, n)
	for v := range hashes {
		hashes[v] = FNVHash64(int64(v))
	}
	slices.Sort(hashes)
	for i := 1; i < n; i++ {
		if hashes[i] == hashes[i-1] {
			t.Fatalf("two of the first %d records share the hash %d", n, hashes[i])
		}
	}
}
