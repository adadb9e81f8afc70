package mysql_test

import (
	"database/sql"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// myString is a named string type: database/sql converts into it by reflection.
type myString string

// scanDests are fresh destinations of every kind a caller may scan into.
func scanDests() []any {
	return []any{
		new(int64), new(int), new(int32), new(uint64), new(float64), new(float32), new(string),
		new([]byte), new(any), new(bool), new(time.Time), new(sql.NullInt64), new(sql.NullString),
		new(sql.NullFloat64), new(sql.NullTime), new(sql.Null[int64]), new(*int64), new(*string),
		new(myString), new(sql.RawBytes),
	}
}

// TestScanMatchesDatabaseSQL scans every column kind the server sends (integers, unsigned, DECIMAL,
// DOUBLE, FLOAT, text, binary, DATETIME, NULL) into every kind of destination, through a Conn
// (go-sql-driver's driver.Rows and Conn's own conversion) and through database/sql on the same
// server and configuration, in the binary protocol (a statement with an argument) and the text one
// (none): the values and whether it failed must be the same.
func TestScanMatchesDatabaseSQL(t *testing.T) {
	raw := freshURL(t, "")
	c := connect(t, openURL(t, raw))
	ctx := testCtx(t)

	ref := refDB(t, raw)

	cols := []string{
		"CAST(42 AS SIGNED)", "CAST(-7 AS SIGNED)", "CAST(18446744073709551615 AS UNSIGNED)",
		"CAST(12.50 AS DECIMAL(12,2))", "CAST(-0.25 AS DOUBLE)", "CAST(1.5 AS FLOAT)",
		"'abc'", "'17'", "'1'", "CAST('x\\0y' AS BINARY(3))", "CAST('2026-01-02 03:04:05.123456' AS DATETIME(6))",
		"NULL", "CAST(NULL AS SIGNED)", "CAST(1 AS UNSIGNED) = 1",
	}
	checked := 0
	for _, col := range cols {
		for _, args := range [][]any{nil, {int64(1)}} {
			q := "SELECT " + col
			if args != nil {
				q += " FROM DUAL WHERE ? = 1"
			}
			for k := range scanDests() {
				gotDest, wantDest := scanDests()[k], scanDests()[k]
				name := fmt.Sprintf("%s into %T (%d arguments)", col, gotDest, len(args))
				rows, err := c.Query(ctx, q, args...)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !rows.Next() {
					t.Fatalf("%s: no row: %v", name, rows.Err())
				}
				gotErr := rows.Scan(gotDest)
				gotVal := deref(gotDest) // before Close: a RawBytes lives until then
				rows.Close()

				rr, err := ref.QueryContext(ctx, q, args...)
				if err != nil {
					t.Fatalf("%s: database/sql: %v", name, err)
				}
				if !rr.Next() {
					t.Fatalf("%s: database/sql: no row: %v", name, rr.Err())
				}
				wantErr := rr.Scan(wantDest)
				wantVal := deref(wantDest)
				rr.Close()

				if (gotErr == nil) != (wantErr == nil) {
					t.Errorf("%s: error %v, database/sql's %v", name, gotErr, wantErr)
				} else if gotErr == nil && !reflect.DeepEqual(gotVal, wantVal) {
					t.Errorf("%s: %#v, database/sql's %#v", name, gotVal, wantVal)
				}
				checked++
			}
		}
	}
	if want := len(cols) * 2 * len(scanDests()); checked != want {
		t.Fatalf("checked %d pairs, want %d", checked, want)
	}
}

// deref is what dest points to, a RawBytes copied to a string (it aliases the driver's buffer),
// a pointer to a pointer compared by its target.
func deref(dest any) any {
	switch d := dest.(type) {
	case *sql.RawBytes:
		return string(*d)
	case **int64:
		if *d == nil {
			return nil
		}
		return **d
	case **string:
		if *d == nil {
			return nil
		}
		return **d
	}
	return reflect.ValueOf(dest).Elem().Interface()
}
