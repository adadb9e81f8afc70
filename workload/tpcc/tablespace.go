package tpcc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
)

// `candor tpcc load --tablespaces A,B,...`: the tables and their indexes spread over several
// places, as large TPC-C systems spread them over many devices.
//
//   - PostgreSQL: the names are tablespaces the user created (CREATE TABLESPACE needs a directory
//     owned by the server's OS user, so it is theirs to make). Tables are created with TABLESPACE,
//     the primary keys' unique indexes and the secondary indexes are built with TABLESPACE (the keys
//     are attached to their index after the load: ADD CONSTRAINT ... PRIMARY KEY USING INDEX).
//   - MySQL and MariaDB: the names are directories. Each table is created with DATA DIRECTORY
//     (InnoDB, innodb_file_per_table ON); InnoDB keeps a table's indexes in the table's own file, so
//     they are where their table is.
//   - Other engines are refused: SQLite is one file; CockroachDB, YugabyteDB and TiDB place data
//     over their own nodes; Dolt keeps its own storage.
//
// The assignment (planPlacement) is round-robin and deterministic. The tables go largest first
// (placementOrder: STOCK, ORDER_LINE, CUSTOMER, ORDERS, HISTORY, NEW_ORDER, DISTRICT, WAREHOUSE,
// ITEM): the table at position k goes on place k mod N, its primary key on the next place,
// (k+1) mod N, and its secondary index on the one after, (k+2) mod N. So with two places or more
// STOCK and ORDER_LINE are apart, and no primary key shares its table's place.
//
// The placement is recorded in candor_load (column placement, JSON, added to loads that have one)
// and in the load's record; it is read back from the catalog when the keys are built, and a load
// whose tables or indexes are elsewhere fails, never marked complete. A run discloses it (Setup's
// options and a section of the result).

// placementOrder is the tables largest first, the order they are spread in.
var placementOrder = []*table{tStock, tOrderLine, tCustomer, tOrders, tHistory, tNewOrder, tDistrict, tWarehouse, tItem}

// Placed is one table or index and where the load puts it.
type Placed struct {
	Name  string `json:"name"`  // the table's or index's name
	Table string `json:"table"` // the table it belongs to
	Kind  string `json:"kind"`  // "table", "primary key" or "index"
	On    string `json:"on"`    // the tablespace (PostgreSQL) or directory (MySQL, MariaDB)
}

// Placement is where --tablespaces puts every table (and, on PostgreSQL, every index).
type Placement struct {
	// Family is the SQL family the placement is for ("postgres": tablespaces; "mysql": directories).
	Family      string   `json:"family"`
	Tablespaces []string `json:"tablespaces"`
	Objects     []Placed `json:"objects"`
}

const (
	kindTable = "table"
	kindKey   = "primary key"
	kindIndex = "index"
)

// planPlacement is the placement of the tables (and, for PostgreSQL, their indexes) over names, as
// the top of this file says. It needs at least one name.
func planPlacement(family string, names []string) *Placement {
	p := &Placement{Family: family, Tablespaces: append([]string(nil), names...)}
	n := len(names)
	for k, t := range placementOrder {
		p.Objects = append(p.Objects, Placed{Name: t.name, Table: t.name, Kind: kindTable, On: names[k%n]})
		if family != dialectPostgres {
			continue // InnoDB: the indexes are in the table's file
		}
		if len(t.pk) > 0 {
			p.Objects = append(p.Objects, Placed{Name: t.pkName(), Table: t.name, Kind: kindKey, On: names[(k+1)%n]})
		}
		j := 0
		for _, x := range indexes {
			if x.table == t.name {
				p.Objects = append(p.Objects, Placed{Name: x.name, Table: t.name, Kind: kindIndex, On: names[(k+2+j)%n]})
				j++
			}
		}
	}
	return p
}

// on is where the placement puts the named table or index, "" when nowhere in particular (no
// placement, or not an object of it).
func (p *Placement) on(name string) string {
	if p == nil {
		return ""
	}
	for _, o := range p.Objects {
		if o.Name == name {
			return o.On
		}
	}
	return ""
}

// pgIdent quotes a PostgreSQL identifier: the tablespace's name exactly as given.
func pgIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// sqlString quotes a directory as a string literal (tablespacesProblems refuses quotes and
// backslashes in it, which MySQL's sql_mode decides how to read).
func sqlString(s string) string { return "'" + s + "'" }

// tableClause is what CREATE TABLE of t ends with to put it where p says ("" without p).
func (p *Placement) tableClause(t *table) string {
	on := p.on(t.name)
	switch {
	case on == "":
		return ""
	case p.Family == dialectPostgres:
		return " TABLESPACE " + pgIdent(on)
	}
	return " DATA DIRECTORY = " + sqlString(on)
}

