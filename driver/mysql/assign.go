package mysql

import (
	"bytes"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"time"
)

// assign stores src, a value go-sql-driver read (int64, uint64, float32, float64, []byte, string,
// time.Time or nil), in dest, as database/sql's Rows.Scan would (its convertAssign, whose rules
// assignSlow follows): the common pairs directly, a sql.Scanner through its Scan, anything else
// through reflection on dest's kind, with the same conversions and refusals
// (TestScanMatchesDatabaseSQL compares them on a real server). A []byte from the driver lives in the connection's buffer
// until the next row: it is copied, except into a *sql.RawBytes.
func assign(dest, src any) error {
	switch s := src.(type) {
	case int64:
		switch d := dest.(type) {
		case *int64:
			*d = s
			return nil
		case *int:
			if strconv.IntSize == 32 && int64(int(s)) != s {
				break // the reflection path reports the overflow
			}
			*d = int(s)
			return nil
		case *float64:
			*d = float64(s)
			return nil
		case *string:
			*d = strconv.FormatInt(s, 10)
			return nil
		case *any:
			*d = s
			return nil
		}
	case []byte:
		switch d := dest.(type) {
		case *string:
			*d = string(s)
			return nil
		case *[]byte:
			*d = bytes.Clone(s)
			return nil
		case *sql.RawBytes:
			*d = s
			return nil
		case *any:
			*d = bytes.Clone(s)
			return nil
		case *float64:
			f, err := strconv.ParseFloat(string(s), 64)
			if err != nil {
				return fmt.Errorf("converting driver.Value type %T (%q) to a float64: %w", src, s, numError(err))
			}
			*d = f
			return nil
		case *int64:
			n, err := strconv.ParseInt(string(s), 10, 64)
			if err != nil {
				return fmt.Errorf("converting driver.Value type %T (%q) to a int64: %w", src, s, numError(err))
			}
			*d = n
			return nil
		}
	case float64:
		switch d := dest.(type) {
		case *float64:
			*d = s
			return nil
		case *any:
			*d = s
			return nil
		}
	case time.Time:
		switch d := dest.(type) {
		case *time.Time:
			*d = s
			return nil
		case *any:
			*d = s
			return nil
		case *string:
			*d = s.Format(time.RFC3339Nano)
			return nil
		case *[]byte, *sql.RawBytes:
			b := s.AppendFormat(nil, time.RFC3339Nano)
			if r, ok := d.(*sql.RawBytes); ok {
				*r = b
			} else {
				*d.(*[]byte) = b
			}
			return nil
		}
	case string:
		switch d := dest.(type) {
		case *string:
			*d = s
			return nil
		case *[]byte:
			*d = []byte(s)
			return nil
		case *any:
			*d = s
			return nil
		}
	case nil:
		switch d := dest.(type) {
		case *any:
			*d = nil
			return nil
		case *[]byte:
			*d = nil
			return nil
		case *sql.RawBytes:
			*d = nil
			return nil
		}
	}
	return assignSlow(dest, src)
}

var errNilPtr = errors.New("destination pointer is nil")

