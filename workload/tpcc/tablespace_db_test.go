package tpcc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

// dirBytes is the bytes of the files under dir.
func dirBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			n += fi.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	return n
}

func randomSuffix(t *testing.T) string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

// pgTablespaces makes n directories owned by the PostgreSQL server's OS user (postgres: the test
// server runs as it) and a tablespace on each, named uniquely for this run (tablespaces are the
// cluster's); when the test ends the TPC-C tables are dropped, then the tablespaces and the
// directories.
func pgTablespaces(t *testing.T, db driver.DB, raw string, n int) (names, dirs []string) {
	t.Helper()
	pg, err := user.Lookup("postgres")
	if err != nil {
		t.Fatalf("the tablespaces' directories must belong to the PostgreSQL server's OS user, postgres, which this host does not have: %v", err)
	}
	uid, _ := strconv.Atoi(pg.Uid)
	gid, _ := strconv.Atoi(pg.Gid)
	base, err := os.MkdirTemp("", "candor-tblspc-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil { // the server's user must reach the directories
		t.Fatal(err)
	}
	suffix := randomSuffix(t)
	for i := range n {
		dir := filepath.Join(base, "ts"+strconv.Itoa(i))
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatalf("giving %s to the PostgreSQL server's OS user postgres (a tablespace's directory must be its): %v; run the test as root", dir, err)
		}
		name := "candor_ts" + strconv.Itoa(i) + "_" + suffix
		if err := dbtest.Exec(raw, "CREATE TABLESPACE "+name+" LOCATION '"+dir+"'"); err != nil {
			t.Fatalf("CREATE TABLESPACE %s on %s: %v", name, dir, err)
		}
		names, dirs = append(names, name), append(dirs, dir)
	}
	t.Cleanup(func() {
		if _, err := (&Workload{}).Drop(context.Background(), db); err != nil { // the tables first: a tablespace in use cannot go
			t.Errorf("dropping the TPC-C tables: %v", err)
		}
		for _, name := range names {
			if err := dbtest.Exec(raw, "DROP TABLESPACE IF EXISTS "+name); err != nil {
				t.Errorf("DROP TABLESPACE %s: %v", name, err)
			}
		}
	})
	return names, dirs
}

