package tpcc

import (
	"math/big"
	"strconv"

	"github.com/jackc/pgx/v5/pgtype"
)

// decimal is an exact NUMERIC value for PostgreSQL's bulk path: units x 10^-scale (cents with scale
// 2, ten-thousandths with scale 4). pgx encodes it through pgtype.NumericValuer, so COPY sends an
// exact binary numeric, never a float.
type decimal struct {
	units int64
	scale int32
}

func (d decimal) NumericValue() (pgtype.Numeric, error) {
	return pgtype.Numeric{Int: big.NewInt(d.units), Exp: -d.scale, Valid: true}, nil
}

// String writes the value as a decimal, 12.34 for {1234, 2}.
func (d decimal) String() string { return formatScaled(d.units, int(d.scale)) }

// AppendText appends the value as String writes it, without an allocation of its own: the MySQL
// driver's bulk path writes it as text (encoding.TextAppender).
func (d decimal) AppendText(b []byte) ([]byte, error) {
	u := uint64(d.units)
	if d.units < 0 {
		b = append(b, '-')
		u = -u
	}
	var digits [24]byte
	s := strconv.AppendUint(digits[:0], u, 10)
	scale := int(d.scale)
	if len(s) <= scale { // 0.0123: a zero before the point, zeros after it
		b = append(b, '0', '.')
		for i := len(s); i < scale; i++ {
			b = append(b, '0')
		}
		return append(b, s...), nil
	}
	b = append(b, s[:len(s)-scale]...)
	if scale > 0 {
		b = append(b, '.')
		b = append(b, s[len(s)-scale:]...)
	}
	return b, nil
}

var _ pgtype.NumericValuer = decimal{}

// formatScaled writes v x 10^-scale with exactly scale decimals: formatScaled(-1000, 2) = "-10.00".
func formatScaled(v int64, scale int) string {
	neg := v < 0
	u := uint64(v)
	if neg {
		u = -u
	}
	s := strconv.FormatUint(u, 10)
	for len(s) <= scale {
		s = "0" + s
	}
	if scale > 0 {
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
