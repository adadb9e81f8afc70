package postgres

import (
	"encoding/binary"
	"math"
	"math/big"

	"github.com/jackc/pgx/v5/pgtype"
)

// ScaledNumeric is a value that binary COPY and binary parameters send as a NUMERIC straight from
// an integer: units × 10^-scale (scale 0 to 16; 12345 and 2 are 123.45), with display scale
// `scale`. pgx's own path for an exact decimal (pgtype.NumericValuer) turns every value into
// base-10000 digits with big.Int divisions and allocations: in a load of decimal-heavy rows (TPC-H)
// it was a third of candor's CPU. Values outside its range (scale beyond 16, units whose
// alignment overflows) take pgx's path, so any value is sent exactly.
type ScaledNumeric interface {
	ScaledNumeric() (units int64, scale int16)
}

// numericCodec is pgx's NumericCodec, with the encoding of ScaledNumeric values in binary.
type numericCodec struct{ pgtype.NumericCodec }

func (c numericCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if _, ok := value.(ScaledNumeric); ok && format == pgtype.BinaryFormatCode {
		return scaledNumericPlan{}
	}
	return c.NumericCodec.PlanEncode(m, oid, format, value)
}

// registerNumeric makes m encode ScaledNumeric and EpochDate values (m is a connection's type
// map).
func registerNumeric(m *pgtype.Map) {
	m.RegisterType(&pgtype.Type{Name: "numeric", OID: pgtype.NumericOID, Codec: numericCodec{}})
	m.RegisterType(&pgtype.Type{Name: "date", OID: pgtype.DateOID, Codec: dateCodec{}})
}

type scaledNumericPlan struct{}

var pow10 = [...]uint64{1, 10, 100, 1000}

func (scaledNumericPlan) Encode(value any, buf []byte) ([]byte, error) {
	units, scale := value.(ScaledNumeric).ScaledNumeric()
	if b, ok := appendScaledNumeric(buf, units, scale); ok {
		return b, nil
	}
	n := pgtype.Numeric{Int: new(big.Int).SetInt64(units), Exp: -int32(scale), Valid: true}
	return pgtype.NumericCodec{}.PlanEncode(nil, pgtype.NumericOID, pgtype.BinaryFormatCode, n).Encode(n, buf)
}

// appendScaledNumeric appends PostgreSQL's binary NUMERIC (numeric_send: ndigits, weight, sign,
// dscale as 16-bit integers, then the base-10000 digits from the most significant, without
// leading or trailing zero digits) of units × 10^-scale; ok is false when it cannot (scale out of
// 0..16, or units too large to align on a base-10000 digit).
func appendScaledNumeric(buf []byte, units int64, scale int16) (_ []byte, ok bool) {
	if scale < 0 || scale > 16 {
		return buf, false
	}
	var sign uint16
	u := uint64(units)
	if units < 0 {
		sign = 0x4000
		u = -u
	}
	// Align the fraction on whole base-10000 digits: pad decimal places up to a multiple of 4.
	pad := (4 - int(scale)%4) % 4
	if u > math.MaxUint64/pow10[pad] {
		return buf, false
	}
	u *= pow10[pad]
	frac := (int(scale) + pad) / 4 // base-10000 digits after the point
	var digits [8]uint16           // least significant first; 2⁶⁴ has 20 decimal digits
	n := 0
	for ; u > 0; u /= 10000 {
		digits[n] = uint16(u % 10000)
		n++
	}
	low := 0
	for low < n && digits[low] == 0 {
		low++
	}
	weight := n - 1 - frac
	if n == 0 {
		weight = 0
	}
	buf = binary.BigEndian.AppendUint16(buf, uint16(n-low))
	buf = binary.BigEndian.AppendUint16(buf, uint16(int16(weight)))
	buf = binary.BigEndian.AppendUint16(buf, sign)
	buf = binary.BigEndian.AppendUint16(buf, uint16(scale))
	for i := n - 1; i >= low; i-- {
		buf = binary.BigEndian.AppendUint16(buf, digits[i])
	}
	return buf, true
}
