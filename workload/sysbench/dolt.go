package sysbench

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// Dolt's suite: the tests DoltHub runs beside sysbench's own to compare Dolt with MySQL (and
// Doltgres with PostgreSQL), from its public repository dolthub/sysbench-lua-scripts:
// covering_index_scan, groupby_scan, index_join, index_join_scan, index_scan and table_scan on
// dolt_common.lua's two tables; types_table_scan and types_delete_insert on types_common.lua's
// table of every common type; oltp_delete_insert on sysbench's own sbtest1. Every script has its
// own prepare, which makes its tables under the names sbtest1 and sbtest2; candor loads them beside
// sysbench's tables under names of their own:
//
//	sbdolt1   dolt_common.lua's sbtest1 (24 columns of the common scalar types, an index on big_int_col)
//	sbdolt2   dolt_common.lua's sbtest2 (id, int_col drawn in 0..10000, three more)
//	sbtypes   types_common.lua's sbtest1 (34 columns: dolt_common's and the text, blob, JSON and
//	          GEOMETRY ones)
//
// The statements are the scripts' texts with those names. The rows are the scripts' rows: drawn
// by LuaJIT's math.random seeded 0 (luarand.go) in the scripts' order and written as Lua writes
// numbers, so candor's sbdolt1 holds what Dolt's prepare inserts. types_common.lua seeds again for
// every row, so every row of sbtypes is the same but its id.
//
// On PostgreSQL the DDL, ranges and statements are the scripts' *_postgres.lua variants (no
// unsigned types: the unsigned columns are signed and drawn over the signed range; bit_col a
// VARCHAR holding '0' or '1'; enum_col and set_col VARCHAR(5); no geom_col; groupby_scan groups
// by year_col, set_col, as PostgreSQL requires). SQLite takes the PostgreSQL variants, whose
// types it reads by affinity.

// extraTables are the tables of Dolt's suite a test runs on, beyond sysbench's.
type extraTables uint8

const (
	tablesDolt  extraTables = 1 << iota // sbdolt1, sbdolt2
	tablesTypes                         // sbtypes
	tablesAll   = tablesDolt | tablesTypes
)

// names are the tables of e.
func (e extraTables) names() []string {
	var n []string
	if e&tablesDolt != 0 {
		n = append(n, "sbdolt1", "sbdolt2")
	}
	if e&tablesTypes != 0 {
		n = append(n, "sbtypes")
	}
	return n
}

// extraNames are every table of Dolt's suite, which a load replaces and drop removes.
var extraNames = tablesAll.names()

// doltStatements are the statements of Dolt's read tests, per family (the scripts' texts).
func doltStatements(family string) map[int]string {
	groupBy := "GROUP BY set_col" // groupby_scan.lua
	if family != sqlexec.FamilyMySQL {
		groupBy = "GROUP BY year_col, set_col" // groupby_scan_postgres.lua
	}
	return map[int]string{
		OpCoveringIndexScan: "SELECT count(id) FROM sbdolt1 WHERE big_int_col > 0",
		OpGroupbyScan:       "SELECT year_col, count(year_col), max(big_int_col), avg(small_int_col) FROM sbdolt1 WHERE big_int_col > 0 " + groupBy + " ORDER BY year_col",
		OpIndexJoin:         "select a.id, a.small_int_col, b.id, b.int_col from sbdolt1 a, sbdolt2 b where a.id = b.int_col limit 500",
		OpIndexJoinScan:     "select a.id, a.small_int_col from sbdolt1 a, sbdolt1 b where a.id = b.id limit 500",
		OpIndexScan:         "SELECT * FROM sbdolt1 WHERE big_int_col > 0",
		OpTableScan:         "SELECT * FROM sbdolt1 WHERE small_int_col > 0",
		OpTypesTableScan:    "SELECT * FROM sbtypes WHERE small_int_col > 0",
	}
}

