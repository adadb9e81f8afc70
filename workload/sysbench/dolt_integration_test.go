package sysbench

import (
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/drivertest"
	"github.com/candor-bench/candor/internal/gmsstandin"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/loadstate"
)

// TestDoltSuite: Dolt's tests on every engine and on the Dolt stand-in (go-mysql-server, Dolt's
// SQL engine): the load with --dolt-tables makes Dolt's tables of the scripts' rows, each test's
// statements run through the executor and return what they must, the delete/insert tests keep the
// ids, check covers the tables and drop removes them.
func TestDoltSuite(t *testing.T) {
	engines := append(testDBs[:len(testDBs):len(testDBs)], struct {
		name string
		url  func(testing.TB) string
	}{"dolt-standin", func(t testing.TB) string { return gmsstandin.FreshDoltURL(t, "candor_sb") }})
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			ctx := ctxFor(t)
			db := drivertest.Open(t, e.url(t))
			const size = 300
			load := newTest(t, workload.CmdLoad, "--table-size", "300", "--dolt-tables")
			if p := load.Validate(workload.Validation{Cmd: workload.CmdLoad}); len(p) > 0 {
				t.Fatal(p)
			}
			res, err := load.Load(ctx, db, workload.LoadOptions{Loaders: 1, Seed: 3, ToolVersion: "test"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Rows != 4*size {
				t.Errorf("load wrote %d rows, want %d (sbtest1 and Dolt's three tables)", res.Rows, 4*size)
			}
			c := drivertest.Connect(t, db)
			count := func(q string) int64 {
				t.Helper()
				var n int64
				if err := c.QueryRow(ctx, q).Scan(&n); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				return n
			}
			// sbdolt2.int_col is drawn in 0..10000: index_join finds the rows whose int_col is an id.
			joins := count("SELECT count(*) FROM sbdolt1 a, sbdolt2 b WHERE a.id = b.int_col")
			positive := count("SELECT count(*) FROM sbdolt1 WHERE big_int_col > 0")
			if positive == 0 || positive == size || count("SELECT count(*) FROM sbtypes WHERE small_int_col > 0") != size {
				t.Errorf("big_int_col > 0 in %d of sbdolt1's rows; small_int_col > 0 in sbtypes: want every row (the one row types_common.lua writes)", positive)
			}
			rows := func(s *session) int64 { return s.ex.per[0].t.Rows + s.ex.per[1].t.Rows }
			for _, c := range []struct {
				test string
				rows int64 // per transaction
			}{
				{"covering_index_scan", 1}, {"index_join", min(joins, 500)}, {"index_join_scan", min(size, 500)},
				{"index_scan", positive}, {"table_scan", -1}, {"types_table_scan", size}, {"groupby_scan", -1},
			} {
				s, tot := runTest(t, db, 4, "--test", c.test)
				if tot.Counts[1].Completed != 4 {
					t.Errorf("%s: %d statements recorded, want 4", c.test, tot.Counts[1].Completed)
				}
				if got := rows(s); (c.rows >= 0 && got != 4*c.rows) || got == 0 {
					t.Errorf("%s returned %d rows in 4 transactions, want 4 × %d", c.test, got, c.rows)
				}
			}
			s, tot := runTest(t, db, 20, "--test", "types_delete_insert", "--rand-type", "uniform")
			if tot.Counts[1].Completed != 20 || tot.Counts[2].Completed != 20 || s.ex.per[0].t.Affected+s.ex.per[1].t.Affected != 40 {
				t.Errorf("types_delete_insert: %d deletes, %d inserts recorded, %d rows changed", tot.Counts[1].Completed, tot.Counts[2].Completed, s.ex.per[0].t.Affected+s.ex.per[1].t.Affected)
			}
			runTest(t, db, 20, "--test", "oltp_delete_insert")
			if st := stateOf(t, c, 1); st.rows != size || st.minID != 1 || st.maxID != size {
				t.Errorf("sbtest1 after oltp_delete_insert: %+v", st)
			}
			checks, err := load.Check(ctx, db, false)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, ch := range checks {
				found = found || ch.Name == "Dolt's tables sbdolt1, sbdolt2, sbtypes hold the ids 1..300"
				if !ch.OK {
					t.Errorf("check %q: %v", ch.Name, ch.Violations)
				}
			}
			if !found {
				t.Errorf("no check of Dolt's tables: %+v", checks)
			}
			if _, err := load.Drop(ctx, db); err != nil {
				t.Fatal(err)
			}
			for _, name := range extraNames {
				if has, err := loadstate.TableExists(ctx, c, db.Dialect().SQLFamily(), name); has || err != nil {
					t.Errorf("%s after drop: exists %v, %v", name, has, err)
				}
			}
		})
	}
}

// TestDoltTablesRefused: a Dolt test on a load without Dolt's tables is refused, naming the flag
// that loads them.
func TestDoltTablesRefused(t *testing.T) {
	ctx := ctxFor(t)
	db := drivertest.Open(t, testDBs[0].url(t))
	if _, err := newTest(t, workload.CmdLoad, "--table-size", "50").Load(ctx, db, workload.LoadOptions{Loaders: 1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	_, err := newTest(t, workload.CmdRun, "--test", "index_join").Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Terminals: 1, Seed: 1})
	drivertest.CheckUserError(t, err, "", "--test index_join runs on Dolt's tables sbdolt1, sbdolt2", "--dolt-tables")
	var _ driver.DB = db
}

// TestDoltTablesShardedLoad: a load split over two shards (10,001 rows: a chunk each) makes Dolt's tables once, in shard 0
// after every part is in, and records them.
func TestDoltTablesShardedLoad(t *testing.T) {
	ctx := ctxFor(t)
	url := testDBs[1].url(t) // PostgreSQL: the shards' connections write beside each other
	errs := make(chan error, 2)
	for i := range 2 {
		go func() {
			db, err := driver.Open(ctx, url)
			if err != nil {
				errs <- err
				return
			}
			defer db.Close()
			_, err = newTest(t, workload.CmdLoad, "--table-size", "10001", "--dolt-tables").Load(ctx, db,
				workload.LoadOptions{Loaders: 1, Seed: 5, ToolVersion: "test", Shard: workload.Shard{Index: i, Count: 2}, ShardWait: time.Minute})
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	db := drivertest.Open(t, url)
	checks, err := newTest(t, workload.CmdCheck).Check(ctx, db, false)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ch := range checks {
		found = found || strings.HasPrefix(ch.Name, "Dolt's tables sbdolt1, sbdolt2, sbtypes")
		if !ch.OK {
			t.Errorf("check %q: %v", ch.Name, ch.Violations)
		}
	}
	if !found {
		t.Errorf("the sharded load recorded no Dolt tables: %+v", checks)
	}
}
