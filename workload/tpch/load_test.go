package tpch

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/sqlexec"
	"github.com/candor-bench/candor/workload/tpch/dbgen"
)

// The load's integration tests, on every engine: a SQLite file always, PostgreSQL and MariaDB on
// the throwaway servers scripts/test starts (a missing server fails the test, never skips it).
var loadDBs = []struct {
	name string
	open func(testing.TB) driver.DB
}{
	{"sqlite", func(t testing.TB) driver.DB { return openURL(t, "sqlite:"+filepath.Join(t.TempDir(), "tpch.db")) }},
	{"postgres", func(t testing.TB) driver.DB { return dbtest.FreshPostgres(t, "candor_test") }},
	{"mysql", func(t testing.TB) driver.DB { return dbtest.FreshMySQL(t, "candor_test") }},
}

func openURL(t testing.TB, u string) driver.DB {
	t.Helper()
	db, err := driver.Open(testCtx(t), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

const testSF = 0.01

// TestLoad loads SF 0.01 on each engine, then checks: each table's row count equals the
// generator's, and the first, middle and last rows of each table, read back as text, equal the
// generated rows in dbgen's .tbl text (package dbgen's equality test ties those to tpchgen-cli's).
func TestLoad(t *testing.T) {
	for _, e := range loadDBs {
		t.Run(e.name, func(t *testing.T) {
			db := e.open(t)
			ctx := testCtx(t)
			var progress atomic.Int64
			res, err := loadData(ctx, db, workload.LoadOptions{Loaders: 2, ToolVersion: "test", Progress: func(n int64) { progress.Add(n) }}, testSF)
			if err != nil {
				t.Fatal(err)
			}
			if res.Rows != loadRows(testSF) || progress.Load() != res.Rows {
				t.Errorf("load wrote %d rows (progress %d), want %d", res.Rows, progress.Load(), loadRows(testSF))
			}
			t.Logf("%s: %d rows, %s", e.name, res.Rows, res.Summary)
			sf, ok, err := loadedSF(ctx, db)
			if err != nil || !ok || sf != testSF {
				t.Fatalf("loadedSF = %v, %v, %v; want %v", sf, ok, err, testSF)
			}
			c, err := db.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			fam := db.Dialect().SQLFamily()
			for _, ix := range indexes { // built after the rows (on MariaDB while the next tables load)
				q := "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = '" + ix.name + "'"
				switch fam {
				case sqlexec.FamilyPostgres:
					q = "SELECT COUNT(*) FROM pg_indexes WHERE indexname = '" + ix.name + "'"
				case sqlexec.FamilyMySQL:
					q = "SELECT COUNT(DISTINCT index_name) FROM information_schema.statistics WHERE table_schema = DATABASE() AND index_name = '" + ix.name + "'"
				}
				var n int64
				if err := c.QueryRow(ctx, q).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n != 1 {
					t.Errorf("index %s on %s: %d found after the load, want 1", ix.name, tableName(ix.table), n)
				}
			}
			for _, tab := range dbgen.Tables() {
				var gen [][]string
				if err := dbgen.Generate(tab, testSF, 1, 1, func(row []any) error {
					gen = append(gen, expectedText(tab, row))
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				var n int64
				if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM "+tableName(tab)).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n != int64(len(gen)) {
					t.Errorf("%s: %d rows loaded, the generator makes %d", tab, n, len(gen))
				}
				for _, i := range []int{0, len(gen) / 2, len(gen) - 1} {
					got, err := readRow(ctx, c, fam, tab, gen[i])
					if err != nil {
						t.Fatalf("%s row %d: %v", tab, i+1, err)
					}
					if strings.Join(got, "|") != strings.Join(gen[i], "|") {
						t.Errorf("%s row %d read back:\n%s\ngenerated:\n%s", tab, i+1, strings.Join(got, "|"), strings.Join(gen[i], "|"))
					}
				}
			}
		})
	}
}

// expectedText is a generated row as its columns read back as text: dbgen's .tbl values, with
// l_quantity (whole in the .tbl) as the DECIMAL it is stored in.
func expectedText(tab dbgen.Table, row []any) []string {
	out := make([]string, len(row))
	for i, c := range dbgen.Columns(tab) {
		if q, ok := row[i].(int64); ok && c.Kind == dbgen.KindDecimal {
			row[i] = dbgen.Decimal(q * 100)
		}
		s := string(dbgen.AppendTbl(nil, row[i:i+1]))
		out[i] = s[:len(s)-1]
	}
	return out
}

// readRow reads the row of tab whose primary key is that of want, every column as text.
func readRow(ctx context.Context, c driver.Conn, fam string, tab dbgen.Table, want []string) ([]string, error) {
	cols := dbgen.Columns(tab)
	exprs := make([]string, len(cols))
	for i, col := range cols {
		switch {
		case fam == sqlexec.FamilySQLite && col.Kind == dbgen.KindDecimal:
			exprs[i] = "printf('%.2f', " + col.Name + ")"
		case fam == sqlexec.FamilySQLite:
			exprs[i] = "CAST(" + col.Name + " AS TEXT)"
		case fam == sqlexec.FamilyMySQL:
			exprs[i] = "CAST(" + col.Name + " AS CHAR)"
		default:
			exprs[i] = "CAST(" + col.Name + " AS TEXT)"
		}
	}
	var where []string
	for _, k := range primaryKey(tab) {
		for i, col := range cols {
			if col.Name == k {
				where = append(where, k+" = "+want[i])
			}
		}
	}
	q := fmt.Sprintf("SELECT %s FROM %s WHERE %s", strings.Join(exprs, ", "), tableName(tab), strings.Join(where, " AND "))
	got := make([]string, len(cols))
	dest := make([]any, len(cols))
	for i := range got {
		dest[i] = &got[i]
	}
	if err := c.QueryRow(ctx, q).Scan(dest...); err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	return got, nil
}

// A second load refuses the loaded database (a user error naming --drop), and --drop replaces it.
func TestLoadRefusesUnlessDrop(t *testing.T) {
	db := openURL(t, "sqlite:"+filepath.Join(t.TempDir(), "tpch.db"))
	ctx := testCtx(t)
	if _, ok, err := loadedSF(ctx, db); ok || err != nil {
		t.Fatalf("empty database: loadedSF ok %v, err %v", ok, err)
	}
	o := workload.LoadOptions{Loaders: 1, ToolVersion: "test"}
	if _, err := loadData(ctx, db, o, testSF); err != nil {
		t.Fatal(err)
	}
	_, err := loadData(ctx, db, o, testSF)
	if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), "--drop") {
		t.Fatalf("second load: %v; want a user error naming --drop", err)
	}
	o.Drop = true
	if _, err := loadData(ctx, db, o, testSF); err != nil {
		t.Fatalf("load --drop: %v", err)
	}
	if sf, ok, err := loadedSF(ctx, db); !ok || err != nil || sf != testSF {
		t.Fatalf("after --drop: loadedSF %v %v %v", sf, ok, err)
	}
}

// BenchmarkLoad is the load's rate at SF 0.1 on each engine (2 loaders; one on SQLite, a single
// writer): rows/s over the whole load (tables, rows, keys and indexes, statistics).
func BenchmarkLoad(b *testing.B) {
	const sf = 0.1
	for _, e := range loadDBs {
		b.Run(e.name, func(b *testing.B) {
			var rows int64
			for b.Loop() {
				b.StopTimer()
				db := e.open(b)
				b.StartTimer()
				res, err := loadData(testCtx(b), db, workload.LoadOptions{Loaders: 2, ToolVersion: "bench", Drop: true}, sf)
				if err != nil {
					b.Fatal(err)
				}
				rows += res.Rows
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// On MySQL/MariaDB each ALTER TABLE of the key plan is tied to the table it changes (so loadData
// starts it once that table is in); the other families have no such ties.
func TestKeyPlanPerTable(t *testing.T) {
	p := keySQL(sqlexec.FamilyMySQL, "mariadb")
	if len(p.build) == 0 || len(p.perTable) != len(p.build) || len(p.after) != 0 {
		t.Fatalf("MySQL key plan: %d builds, %d tables, %d after", len(p.build), len(p.perTable), len(p.after))
	}
	seen := map[dbgen.Table]bool{}
	for i, q := range p.build {
		tab := p.perTable[i]
		if !strings.HasPrefix(q, "ALTER TABLE "+tableName(tab)+" ") || seen[tab] {
			t.Errorf("build %d %q tied to %s (seen before: %v)", i, q, tab, seen[tab])
		}
		seen[tab] = true
		for _, ix := range indexes {
			if (ix.table == tab) != strings.Contains(q, " "+ix.name+" ") {
				t.Errorf("build %q and index %s of %s", q, ix.name, tableName(ix.table))
			}
		}
	}
	for _, fam := range []string{sqlexec.FamilyPostgres, sqlexec.FamilySQLite} {
		if p := keySQL(fam, ""); p.perTable != nil {
			t.Errorf("%s key plan tied to tables: %v", fam, p.perTable)
		}
	}
}