// The scripts' DDL. MySQL's (dolt_common.lua, types_common.lua) keep their unnamed index on
// big_int_col; PostgreSQL's (the *_postgres.lua scripts) create it after the table, named here per
// table (the scripts' idx_big_int_col names one index per database).
const (
	doltColsMySQL = `	tiny_int_col TINYINT NOT NULL,
	unsigned_tiny_int_col TINYINT UNSIGNED NOT NULL,
	small_int_col SMALLINT NOT NULL,
	unsigned_small_int_col SMALLINT UNSIGNED NOT NULL,
	medium_int_col MEDIUMINT NOT NULL,
	unsigned_medium_int_col MEDIUMINT UNSIGNED NOT NULL,
	int_col INT NOT NULL,
	unsigned_int_col INT UNSIGNED NOT NULL,
	big_int_col BIGINT NOT NULL,
	unsigned_big_int_col BIGINT UNSIGNED NOT NULL,
	decimal_col DECIMAL NOT NULL,
	float_col FLOAT NOT NULL,
	double_col DOUBLE NOT NULL,
	bit_col BIT NOT NULL,
	char_col CHAR NOT NULL,
	var_char_col VARCHAR(64) NOT NULL,
`
	doltColsPostgres = `	tiny_int_col SMALLINT NOT NULL,
	unsigned_tiny_int_col SMALLINT NOT NULL,
	small_int_col SMALLINT NOT NULL,
	unsigned_small_int_col SMALLINT NOT NULL,
	medium_int_col INTEGER NOT NULL,
	unsigned_medium_int_col INTEGER NOT NULL,
	int_col INTEGER NOT NULL,
	unsigned_int_col INTEGER NOT NULL,
	big_int_col BIGINT NOT NULL,
	unsigned_big_int_col BIGINT NOT NULL,
	decimal_col DECIMAL NOT NULL,
	float_col REAL NOT NULL,
	double_col DOUBLE PRECISION NOT NULL,
	bit_col VARCHAR(64) NOT NULL,
	char_col CHAR NOT NULL,
	var_char_col VARCHAR(64) NOT NULL,
`
	dateCols = `	date_col DATE NOT NULL,
	time_col TIME NOT NULL,
	datetime_col %s NOT NULL,
	timestamp_col TIMESTAMP NOT NULL,
	year_col %s NOT NULL`
	typesTextMySQL = `	tiny_text_col TINYTEXT NOT NULL,
	text_col TEXT NOT NULL,
	medium_text_col MEDIUMBLOB NOT NULL,
	long_text_col LONGTEXT NOT NULL,
	tiny_blob_col TINYBLOB NOT NULL,
	blob_col BLOB NOT NULL,
	medium_blob_col MEDIUMBLOB NOT NULL,
	long_blob_col LONGBLOB NOT NULL,
	json_col JSON NOT NULL,
	geom_col GEOMETRY NOT NULL,
`
	typesTextPostgres = `	tiny_text_col TEXT NOT NULL,
	text_col TEXT NOT NULL,
	medium_text_col TEXT NOT NULL,
	long_text_col TEXT NOT NULL,
	tiny_blob_col BYTEA NOT NULL,
	blob_col BYTEA NOT NULL,
	medium_blob_col BYTEA NOT NULL,
	long_blob_col BYTEA NOT NULL,
	json_col JSON NOT NULL,
`
)

// enumSet is the MySQL enum_col and set_col of n values val0..val(n-1).
func enumSet(n int) string {
	var v []string
	for i := range n {
		v = append(v, fmt.Sprintf("'val%d'", i))
	}
	l := strings.Join(v, ", ")
	return fmt.Sprintf("\tenum_col ENUM(%s) NOT NULL,\n\tset_col SET(%s) NOT NULL,\n", l, l)
}