// TestTablespacesPostgres loads 1 warehouse over two tablespaces: the catalog shows every table and
// index where the plan put it, each tablespace's directory holds at least the relations placed
// there, the load records its placement; a second load naming a tablespace that does not exist is
// refused before it drops anything.
func TestTablespacesPostgres(t *testing.T) {
	parallel(t)
	raw := dbtest.FreshPostgresURL(t, "candor_tblspc")
	ctx := context.Background()
	db, err := driver.Open(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	names, dirs := pgTablespaces(t, db, raw, 2)
	before := []int64{dirBytes(t, dirs[0]), dirBytes(t, dirs[1])}
	info, err := Load(ctx, db, LoadOptions{Warehouses: 1, Loaders: 2, Seed: 7, ToolVersion: "test", Tablespaces: names})
	if err != nil {
		t.Fatalf("Load with --tablespaces %s: %v", strings.Join(names, ","), err)
	}
	plan := planPlacement(dialectPostgres, names)
	// The catalog, read here on its own: pg_class.reltablespace (0: the database's default).
	c, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows, err := c.Query(ctx, `SELECT c.relname, coalesce(t.spcname, 'default'), pg_relation_size(c.oid)
FROM pg_class c LEFT JOIN pg_tablespace t ON t.oid = c.reltablespace
WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'i')`)
	if err != nil {
		t.Fatal(err)
	}
	on, size := map[string]string{}, map[string]int64{}
	for rows.Next() {
		var n, s string
		var b int64
		if err := rows.Scan(&n, &s, &b); err != nil {
			t.Fatal(err)
		}
		on[n], size[n] = s, b
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	placed, which := make([]int64, 2), map[string]int{names[0]: 0, names[1]: 1}
	for _, o := range plan.Objects {
		if on[o.Name] != o.On {
			t.Errorf("%s %s is on %s, the plan says %s", o.Kind, o.Name, on[o.Name], o.On)
		}
		placed[which[o.On]] += size[o.Name]
	}
	if on["candor_load"] != "default" {
		t.Errorf("candor_load is on %s, not the database's default", on["candor_load"])
	}
	for i, dir := range dirs {
		grew := dirBytes(t, dir) - before[i]
		t.Logf("%s (%s): grew %d bytes; the relations placed there have %d", names[i], dir, grew, placed[i])
		if placed[i] == 0 || grew < placed[i] {
			t.Errorf("%s grew %d bytes, less than the %d of the relations placed on %s", dir, grew, placed[i], names[i])
		}
	}
	// The record: candor_load and the load's options.
	li, err := ReadLoadInfo(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if li.Placement == nil || len(li.Placement.Objects) != len(plan.Objects) || info.Placement == nil {
		t.Fatalf("the recorded placement is %+v", li.Placement)
	}
	st, err := loadRecord(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	var so shardOptions
	if err := json.Unmarshal(st.Options, &so); err != nil || strings.Join(so.Tablespaces, ",") != strings.Join(names, ",") {
		t.Errorf("the load's record options %s (%v)", st.Options, err)
	}
	// The load-safety check's view: each tablespace's directory, its share, what it holds now.
	gotDirs, shares, held, err := (&Workload{Options: Options{Warehouses: 1, Tablespaces: names}}).LoadPlaces(ctx, db)
	if err != nil || len(gotDirs) != 2 {
		t.Fatalf("LoadPlaces: %q, %v", gotDirs, err)
	}
	for i := range gotDirs {
		if gotDirs[i] != dirs[i] || shares[i] <= 0 || shares[0]+shares[1] < 0.999 || held[i] < placed[i] {
			t.Errorf("LoadPlaces %d: %s, share %.3f, holding %d; want %s, a share, at least %d", i, gotDirs[i], shares[i], held[i], dirs[i], placed[i])
		}
	}
	// A run discloses it: its opening line, its options, a section of its result.
	sess, err := (&Workload{}).Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Terminals: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	setup := sess.Setup()
	opts, _ := json.Marshal(setup.Options)
	if !strings.Contains(setup.Describe, "tables spread over tablespaces "+strings.Join(names, ", ")) ||
		!strings.Contains(string(opts), `"tablespaces":["`+names[0]+`","`+names[1]+`"]`) {
		t.Errorf("the run's setup %q, options %s", setup.Describe, opts)
	}
	sess.Close()
	// The check's condition 13, then the check on load end, see a table moved elsewhere.
	moved := "table item is on pg_default, not " + plan.on("item")
	ck := func() CheckResult {
		rs, err := Check(ctx, db, CheckOptions{})
		if err != nil || len(rs) != 13 || rs[12].Condition != placementCondition {
			t.Fatalf("Check: %d results, %v", len(rs), err)
		}
		return rs[12]
	}
	if r := ck(); !r.OK {
		t.Errorf("condition 13 on the load: %+v", r)
	}
	if _, err := c.Exec(ctx, "ALTER TABLE item SET TABLESPACE pg_default"); err != nil {
		t.Fatal(err)
	}
	if r := ck(); r.OK || len(r.Violations) != 1 || r.Violations[0] != moved {
		t.Errorf("condition 13 after moving item: %+v", r)
	}
	if err := verifyPlacement(ctx, db, c, li.Placement); err == nil || !strings.Contains(err.Error(), moved) {
		t.Errorf("verifyPlacement after moving item: %v", err)
	}
	// A tablespace that does not exist: refused before anything is dropped.
	_, err = Load(ctx, db, LoadOptions{Warehouses: 1, Loaders: 2, Seed: 7, Drop: true, Tablespaces: []string{names[0], "candor_no_such_ts"}})
	if !userr.Is(err) || !strings.Contains(err.Error(), `no tablespace "candor_no_such_ts"`) {
		t.Fatalf("Load with a tablespace that does not exist: %v", err)
	}
	t.Logf("refused: %v", err)
	if n := count(t, db, "warehouse"); n != 1 {
		t.Errorf("the refused load left %d warehouses, not the 1 loaded", n)
	}
}

// TestTablespacesMariaDB loads 1 warehouse with its tables in two directories (DATA DIRECTORY):
// InnoDB's catalog names each table's file in the directory the plan gave it, and the file is
// there; a directory the server cannot make is refused, with the reason, before anything is
// dropped.
func TestTablespacesMariaDB(t *testing.T) {
	parallel(t)
	db := mysqlTestDB(t)
	ctx := context.Background()
	base, err := os.MkdirTemp("", "candor-datadir-")
	if err != nil {
		t.Fatal(err)
	}
	// Writable by the server's OS user, whoever it is (the throwaway server runs as the user who
	// started it; a packaged one as mysql).
	dirs := []string{filepath.Join(base, "d0"), filepath.Join(base, "d1")}
	for _, d := range append([]string{base}, dirs...) {
		if err := os.MkdirAll(d, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if _, err := (&Workload{}).Drop(context.Background(), db); err != nil { // the tables' files first
			t.Errorf("dropping the TPC-C tables: %v", err)
		}
		os.RemoveAll(base)
	})
	if _, err := Load(ctx, db, LoadOptions{Warehouses: 1, Loaders: 2, Seed: 7, ToolVersion: "test", Tablespaces: dirs}); err != nil {
		t.Fatalf("Load with --tablespaces %s: %v", strings.Join(dirs, ","), err)
	}
	c, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var dbName string
	if err := c.QueryRow(ctx, "SELECT DATABASE()").Scan(&dbName); err != nil {
		t.Fatal(err)
	}
	rows, err := c.Query(ctx, "SELECT NAME, FILENAME FROM information_schema.INNODB_SYS_TABLESPACES WHERE NAME LIKE '"+dbName+"/%'")
	if err != nil {
		t.Fatal(err)
	}
	file := map[string]string{}
	for rows.Next() {
		var n, f string
		if err := rows.Scan(&n, &f); err != nil {
			t.Fatal(err)
		}
		file[strings.TrimPrefix(n, dbName+"/")] = f
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, o := range planPlacement(dialectMySQL, dirs).Objects {
		want := filepath.Join(o.On, dbName, o.Name+".ibd")
		if file[o.Name] != want {
			t.Errorf("table %s's file is %q, the plan puts it at %s", o.Name, file[o.Name], want)
			continue
		}
		if fi, err := os.Stat(want); err != nil || fi.Size() == 0 {
			t.Errorf("table %s's file %s: %v", o.Name, want, err)
		}
	}
	if f := file[metaTable]; strings.HasPrefix(f, base) {
		t.Errorf("candor_load is in %s, not the data directory", f)
	}
	// A directory the server cannot make (under a regular file): refused, saying so.
	bad := filepath.Join(base, "file", "x")
	if err := os.WriteFile(filepath.Join(base, "file"), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	_, err = Load(ctx, db, LoadOptions{Warehouses: 1, Loaders: 2, Seed: 7, Drop: true, Tablespaces: []string{dirs[0], bad}})
	if !userr.Is(err) || !strings.Contains(err.Error(), "cannot create a table in the directory "+bad) {
		t.Fatalf("Load into %s: %v", bad, err)
	}
	t.Logf("refused: %v", err)
	if n := count(t, db, "warehouse"); n != 1 {
		t.Errorf("the refused load left %d warehouses, not the 1 loaded", n)
	}
}