// indexClause is what CREATE [UNIQUE] INDEX name ends with to put it where p says ("" without p, and
// always on MySQL's family: an index lives in its table's file there).
func (p *Placement) indexClause(name string) string {
	if on := p.on(name); on != "" && p.Family == dialectPostgres {
		return " TABLESPACE " + pgIdent(on)
	}
	return ""
}

// tablespacesRefusal says why an engine takes no --tablespaces, "" when it does.
func tablespacesRefusal(engine string) string {
	switch engine {
	case dialectPostgres, "mysql", "mariadb":
		return ""
	case dialectSQLite:
		return "SQLite keeps the whole database in one file"
	case dialectCockroach, dialectYugabyte:
		return engine + " places its data over its own nodes, not in tablespaces"
	case "tidb":
		return "TiDB places its data over its own storage nodes (TiKV), not in directories of a server"
	case "dolt":
		return "Dolt keeps its data in its own storage and takes no DATA DIRECTORY"
	}
	return "candor places tables only on PostgreSQL (tablespaces), MySQL and MariaDB (directories)"
}

// tablespacesProblems checks --tablespaces before anything connects: no empty or repeated name, an
// engine that has them (when the URL says the engine: known, with its name), absolute directories on
// MySQL's family. Each problem is one sentence naming what to do.
func tablespacesProblems(names []string, engine string, known bool) []string {
	if len(names) == 0 {
		return nil
	}
	var p []string
	seen := map[string]bool{}
	for _, s := range names {
		switch {
		case strings.TrimSpace(s) == "":
			p = append(p, "--tablespaces has an empty name: give the names separated by commas, as in --tablespaces ts1,ts2")
		case seen[s]:
			p = append(p, fmt.Sprintf("--tablespaces names %q twice: give each tablespace once", s))
		}
		seen[s] = true
	}
	if !known {
		return p
	}
	if why := tablespacesRefusal(engine); why != "" {
		return append(p, fmt.Sprintf("--tablespaces is not available on %s: %s; drop --tablespaces", engine, why))
	}
	if driver.FamilyOf(engine) == dialectMySQL {
		for _, s := range names {
			switch {
			case s != "" && !filepath.IsAbs(s):
				p = append(p, fmt.Sprintf("--tablespaces %q is not an absolute directory: on %s the names are directories for DATA DIRECTORY, such as /mnt/disk1/mysql", s, engine))
			case strings.ContainsAny(s, `'\`):
				p = append(p, fmt.Sprintf("--tablespaces %q has a quote or a backslash: name a directory without them", s))
			}
		}
	}
	if engine == dialectPostgres {
		for _, s := range names {
			switch {
			case len(s) > 63:
				p = append(p, fmt.Sprintf("--tablespaces %q is longer than PostgreSQL's 63-byte names: give the tablespace's name", s))
			case s == "pg_global":
				p = append(p, "--tablespaces pg_global holds only the cluster's shared catalogs: name other tablespaces")
			}
		}
	}
	return p
}

// checkTablespaces refuses, before anything is dropped or written, names the server cannot place
// tables on: PostgreSQL tablespaces that do not exist or the user may not create in; on MySQL and
// MariaDB innodb_file_per_table off, or a directory the server cannot create a table in (a probe
// table created there and dropped).
func checkTablespaces(ctx context.Context, db driver.DB, c driver.Conn, names []string) error {
	if len(names) == 0 {
		return nil
	}
	engine := engineName(db)
	if p := tablespacesProblems(names, engine, true); len(p) > 0 {
		return userr.Errorf("%s", p[0])
	}
	u := db.Redacted()
	if engine == dialectPostgres {
		have, err := queryStrings(ctx, c, "SELECT spcname FROM pg_tablespace ORDER BY 1")
		if err != nil {
			return fmt.Errorf("listing the tablespaces: %w", err)
		}
		for _, s := range names {
			if !slices.Contains(have, s) {
				return userr.Errorf("the server of %s has no tablespace %q (it has %s): create it first (CREATE TABLESPACE %s LOCATION '/some/dir', on an empty directory owned by the server's OS user), or name existing ones", u, s, strings.Join(have, ", "), pgIdent(s))
			}
			var ok bool
			if err := c.QueryRow(ctx, "SELECT has_tablespace_privilege($1, 'CREATE')", s).Scan(&ok); err != nil {
				return fmt.Errorf("checking the privilege on tablespace %s: %w", s, err)
			}
			if !ok {
				return userr.Errorf("the user of %s may not create tables in tablespace %q: GRANT CREATE ON TABLESPACE %s TO the user, or name other tablespaces", u, s, pgIdent(s))
			}
		}
		return nil
	}
	var fpt string
	if err := c.QueryRow(ctx, "SELECT CAST(@@innodb_file_per_table AS CHAR)").Scan(&fpt); err == nil && fpt != "1" && !strings.EqualFold(fpt, "ON") {
		return userr.Errorf("--tablespaces needs innodb_file_per_table ON on the server of %s (it is %s): DATA DIRECTORY puts a table in a file of its own only then; set it (SET GLOBAL innodb_file_per_table = ON) or drop --tablespaces", u, fpt)
	}
	for _, dir := range names {
		if _, err := c.Exec(ctx, "DROP TABLE IF EXISTS "+probeTable); err != nil {
			return err
		}
		if _, err := c.Exec(ctx, "CREATE TABLE "+probeTable+" (i INT PRIMARY KEY) ENGINE=InnoDB DATA DIRECTORY = "+sqlString(dir)); err != nil {
			return userr.Errorf("the server of %s cannot create a table in the directory %s (%v): the directory must be on the server's host, writable by the server's OS user (MariaDB makes a missing one if it can; MySQL wants it to exist and be listed in innodb_directories)", u, dir, err)
		}
		if _, err := c.Exec(ctx, "DROP TABLE "+probeTable); err != nil {
			return err
		}
	}
	return nil
}

// probeTable is the table checkTablespaces creates in each directory and drops again.
const probeTable = "candor_tpcc_probe"

func queryStrings(ctx context.Context, c driver.Conn, q string, args ...any) ([]string, error) {
	rows, err := c.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// placementColumn is candor_load's column holding the placement (JSON), on loads that have one.
const placementColumn = "placement"

// recordPlacement adds the placement column to candor_load and stores p in it.
func recordPlacement(ctx context.Context, c driver.Conn, dialect string, p *Placement) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if _, err := c.Exec(ctx, "ALTER TABLE "+metaTable+" ADD COLUMN "+placementColumn+" text"); err != nil {
		return fmt.Errorf("adding %s.%s: %w", metaTable, placementColumn, err)
	}
	_, err = c.Exec(ctx, placeholders(dialect, "UPDATE "+metaTable+" SET "+placementColumn+" = $1 WHERE workload = 'tpcc'"), string(b))
	return err
}

// readPlacement is the placement candor_load records, nil for a load without one (or an engine
// that has none).
func readPlacement(ctx context.Context, db driver.DB, c driver.Conn) (*Placement, error) {
	if tablespacesRefusal(engineName(db)) != "" {
		return nil, nil
	}
	dialect := db.Dialect().SQLFamily()
	has, err := hasMetaColumn(ctx, c, dialect, placementColumn)
	if err != nil || !has {
		return nil, err
	}
	var s *string
	if err := c.QueryRow(ctx, "SELECT "+placementColumn+" FROM "+metaTable+" WHERE workload = 'tpcc'").Scan(&s); err != nil {
		if errors.Is(err, driver.ErrNoRows) {
			return nil, nil
		}
		return nil, err
	}
	if s == nil || *s == "" {
		return nil, nil
	}
	var p Placement
	if err := json.Unmarshal([]byte(*s), &p); err != nil {
		return nil, userr.Errorf("%s's %s.%s is not a placement candor wrote (%v): reload with candor tpcc load --drop", db.Redacted(), metaTable, placementColumn, err)
	}
	return &p, nil
}

// verifyPlacement reads back where every table and index of p is and returns an error naming each
// one that is elsewhere: the load is then not complete.
func verifyPlacement(ctx context.Context, db driver.DB, c driver.Conn, p *Placement) error {
	wrong, err := misplaced(ctx, c, p)
	if err != nil {
		return fmt.Errorf("reading back where the tables are: %w", err)
	}
	if len(wrong) > 0 {
		return fmt.Errorf("the load's tables are not where --tablespaces put them (%s): the load is not complete; look at the server's tablespaces and reload with candor tpcc load --drop", strings.Join(wrong, "; "))
	}
	return nil
}

// misplaced names each table and index of p that the catalog shows elsewhere (none without p).
func misplaced(ctx context.Context, c driver.Conn, p *Placement) ([]string, error) {
	if p == nil {
		return nil, nil
	}
	have, err := actualPlacement(ctx, c, p)
	if err != nil {
		return nil, err
	}
	var wrong []string
	for _, o := range p.Objects {
		got, ok := have[o.Name]
		switch {
		case !ok:
			wrong = append(wrong, fmt.Sprintf("%s %s is not in the catalog", o.Kind, o.Name))
		case got != o.On:
			wrong = append(wrong, fmt.Sprintf("%s %s is on %s, not %s", o.Kind, o.Name, got, o.On))
		}
	}
	return wrong, nil
}

// placementCondition is the check's condition after clause 3.3.2's twelve on a load with a
// placement: every table and index is still where the load put it.
const placementCondition = 13

// checkPlacement is that condition's result.
func checkPlacement(ctx context.Context, c driver.Conn, p *Placement) (CheckResult, error) {
	start := time.Now()
	r := CheckResult{Condition: placementCondition, Name: "tables and indexes where load --tablespaces put them"}
	wrong, err := misplaced(ctx, c, p)
	if err != nil {
		return r, err
	}
	r.OK, r.Violations, r.Count, r.Duration = len(wrong) == 0, wrong, int64(len(wrong)), time.Since(start)
	return r, nil
}

// actualPlacement is where the catalog says each of p's objects is: its tablespace on PostgreSQL
// (the database's default tablespace for reltablespace 0), its table's directory on MySQL's family
// (the directory above the database's directory holding the table's .ibd file).
func actualPlacement(ctx context.Context, c driver.Conn, p *Placement) (map[string]string, error) {
	var names []string
	for _, o := range p.Objects {
		names = append(names, o.Name)
	}
	out := map[string]string{}
	if p.Family == dialectPostgres {
		rows, err := c.Query(ctx, `SELECT c.relname, coalesce(t.spcname, d.spcname)
FROM pg_class c LEFT JOIN pg_tablespace t ON t.oid = c.reltablespace,
  (SELECT s.spcname FROM pg_database b JOIN pg_tablespace s ON s.oid = b.dattablespace WHERE b.datname = current_database()) d
WHERE c.relname IN ('`+strings.Join(names, "', '")+`') AND pg_table_is_visible(c.oid)`)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var n, on string
			if err := rows.Scan(&n, &on); err != nil {
				return nil, err
			}
			out[n] = on
		}
		return out, rows.Err()
	}
	var dbName string
	if err := c.QueryRow(ctx, "SELECT DATABASE()").Scan(&dbName); err != nil {
		return nil, err
	}
	files := map[string]string{} // InnoDB's tablespace name (db/table) -> its file
	for i, n := range names {
		names[i] = "'" + mysqlFileName(dbName) + "/" + mysqlFileName(n) + "'"
	}
	list := strings.Join(names, ", ")
	// MariaDB (and MySQL 5.7): INNODB_SYS_TABLESPACES has the file; MySQL 8: information_schema.FILES.
	rows, err := c.Query(ctx, "SELECT NAME, FILENAME FROM information_schema.INNODB_SYS_TABLESPACES WHERE NAME IN ("+list+")")
	if err != nil {
		rows, err = c.Query(ctx, "SELECT TABLESPACE_NAME, FILE_NAME FROM information_schema.FILES WHERE FILE_TYPE = 'TABLESPACE' AND TABLESPACE_NAME IN ("+list+")")
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var n, f string
		if err := rows.Scan(&n, &f); err != nil {
			return nil, err
		}
		files[n] = f
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, o := range p.Objects {
		if f, ok := files[mysqlFileName(dbName)+"/"+mysqlFileName(o.Name)]; ok {
			out[o.Name] = mysqlDataDirectory(f)
		}
	}
	return out, nil
}

// mysqlDataDirectory is the DATA DIRECTORY a table's file is in (DIR/database/table.ibd gives
// DIR), or the file itself, relative to the data directory, when it is there.
func mysqlDataDirectory(file string) string {
	if !filepath.IsAbs(file) {
		return "the data directory (" + file + ")"
	}
	return filepath.Dir(filepath.Dir(file))
}

// mysqlFileName is a database's or table's name as InnoDB names its files and tablespaces: letters,
// digits and underscores as they are, any other character as @ and four hex digits of its code.
// (MySQL maps some other characters otherwise; candor's tables have plain names.)
func mysqlFileName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
			continue
		}
		fmt.Fprintf(&b, "@%04x", r)
	}
	return b.String()
}

// placementSection is the result's section on where the load put the tables, nil without one.
func placementSection(p *Placement) *report.Section {
	if p == nil {
		return nil
	}
	where := "tablespace"
	if p.Family != dialectPostgres {
		where = "directory"
	}
	s := &report.Section{Title: "table placement (load --tablespaces)", Columns: []string{"table or index", "kind", where}}
	for _, o := range p.Objects {
		s.Rows = append(s.Rows, []string{o.Name, o.Kind, o.On})
	}
	s.Notes = []string{"Round-robin over " + strings.Join(p.Tablespaces, ", ") + ", largest tables first; read back from the catalog when the load ended."}
	if p.Family != dialectPostgres {
		s.Notes = append(s.Notes, "InnoDB keeps a table's indexes in the table's own file: they are in their table's directory.")
	}
	return s
}

// placementText is the run's opening line's note of the placement ("" without one).
func placementText(p *Placement) string {
	if p == nil {
		return ""
	}
	what := "tablespaces"
	if p.Family != dialectPostgres {
		what = "directories"
	}
	return "; tables spread over " + what + " " + strings.Join(p.Tablespaces, ", ")
}