// assignSlow is the rest of convertAssign: numbers and booleans as text, a sql.Scanner, and
// reflection on dest's kind (assignable, convertible, a pointer: nil for NULL, else a new value
// converted into; numbers parsed from the value as text; a string kind from text).
func assignSlow(dest, src any) error {
	switch d := dest.(type) {
	case *string:
		switch src.(type) {
		case bool, int64, uint64, float32, float64:
			*d = asString(src)
			return nil
		}
	case *[]byte:
		if b, ok := asBytes(src); ok {
			*d = b
			return nil
		}
	case *sql.RawBytes:
		if b, ok := asBytes(src); ok {
			*d = b
			return nil
		}
	case *bool:
		bv, err := sqldriver.Bool.ConvertValue(src)
		if err == nil {
			*d = bv.(bool)
		}
		return err
	case *any:
		*d = src
		return nil
	}
	if sc, ok := dest.(sql.Scanner); ok {
		return sc.Scan(src)
	}
	dpv := reflect.ValueOf(dest)
	if dpv.Kind() != reflect.Pointer {
		return errors.New("destination not a pointer")
	}
	if dpv.IsNil() {
		return errNilPtr
	}
	sv := reflect.ValueOf(src)
	dv := dpv.Elem()
	if sv.IsValid() && sv.Type().AssignableTo(dv.Type()) {
		if b, ok := src.([]byte); ok {
			dv.Set(reflect.ValueOf(bytes.Clone(b)))
		} else {
			dv.Set(sv)
		}
		return nil
	}
	if dv.Kind() == sv.Kind() && sv.Type().ConvertibleTo(dv.Type()) {
		dv.Set(sv.Convert(dv.Type()))
		return nil
	}
	kind := dv.Kind()
	switch kind {
	case reflect.Pointer:
		if src == nil {
			dv.SetZero()
			return nil
		}
		dv.Set(reflect.New(dv.Type().Elem()))
		return assign(dv.Interface(), src)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.String:
		if src == nil {
			return fmt.Errorf("converting NULL to %s is unsupported", kind)
		}
	}
	switch kind {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s := asString(src)
		n, err := strconv.ParseInt(s, 10, dv.Type().Bits())
		if err != nil {
			return fmt.Errorf("converting driver.Value type %T (%q) to a %s: %w", src, s, kind, numError(err))
		}
		dv.SetInt(n)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		s := asString(src)
		n, err := strconv.ParseUint(s, 10, dv.Type().Bits())
		if err != nil {
			return fmt.Errorf("converting driver.Value type %T (%q) to a %s: %w", src, s, kind, numError(err))
		}
		dv.SetUint(n)
		return nil
	case reflect.Float32, reflect.Float64:
		s := asString(src)
		f, err := strconv.ParseFloat(s, dv.Type().Bits())
		if err != nil {
			return fmt.Errorf("converting driver.Value type %T (%q) to a %s: %w", src, s, kind, numError(err))
		}
		dv.SetFloat(f)
		return nil
	case reflect.String:
		switch v := src.(type) {
		case string:
			dv.SetString(v)
			return nil
		case []byte:
			dv.SetString(string(v))
			return nil
		}
	}
	return fmt.Errorf("unsupported Scan, storing driver.Value type %T into type %T", src, dest)
}

// asBytes is a number, boolean or string as text, in a new slice.
func asBytes(src any) ([]byte, bool) {
	switch v := src.(type) {
	case int64:
		return strconv.AppendInt(nil, v, 10), true
	case uint64:
		return strconv.AppendUint(nil, v, 10), true
	case float32:
		return strconv.AppendFloat(nil, float64(v), 'g', -1, 32), true
	case float64:
		return strconv.AppendFloat(nil, v, 'g', -1, 64), true
	case bool:
		return strconv.AppendBool(nil, v), true
	case string:
		return []byte(v), true
	}
	return nil, false
}

// asString is a driver value as convertAssign reads it as text.
func asString(src any) string {
	switch v := src.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(v), 'g', -1, 32)
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprintf("%v", src)
}

// numError is strconv's error without its function name, as convertAssign reports it.
func numError(err error) error {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		return ne.Err
	}
	return err
}

// driverArg is an argument as go-sql-driver's execute packet takes it (int64, uint64, float64,
// bool, []byte, string, time.Time or nil): the common kinds directly, anything else through the
// driver's own converter (driver.Valuer, named and pointer types), as database/sql would.
func driverArg(conv sqldriver.NamedValueChecker, v any) (sqldriver.Value, error) {
	switch a := v.(type) {
	case int64, float64, string, []byte, time.Time, bool, nil:
		return a, nil
	case int:
		return int64(a), nil
	case int32:
		return int64(a), nil
	}
	nv := sqldriver.NamedValue{Ordinal: 1, Value: v}
	if err := conv.CheckNamedValue(&nv); err != nil {
		return nil, err
	}
	return nv.Value, nil
}
