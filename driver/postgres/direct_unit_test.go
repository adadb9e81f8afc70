package postgres

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

type epochDays int32

func (d epochDays) EpochDays() int32 { return int32(d) }

// typeMap is a connection's type map as connect makes it.
func typeMap() *pgtype.Map {
	m := pgtype.NewMap()
	registerNumeric(m)
	return m
}

// paramCases are (parameter type, argument) pairs: the direct path's own and some of pgx's.
func paramCases() []struct {
	oid uint32
	arg any
} {
	s := "it's"
	zone := time.FixedZone("UTC+5:30", 5*3600+1800)
	times := []time.Time{
		time.Date(2026, 11, 26, 18, 30, 1, 123456789, time.UTC),
		time.Date(2026, 11, 26, 18, 30, 1, 123456789, zone),
		time.Date(1969, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(1900, 2, 28, 1, 2, 3, 4000, zone),
		time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Unix(0, 0),
	}
	var out []struct {
		oid uint32
		arg any
	}
	add := func(oid uint32, args ...any) {
		for _, a := range args {
			out = append(out, struct {
				oid uint32
				arg any
			}{oid, a})
		}
	}
	ints := []any{0, 1, -1, 42, math.MaxInt16, math.MinInt16, math.MaxInt16 + 1, math.MaxInt32, math.MinInt32,
		math.MaxInt32 + 1, math.MinInt32 - 1, math.MaxInt64, math.MinInt64,
		int64(7), int64(math.MaxInt64), int32(-7), int32(math.MaxInt32), int16(-3)}
	for _, oid := range []uint32{pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID, pgtype.NumericOID, pgtype.Float8OID, pgtype.TextOID} {
		add(oid, ints...)
	}
	for _, oid := range []uint32{pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.Int4OID, pgtype.Int4ArrayOID, pgtype.DateOID} {
		add(oid, "", "abc", "{1,2,3}", "2026-11-26", &s, (*string)(nil), "héllo \x01")
	}
	add(pgtype.Float8OID, 0.0, -0.0, 1.5, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, math.SmallestNonzeroFloat64)
	add(pgtype.NumericOID, 1.5, 0.1)
	add(pgtype.Float4OID, 1.5)
	add(pgtype.BoolOID, true, false)
	add(pgtype.ByteaOID, []byte(nil), []byte{}, []byte{0, 1, 2, 255})
	add(pgtype.TextOID, []byte("abc"))
	for _, tm := range times {
		add(pgtype.TimestampOID, tm)
		add(pgtype.TimestamptzOID, tm)
		add(pgtype.DateOID, tm)
	}
	add(pgtype.NumericOID, scaled{12345, 2}, scaled{-1, 4}, scaled{0, 0}, scaled{math.MaxInt64, 3}, scaled{5, 17})
	add(pgtype.DateOID, epochDays(0), epochDays(20000), epochDays(-800000))
	add(pgtype.Int4OID, nil, (*int32)(nil), uint32(5), int8(3))
	add(pgtype.Int8ArrayOID, []int64{1, 2, 3}, []int32{4, 5})
	add(pgtype.TextArrayOID, []string{"a", "b c"})
	return out
}

// TestParamsMatchPgx: every parameter is encoded as pgx's ExtendedQueryBuilder encodes it (same
// format, same bytes, NULL as NULL), and refused where pgx refuses it.
func TestParamsMatchPgx(t *testing.T) {
	m := typeMap()
	var p params
	for _, c := range paramCases() {
		var eqb pgx.ExtendedQueryBuilder
		werr := eqb.Build(m, &pgconn.StatementDescription{ParamOIDs: []uint32{c.oid}}, []any{c.arg})
		err := p.encode(m, []uint32{c.oid}, []any{c.arg})
		if want, ok := asText(c.oid, c.arg); ok {
			// Where candor departs from pgx on purpose: a number or a bool for a parameter typed
			// as text goes as its text (pgbench's `SELECT :x`), where pgx refuses it.
			if err != nil || p.fmts[0] != textFormat || string(p.vals[0]) != want {
				t.Errorf("oid %d, %T %#v: format %d %q, %v; want the text %q", c.oid, c.arg, c.arg, p.fmts[0], p.vals[0], err, want)
			}
			continue
		}
		if (err != nil) != (werr != nil) {
			t.Errorf("oid %d, %T %#v: error %v, pgx's %v", c.oid, c.arg, c.arg, err, werr)
			continue
		}
		if err != nil {
			continue
		}
		got, want := p.vals[0], eqb.ParamValues[0]
		if p.fmts[0] != eqb.ParamFormats[0] || (got == nil) != (want == nil) || !bytes.Equal(got, want) {
			t.Errorf("oid %d, %T %#v: format %d %x (null %v), pgx's format %d %x (null %v)", c.oid, c.arg, c.arg,
				p.fmts[0], got, got == nil, eqb.ParamFormats[0], want, want == nil)
		}
	}
	// several at once: each value its own, an empty one not a NULL
	if err := p.encode(m, []uint32{pgtype.TextOID, pgtype.Int4OID, pgtype.TextOID, pgtype.Int8OID},
		[]any{"", nil, "x", int64(9)}); err != nil {
		t.Fatal(err)
	}
	if p.vals[0] == nil || len(p.vals[0]) != 0 || p.vals[1] != nil || string(p.vals[2]) != "x" ||
		binary.BigEndian.Uint64(p.vals[3]) != 9 {
		t.Fatalf("values %q", p.vals)
	}
	if err := p.encode(m, []uint32{pgtype.Int4OID}, []any{1, 2}); err == nil {
		t.Fatal("two arguments for one parameter: no error")
	}
}

// decodeDests are fresh destinations of every kind decodeValue takes, and one it leaves to pgx.
func decodeDests() []any {
	return []any{new(int64), new(int32), new(int), new(int16), new(float64), new(bool), new(string),
		new([]byte), new(time.Time), new(pgtype.Int8)}
}

// sameScan compares what two destinations of one kind hold.
func sameScan(a, b any) bool {
	if ta, ok := a.(*time.Time); ok {
		tb := b.(*time.Time)
		return ta.Equal(*tb) && ta.Location().String() == tb.Location().String()
	}
	if fa, ok := a.(*float64); ok {
		fb := b.(*float64)
		return math.Float64bits(*fa) == math.Float64bits(*fb)
	}
	return reflect.DeepEqual(a, b)
}

// checkDecode decodes src of type oid in format into every destination kind, by decodeValue where
// it takes the pair, and requires pgx's Scan to succeed with the same value there.
func checkDecode(t *testing.T, m *pgtype.Map, oid uint32, format int16, src []byte) {
	t.Helper()
	for i, d := range decodeDests() {
		if !decodeValue(oid, format, src, d) {
			continue
		}
		want := decodeDests()[i]
		if err := m.Scan(oid, format, src, want); err != nil {
			t.Fatalf("oid %d format %d %x into %T: decoded to %v, pgx fails: %v", oid, format, src, d, reflect.ValueOf(d).Elem(), err)
		}
		if !sameScan(d, want) {
			t.Fatalf("oid %d format %d %x into %T: %v, pgx's %v", oid, format, src, d,
				reflect.ValueOf(d).Elem(), reflect.ValueOf(want).Elem())
		}
	}
}

// TestDecodeMatchesPgx: values pgx encodes for each type decode, where decodeValue takes them, to
// what pgx's Scan gives.
func TestDecodeMatchesPgx(t *testing.T) {
	m := typeMap()
	taken := map[string]bool{}
	for _, c := range paramCases() {
		if c.arg == nil {
			continue
		}
		for _, format := range []int16{binaryFormat, textFormat} {
			src, err := m.Encode(c.oid, format, c.arg, nil)
			if err != nil || src == nil {
				continue
			}
			checkDecode(t, m, c.oid, format, src)
			for _, d := range decodeDests() {
				if decodeValue(c.oid, format, src, d) {
					taken[reflect.TypeOf(d).String()] = true
				}
			}
		}
	}
	// the special values pgx turns into errors or its own types are left to it
	for _, src := range [][]byte{{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, {0x80, 0, 0, 0, 0, 0, 0, 0}} {
		if decodeValue(pgtype.TimestampOID, binaryFormat, src, new(time.Time)) {
			t.Errorf("timestamp %x (infinity) decoded", src)
		}
	}
	if decodeValue(pgtype.DateOID, binaryFormat, []byte{0x7f, 0xff, 0xff, 0xff}, new(time.Time)) {
		t.Error("date infinity decoded")
	}
	if decodeValue(pgtype.Int4OID, binaryFormat, nil, new(int32)) {
		t.Error("NULL decoded into *int32")
	}
	if decodeValue(pgtype.Int8OID, binaryFormat, []byte{0, 0, 0, 1, 0, 0, 0, 0}, new(int32)) {
		t.Error("an int8 beyond int32 decoded into *int32")
	}
	for _, kind := range []string{"*int64", "*int32", "*int", "*int16", "*float64", "*bool", "*string", "*[]uint8", "*time.Time"} {
		if !taken[kind] {
			t.Errorf("no value decoded into %s by decodeValue", kind)
		}
	}
}

// FuzzDecodeValue: whatever bytes come, decodeValue never panics, and what it decodes pgx decodes
// to the same value.
func FuzzDecodeValue(f *testing.F) {
	oids := []uint32{pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID, pgtype.Float4OID, pgtype.Float8OID,
		pgtype.BoolOID, pgtype.TextOID, pgtype.BPCharOID, pgtype.VarcharOID, pgtype.NameOID, pgtype.ByteaOID,
		pgtype.TimestampOID, pgtype.TimestamptzOID, pgtype.DateOID, pgtype.NumericOID}
	f.Add(uint8(2), true, []byte{0, 0, 0, 0, 0, 0, 0, 42})
	f.Add(uint8(11), true, []byte{0, 0, 0, 0, 0, 0, 0, 1})
	f.Add(uint8(13), true, []byte{0xff, 0xff, 0xff, 0xfe})
	f.Add(uint8(6), false, []byte("abc"))
	m := typeMap()
	f.Fuzz(func(t *testing.T, o uint8, binary bool, src []byte) {
		format := int16(textFormat)
		if binary {
			format = binaryFormat
		}
		checkDecode(t, m, oids[int(o)%len(oids)], format, src)
	})
}

// asText is the text a number or bool bound to a text-typed parameter goes as (appendAsText), and
// whether it goes so.
func asText(oid uint32, arg any) (string, bool) {
	switch oid {
	case pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID:
	default:
		return "", false
	}
	switch v := arg.(type) {
	case int, int64, int32, int16:
		return fmt.Sprint(v), true
	case float64:
		return strconv.FormatFloat(v, 'g', 15, 64), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}
