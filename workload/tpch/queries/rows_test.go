package queries

import (
	"math/big"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

func TestTextIsWhatCompareReads(t *testing.T) {
	num := pgtype.Numeric{Int: big.NewInt(12345), Exp: -2, Valid: true}
	for _, c := range []struct {
		in   any
		want string
	}{
		{nil, ""},
		{"BUILDING  ", "BUILDING  "},
		{[]byte("1193053.2253"), "1193053.2253"}, // MySQL's DECIMAL over the text protocol
		{int64(14876), "14876"},
		{int32(7), "7"},
		{float64(0.05008133906964238), "0.05008133906964238"},
		{float64(532348211.65), "532348211.65"}, // no exponent
		{time.Date(1995, 3, 15, 0, 0, 0, 0, time.UTC), "1995-03-15"},
		{num, "123.45"},                    // PostgreSQL's numeric (pgx)
		{pgtype.Numeric{Valid: false}, ""}, // its NULL
		{pgtype.Date{Time: time.Date(1996, 1, 1, 0, 0, 0, 0, time.UTC), Valid: true}, "1996-01-01"},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%#v) = %q, want %q", c.in, got, c.want)
		}
	}
}