// extraDDL is the statements that make the tables of e, per family.
func extraDDL(family string, e extraTables) []string {
	mysql := family == sqlexec.FamilyMySQL
	var q []string
	if e&tablesDolt != 0 {
		if mysql {
			q = append(q, "CREATE TABLE sbdolt1 (\n\tid INT NOT NULL,\n"+doltColsMySQL+enumSet(3)+fmt.Sprintf(dateCols, "DATETIME", "YEAR")+",\n\n\tPRIMARY KEY(id),\n\tINDEX (big_int_col)\n)",
				"CREATE TABLE sbdolt2 (\n\tid INT NOT NULL,\n\tint_col INT NOT NULL,\n\tunsigned_int_col INT UNSIGNED NOT NULL,\n\tchar_col CHAR NOT NULL,\n\tvar_char_col VARCHAR(64) NOT NULL,\n\tPRIMARY KEY(id)\n)")
		} else {
			q = append(q, "CREATE TABLE sbdolt1 (\n\tid INT NOT NULL PRIMARY KEY,\n"+doltColsPostgres+"\tenum_col VARCHAR(5),\n\tset_col VARCHAR(5),\n"+fmt.Sprintf(dateCols, "TIMESTAMP", "SMALLINT")+"\n)",
				"CREATE INDEX sbdolt1_big_int_col ON sbdolt1(big_int_col)",
				"CREATE TABLE sbdolt2 (\n\tid INT NOT NULL,\n\tint_col INT NOT NULL,\n\tunsigned_int_col INT NOT NULL,\n\tchar_col CHAR NOT NULL,\n\tvar_char_col VARCHAR(64) NOT NULL,\n\tPRIMARY KEY(id)\n)")
		}
	}
	if e&tablesTypes != 0 {
		if mysql {
			q = append(q, "CREATE TABLE sbtypes (\n\tid INT NOT NULL,\n"+doltColsMySQL+typesTextMySQL+enumSet(14)+fmt.Sprintf(dateCols, "DATETIME", "YEAR")+",\n\n\tPRIMARY KEY(id),\n\tINDEX (big_int_col)\n)")
		} else {
			cols := strings.Replace(doltColsPostgres, "REAL", "FLOAT", 1)
			cols = strings.Replace(cols, "DOUBLE PRECISION", "FLOAT(53)", 1)
			q = append(q, "CREATE TABLE sbtypes (\n\tid INT PRIMARY KEY NOT NULL,\n"+cols+typesTextPostgres+"\tenum_col VARCHAR(5),\n\tset_col VARCHAR(5),\n"+fmt.Sprintf(dateCols, "TIMESTAMP", "SMALLINT")+"\n)",
				"CREATE INDEX sbtypes_big_int_col ON sbtypes(big_int_col)")
		}
	}
	return q
}

// The columns the scripts' INSERTs name.
const (
	doltColumns  = "id, tiny_int_col, unsigned_tiny_int_col, small_int_col, unsigned_small_int_col, medium_int_col, unsigned_medium_int_col, int_col, unsigned_int_col, big_int_col, unsigned_big_int_col, decimal_col, float_col, double_col, bit_col, char_col, var_char_col, enum_col, set_col, date_col, time_col, datetime_col, timestamp_col, year_col"
	dolt2Columns = "id, int_col, unsigned_int_col, char_col, var_char_col"
)

// luaRow writes the values of the scripts' rows, drawing from r in the scripts' order.
type luaRow struct {
	r  *luaRand
	b  []byte
	pg bool // the *_postgres.lua variant
}

func (w *luaRow) sep() { w.b = append(w.b, ',') }

// num writes math.random(lo, hi) and a comma.
func (w *luaRow) num(lo, hi float64) { w.b = luaNum(w.b, w.r.between(lo, hi)); w.sep() }

// unsigned writes an unsigned column's draw: MySQL's range, or on PostgreSQL the signed one.
func (w *luaRow) unsigned(hi, slo, shi float64) {
	if w.pg {
		w.num(slo, shi)
		return
	}
	w.num(0, hi)
}

// str writes 'val<math.random(1, n) - 1>' and a comma (str_vals[math.random(1, n)]).
func (w *luaRow) str(n float64) {
	w.b = append(w.b, "'val"...)
	w.b = luaNum(w.b, w.r.between(1, n)-1)
	w.b = append(w.b, "',"...)
}

// char writes a character of 0x30..0x5A in quotes and a comma.
func (w *luaRow) char() {
	w.b = append(w.b, '\'', byte(w.r.between(0x30, 0x5A)), '\'', ',')
}

