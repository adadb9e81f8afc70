package postgres

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// Parameters of the direct path (direct.go), encoded as pgx encodes them: the same format for each
// (argument type, parameter type) pair (strings in text format, everything else in the format pgx
// prefers for the parameter's type, binary for the types below) and the same bytes. The common
// pairs are written here straight into the connection's buffer; any other goes through pgx's type
// map (pgtype.Map.Encode), exactly as pgx.Conn would send it.

const (
	textFormat   = pgtype.TextFormatCode
	binaryFormat = pgtype.BinaryFormatCode
	// microsecFromUnixEpochToY2K is 2000-01-01 in microseconds since 1970-01-01.
	microsecFromUnixEpochToY2K = 946684800 * 1_000_000
)

// params are the encoded parameters of the statement being sent: values sliced from buf (nil for
// a NULL), their formats. One per connection, reused by every statement.
type params struct {
	vals [][]byte
	fmts []int16
	offs []int32 // start and end of each value in buf, -1 for a NULL
	buf  []byte
}

// encode fills p with the parameters of types oids from args.
func (p *params) encode(m *pgtype.Map, oids []uint32, args []any) error {
	if len(args) != len(oids) {
		return fmt.Errorf("postgres: the statement takes %d arguments, %d given", len(oids), len(args))
	}
	if p.buf == nil {
		p.buf = make([]byte, 0, 256) // never nil: an empty value sliced from it is not a NULL
	}
	buf := p.buf[:0]
	p.fmts = p.fmts[:0]
	p.offs = p.offs[:0]
	for i, arg := range args {
		start := len(buf)
		var format int16
		var null bool
		var err error
		buf, format, null, err = appendParam(m, oids[i], arg, buf)
		if err != nil {
			return fmt.Errorf("failed to encode args[%d]: %w", i, err)
		}
		if null {
			buf = buf[:start]
			p.offs = append(p.offs, -1, -1)
		} else {
			p.offs = append(p.offs, int32(start), int32(len(buf)))
		}
		p.fmts = append(p.fmts, format)
	}
	p.buf = buf
	p.vals = p.vals[:0]
	for i := 0; i < len(p.offs); i += 2 {
		if p.offs[i] < 0 {
			p.vals = append(p.vals, nil)
			continue
		}
		p.vals = append(p.vals, buf[p.offs[i]:p.offs[i+1]:p.offs[i+1]])
	}
	return nil
}

// appendParam appends arg as a parameter of type oid to buf; null reports a NULL (nothing
// appended).
func appendParam(m *pgtype.Map, oid uint32, arg any, buf []byte) (_ []byte, format int16, null bool, err error) {
	switch v := arg.(type) {
	case nil:
		return buf, binaryFormat, true, nil
	case int:
		if b, ok := appendInt(buf, oid, int64(v)); ok {
			return b, binaryFormat, false, nil
		}
	case int64:
		if b, ok := appendInt(buf, oid, v); ok {
			return b, binaryFormat, false, nil
		}
	case int32:
		if b, ok := appendInt(buf, oid, int64(v)); ok {
			return b, binaryFormat, false, nil
		}
	case int16:
		if b, ok := appendInt(buf, oid, int64(v)); ok {
			return b, binaryFormat, false, nil
		}
	case string:
		return append(buf, v...), textFormat, false, nil
	case *string:
		if v == nil {
			return buf, textFormat, true, nil
		}
		return append(buf, *v...), textFormat, false, nil
	case float64:
		if oid == pgtype.Float8OID {
			return binary.BigEndian.AppendUint64(buf, math.Float64bits(v)), binaryFormat, false, nil
		}
	case bool:
		if oid == pgtype.BoolOID {
			b := byte(0)
			if v {
				b = 1
			}
			return append(buf, b), binaryFormat, false, nil
		}
	case []byte:
		if oid == pgtype.ByteaOID {
			if v == nil {
				return buf, binaryFormat, true, nil
			}
			return append(buf, v...), binaryFormat, false, nil
		}
	case time.Time:
		switch oid {
		case pgtype.TimestampOID:
			// pgx's timestamp: the wall clock read as UTC (the location discarded)
			t := v
			if t.Location() != time.UTC {
				t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
			}
			us := t.Unix()*1_000_000 + int64(t.Nanosecond())/1000 - microsecFromUnixEpochToY2K
			return binary.BigEndian.AppendUint64(buf, uint64(us)), binaryFormat, false, nil
		case pgtype.TimestamptzOID:
			us := v.Unix()*1_000_000 + int64(v.Nanosecond())/1000 - microsecFromUnixEpochToY2K
			return binary.BigEndian.AppendUint64(buf, uint64(us)), binaryFormat, false, nil
		case pgtype.DateOID:
			days := (time.Date(v.Year(), v.Month(), v.Day(), 0, 0, 0, 0, time.UTC).Unix() - 946684800) / 86400
			return binary.BigEndian.AppendUint32(buf, uint32(int32(days))), binaryFormat, false, nil
		}
	case ScaledNumeric:
		if oid == pgtype.NumericOID {
			units, scale := v.ScaledNumeric()
			if b, ok := appendScaledNumeric(buf, units, scale); ok {
				return b, binaryFormat, false, nil
			}
		}
	case EpochDate:
		if oid == pgtype.DateOID {
			return binary.BigEndian.AppendUint32(buf, uint32(v.EpochDays()-pgEpochDays)), binaryFormat, false, nil
		}
	}
	if b, ok := appendAsText(buf, oid, arg); ok {
		return b, textFormat, false, nil
	}
	return appendPgx(m, oid, arg, buf)
}

