package mysql_test

import (
	"strings"
	"testing"

	"github.com/candor-bench/candor/driver/mysql"
	"github.com/candor-bench/candor/internal/gmsstandin"
)

// TestCopyFromDoltStandin: the bulk path loads into Dolt's engine (go-mysql-server, started by
// internal/gmsstandin) and check what the server took with SHOW WARNINGS. Dolt 2.3.1 has no
// @@warning_count ("Error 1105: Unknown system variable"), which once failed every TPC-C load there.
// A few thousand rows only: the stand-in's in-memory tables scan on every key lookup.
func TestCopyFromDoltStandin(t *testing.T) {
	for _, tc := range []struct{ name, params, path string }{
		// The stand-in refuses LOAD DATA LOCAL (local_infile is off there), as Dolt 2.3.1's default
		// server did by hand: CopyFrom takes multi-row INSERT.
		{"auto", "", mysql.BulkInsert},
		{"insert", "?bulk=insert", mysql.BulkInsert},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openURL(t, gmsstandin.FreshDoltURL(t, "candor_drv")+tc.params)
			if db.Dialect().Name != "dolt" {
				t.Fatalf("dialect %q, want dolt", db.Dialect().Name)
			}
			c := connect(t, db)
			ctx := testCtx(t)
			mustExec(t, c, copyTable)
			cols := []string{"id", "v", "s", "d", "ts"}
			const n = 2000
			if got, err := c.CopyFrom(ctx, "c", cols, &source{n: n, wide: 100}); err != nil || got != n {
				t.Fatalf("CopyFrom = %d, %v", got, err)
			}
			if p := db.BulkPath(); p != tc.path {
				t.Errorf("BulkPath = %q, want %q", p, tc.path)
			}
			var cnt, sum, nulls int64
			if err := c.QueryRow(ctx, "SELECT count(*), CAST(sum(v) AS SIGNED), CAST(sum(d IS NULL) AS SIGNED) FROM c").Scan(&cnt, &sum, &nulls); err != nil {
				t.Fatal(err)
			}
			if cnt != n || sum != 3*n*(n+1)/2 || nulls != n/7 {
				t.Fatalf("after CopyFrom: count %d sum %d nulls %d", cnt, sum, nulls)
			}
			// Duplicate keys fail the copy, which leaves nothing behind.
			if _, err := c.CopyFrom(ctx, "c", cols, &source{i: n - 10, n: n + 20}); err == nil {
				t.Fatal("CopyFrom of duplicate keys succeeded")
			} else {
				t.Logf("duplicate keys: %v", err)
			}
			if cnt := count(t, c, "c"); cnt != n {
				t.Fatalf("after a failed CopyFrom: %d rows", cnt)
			}
		})
	}
}

// TestDoltVersionStandin: a Dolt server is named by its own release (dolt_version(), which the
// stand-in registers as Dolt has it) and the MySQL release its VERSION() gives, whether the URL
// says dolt:// or mysql:// (the server's @@version_comment names Dolt); MariaDB, whose version
// names no Dolt, is not asked and keeps its own name.
func TestDoltVersionStandin(t *testing.T) {
	dolt := gmsstandin.FreshDoltURL(t, "candor_drv")
	if !strings.HasPrefix(gmsstandin.StandinVersion, "gms-v") {
		t.Errorf("the stand-in's dolt_version() is %q, without go-mysql-server's version", gmsstandin.StandinVersion)
	}
	want := "Dolt " + gmsstandin.StandinVersion + " (MySQL 8.0.31 compatible)"
	for _, u := range []string{dolt, "mysql" + strings.TrimPrefix(dolt, "dolt")} {
		db := openURL(t, u)
		if v, _ := db.Version(testCtx(t)); v != want || db.DoltVersion() != gmsstandin.StandinVersion {
			t.Errorf("%s: Version %q, DoltVersion %q; want %q, %q", db.Dialect().Name, v, db.DoltVersion(), want, gmsstandin.StandinVersion)
		}
	}
	db := openURL(t, freshURL(t, ""))
	if v, _ := db.Version(testCtx(t)); !strings.HasPrefix(v, "MariaDB ") || db.DoltVersion() != "" {
		t.Errorf("MariaDB: Version %q, DoltVersion %q", v, db.DoltVersion())
	}
}