// ints writes the integer columns tiny_int_col .. unsigned_big_int_col.
func (w *luaRow) ints() {
	w.num(-128, 127)
	w.unsigned(255, -128, 127)
	w.num(-32768, 32767)
	w.unsigned(65535, -32768, 32767)
	w.num(-8388608, 8388607)
	w.unsigned(16777215, -8388608, 8388607)
	w.num(-2147483648, 2147483647)
	w.unsigned(4294967295, -2147483648, 2147483647)
	w.num(-4611686018427387904, 4611686018427387903)
	w.unsigned(9223372036854775807, -4611686018427387904, 4611686018427387903)
	for range 3 { // decimal_col, float_col, double_col: math.random()
		w.b = luaNum(w.b, w.r.float())
		w.sep()
	}
	if w.pg {
		w.b = append(w.b, '\'')
		w.b = luaNum(w.b, w.r.between(0, 1))
		w.b = append(w.b, "',"...)
	} else {
		w.num(0, 1)
	}
	w.char()
}

// dates writes date_col .. year_col and the closing parenthesis.
func (w *luaRow) dates() {
	d := func(lo, hi float64) { w.b = luaNum(w.b, w.r.between(lo, hi)) }
	w.b = append(w.b, "'2020-0"...)
	d(1, 9)
	w.b = append(w.b, '-')
	d(10, 28)
	w.b = append(w.b, "','0"...)
	d(1, 9)
	w.b = append(w.b, ':')
	d(10, 59)
	w.b = append(w.b, ":00',"...)
	for range 2 {
		w.b = append(w.b, "'2020-0"...)
		d(1, 9)
		w.b = append(w.b, '-')
		d(10, 28)
		w.b = append(w.b, " 0"...)
		d(1, 9)
		w.b = append(w.b, ':')
		d(10, 59)
		w.b = append(w.b, ":00',"...)
	}
	d(1901, 2155)
	w.b = append(w.b, ')')
}

// doltRow is dolt_common.lua's next row of sbtest1 (sbdolt1).
func (w *luaRow) doltRow(id int) {
	w.b = append(w.b, '(')
	w.b = strconv.AppendInt(w.b, int64(id), 10)
	w.sep()
	w.ints()
	w.str(3) // var_char_col
	w.str(3) // enum_col
	w.str(3) // set_col
	w.dates()
}

// dolt2Row is dolt_common.lua's next row of sbtest2 (sbdolt2).
func (w *luaRow) dolt2Row(id int) {
	w.b = append(w.b, '(')
	w.b = strconv.AppendInt(w.b, int64(id), 10)
	w.sep()
	w.num(0, 10000)
	w.unsigned(4294967295, -2147483648, 2147483647)
	w.char()
	w.str(3)
	w.b[len(w.b)-1] = ')'
}

// typesRest is types_common.lua's row_for_id after "(id": every row's values, the same for each
// (row_for_id seeds math.random with 0 before drawing them).
func typesRest(pg bool) string {
	w := &luaRow{r: newLuaRand(0), pg: pg}
	w.sep()
	w.ints()
	for range 9 { // var_char_col, the four texts, the four blobs
		w.str(13)
	}
	w.b = append(w.b, "'{\"val"...)
	w.b = luaNum(w.b, w.r.between(1, 13)-1)
	w.b = append(w.b, "\":1}',"...)
	if !pg { // geom_col (the PostgreSQL script has none)
		w.b = append(w.b, "ST_GeomFromText('Point("...)
		w.b = luaNum(w.b, w.r.between(1, 3))
		w.b = append(w.b, ' ')
		w.b = luaNum(w.b, w.r.between(1, 3))
		w.b = append(w.b, ")'),"...)
	}
	w.str(13) // enum_col
	w.str(13) // set_col
	w.dates()
	return string(w.b)
}

// insertBatch is the rows per INSERT of the extra tables' load (sysbench's bulk_insert sends
// multi-row INSERTs too).
const insertBatch = 500

