package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/workload/loadstate"
)

// TestDrop: `candor NAME drop` removes a workload's tables and load record (a load after it meets
// an empty room), is refused while another candor holds the database's lock, and says when there
// is nothing to drop; on SQLite, PostgreSQL and MySQL/MariaDB.
func TestDrop(t *testing.T) {
	parallel(t)
	engines := []struct {
		name string
		url  func(t *testing.T) string
		// tpcc is a copy of the loaded TPC-C template (template_test.go), for the engines that have one.
		tpcc func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "drop.db") },
			func(t *testing.T) string { return tpccSQLiteCopy(t, filepath.Join(t.TempDir(), "drop.db")) }},
		{"postgres", func(t *testing.T) string { return dbtest.FreshPostgresURL(t, "candor_drop") },
			func(t *testing.T) string { return tpccPostgresCopy(t, "candor_drop") }},
		{"mysql", func(t *testing.T) string { return dbtest.FreshMySQLURL(t, "candor_drop") }, nil},
	}
	loads := []struct {
		name    string
		args    []string
		tables  []string // tables the load makes, as the engine stores them
		engines string   // the engines it is tested on
	}{
		{"kv", []string{"--insert-count", "100"}, []string{"kv"}, "sqlite postgres mysql"},
		{"sysbench", []string{"--tables", "2", "--table-size", "100"}, []string{"sbtest1", "sbtest2"}, "sqlite postgres mysql"},
		{"tpcc", []string{"--warehouses", "1"}, []string{"warehouse", "stock", "candor_load"}, "sqlite postgres"},
	}
	for _, e := range engines {
		for _, l := range loads {
			if !strings.Contains(l.engines, e.name) {
				continue
			}
			t.Run(e.name+"/"+l.name, func(t *testing.T) {
				var url string
				if l.name == "tpcc" && e.tpcc != nil {
					url = e.tpcc(t) // the template was loaded with l.args
				} else {
					url = e.url(t)
					if code, _ := runCLI(t, append([]string{l.name, "load", "--db", url}, l.args...)...); code != 0 {
						t.Fatalf("load: exit %d", code)
					}
				}
				ctx := context.Background()
				db, err := driver.Open(ctx, url)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				has := func() []string {
					c, err := db.Connect(ctx)
					if err != nil {
						t.Fatal(err)
					}
					defer c.Close()
					var there []string
					for _, tb := range l.tables {
						ok, err := loadstate.TableExists(ctx, c, db.Dialect().SQLFamily(), tb)
						if err != nil {
							t.Fatal(err)
						}
						if ok {
							there = append(there, tb)
						}
					}
					return there
				}
				if got := has(); len(got) != len(l.tables) {
					t.Fatalf("after the load, tables %v of %v", got, l.tables)
				}

				// in use: another candor holds the lock
				unlock, err := loadstate.Lock(ctx, db, "run")
				if err != nil {
					t.Fatal(err)
				}
				code, out := runCLI(t, l.name, "drop", "--db", url)
				unlock()
				if code != 2 || !strings.Contains(out, "another candor run, load or check is using") {
					t.Errorf("drop of a database in use: exit %d, want 2 and the lock's refusal", code)
				}
				if got := has(); len(got) != len(l.tables) {
					t.Fatalf("the refused drop dropped tables: %v left of %v", got, l.tables)
				}

				code, out = runCLI(t, l.name, "drop", "--db", url)
				if code != 0 || !strings.Contains(out, "dropped the "+l.name+" tables and load record") {
					t.Fatalf("drop: exit %d, want 0 and what it dropped", code)
				}
				if got := has(); len(got) != 0 {
					t.Errorf("after drop, tables %v remain", got)
				}
				if st, err := loadstate.Read(ctx, db, l.name); err != nil || st.Status != loadstate.NotFound {
					t.Errorf("after drop, the load record: %v (%v), want none", st.Status, err)
				}
				code, out = runCLI(t, l.name, "drop", "--db", url)
				if code != 0 || !strings.Contains(out, "holds no "+l.name+" data: nothing to drop") {
					t.Errorf("second drop: exit %d, want 0 and nothing to drop", code)
				}
				if l.name != "tpcc" { // a load without --drop now meets no table and no record
					if code, _ := runCLI(t, append([]string{l.name, "load", "--db", url}, l.args...)...); code != 0 {
						t.Errorf("load after drop: exit %d, want 0", code)
					}
				}
			})
		}
	}
}
