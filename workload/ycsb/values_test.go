package ycsb

import (
	"strconv"
	"testing"
)

// seqSource hands out fixed 64-bit values in turn.
type seqSource struct {
	v []uint64
	i int
}

func (s *seqSource) Uint64() uint64   { x := s.v[s.i%len(s.v)]; s.i++; return x }
func (s *seqSource) Float64() float64 { return float64(s.Uint64()>>11) / (1 << 53) }

// javaFillBytesImpl is RandomByteIterator.fillBytesImpl transcribed: the switch on the room left
// falls through from the highest position to position 0.
func javaFillBytesImpl(buffer []byte, base int, bytes int32) {
	left := len(buffer) - base
	if left >= 6 {
		buffer[base+5] = byte(((bytes >> 25) & 95) + ' ')
	}
	if left >= 5 {
		buffer[base+4] = byte(((bytes >> 20) & 63) + ' ')
	}
	if left >= 4 {
		buffer[base+3] = byte(((bytes >> 15) & 31) + ' ')
	}
	if left >= 3 {
		buffer[base+2] = byte(((bytes >> 10) & 95) + ' ')
	}
	if left >= 2 {
		buffer[base+1] = byte(((bytes >> 5) & 63) + ' ')
	}
	if left >= 1 {
		buffer[base+0] = byte(((bytes) & 31) + ' ')
	}
}

// javaToArray is RandomByteIterator(len).toArray() given the ints nextInt returns after the
// constructor's: nextBuf fills the array six bytes (one int) at a time.
func javaToArray(n int, ints []int32) []byte {
	ret := make([]byte, n)
	k := 0
	for i := 0; i < n; i += 6 {
		javaFillBytesImpl(ret, i, ints[k])
		k++
	}
	return ret
}

// TestRandomValueIsRandomByteIterator: the same 32-bit ints give the same characters as YCSB's
// RandomByteIterator, for every length up to a few groups and a long one, and values of n
// characters take ceil(n/6) ints, two per 64-bit draw, the high half first.
func TestRandomValueIsRandomByteIterator(t *testing.T) {
	draws := []uint64{0xdeadbeef01234567, 0xffffffffffffffff, 0x0000000080000000, 0x7fffffff12345678, 0xa5a5a5a55a5a5a5a}
	var ints []int32
	for range 40 {
		for _, d := range draws {
			ints = append(ints, int32(d>>32), int32(d))
		}
	}
	for _, n := range []int{0, 1, 2, 5, 6, 7, 11, 12, 13, 17, 18, 100, 1000} {
		src := &seqSource{v: draws}
		got := AppendRandomValue([]byte("prefix"), src, n)
		want := javaToArray(n, ints)
		if string(got) != "prefix"+string(want) {
			t.Errorf("length %d:\n got %q\nwant %q", n, got[6:], want)
		}
		if groups := (n + 5) / 6; src.i != (groups+1)/2 {
			t.Errorf("length %d: %d draws, want %d", n, src.i, (groups+1)/2)
		}
	}
}

// The alphabet position by position: ' '..'?' at 0 and 3, ' '..'_' at 1 and 4, ' '..'?' or
// '`'..DEL at 2 and 5 (the mask 95 leaves bit 5 out), and every character of each range reached.
func TestRandomValueAlphabet(t *testing.T) {
	r := newRand(7)
	seen := [6]map[byte]bool{}
	for p := range seen {
		seen[p] = map[byte]bool{}
	}
	v := AppendRandomValue(nil, r, 6*20000)
	for i, c := range v {
		seen[i%6][c] = true
	}
	inRange := func(p int, c byte) bool {
		switch p % 3 {
		case 0:
			return c >= 32 && c <= 63
		case 1:
			return c >= 32 && c <= 95
		}
		return c >= 32 && c <= 63 || c >= 96 && c <= 127
	}
	for p, m := range seen {
		want := map[int]int{0: 32, 1: 64, 2: 64}[p%3]
		if len(m) != want {
			t.Errorf("position %d: %d distinct characters, want %d", p, len(m), want)
		}
		for c := range m {
			if !inRange(p, c) {
				t.Errorf("position %d: character %q outside its range", p, c)
			}
		}
	}
}

// javaDeterministic is buildDeterministicValue as YCSB writes it: the hash of the whole string
// recomputed on every turn.
func javaDeterministic(key, field string, size int) string {
	sb := key + ":" + field
	for len(sb) < size {
		sb += ":"
		sb += strconv.Itoa(int(javaHash(0, []byte(sb))))
	}
	return sb[:size]
}

func TestDeterministicValue(t *testing.T) {
	if h := javaHash(0, []byte("hello")); h != 99162322 {
		t.Errorf(`"hello".hashCode() = %d, want 99162322 (Java)`, h)
	}
	if got := string(AppendDeterministicValue(nil, "user1", "field0", 30)); got != "user1:field0:-1268391216:95720" {
		t.Errorf("user1/field0/30 = %q", got)
	}
	for _, tc := range []struct {
		key, field string
		size       int
	}{{"user1", "field0", 0}, {"user1", "field0", 5}, {"user1", "field0", 12}, {"user1", "field0", 13},
		{"user6284781860667377211", "field3", 100}, {"user42", "field9", 1000}, {"user0", "f", 2500}} {
		got := string(AppendDeterministicValue([]byte("x"), tc.key, tc.field, tc.size))
		if want := "x" + javaDeterministic(tc.key, tc.field, tc.size); got != want {
			t.Errorf("%s/%s/%d:\n got %q\nwant %q", tc.key, tc.field, tc.size, got, want)
		}
	}
}