// appendAsText appends a number or a bool bound to a parameter the server typed as text (text,
// varchar, char, name: what it infers for `SELECT $1`) as its text, in text format, the server's
// own input for such a parameter. pgbench sends every variable so (`\set x 5` then `SELECT :x`);
// pgx refuses to ("unable to encode 5 into text format for text"). A double is written as pgbench
// writes it (%.15g); ok is false for any other argument or type.
func appendAsText(buf []byte, oid uint32, arg any) (_ []byte, ok bool) {
	switch oid {
	case pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID:
	default:
		return buf, false
	}
	switch v := arg.(type) {
	case int:
		return strconv.AppendInt(buf, int64(v), 10), true
	case int64:
		return strconv.AppendInt(buf, v, 10), true
	case int32:
		return strconv.AppendInt(buf, int64(v), 10), true
	case int16:
		return strconv.AppendInt(buf, int64(v), 10), true
	case float64:
		return strconv.AppendFloat(buf, v, 'g', 15, 64), true
	case bool:
		return strconv.AppendBool(buf, v), true
	}
	return buf, false
}

// asTextCodec is pgx's TextCodec that also encodes what appendAsText does (a number or a bool bound
// to a text-typed parameter) as its text, so that the statements left to pgx (a pooler in
// transaction pooling, the URL's default_query_exec_mode) send pgbench's variables as candor's wire
// does, where pgx alone refuses them. registerAsText puts it on a connection's type map for the
// text-like types.
type asTextCodec struct{ pgtype.TextCodec }

func (c asTextCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if p := c.TextCodec.PlanEncode(m, oid, format, value); p != nil {
		return p
	}
	if _, ok := appendAsText(nil, oid, value); ok && format == pgtype.TextFormatCode {
		return asTextPlan(oid)
	}
	return nil
}

// asTextPlan encodes a value appendAsText takes for its parameter type.
type asTextPlan uint32

func (p asTextPlan) Encode(value any, buf []byte) ([]byte, error) {
	b, _ := appendAsText(buf, uint32(p), value)
	return b, nil
}

// registerAsText registers asTextCodec on m for text, varchar, char and name.
func registerAsText(m *pgtype.Map) {
	for _, t := range []struct {
		name string
		oid  uint32
	}{{"text", pgtype.TextOID}, {"varchar", pgtype.VarcharOID}, {"bpchar", pgtype.BPCharOID}, {"name", pgtype.NameOID}} {
		m.RegisterType(&pgtype.Type{Name: t.name, OID: t.oid, Codec: asTextCodec{}})
	}
}

// appendInt appends v as an int2, int4 or int8 parameter; ok is false for another type, or a value
// out of the type's range (pgx then reports it).
func appendInt(buf []byte, oid uint32, v int64) (_ []byte, ok bool) {
	switch oid {
	case pgtype.Int8OID:
		return binary.BigEndian.AppendUint64(buf, uint64(v)), true
	case pgtype.Int4OID:
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			return binary.BigEndian.AppendUint32(buf, uint32(int32(v))), true
		}
	case pgtype.Int2OID:
		if v >= math.MinInt16 && v <= math.MaxInt16 {
			return binary.BigEndian.AppendUint16(buf, uint16(int16(v))), true
		}
	}
	return buf, false
}

// appendPgx encodes arg with pgx's type map, choosing the format as pgx's ExtendedQueryBuilder does
// (text for strings, else the type's preferred format, the other one if that fails).
func appendPgx(m *pgtype.Map, oid uint32, arg any, buf []byte) (_ []byte, format int16, null bool, err error) {
	format = m.FormatCodeForOID(oid)
	b, err := m.Encode(oid, format, arg, buf)
	if err != nil {
		other := int16(textFormat)
		if format == textFormat {
			other = binaryFormat
		}
		b2, err2 := m.Encode(oid, other, arg, buf)
		if err2 != nil {
			return buf, format, false, err
		}
		b, format = b2, other
	}
	if b == nil {
		return buf, format, true, nil
	}
	return b, format, false, nil
}
