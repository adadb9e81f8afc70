package all

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/driver/postgres"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/workload"
)

// TestBulkInsertLoadsTheSameRows: every loadable workload's load through PostgreSQL's multi-row
// INSERT path (bulk=insert in the URL) leaves the same rows as its load through COPY, table by table
// (an md5 of each table's rows in order), large values included (kv's 300 kB blocks, more than one
// statement's bytes; pgbench's 100,000 accounts, more than one statement's 65535 parameters).
func TestBulkInsertLoadsTheSameRows(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"kv", []string{"--insert-count", "60", "--min-block-bytes", "1", "--max-block-bytes", "300000"}},
		{"ycsb", []string{"-p", "recordcount=2000", "-p", "fieldlength=200"}},
		{"sysbench", []string{"--tables", "2", "--table-size", "3000"}},
		{"script", []string{"--scale", "1"}},
		{"tpch", []string{"--sf", "0.01"}},
		{"tpcc", []string{"--warehouses", "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // the loads mostly wait on the server
			copyURL := dbtest.FreshPostgresURL(t, "candor_test")
			insertURL := withParam(dbtest.FreshPostgresURL(t, "candor_test"), "bulk=insert")
			sums := map[string]map[string]string{}
			for _, u := range []string{copyURL, insertURL} {
				db := openURL(t, u)
				start := time.Now()
				res, err := newWorkload(t, tc.name, u, tc.args).Load(ctx(t), db, workload.LoadOptions{Loaders: 2, Seed: 7, ToolVersion: "test"})
				if err != nil {
					t.Fatalf("load with %s: %v", driver.Redact(u), err)
				}
				want := ""
				if u == insertURL {
					want = postgres.BulkInsert
				}
				if res.BulkPath != want {
					t.Errorf("load with %s: bulk path %q, want %q", driver.Redact(u), res.BulkPath, want)
				}
				t.Logf("%s: %d rows via %q in %v", driver.Redact(u), res.Rows, res.BulkPath, time.Since(start).Round(time.Millisecond))
				sums[u] = tableSums(t, db)
			}
			if len(sums[copyURL]) == 0 {
				t.Fatal("the load made no tables")
			}
			for tbl, sum := range sums[copyURL] {
				if got := sums[insertURL][tbl]; got != sum {
					t.Errorf("table %s: md5 %s through COPY, %s through INSERT", tbl, sum, got)
				}
			}
			if len(sums[insertURL]) != len(sums[copyURL]) {
				t.Errorf("tables: %d through COPY, %d through INSERT", len(sums[copyURL]), len(sums[insertURL]))
			}
		})
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return c
}

func withParam(u, p string) string {
	if strings.Contains(u, "?") {
		return u + "&" + p
	}
	return u + "?" + p
}

func openURL(t *testing.T, u string) driver.DB {
	t.Helper()
	db, err := driver.Open(ctx(t), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newWorkload is the registered workload name configured for a load with args.
func newWorkload(t *testing.T, name, url string, args []string) workload.Workload {
	t.Helper()
	reg, ok := workload.Lookup(name)
	if !ok {
		t.Fatalf("no workload %s", name)
	}
	w := reg.New()
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	w.Flags(fs, workload.CmdLoad)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if probs := w.Validate(workload.Validation{Cmd: workload.CmdLoad, DB: url, Endpoints: 1}); len(probs) > 0 {
		t.Fatalf("%s %v: %v", name, args, probs)
	}
	return w
}

// tableSums is an md5 of each table's rows (as text, in order) in the public schema, but candor's
// own records of the load, and without the columns of times (TPC-C's load stamps its rows with the
// time it makes them).
func tableSums(t *testing.T, db driver.DB) map[string]string {
	t.Helper()
	c, err := db.Connect(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows, err := c.Query(ctx(t), "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT IN ('candor_workloads', 'candor_load') ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	out := map[string]string{}
	for _, tbl := range tables {
		var cols string
		if err := c.QueryRow(ctx(t), "SELECT string_agg(quote_ident(column_name::text), ', ' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 AND data_type NOT LIKE 'timestamp%'", tbl).Scan(&cols); err != nil {
			t.Fatal(err)
		}
		var sum string
		q := "SELECT md5(coalesce(string_agg(md5(r::text), '' ORDER BY r::text), '')) || ':' || count(*) FROM (SELECT " + cols + " FROM " + tbl + ") r"
		if err := c.QueryRow(ctx(t), q).Scan(&sum); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out[tbl] = sum
	}
	return out
}
