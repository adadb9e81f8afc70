// Package dbgen generates TPC-H's data (standard revision 3.0.x, clause 4.2) as the reference
// generator dbgen does, row for row: the eight tables at a scale factor, dbgen's random number
// streams (a Park-Miller generator per column, seeded and advanced as dbgen seeds them so that any
// slice of a table can be generated alone), its value distributions (dists.dss), its text grammar
// for comments, its dates, and the sparse ORDERKEY pattern; and the refresh sets of RF1 and RF2
// (clause 4.2.3 and 5.3.7, dbgen -U).
//
// Rows are []any of these Go types, one per column of Columns(t), in order:
//
//	KindInt      int64
//	KindDecimal  Decimal (hundredths, as int64)
//	KindChar     string
//	KindVarchar  string
//	KindDate     Date (days since 1970-01-01)
//
// One exception: l_quantity, a DECIMAL column, is an int64 (its values are whole, and dbgen's .tbl
// prints them without places: "17"); engines store it as 17.00.
//
// Decimal and Date implement database/sql/driver.Valuer (the string "123.45"; a time.Time at UTC
// midnight), so every engine's bulk path takes them; the load may still convert them per engine.
// The emitted slice is reused for the next row: copy what must outlive the call.
//
// Generation is deterministic: the same table and scale factor give the same rows whatever the
// parts, and the rows of parts 1..n concatenated are the rows of parts=1 (as dbgen -C n -S i).
package dbgen

import (
	"database/sql/driver"
	"fmt"
	"time"
)

// Table is one of TPC-H's eight tables.
type Table int

const (
	Region Table = iota
	Nation
	Supplier
	Customer
	Part
	PartSupp
	Orders
	Lineitem
)

var tableNames = [...]string{"region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"}

// Name is the table's name as the standard writes it, in lower case ("lineitem"), which is also
// the name of dbgen's .tbl file without the extension.
func (t Table) Name() string {
	if t < 0 || int(t) >= len(tableNames) {
		return fmt.Sprintf("table(%d)", int(t))
	}
	return tableNames[t]
}

func (t Table) String() string { return t.Name() }

// Tables is the eight tables, in the order of clause 1.4 (and of a load: the small ones first).
func Tables() []Table {
	return []Table{Region, Nation, Supplier, Customer, Part, PartSupp, Orders, Lineitem}
}

// Kind is a column's SQL type class (clause 1.3.1).
type Kind int

const (
	// KindInt is an identifier or integer (clause 1.3.1's "Identifier" and "Integer"): int64 values.
	KindInt Kind = iota
	// KindDecimal is DECIMAL(15,2) (clause 1.3.1 "Decimal"): Decimal values.
	KindDecimal
	// KindChar is a fixed text of Len characters (CHAR(Len)): string values.
	KindChar
	// KindVarchar is a variable text of at most Len characters (VARCHAR(Len)): string values.
	KindVarchar
	// KindDate is a date (clause 1.3.1 "Date"): Date values.
	KindDate
)

// Column is one column of a table (clause 1.4).
type Column struct {
	// Name is the column's name in lower case (l_orderkey).
	Name string
	Kind Kind
	// Len is CHAR's or VARCHAR's length; 0 for the other kinds.
	Len int
}

// Columns is table t's columns, in the order of clause 1.4 and of the .tbl files (l_quantity is
// KindDecimal with int64 values: see the package comment).
func Columns(t Table) []Column {
	return columns[t]
}

// Decimal is an exact decimal with two places, in hundredths (12345 is 123.45).
type Decimal int64

// String is the decimal with two places, as dbgen prints it ("-12.05", "0.00").
func (d Decimal) String() string { return string(d.Append(nil)) }

// Append appends the decimal's String to b.
func (d Decimal) Append(b []byte) []byte {
	v := int64(d)
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	b = appendInt(b, v/100)
	return append(b, '.', byte('0'+v%100/10), byte('0'+v%10))
}

// Float is the decimal as a float64 (not exact; for display and for engines without decimals).
func (d Decimal) Float() float64 { return float64(d) / 100 }

// Value is the decimal's String, for database/sql drivers and bulk paths.
func (d Decimal) Value() (driver.Value, error) { return d.String(), nil }

// Date is a calendar date, in days since 1970-01-01.
type Date int32

