package tpcc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
)

// Installing the stored procedures of the --procedures mode. `candor tpcc load --procedures` and
// `candor tpcc procedures` create them (CREATE OR REPLACE, so again and again is fine) and record
// their version, a digest of their text, in candor_load's column procedures (added when missing, so
// loads made before the procedure mode existed take them too). A run in procedure mode refuses a
// database whose recorded version is missing or not this candor's, so it never measures procedures
// other than the ones it ships.

// procColumn is candor_load's column that holds the installed procedures' version.
const procColumn = "procedures"

// ProceduresSupported returns nil when db's engine has a procedure mode, else a user error saying
// why not and what to do.
func ProceduresSupported(db driver.DB) error { return DialectProcedures(db.Dialect()) }

// DialectProcedures is ProceduresSupported for a dialect known before connecting (the URL's
// scheme or --dialect, driver.URLDialect), so that a plan with --procedures is refused before
// anything connects, loads or runs.
func DialectProcedures(d driver.Dialect) error {
	if d.Procedures && procedureSQL(d.SQLFamily()) != nil {
		return nil
	}
	reason := "candor has no procedures for it"
	switch {
	case d.Name == dialectSQLite:
		reason = "SQLite is embedded and has no server-side procedures (nor round trips to save)"
	case d.Name == "tidb":
		reason = "TiDB does not support stored procedures"
	case d.Name == "dolt":
		reason = "Dolt supports stored procedures only in part, and candor's were never tested on it"
	case !d.Procedures:
		reason = "the engine does not run the server-side procedures candor creates"
	}
	return userr.Errorf("--procedures is not available on %s: %s; drop --procedures to run the transactions interactively", d.Name, reason)
}

// procedureSQL is the statements that create a dialect's procedures, nil when it has none.
func procedureSQL(dialect string) []string {
	switch dialect {
	case dialectPostgres:
		return pgProcedures
	case dialectMySQL:
		return myProcedures
	}
	return nil
}

// ProceduresVersion is the version recorded for a dialect's procedures: a digest of their text.
func ProceduresVersion(dialect string) string {
	h := sha256.New()
	for _, s := range procedureSQL(dialect) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return dialect + "-" + hex.EncodeToString(h.Sum(nil))[:16]
}

// CreateProcedures creates (or replaces) the procedures on db, which must hold a TPC-C load, and
// records their version in candor_load. It returns the version.
func CreateProcedures(ctx context.Context, db driver.DB) (string, error) {
	if err := ProceduresSupported(db); err != nil {
		return "", err
	}
	dialect := db.Dialect().SQLFamily()
	c, err := db.Connect(ctx)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if _, err := readLoadInfo(ctx, db, c); err != nil {
		return "", err
	}
	for _, s := range procedureSQL(dialect) {
		if _, err := c.Exec(ctx, s); err != nil {
			return "", fmt.Errorf("creating the procedure %s: %w", procName(s), err)
		}
	}
	has, err := hasMetaColumn(ctx, c, dialect, procColumn)
	if err != nil {
		return "", fmt.Errorf("looking for %s.%s: %w", metaTable, procColumn, err)
	}
	if !has {
		if _, err := c.Exec(ctx, "ALTER TABLE "+metaTable+" ADD COLUMN "+procColumn+" "+procColumnType(dialect)); err != nil {
			return "", fmt.Errorf("adding %s.%s: %w", metaTable, procColumn, err)
		}
	}
	v := ProceduresVersion(dialect)
	if _, err := c.Exec(ctx, placeholders(dialect, "UPDATE "+metaTable+" SET "+procColumn+" = $1 WHERE workload = 'tpcc'"), v); err != nil {
		return "", fmt.Errorf("recording the procedures in %s: %w", metaTable, err)
	}
	return v, nil
}

// CheckProcedures returns a user error unless db holds this candor's procedures, as recorded in
// candor_load by CreateProcedures.
func CheckProcedures(ctx context.Context, db driver.DB) error {
	if err := ProceduresSupported(db); err != nil {
		return err
	}
	dialect := db.Dialect().SQLFamily()
	c, err := db.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	has, err := hasMetaColumn(ctx, c, dialect, procColumn)
	if err != nil {
		return err
	}
	var have *string
	if has {
		if err := c.QueryRow(ctx, "SELECT "+procColumn+" FROM "+metaTable+" WHERE workload = 'tpcc'").Scan(&have); err != nil {
			return err
		}
	}
	u := db.Redacted()
	want := ProceduresVersion(dialect)
	switch {
	case have == nil || *have == "":
		return userr.Errorf("the database at %s has no candor procedures: create them with `candor tpcc procedures --db %s` (or load with --procedures)", u, u)
	case *have != want:
		return userr.Errorf("the database at %s holds candor procedures of another version (%s, this candor's are %s): recreate them with `candor tpcc procedures --db %s`", u, *have, want, u)
	}
	return nil
}

// hasMetaColumn reports whether candor_load has the column (procedures, placement: added to loads
// that have them).
func hasMetaColumn(ctx context.Context, c driver.Conn, dialect, column string) (bool, error) {
	q := "SELECT count(*) FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = '" +
		metaTable + "' AND column_name = '" + column + "'"
	if dialect == dialectPostgres {
		// the candor_load that unqualified names resolve to
		q = "SELECT count(*) FROM pg_attribute WHERE attrelid = '" + metaTable + "'::regclass AND attname = '" +
			column + "' AND NOT attisdropped"
	}
	var n int64
	if err := c.QueryRow(ctx, q).Scan(&n); err != nil {
		return false, err
	}
	return n > 0, nil
}

func procColumnType(dialect string) string {
	if dialect == dialectPostgres {
		return "text"
	}
	return "varchar(64)"
}

// procName is the name of the procedure a CREATE (or DROP ... IF EXISTS) statement creates (or
// drops), for error messages.
func procName(create string) string {
	f := strings.Fields(create)
	for i, w := range f {
		if (strings.EqualFold(w, "FUNCTION") || strings.EqualFold(w, "PROCEDURE")) && i+1 < len(f) {
			if strings.EqualFold(f[i+1], "IF") && i+3 < len(f) { // IF EXISTS
				i += 2
			}
			name, _, _ := strings.Cut(f[i+1], "(")
			return name
		}
	}
	return "?"
}
