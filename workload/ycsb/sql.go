package ycsb

import (
	"strconv"
	"strings"

	"github.com/candor-bench/candor/workload/sqlexec"
)

// The table and the statements, after YCSB's JDBC binding (jdbc/README.md, JdbcDBCreateTable,
// DefaultDBFlavor):
//
//	CREATE TABLE usertable (YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0 TEXT, ..., FIELD9 TEXT)
//	read:   SELECT * FROM usertable WHERE YCSB_KEY = ?
//	scan:   SELECT * FROM usertable WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?
//	update: UPDATE usertable SET FIELD3=? WHERE YCSB_KEY = ?        (one field, or all)
//	insert: INSERT INTO usertable (YCSB_KEY,FIELD0,...,FIELD9) VALUES(?,?,...)
//
// The columns are the field names upper-cased (fieldnameprefix "field" gives FIELD0 ...), unquoted,
// so that every engine folds them as the JDBC binding's statements, which name the fields "field0",
// expect. Two departures, both in what a read asks for: the JDBC binding always sends SELECT *, and
// extracts the fields CoreWorkload asked for; candor names them in the statement when CoreWorkload
// asks for some (readallfields=false: one random field; readallfieldsbyname or dataintegrity: every
// field), so that a read of one field transfers one field, as CoreWorkload means it. With
// readallfields=true alone (YCSB's default and every built-in workload) it is SELECT *, as YCSB's.
//
// Column types: TEXT on every engine, as YCSB's README and create_table.mysql have it (PostgreSQL's
// TEXT is unbounded; SQLite's TEXT has no length). On MySQL, TEXT holds 65,535 bytes; values are
// ASCII (one byte a character), so fields longer than that (fieldlength > 65535) get LONGTEXT rather
// than fail. The key is VARCHAR(255) everywhere, as YCSB's README (JdbcDBCreateTable writes a bare
// VARCHAR, which MySQL refuses). SQLite keeps its rowid and a separate unique index on YCSB_KEY, as
// the same DDL gives there.
//
// Statements are written with $n parameters and rewritten once by sqlexec.Placeholders.

const keyColumn = "YCSB_KEY"

// mysqlTextMax is the most characters MySQL's TEXT holds (65,535 bytes of ASCII).
const mysqlTextMax = 65535

// columnNames are the field columns: the field names upper-cased (FIELD0 ...).
func columnNames(c Config) []string {
	names := c.FieldNames()
	for i, n := range names {
		names[i] = strings.ToUpper(n)
	}
	return names
}

// storedName is how the engine stores an unquoted identifier, for the statements and catalogue
// queries that name it quoted or as a string (CopyFrom, information_schema): PostgreSQL and its
// family fold it to lower case; MySQL and SQLite keep it as written (and compare column names
// without case).
func storedName(family, ident string) string {
	if family == sqlexec.FamilyPostgres {
		return strings.ToLower(ident)
	}
	return ident
}

// createSQL is the table's DDL for family.
func createSQL(family string, c Config) string {
	text := "TEXT"
	if family == sqlexec.FamilyMySQL && c.FieldLength > mysqlTextMax {
		text = "LONGTEXT"
	}
	var b strings.Builder
	b.WriteString("CREATE TABLE " + c.Table + " (\n  " + keyColumn + " VARCHAR(255) PRIMARY KEY")
	for _, col := range columnNames(c) {
		b.WriteString(",\n  " + col + " " + text)
	}
	b.WriteString("\n)")
	return b.String()
}

func dropSQL(table string) string { return "DROP TABLE IF EXISTS " + table }

// statements are one run's statements: per field where an operation touches one, else the
// statement of every field.
type statements struct {
	// readAll and scanAll fetch every field (SELECT *, or the fields named); readOne[i] and
	// scanOne[i] field i alone. allCols is the columns readAll and scanAll return, keyFirst says
	// the first is YCSB_KEY (SELECT *).
	readAll, scanAll  string
	readOne, scanOne  []string
	allCols           int
	keyFirst          bool
	updateAll, insert string
	updateOne         []string
}

// newStatements builds the statements of family for c. byName names every field in reads of all
// fields (readallfieldsbyname, dataintegrity) where YCSB's JDBC binding sends SELECT *.
func newStatements(family string, c Config, byName bool) *statements {
	cols := columnNames(c)
	s := &statements{}
	ph := func(sql string) string { return sqlexec.Placeholders(family, sql) }
	all := "*"
	s.allCols, s.keyFirst = 1+len(cols), true
	if byName {
		all, s.allCols, s.keyFirst = strings.Join(cols, ", "), len(cols), false
	}
	read := func(what string) string {
		return ph("SELECT " + what + " FROM " + c.Table + " WHERE " + keyColumn + " = $1")
	}
	scan := func(what string) string {
		return ph("SELECT " + what + " FROM " + c.Table + " WHERE " + keyColumn + " >= $1 ORDER BY " + keyColumn + " LIMIT $2")
	}
	update := func(cs []string) string {
		var b strings.Builder
		b.WriteString("UPDATE " + c.Table + " SET ")
		for i, col := range cs {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(col + " = $" + strconv.Itoa(i+1))
		}
		b.WriteString(" WHERE " + keyColumn + " = $" + strconv.Itoa(len(cs)+1))
		return ph(b.String())
	}
	s.readAll, s.scanAll, s.updateAll = read(all), scan(all), update(cols)
	for _, col := range cols {
		s.readOne = append(s.readOne, read(col))
		s.scanOne = append(s.scanOne, scan(col))
		s.updateOne = append(s.updateOne, update([]string{col}))
	}
	var b strings.Builder
	b.WriteString("INSERT INTO " + c.Table + " (" + keyColumn)
	for _, col := range cols {
		b.WriteString(", " + col)
	}
	b.WriteString(") VALUES (")
	sqlexec.Params(&b, 1, 1+len(cols))
	b.WriteByte(')')
	s.insert = ph(b.String())
	return s
}

// lengthSQL is the length in characters of a text column.
func lengthSQL(family, col string) string {
	if family == sqlexec.FamilyMySQL {
		return "CHAR_LENGTH(" + col + ")"
	}
	return "length(" + col + ")"
}

// columnsSQL lists the columns of the table named $1, in order, in family's SQL.
func columnsSQL(family string) string {
	switch family {
	case sqlexec.FamilySQLite:
		return "SELECT name FROM pragma_table_info($1) ORDER BY cid"
	case sqlexec.FamilyMySQL:
		return "SELECT column_name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = $1 ORDER BY ordinal_position"
	}
	return "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position"
}
