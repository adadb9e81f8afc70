package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// rat is units × 10^-scale exactly.
func rat(units int64, scale int16) *big.Rat {
	d := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	return new(big.Rat).SetFrac(big.NewInt(units), d)
}

// TestScaledNumeric encodes values with appendScaledNumeric and decodes them with pgx's own binary
// NUMERIC decoder (numeric_send's format): the same number, the display scale as given, and the
// bytes pgx itself sends for the value, but for trailing zero digits pgx may keep.
func TestScaledNumeric(t *testing.T) {
	cases := [][2]int64{{0, 0}, {0, 2}, {1, 2}, {-1, 2}, {12345, 2}, {-12345, 2}, {10000, 0}, {100000000, 2},
		{99999999, 4}, {1, 16}, {math.MaxInt64, 0}, {math.MinInt64 + 1, 0}, {math.MaxInt64 / 1000, 1},
		{104949, 2}, {-99999, 2}, {100, 2}, {1000000, 2}, {5, 1}, {123456789, 7}}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		u := r.Int64N(1<<uint(r.IntN(62)+1)) - r.Int64N(1<<uint(r.IntN(40)+1))
		cases = append(cases, [2]int64{u, int64(r.IntN(9))})
	}
	m := pgtype.NewMap()
	for _, c := range cases {
		units, scale := c[0], int16(c[1])
		b, ok := appendScaledNumeric(nil, units, scale)
		if !ok {
			if units >= math.MaxInt64/1000 || units <= math.MinInt64/1000 {
				continue // pgx's path, below
			}
			t.Fatalf("%d × 10^-%d: not encoded", units, scale)
		}
		var n pgtype.Numeric
		if err := m.Scan(pgtype.NumericOID, pgtype.BinaryFormatCode, b, &n); err != nil {
			t.Fatalf("%d × 10^-%d: %x does not decode: %v", units, scale, b, err)
		}
		got := new(big.Rat).SetInt(n.Int)
		e := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(n.Exp, -n.Exp))), nil)
		if n.Exp >= 0 {
			got.Mul(got, new(big.Rat).SetInt(e))
		} else {
			got.Quo(got, new(big.Rat).SetInt(e))
		}
		if got.Cmp(rat(units, scale)) != 0 {
			t.Fatalf("%d × 10^-%d: %x decodes to %s", units, scale, b, got.FloatString(int(scale)))
		}
		if ds := int16(binary.BigEndian.Uint16(b[6:])); ds != scale {
			t.Fatalf("%d × 10^-%d: display scale %d", units, scale, ds)
		}
	}
	for _, bad := range [][2]int64{{1, -1}, {1, 17}, {math.MaxInt64, 1}} {
		if _, ok := appendScaledNumeric(nil, bad[0], int16(bad[1])); ok {
			t.Errorf("%d × 10^-%d encoded, want pgx's path", bad[0], bad[1])
		}
	}
}

type scaled struct {
	units int64
	scale int16
}

func (s scaled) ScaledNumeric() (int64, int16) { return s.units, s.scale }

// TestScaledNumericPlan: the registered codec takes ScaledNumeric values in binary, pgx's plan
// the values appendScaledNumeric cannot encode, and pgx's codec everything else.
func TestScaledNumericPlan(t *testing.T) {
	m := pgtype.NewMap()
	registerNumeric(m)
	for _, v := range []scaled{{12345, 2}, {math.MaxInt64, 3}, {-7, 17}} {
		b, err := m.Encode(pgtype.NumericOID, pgtype.BinaryFormatCode, v, nil)
		if err != nil {
			t.Fatal(err)
		}
		var n pgtype.Numeric
		if err := m.Scan(pgtype.NumericOID, pgtype.BinaryFormatCode, b, &n); err != nil {
			t.Fatal(err)
		}
		want := rat(v.units, v.scale)
		got := new(big.Rat).SetInt(n.Int)
		e := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-n.Exp)), nil))
		if got.Quo(got, e).Cmp(want) != 0 {
			t.Errorf("%v: %x decodes to %s, want %s", v, b, got.RatString(), want.RatString())
		}
	}
	b, err := m.Encode(pgtype.NumericOID, pgtype.TextFormatCode, pgtype.Numeric{Int: big.NewInt(105), Exp: -1, Valid: true}, nil)
	if err != nil || string(b) != "10.5" {
		t.Errorf("text numeric: %q, %v", b, err)
	}
}

// scaledSource is a RowSource of (id, ScaledNumeric) rows.
type scaledSource struct {
	i    int
	vals []scaled
	row  []any
}

