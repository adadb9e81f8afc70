package ycsb

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/sqlexec"
)

func testConfig(t testing.TB, args ...string) Config {
	t.Helper()
	y := newTestYCSB(t, workload.CmdLoad, args...)
	if p := y.Validate(workload.Validation{Cmd: workload.CmdLoad}); len(p) > 0 {
		t.Fatal(p)
	}
	return y.options().cfg
}

// The table as YCSB's JDBC binding documents it (jdbc/README.md; create_table.mysql has the same
// columns): YCSB_KEY VARCHAR(255) PRIMARY KEY and FIELD0..FIELDn-1 TEXT.
func TestDDLPerFamily(t *testing.T) {
	c := testConfig(t, "-p", "fieldcount=3")
	want := "CREATE TABLE usertable (\n  YCSB_KEY VARCHAR(255) PRIMARY KEY,\n  FIELD0 TEXT,\n  FIELD1 TEXT,\n  FIELD2 TEXT\n)"
	for _, fam := range []string{sqlexec.FamilyPostgres, sqlexec.FamilyMySQL, sqlexec.FamilySQLite} {
		if got := createSQL(fam, c); got != want {
			t.Errorf("%s DDL:\n got %s\nwant %s", fam, got, want)
		}
	}
	long := testConfig(t, "-p", "fieldcount=1", "-p", "fieldlength=70000", "-p", "table=t2", "-p", "fieldnameprefix=col_")
	if got := createSQL(sqlexec.FamilyMySQL, long); got != "CREATE TABLE t2 (\n  YCSB_KEY VARCHAR(255) PRIMARY KEY,\n  COL_0 LONGTEXT\n)" {
		t.Errorf("MySQL DDL of long fields: %s", got)
	}
	if got := createSQL(sqlexec.FamilyPostgres, long); !strings.Contains(got, "COL_0 TEXT") {
		t.Errorf("PostgreSQL DDL of long fields: %s", got)
	}
	if storedName(sqlexec.FamilyPostgres, "FIELD0") != "field0" || storedName(sqlexec.FamilyMySQL, "FIELD0") != "FIELD0" || storedName(sqlexec.FamilySQLite, "UserTable") != "UserTable" {
		t.Error("storedName")
	}
}

func TestStatementsPerFamily(t *testing.T) {
	c := testConfig(t, "-p", "fieldcount=2")
	for _, tc := range []struct {
		family                                      string
		readAll, readOne, scanAll, scanOne          string
		updateAll, updateOne, insert, readAllByName string
	}{
		{
			family:        sqlexec.FamilyPostgres,
			readAll:       "SELECT * FROM usertable WHERE YCSB_KEY = $1",
			readOne:       "SELECT FIELD1 FROM usertable WHERE YCSB_KEY = $1",
			scanAll:       "SELECT * FROM usertable WHERE YCSB_KEY >= $1 ORDER BY YCSB_KEY LIMIT $2",
			scanOne:       "SELECT FIELD1 FROM usertable WHERE YCSB_KEY >= $1 ORDER BY YCSB_KEY LIMIT $2",
			updateAll:     "UPDATE usertable SET FIELD0 = $1, FIELD1 = $2 WHERE YCSB_KEY = $3",
			updateOne:     "UPDATE usertable SET FIELD1 = $1 WHERE YCSB_KEY = $2",
			insert:        "INSERT INTO usertable (YCSB_KEY, FIELD0, FIELD1) VALUES ($1, $2, $3)",
			readAllByName: "SELECT FIELD0, FIELD1 FROM usertable WHERE YCSB_KEY = $1",
		},
		{
			family:        sqlexec.FamilyMySQL,
			readAll:       "SELECT * FROM usertable WHERE YCSB_KEY = ?",
			readOne:       "SELECT FIELD1 FROM usertable WHERE YCSB_KEY = ?",
			scanAll:       "SELECT * FROM usertable WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?",
			scanOne:       "SELECT FIELD1 FROM usertable WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?",
			updateAll:     "UPDATE usertable SET FIELD0 = ?, FIELD1 = ? WHERE YCSB_KEY = ?",
			updateOne:     "UPDATE usertable SET FIELD1 = ? WHERE YCSB_KEY = ?",
			insert:        "INSERT INTO usertable (YCSB_KEY, FIELD0, FIELD1) VALUES (?, ?, ?)",
			readAllByName: "SELECT FIELD0, FIELD1 FROM usertable WHERE YCSB_KEY = ?",
		},
		{
			family:        sqlexec.FamilySQLite,
			readAll:       "SELECT * FROM usertable WHERE YCSB_KEY = ?1",
			readOne:       "SELECT FIELD1 FROM usertable WHERE YCSB_KEY = ?1",
			scanAll:       "SELECT * FROM usertable WHERE YCSB_KEY >= ?1 ORDER BY YCSB_KEY LIMIT ?2",
			scanOne:       "SELECT FIELD1 FROM usertable WHERE YCSB_KEY >= ?1 ORDER BY YCSB_KEY LIMIT ?2",
			updateAll:     "UPDATE usertable SET FIELD0 = ?1, FIELD1 = ?2 WHERE YCSB_KEY = ?3",
			updateOne:     "UPDATE usertable SET FIELD1 = ?1 WHERE YCSB_KEY = ?2",
			insert:        "INSERT INTO usertable (YCSB_KEY, FIELD0, FIELD1) VALUES (?1, ?2, ?3)",
			readAllByName: "SELECT FIELD0, FIELD1 FROM usertable WHERE YCSB_KEY = ?1",
		},
	} {
		s, n := newStatements(tc.family, c, false), newStatements(tc.family, c, true)
		for _, x := range []struct{ what, got, want string }{
			{"read all", s.readAll, tc.readAll}, {"read one", s.readOne[1], tc.readOne}, {"scan all", s.scanAll, tc.scanAll},
			{"scan one", s.scanOne[1], tc.scanOne}, {"update all", s.updateAll, tc.updateAll}, {"update one", s.updateOne[1], tc.updateOne},
			{"insert", s.insert, tc.insert}, {"read all by name", n.readAll, tc.readAllByName},
		} {
			if x.got != x.want {
				t.Errorf("%s %s:\n got %s\nwant %s", tc.family, x.what, x.got, x.want)
			}
		}
		if s.allCols != 3 || !s.keyFirst || n.allCols != 2 || n.keyFirst {
			t.Errorf("%s: columns of the reads of all fields: %d %v, by name %d %v", tc.family, s.allCols, s.keyFirst, n.allCols, n.keyFirst)
		}
	}
}
