package queries

import (
	sqldriver "database/sql/driver"
	"fmt"
	"strconv"
	"time"

	"github.com/candor-bench/candor/driver"
)

// ReadAnswer reads every row of rs, a query's answer of n columns (len(Columns(q))), as the text
// Compare takes (see Text), and closes rs.
func ReadAnswer(rs driver.Rows, n int) ([][]string, error) {
	defer rs.Close()
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out [][]string
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, n)
		for i, v := range vals {
			row[i] = Text(v)
		}
		out = append(out, row)
	}
	return out, rs.Err()
}

// Text is a value as the engines' drivers return it (scanned into an any), in the form Compare
// reads: NULL as "", numbers in decimal notation, a date at midnight as YYYY-MM-DD, bytes (MySQL's
// text protocol) as their text, PostgreSQL's numeric through its driver.Valuer.
func Text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int:
		return strconv.Itoa(x)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32)
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format(time.DateOnly)
		}
		return x.Format(time.RFC3339Nano)
	case sqldriver.Valuer:
		dv, err := x.Value()
		if err != nil {
			return fmt.Sprint(v)
		}
		if _, again := dv.(sqldriver.Valuer); again {
			return fmt.Sprint(dv)
		}
		return Text(dv)
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}
