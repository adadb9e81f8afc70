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
// time.Time or nil), in dest, as database/sql's Rows.Scan would (its convertAssign): the common
// pairs directly, a sql.Scanner through its Scan, anything else through reflection on dest's kind,
// with the same conversions and refusals. A []byte from the driver lives in the connection's buffer
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
		case *[]byte:
			*d = s.AppendFormat(nil, time.RFC3339Nano)
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
	if sc, ok := dest.(sql.Scanner); ok {
		// sql.NullString and the like copy what they keep (convertAssign), as database/sql's
		// Scanners are asked to
		return sc.Scan(src)
	}
	return assignReflect(dest, src)
}

// assignReflect is convertAssign's reflection path: dest is a pointer to a bool, number or string
// kind, to an interface, or to a pointer (nil for NULL, else a new value converted into).
func assignReflect(dest, src any) error {
	dpv := reflect.ValueOf(dest)
	if dpv.Kind() != reflect.Pointer {
		return errors.New("destination not a pointer")
	}
	if dpv.IsNil() {
		return errors.New("destination pointer is nil")
	}
	dv := dpv.Elem()
	if src == nil {
		if dv.Kind() == reflect.Pointer || dv.Kind() == reflect.Interface && dv.NumMethod() == 0 {
			dv.SetZero()
			return nil
		}
		return fmt.Errorf("converting NULL to %s is unsupported", dv.Kind())
	}
	if b, ok := src.([]byte); ok {
		src = bytes.Clone(b)
	}
	sv := reflect.ValueOf(src)
	if sv.Type().AssignableTo(dv.Type()) {
		dv.Set(sv)
		return nil
	}
	if dv.Kind() == sv.Kind() && sv.Type().ConvertibleTo(dv.Type()) {
		dv.Set(sv.Convert(dv.Type()))
		return nil
	}
	switch dv.Kind() {
	case reflect.Pointer:
		dv.Set(reflect.New(dv.Type().Elem()))
		return assign(dv.Interface(), src)
	case reflect.Bool:
		v, err := sqldriver.Bool.ConvertValue(src)
		if err != nil {
			return err
		}
		dv.SetBool(v.(bool))
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s := asString(src)
		n, err := strconv.ParseInt(s, 10, dv.Type().Bits())
		if err != nil {
			return fmt.Errorf("converting driver.Value type %T (%q) to a %s: %w", src, s, dv.Kind(), numError(err))
		}
		dv.SetInt(n)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		s := asString(src)
		n, err := strconv.ParseUint(s, 10, dv.Type().Bits())
		if err != nil {
			return fmt.Errorf("converting driver.Value type %T (%q) to a %s: %w", src, s, dv.Kind(), numError(err))
		}
		dv.SetUint(n)
		return nil
	case reflect.Float32, reflect.Float64:
		s := asString(src)
		f, err := strconv.ParseFloat(s, dv.Type().Bits())
		if err != nil {
			return fmt.Errorf("converting driver.Value type %T (%q) to a %s: %w", src, s, dv.Kind(), numError(err))
		}
		dv.SetFloat(f)
		return nil
	case reflect.String:
		switch v := src.(type) {
		case string, []byte, int64, uint64, float32, float64, bool, time.Time:
			dv.SetString(asString(v))
			return nil
		}
	}
	return fmt.Errorf("unsupported Scan, storing driver.Value type %T into type %T", src, dest)
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
	case time.Time:
		return v.Format(time.RFC3339Nano)
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
