package postgres

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// Rows of the direct path (direct.go), decoded as pgx decodes them: the common (column type,
// destination) pairs below straight from the bytes the server sent (in the format pgx asked for,
// binary for these types), any other pair, and every NULL, through pgx's type map
// (pgtype.Map.Scan), so values and errors are pgx's.

// decodeRow scans values (a row of fields) into dest.
func (c *Conn) decodeRow(fields []pgconn.FieldDescription, values [][]byte, dest []any) error {
	if len(fields) != len(dest) {
		return fmt.Errorf("number of field descriptions must equal number of destinations, got %d and %d", len(fields), len(dest))
	}
	if len(values) != len(fields) {
		return fmt.Errorf("postgres: a row of %d values for %d columns", len(values), len(fields))
	}
	for i := range dest {
		if dest[i] == nil {
			continue
		}
		f := &fields[i]
		if decodeValue(f.DataTypeOID, f.Format, values[i], dest[i]) {
			continue
		}
		if err := c.pc.TypeMap().Scan(f.DataTypeOID, f.Format, values[i], dest[i]); err != nil {
			return pgx.ScanArgError{ColumnIndex: i, FieldName: f.Name, Err: err}
		}
	}
	return nil
}

// Bounds of the values decodeValue takes itself (pgx reports those beyond: out of range, infinity).
const (
	// minDateDays..maxDateDays: days from 2000-01-01, within 4713 BC .. 5874897 AD
	minDateDays = -2_400_000
	maxDateDays = 2_000_000_000
	// maxTimestampMicros: microseconds from 2000-01-01, within 4713 BC .. 294276 AD
	maxTimestampMicros = 200_000 * 365 * 86400 * 1_000_000
	minTimestampMicros = -6_000 * 365 * 86400 * 1_000_000
)

// decodeValue scans src, a non-NULL value of type oid in format, into dst when it knows the pair;
// false leaves it to pgx.
func decodeValue(oid uint32, format int16, src []byte, dst any) bool {
	if src == nil {
		return false
	}
	switch d := dst.(type) {
	case *string:
		if isTextOID(oid) {
			*d = string(src)
			return true
		}
		return false
	case *[]byte:
		if oid == pgtype.ByteaOID && format == binaryFormat {
			*d = append(make([]byte, 0, len(src)), src...)
			return true
		}
		return false
	}
	if format != binaryFormat {
		return false
	}
	switch d := dst.(type) {
	case *int64:
		if v, ok := decodeInt(oid, src); ok {
			*d = v
			return true
		}
	case *int32:
		if v, ok := decodeInt(oid, src); ok && v >= math.MinInt32 && v <= math.MaxInt32 {
			*d = int32(v)
			return true
		}
	case *int:
		if v, ok := decodeInt(oid, src); ok && v >= math.MinInt && v <= math.MaxInt {
			*d = int(v)
			return true
		}
	case *int16:
		if v, ok := decodeInt(oid, src); ok && v >= math.MinInt16 && v <= math.MaxInt16 {
			*d = int16(v)
			return true
		}
	case *float64:
		switch {
		case oid == pgtype.Float8OID && len(src) == 8:
			*d = math.Float64frombits(binary.BigEndian.Uint64(src))
			return true
		case oid == pgtype.Float4OID && len(src) == 4:
			*d = float64(math.Float32frombits(binary.BigEndian.Uint32(src)))
			return true
		}
	case *bool:
		if oid == pgtype.BoolOID && len(src) == 1 {
			*d = src[0] == 1
			return true
		}
	case *time.Time:
		switch {
		case (oid == pgtype.TimestampOID || oid == pgtype.TimestamptzOID) && len(src) == 8:
			us := int64(binary.BigEndian.Uint64(src))
			if us < minTimestampMicros || us > maxTimestampMicros {
				return false
			}
			t := time.Unix(microsecFromUnixEpochToY2K/1_000_000+us/1_000_000, (us%1_000_000)*1000)
			if oid == pgtype.TimestampOID {
				t = t.UTC()
			}
			*d = t
			return true
		case oid == pgtype.DateOID && len(src) == 4:
			days := int32(binary.BigEndian.Uint32(src))
			if days < minDateDays || days > maxDateDays {
				return false
			}
			*d = time.Date(2000, 1, int(1+days), 0, 0, 0, 0, time.UTC)
			return true
		}
	}
	return false
}

// decodeInt reads a binary int2, int4 or int8.
func decodeInt(oid uint32, src []byte) (int64, bool) {
	switch {
	case oid == pgtype.Int8OID && len(src) == 8:
		return int64(binary.BigEndian.Uint64(src)), true
	case oid == pgtype.Int4OID && len(src) == 4:
		return int64(int32(binary.BigEndian.Uint32(src))), true
	case oid == pgtype.Int2OID && len(src) == 2:
		return int64(int16(binary.BigEndian.Uint16(src))), true
	}
	return 0, false
}

// isTextOID reports the types whose value, in either format, is the text itself.
func isTextOID(oid uint32) bool {
	switch oid {
	case pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID, pgtype.UnknownOID:
		return true
	}
	return false
}