func (s *scaledSource) Next() bool { s.i++; return s.i <= len(s.vals) }
func (s *scaledSource) Values() ([]any, error) {
	s.row = append(s.row[:0], s.i, s.vals[s.i-1])
	return s.row, nil
}
func (s *scaledSource) Err() error { return nil }

// TestCopyScaledNumeric copies ScaledNumeric values through binary COPY into NUMERIC columns of a
// real server and reads them back as the server prints them.
func TestCopyScaledNumeric(t *testing.T) {
	db := openDB(t)
	c := connect(t, db)
	ctx := testCtx(t)
	name := fmt.Sprintf("candor_drvtest_num_%d", os.Getpid())
	mustExec(t, c, "CREATE TABLE "+name+" (id int PRIMARY KEY, d numeric NOT NULL)")
	t.Cleanup(func() { _, _ = c.Exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+name) })
	vals := []scaled{{12345, 2}, {-12345, 2}, {0, 2}, {1, 2}, {-1, 2}, {100000000, 2}, {999999999999999, 2},
		{7, 0}, {10000, 0}, {5, 1}, {123456789, 7}, {1, 16}, {math.MaxInt64, 3}, {-7, 17}}
	want := []string{"123.45", "-123.45", "0.00", "0.01", "-0.01", "1000000.00", "9999999999999.99",
		"7", "10000", "0.5", "12.3456789", "0.0000000000000001", "9223372036854775.807", "-0.00000000000000007"}
	if n, err := c.CopyFrom(ctx, name, []string{"id", "d"}, &scaledSource{vals: vals}); err != nil || n != int64(len(vals)) {
		t.Fatalf("CopyFrom = %d, %v", n, err)
	}
	for i, w := range want {
		var got string
		if err := c.QueryRow(ctx, "SELECT d::text FROM "+name+" WHERE id = $1", i+1).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != w {
			t.Errorf("%v: the server holds %s, want %s", vals[i], got, w)
		}
	}
}

type epochDate int32

func (d epochDate) EpochDays() int32 { return int32(d) }

// TestEpochDate encodes EpochDate values with the registered codec and decodes them with pgx's
// DATE decoder.
func TestEpochDate(t *testing.T) {
	m := pgtype.NewMap()
	registerNumeric(m)
	for _, d := range []epochDate{0, 1, -1, 10957, 8035, 10591, 20000, -719162} {
		b, err := m.Encode(pgtype.DateOID, pgtype.BinaryFormatCode, d, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got pgtype.Date
		if err := m.Scan(pgtype.DateOID, pgtype.BinaryFormatCode, b, &got); err != nil {
			t.Fatal(err)
		}
		want := time.Unix(int64(d)*86400, 0).UTC()
		if !got.Valid || !got.Time.Equal(want) {
			t.Errorf("%d days: %x decodes to %v, want %v", d, b, got.Time, want)
		}
	}
}

type dateSource struct {
	i    int
	vals []epochDate
	row  []any
}

func (s *dateSource) Next() bool { s.i++; return s.i <= len(s.vals) }
func (s *dateSource) Values() ([]any, error) {
	s.row = append(s.row[:0], s.i, s.vals[s.i-1])
	return s.row, nil
}
func (s *dateSource) Err() error { return nil }

// TestCopyEpochDate copies EpochDate values through binary COPY into a DATE column of a real
// server and reads them back as the server prints them.
func TestCopyEpochDate(t *testing.T) {
	db := openDB(t)
	c := connect(t, db)
	ctx := testCtx(t)
	name := fmt.Sprintf("candor_drvtest_date_%d", os.Getpid())
	mustExec(t, c, "CREATE TABLE "+name+" (id int PRIMARY KEY, d date NOT NULL)")
	t.Cleanup(func() { _, _ = c.Exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+name) })
	vals := []epochDate{0, 10957, 8035, 10591, -1}
	want := []string{"1970-01-01", "2000-01-01", "1992-01-01", "1998-12-31", "1969-12-31"}
	if n, err := c.CopyFrom(ctx, name, []string{"id", "d"}, &dateSource{vals: vals}); err != nil || n != int64(len(vals)) {
		t.Fatalf("CopyFrom = %d, %v", n, err)
	}
	for i, w := range want {
		var got string
		if err := c.QueryRow(ctx, "SELECT d::text FROM "+name+" WHERE id = $1", i+1).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != w {
			t.Errorf("%d days: the server holds %s, want %s", vals[i], got, w)
		}
	}
}
