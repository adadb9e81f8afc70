package sysbench

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/internal/drivertest"
	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/workload"
)

// The integration tests run on every engine: a SQLite file always, PostgreSQL and MariaDB on the
// throwaway servers scripts/test starts (CANDOR_TEST_PG_URL, CANDOR_TEST_MYSQL_URL); a missing
// server fails the test, never skips it.
var testDBs = []struct {
	name string
	url  func(testing.TB) string
}{
	{"sqlite", func(t testing.TB) string { return "sqlite:" + filepath.Join(t.TempDir(), "sb.db") }},
	{"postgres", func(t testing.TB) string { return dbtest.FreshPostgresURL(t, "candor_test") }},
	{"mysql", func(t testing.TB) string { return dbtest.FreshMySQLURL(t, "candor_test") }},
}

func ctxFor(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// tableState is what the tests compare before and after a run: per table the row count, the ids'
// range and the sum of k.
type tableState struct{ rows, minID, maxID, sumK int64 }

func stateOf(t testing.TB, c driver.Conn, table int) tableState {
	t.Helper()
	var s tableState
	var sum sql.NullInt64
	if err := c.QueryRow(ctxFor(t), "SELECT count(*), coalesce(min(id), 0), coalesce(max(id), 0), sum(k) FROM "+tableName(table)).Scan(&s.rows, &s.minID, &s.maxID, &sum); err != nil {
		t.Fatal(err)
	}
	s.sumK = sum.Int64
	return s
}

// runTest opens a session of args on db, runs n transactions through its executor (terminal i%2
// on slot i%2) with a real recorder, and returns the session and the measured totals.
func runTest(t *testing.T, db driver.DB, n int, args ...string) (*session, *measure.Totals) {
	t.Helper()
	ctx := ctxFor(t)
	s := newTest(t, workload.CmdRun, args...)
	if p := s.Validate(workload.Validation{Cmd: workload.CmdRun, Mode: workload.ModeThroughput}); len(p) > 0 {
		t.Fatal(p)
	}
	ws, err := s.Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Terminals: 2, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	rec := measure.NewRecorder(s.Ops(), 0)
	now := time.Now()
	rec.Begin(now, now, now.Add(time.Hour))
	w, err := ws.Start(ctx, workload.Env{Rec: rec, Abort: func(err error) { t.Errorf("aborted: %v", err) }})
	if err != nil {
		t.Fatal(err)
	}
	if w.Workers != 2 || len(w.Terminals) != 2 {
		t.Fatalf("work: %d workers, %d terminals", w.Workers, len(w.Terminals))
	}
	for i := range n {
		term := w.Terminals[i%2]
		op, _ := term.Next()
		start := time.Now()
		out := w.Exec.Execute(ctx, i%2, term, op, true)
		if out.Err != nil {
			t.Fatalf("%v: transaction %d: %v", args, i, out.Err)
		}
		d := time.Since(start)
		rec.Stripe(i%2).Done(op, true, measure.Event{Response: d, Service: d})
	}
	rec.Tick(time.Now())
	return ws.(*session), rec.Totals()
}

// TestLoadRunCheck: the load as sysbench's prepare makes it, every test's statements run through
// the executor with what they must do to the tables, the parts recorded per statement kind, and
// Check.
func TestLoadRunCheck(t *testing.T) {
	for _, e := range testDBs {
		t.Run(e.name, func(t *testing.T) {
			ctx := ctxFor(t)
			url := e.url(t)
			db := drivertest.Open(t, url)
			const size = 3000
			load := newTest(t, workload.CmdLoad, "--tables", "2", "--table-size", "3000")
			if p := load.Validate(workload.Validation{Cmd: workload.CmdLoad}); len(p) > 0 {
				t.Fatal(p)
			}
			res, err := load.Load(ctx, db, workload.LoadOptions{Loaders: 2, Seed: 7, ToolVersion: "test"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Rows != 2*size || !strings.Contains(res.Summary, "2 tables of 3,000 rows") {
				t.Errorf("load result %+v", res)
			}
			c := drivertest.Connect(t, db)
			// The rows are the seed's, whatever the bulk path: ids 1..size, k in [1, size], c and pad
			// of digit groups (CHAR columns may pad them with blanks).
			want := makeChunk(7, newDist(&load.o), 2, size, 0)
			rows, err := c.Query(ctx, "SELECT id, k, c, pad FROM sbtest2 ORDER BY id")
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for rows.Next() {
				var id, k int64
				var cv, pad string
				if err := rows.Scan(&id, &k, &cv, &pad); err != nil {
					t.Fatal(err)
				}
				cv, pad = strings.TrimRight(cv, " "), strings.TrimRight(pad, " ")
				if id != int64(n+1) || k != want.k[n] || cv != want.c[n] || pad != want.pad[n] || !digits.MatchString(cv) || len(pad) != 59 {
					t.Fatalf("row %d: id %d k %d c %q pad %q; want id %d k %d c %q pad %q", n, id, k, cv, pad, n+1, want.k[n], want.c[n], want.pad[n])
				}
				n++
			}
			rows.Close()
			if n != size {
				t.Fatalf("sbtest2 holds %d rows, want %d", n, size)
			}
			// A second load refuses; Loaded compares --tables and --table-size when given.
			_, err = newTest(t, workload.CmdLoad).Load(ctx, db, workload.LoadOptions{Loaders: 1, Seed: 7})
			drivertest.CheckUserError(t, err, "", "already holds sysbench data", "2 tables of 3,000 rows", "--drop")
			if ok, err := newTest(t, workload.CmdOneShot).Loaded(ctx, db); !ok || err != nil {
				t.Fatalf("Loaded: %v, %v", ok, err)
			}
			_, err = newTest(t, workload.CmdOneShot, "--table-size", "10").Loaded(ctx, db)
			drivertest.CheckUserError(t, err, "", "--table-size 10 (loaded: 3000)", "candor sysbench load --drop")

			before := [3]tableState{{}, stateOf(t, c, 1), stateOf(t, c, 2)}
			if before[1] != (tableState{size, 1, size, before[1].sumK}) {
				t.Fatalf("sbtest1 after the load: %+v", before[1])
			}

			// oltp_read_write: 18 statements and a commit per transaction, every kind recorded as a
			// part; the delete/insert pairs keep the ids; k grows by the index updates alone
			// (and the re-inserted rows' new k).
			const txs = 40
			s, tot := runTest(t, db, txs, "--test", "oltp_read_write")
			ops := newTest(t, workload.CmdRun).Ops()
			for i, op := range ops {
				want := int64(txs)
				switch op {
				case "point_select":
					want = 10 * txs
				}
				if got := tot.Counts[i].Completed; got != want {
					t.Errorf("oltp_read_write: %d %s recorded, want %d", got, op, want)
				}
			}
			if s.ex.per[0].t.Rows+s.ex.per[1].t.Rows < int64(txs*(10+3*90+1)) {
				t.Errorf("the selects returned %d rows, fewer than the points, the ranges of 100 ids and the sums hold", s.ex.per[0].t.Rows+s.ex.per[1].t.Rows)
			}
			for tb := 1; tb <= 2; tb++ {
				if st := stateOf(t, c, tb); st.rows != size || st.minID != 1 || st.maxID != size {
					t.Errorf("sbtest%d after oltp_read_write: %+v", tb, st)
				}
			}
			f := &workload.Finished{Result: &report.Result{Operations: map[string]*report.TxResult{}}, Totals: tot, Mode: workload.ModeThroughput, Minutes: 1}
			for i, op := range ops {
				f.Result.Operations[op] = &report.TxResult{Count: tot.Counts[i].Completed}
			}
			s.Finish(f)
			if len(f.Result.Headline) != 2 || f.Result.Headline[0].Value != float64(txs)/60 || f.Result.Headline[1].Value != float64(18*txs)/60 {
				t.Errorf("headline %+v", f.Result.Headline)
			}
			if d := f.Result.Details.(Details); d.StatementsPerTx != 18 {
				t.Errorf("details %+v", d)
			}

			// oltp_update_index: sum(k) over both tables grows by exactly one per update.
			mid := stateOf(t, c, 1).sumK + stateOf(t, c, 2).sumK
			runTest(t, db, 30, "--test", "oltp_update_index", "--index-updates", "2")
			if got := stateOf(t, c, 1).sumK + stateOf(t, c, 2).sumK; got != mid+60 {
				t.Errorf("oltp_update_index: sum(k) went from %d to %d, want +60", mid, got)
			}
			// Read-only and autocommit tests change nothing about the rows.
			runTest(t, db, 20, "--test", "oltp_read_only", "--skip-trx")
			runTest(t, db, 20, "--test", "oltp_point_select")
			runTest(t, db, 20, "--test", "oltp_update_non_index")
			runTest(t, db, 20, "--test", "oltp_write_only", "--rand-type", "zipfian")
			s, tot = runTest(t, db, 20, "--test", "select_random_points", "--rand-type", "uniform")
			if tot.Counts[1].Completed != 20 || s.ex.per[0].t.Rows+s.ex.per[1].t.Rows == 0 {
				t.Errorf("select_random_points: %d recorded, %d rows", tot.Counts[1].Completed, s.ex.per[0].t.Rows+s.ex.per[1].t.Rows)
			}
			runTest(t, db, 20, "--test", "select_random_ranges", "--rand-type", "pareto")
			checks, err := load.Check(ctx, db, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range checks {
				if !ch.OK && !ch.Skipped {
					t.Errorf("check %q failed: %v", ch.Name, ch.Violations)
				}
			}

			// oltp_insert adds rows with new ids; oltp_delete removes what it finds; the check then
			// skips the ids.
			r1 := stateOf(t, c, 1).rows + stateOf(t, c, 2).rows
			runTest(t, db, 25, "--test", "oltp_insert")
			r2 := stateOf(t, c, 1).rows + stateOf(t, c, 2).rows
			if r2 != r1+25 {
				t.Errorf("oltp_insert: %d rows, then %d, want +25", r1, r2)
			}
			if st := stateOf(t, c, 1); st.maxID <= size && st.rows > size {
				t.Errorf("oltp_insert reused ids: %+v", st)
			}
			s, _ = runTest(t, db, 25, "--test", "oltp_delete", "--rand-type", "uniform")
			deleted := s.ex.per[0].t.Affected + s.ex.per[1].t.Affected
			if r3 := stateOf(t, c, 1).rows + stateOf(t, c, 2).rows; r3 != r2-deleted || deleted == 0 {
				t.Errorf("oltp_delete: %d rows, then %d, %d deleted", r2, r3, deleted)
			}
			checks, err = load.Check(ctx, db, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(checks) != 3 || !checks[2].Skipped || !checks[0].OK || !checks[1].OK {
				t.Errorf("checks after oltp_delete: %+v", checks)
			}
		})
	}
}
