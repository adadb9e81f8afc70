package ycsb

import "strconv"

// Field values, as CoreWorkload builds them for the load and for updates and inserts.
//
// Random values (YCSB's RandomByteIterator, site.ycsb.RandomByteIterator.fillBytesImpl): every
// 32-bit random int (Java's nextInt) makes up to six characters, character p of the group (p = 0..5)
// being
//
//	' ' + ((bits >> 5p) & mask[p]),  mask = 31, 63, 95, 31, 63, 95
//
// so positions 0 and 3 are in ' '..'?' (32..63), positions 1 and 4 in ' '..'_' (32..95), and
// positions 2 and 5 in ' '..'?' or '`'..DEL (32..63, 96..127: the mask 95 has bit 5 clear). The
// last group of a value uses its first positions only. The characters are ASCII, so a value of n
// characters is n bytes in every encoding.
//
// Differences, none of which changes a value's distribution: YCSB draws from the thread's
// ThreadLocalRandom, candor from the terminal's (or the load chunk's) own stream, two groups per
// 64-bit draw (the high 32 bits first); and YCSB's constructor fills an internal buffer it never
// uses when the value is read whole (toArray, as the JDBC binding's toString does), a draw candor
// does not make.
var randomMasks = [6]int32{31, 63, 95, 31, 63, 95}

// AppendRandomValue appends n characters of RandomByteIterator's alphabet drawn from r.
func AppendRandomValue(dst []byte, r Source, n int) []byte {
	for n > 0 {
		x := r.Uint64()
		dst, n = appendRandomGroup(dst, int32(x>>32), n)
		if n > 0 {
			dst, n = appendRandomGroup(dst, int32(x), n)
		}
	}
	return dst
}

// appendRandomGroup appends min(n, 6) characters made from bits, and returns how many are left.
func appendRandomGroup(dst []byte, bits int32, n int) ([]byte, int) {
	k := min(n, 6)
	for p := range k {
		dst = append(dst, byte((bits>>(5*p))&randomMasks[p]+' '))
	}
	return dst, n - k
}

// AppendDeterministicValue appends CoreWorkload.buildDeterministicValue(key, field) of size
// characters, the value dataintegrity=true writes and verifies: key + ":" + field, then ":" and the
// Java String.hashCode of everything so far (signed decimal) while shorter than size, cut to size.
//
//	buildDeterministicValue("user1", "field0") of 30 = "user1:field0:-1268391216:95720" (cut at 30)
//
// The hash is kept incrementally (Java's hash of s+t is hash(s)*31^len(t) + hash(t)), so a value costs
// O(size) where YCSB's costs O(size^2/12).
func AppendDeterministicValue(dst []byte, key, field string, size int) []byte {
	start := len(dst)
	dst = append(dst, key...)
	dst = append(dst, ':')
	dst = append(dst, field...)
	h := javaHash(0, dst[start:])
	for len(dst)-start < size {
		dst = append(dst, ':')
		h = h*31 + ':'
		from := len(dst)
		dst = strconv.AppendInt(dst, int64(h), 10)
		h = javaHash(h, dst[from:])
	}
	return dst[:start+size]
}

// javaHash continues Java's String.hashCode (h = 31*h + c, in 32-bit arithmetic) over ASCII b.
func javaHash(h int32, b []byte) int32 {
	for _, c := range b {
		h = h*31 + int32(c)
	}
	return h
}