// MakeDate is the Date of year-month-day.
func MakeDate(year int, month time.Month, day int) Date {
	return Date(time.Date(year, month, day, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// Time is the date at midnight UTC.
func (d Date) Time() time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// String is the date as YYYY-MM-DD; the dates of TPC-H's data (1992 to 1998, receipts into 1999)
// are shared strings made once, so a load's millions of dates allocate nothing.
func (d Date) String() string {
	if i := int(d - firstNamedDate); i >= 0 && i < len(dateNames) {
		return dateNames[i]
	}
	return string(d.Append(nil))
}

// firstNamedDate and dateNames are the dates String shares: 1992-01-01 to 1999-12-31.
var (
	firstNamedDate = MakeDate(1992, time.January, 1)
	dateNames      = func() []string {
		n := int(MakeDate(2000, time.January, 1) - firstNamedDate)
		buf := make([]byte, 0, n*10)
		out := make([]string, n)
		for i := range out {
			buf = (firstNamedDate + Date(i)).Append(buf)
		}
		all := string(buf)
		for i := range out {
			out[i] = all[i*10 : i*10+10]
		}
		return out
	}()
)

// Append appends the date's String to b: the civil date of the day count (the proleptic Gregorian
// calendar, H. Hinnant's days_from_civil inverse), without time.Time's general formatting, which
// was a twentieth of a SQLite load's CPU; years outside 0..9999 go through time.Time.
func (d Date) Append(b []byte) []byte {
	z := int64(d) + 719468
	era := z / 146097
	if z < 0 {
		era = (z - 146096) / 146097
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day := doy - (153*mp+2)/5 + 1
	month := mp + 3
	if month > 12 {
		month -= 12
	}
	if month <= 2 {
		y++
	}
	if y < 0 || y > 9999 {
		return d.Time().AppendFormat(b, time.DateOnly)
	}
	return append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+month/10), byte('0'+month%10), '-', byte('0'+day/10), byte('0'+day%10))
}

// Value is the date's Time, for database/sql drivers and bulk paths.
func (d Date) Value() (driver.Value, error) { return d.Time(), nil }

// Rows is how many rows table t has at scale factor sf (clause 4.2.5): exact for every table but
// Lineitem, whose count depends on the generated orders (1 to 7 lines each); for Lineitem it is
// the expected count, 4 per order. LineitemRows counts it exactly.
func Rows(t Table, sf float64) int64 {
	return rowsOf(t, sf)
}

// Generate generates part `part` (1-based) of `parts` of table t at scale factor sf, calling emit
// with each row in order (the slice is reused: copy it to keep it). Lineitem's rows are those of
// the orders of the same part (dbgen generates them together); Region's and Nation's fixed rows
// are all in part 1. emit's error stops the generation
// and is returned.
func Generate(t Table, sf float64, part, parts int, emit func(row []any) error) error {
	return generate(t, sf, part, parts, emit)
}

// AppendTbl appends row, a row of table t as Generate emits it, in dbgen's .tbl text: each value
// followed by '|' (decimals with two places, dates YYYY-MM-DD), without the newline.
func AppendTbl(b []byte, row []any) []byte {
	for _, v := range row {
		switch v := v.(type) {
		case int64:
			b = appendInt(b, v)
		case Decimal:
			b = v.Append(b)
		case Date:
			b = v.Append(b)
		case string:
			b = append(b, v...)
		default:
			b = fmt.Append(b, v)
		}
		b = append(b, '|')
	}
	return b
}

// RefreshInsert generates RF1's rows of update set `set` (1-based, as dbgen -U n makes sets 1..n)
// at scale factor sf: SF×1500 new orders (clause 4.2.3), each followed by its lineitems, as
// dbgen's orders.tbl.u<set> and lineitem.tbl.u<set>. emit gets Orders and Lineitem rows (reused
// slices).
func RefreshInsert(sf float64, set int, emit func(t Table, row []any) error) error {
	return refreshInsert(sf, set, emit)
}

// RefreshDelete is RF2's orderkeys of update set `set` (1-based) at scale factor sf: SF×1500 keys
// of orders loaded initially, as dbgen's delete.<set>; nil when there is no such set.
func RefreshDelete(sf float64, set int) []int64 {
	return refreshDelete(sf, set)
}

func appendInt(b []byte, v int64) []byte {
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	var tmp [20]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(b, tmp[i:]...)
}