// loadExtra makes and fills the tables of e, size rows each, on ctl, as the scripts' prepare
// does: the table, then multi-row INSERTs of the scripts' rows.
func loadExtra(ctx context.Context, ctl driver.Conn, family string, e extraTables, size int) (int64, error) {
	for _, q := range extraDDL(family, e) {
		if _, err := ctl.Exec(ctx, q); err != nil {
			return 0, fmt.Errorf("creating Dolt's tables (%s): %w", firstLine(q), err)
		}
	}
	pg := family != sqlexec.FamilyMySQL
	var rows int64
	fill := func(table, cols string, row func(w *luaRow, id int)) error {
		w := &luaRow{r: newLuaRand(0), pg: pg}
		for first := 1; first <= size; first += insertBatch {
			w.b = append(w.b[:0], "INSERT INTO "+table+" ("+cols+") VALUES "...)
			for id := first; id < first+insertBatch && id <= size; id++ {
				if id > first {
					w.b = append(w.b, ',')
				}
				row(w, id)
			}
			n, err := ctl.Exec(ctx, string(w.b))
			if err != nil {
				return fmt.Errorf("loading ids %d to %d of %s: %w", first, min(size, first+insertBatch-1), table, err)
			}
			rows += n
		}
		return nil
	}
	if e&tablesDolt != 0 {
		if err := fill("sbdolt1", doltColumns, (*luaRow).doltRow); err != nil {
			return rows, err
		}
		if err := fill("sbdolt2", dolt2Columns, (*luaRow).dolt2Row); err != nil {
			return rows, err
		}
	}
	if e&tablesTypes != 0 {
		rest := typesRest(pg)
		if err := fill("sbtypes", typesColumns(pg), func(w *luaRow, id int) {
			w.b = append(w.b, '(')
			w.b = strconv.AppendInt(w.b, int64(id), 10)
			w.b = append(w.b, rest...)
		}); err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// typesColumns are the columns types_common.lua's INSERT names.
func typesColumns(pg bool) string {
	c := "id, tiny_int_col, unsigned_tiny_int_col, small_int_col, unsigned_small_int_col, medium_int_col, unsigned_medium_int_col, int_col, unsigned_int_col, big_int_col, unsigned_big_int_col, decimal_col, float_col, double_col, bit_col, char_col, var_char_col, tiny_text_col, text_col, medium_text_col, long_text_col, tiny_blob_col, blob_col, medium_blob_col, long_blob_col, json_col, geom_col, enum_col, set_col, date_col, time_col, datetime_col, timestamp_col, year_col"
	if pg {
		c = strings.Replace(c, " geom_col,", "", 1)
	}
	return c
}

func firstLine(q string) string {
	if i := strings.IndexByte(q, '\n'); i >= 0 {
		return strings.TrimSpace(q[:i])
	}
	return q
}

// appendTypesDelete and appendTypesInsert are types_delete_insert.lua's statements for id (the
// script's con:query texts: the values in the text).
func appendTypesDelete(b []byte, id int64) []byte {
	b = append(b, "DELETE FROM sbtypes WHERE id = "...)
	return strconv.AppendInt(b, id, 10)
}

func appendTypesInsert(b []byte, id int64, rest string) []byte {
	b = append(b, "INSERT INTO sbtypes VALUES ("...)
	b = strconv.AppendInt(b, id, 10)
	return append(b, rest...)
}

// appendDeleteInsert are oltp_delete_insert.lua's statements (on sbtest1, the values in the text).
func appendDelete(b []byte, id int64) []byte {
	b = append(b, "DELETE FROM sbtest1 WHERE id = "...)
	return strconv.AppendInt(b, id, 10)
}

func appendInsert(b []byte, id, k int64, c, pad string) []byte {
	b = append(b, "INSERT INTO sbtest1 (id, k, c, pad) VALUES ("...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, k, 10)
	b = append(b, ", '"...)
	b = append(b, c...)
	b = append(b, "', '"...)
	b = append(b, pad...)
	return append(b, "')"...)
}
