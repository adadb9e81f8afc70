package ycsb

import (
	"context"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/internal/drivertest"
	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/loadstate"
	"github.com/candor-bench/candor/workload/sqlexec"
)

// The integration tests run on every engine: a SQLite file always, PostgreSQL and MariaDB on the
// throwaway servers scripts/test starts (CANDOR_TEST_PG_URL, CANDOR_TEST_MYSQL_URL); a missing
// server fails the test, never skips it. Each gets a fresh database of its own, by URL, so that a
// second endpoint can be opened on it.
var testDBs = []struct {
	name string
	url  func(testing.TB) string
	// roundTrips: the engine counts them (not the embedded SQLite).
	roundTrips bool
}{
	{"sqlite", func(t testing.TB) string { return "sqlite:" + filepath.Join(t.TempDir(), "ycsb.db") }, false},
	{"postgres", func(t testing.TB) string { return dbtest.FreshPostgresURL(t, "candor_test") }, true},
	{"mysql", func(t testing.TB) string { return dbtest.FreshMySQLURL(t, "candor_test") }, true},
}

func ctxFor(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// model is what the table must hold: key to field values; the test applies every operation's
// effect to it.
type model map[string][]string

// readTable is the table's rows.
func readTable(t testing.TB, c driver.Conn, cfg Config) model {
	t.Helper()
	rows, err := c.Query(ctxFor(t), "SELECT "+keyColumn+", "+strings.Join(columnNames(cfg), ", ")+" FROM "+cfg.Table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	m := model{}
	for rows.Next() {
		var key string
		vals := make([]string, cfg.FieldCount)
		dest := []any{&key}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		m[key] = vals
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// scanKeys is the keys a scan of n records from start returns, in key order.
func (m model) scanKeys(start string, n int64) []string {
	var keys []string
	for k := range m {
		if k >= start {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys[:min(int64(len(keys)), n)]
}

func mustLoad(t testing.TB, db driver.DB, seed uint64, args ...string) (workload.LoadResult, Config) {
	t.Helper()
	y := newTestYCSB(t, workload.CmdLoad, args...)
	if p := y.Validate(workload.Validation{Cmd: workload.CmdLoad}); len(p) > 0 {
		t.Fatalf("load options %v: %v", args, p)
	}
	var progress atomic.Int64
	var notes []string
	res, err := y.Load(ctxFor(t), db, workload.LoadOptions{Loaders: 3, Seed: seed, ToolVersion: "test",
		Progress: func(n int64) { progress.Add(n) }, Note: func(l string) { notes = append(notes, l) }})
	if err != nil {
		t.Fatalf("load %v: %v", args, err)
	}
	if progress.Load() != res.Rows || res.Rows != y.ExpectedRows() {
		t.Fatalf("load %v: %d rows, %d reported to Progress, %d expected", args, res.Rows, progress.Load(), y.ExpectedRows())
	}
	if len(notes) > 0 {
		t.Logf("load notes: %v", notes)
	}
	return res, y.options().cfg
}

func wantUserError(t testing.TB, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want a user error saying %q", want)
	}
	drivertest.CheckUserError(t, err, "", want...)
}

// wantChecks compares the checks' outcomes (ok, skipped, fail) and their numbering.
func wantChecks(t testing.TB, checks []report.Check, want []string) {
	t.Helper()
	var got []string
	for i, c := range checks {
		if c.Condition != i+1 {
			t.Errorf("check %d is numbered %d", i+1, c.Condition)
		}
		switch {
		case c.Skipped:
			got = append(got, "skipped")
		case c.OK:
			got = append(got, "ok")
		default:
			got = append(got, "fail")
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("checks %v, want %v: %+v", got, want, checks)
	}
}

func check(t testing.TB, db driver.DB, full bool, want ...string) []report.Check {
	t.Helper()
	checks, err := newTestYCSB(t, workload.CmdCheck).Check(ctxFor(t), db, full)
	if err != nil {
		t.Fatal(err)
	}
	wantChecks(t, checks, want)
	return checks
}

// runOps executes n operations through the executor, terminal by terminal round-robin (each on the
// slot of its endpoint group), checking each against the model and applying its effect; it returns
// the operations per type.
func runOps(t *testing.T, ctx context.Context, w *workload.Work, cfg Config, m model, n int, wantInsert *int64) [numOperations]int64 {
	t.Helper()
	ex := w.Exec.(*executor)
	var counts [numOperations]int64
	for i := range n {
		ti := i % len(w.Terminals)
		term := w.Terminals[ti]
		slot := 0
		if w.TerminalGroup != nil {
			slot = w.TerminalGroup[ti] // worker g serves group g
		}
		op, _ := term.Next()
		in := &term.(*terminal).in
		out := w.Exec.Execute(ctx, slot, term, op, true)
		if out.Err != nil {
			t.Fatalf("operation %d (%s): %v", i, OpNames[op], out.Err)
		}
		counts[op]++
		s := &ex.per[slot]
		row, exists := m[in.key]
		switch Operation(op) {
		case OpRead, OpReadModifyWrite:
			if s.found != exists {
				t.Fatalf("%s %d of %s: found %v, the model has it %v", OpNames[op], i, in.key, s.found, exists)
			}
			if exists {
				if in.field >= 0 {
					if got := string(s.cols[0]); got != row[in.field] {
						t.Fatalf("%s %d of %s field %d: %q, want %q", OpNames[op], i, in.key, in.field, got, row[in.field])
					}
				} else {
					cols := s.cols[:ex.stmts.allCols]
					if ex.stmts.keyFirst {
						if string(cols[0]) != in.key {
							t.Fatalf("read %d of %s returned the key %q", i, in.key, cols[0])
						}
						cols = cols[1:]
					}
					for f, v := range cols {
						if string(v) != row[f] {
							t.Fatalf("%s %d of %s field %d: %q, want %q", OpNames[op], i, in.key, f, v, row[f])
						}
					}
				}
			}
		case OpScan:
			keys := m.scanKeys(in.key, in.scanLen)
			if s.rows != int64(len(keys)) {
				t.Fatalf("scan %d of %d from %s returned %d records, want %d", i, in.scanLen, in.key, s.rows, len(keys))
			}
			last := m[keys[len(keys)-1]]
			if in.field >= 0 && string(s.cols[0]) != last[in.field] || in.field < 0 && string(s.cols[0]) != keys[len(keys)-1] {
				t.Fatalf("scan %d from %s: the last record read is not %s", i, in.key, keys[len(keys)-1])
			}
		case OpInsert:
			if exists || in.keynum != *wantInsert || in.key != cfg.KeyName(in.keynum) || s.rows != 1 {
				t.Fatalf("insert %d: record %d (%s), existing %v, rows %d; want record %d", i, in.keynum, in.key, exists, s.rows, *wantInsert)
			}
			*wantInsert++
			m[in.key] = slices.Clone(in.vals)
		}
		if op == int(OpUpdate) || op == int(OpReadModifyWrite) {
			if want := int64(0); exists && s.rows != 1 || !exists && s.rows != want {
				t.Fatalf("%s %d of %s changed %d rows", OpNames[op], i, in.key, s.rows)
			}
			if exists {
				if in.wfield >= 0 {
					row[in.wfield] = in.vals[0]
				} else {
					copy(row, in.vals)
				}
			}
		}
		lo, hi := lengthBounds(cfg)
		for _, v := range in.vals {
			if int64(len(v)) < lo || int64(len(v)) > hi {
				t.Fatalf("%s %d wrote a value of %d characters, outside %d..%d", OpNames[op], i, len(v), lo, hi)
			}
		}
	}
	return counts
}

func compareTable(t *testing.T, c driver.Conn, cfg Config, m model) {
	t.Helper()
	table := readTable(t, c, cfg)
	if len(table) != len(m) {
		t.Fatalf("the table holds %d records, the model %d", len(table), len(m))
	}
	for k, row := range m {
		if !slices.Equal(table[k], row) {
			t.Fatalf("record %s holds %q, want %q", k, table[k], row)
		}
	}
}

// TestLoadRunCheck: Load, Loaded, Open, Start and several hundred operations of every type run
// through the executor one at a time, each checked against a model of the table; then the table
// itself against the model, Finish's figures, the round trips, the record of the inserts, and Check.
// Then an open-loop session on the same data, whose inserts continue the record numbers.
func TestLoadRunCheck(t *testing.T) {
	for _, e := range testDBs {
		t.Run(e.name, func(t *testing.T) {
			ctx := ctxFor(t)
			url := e.url(t)
			db := drivertest.Open(t, url)
			loadArgs := []string{"-p", "recordcount=600", "-p", "fieldcount=4", "-p", "fieldlength=20", "-p", "minfieldlength=3",
				"-p", "fieldlengthdistribution=uniform", "-p", "db.url=jdbc:x"}
			res, cfg := mustLoad(t, db, 42, loadArgs...)
			if res.Rows != 600 || res.Summary != "600 records of 4 fields of 3..20 (uniform) characters, workload a" {
				t.Errorf("load result %+v", res)
			}
			t.Logf("bulk path %q", res.BulkPath)
			c := drivertest.Connect(t, db)
			m := readTable(t, c, cfg)
			// Byte for byte the records the seed makes, whatever the bulk path.
			spec, err := newLoadSpec(cfg, 42)
			if err != nil {
				t.Fatal(err)
			}
			if spec.chunks() != 1 {
				t.Fatalf("%d chunks", spec.chunks())
			}
			want := makeChunk(spec, 0)
			for i, key := range want.keys {
				if got := m[key]; !slices.Equal(got, want.vals[i*4:i*4+4]) {
					t.Fatalf("loaded record %s: %q, want %q", key, got, want.vals[i*4:i*4+4])
				}
			}
			if len(m) != 600 {
				t.Fatalf("the table holds %d records after loading 600", len(m))
			}

			// A second load refuses; Loaded takes the load's data properties unless given.
			_, err = newTestYCSB(t, workload.CmdLoad, loadArgs...).Load(ctx, db, workload.LoadOptions{Loaders: 1, Seed: 42})
			wantUserError(t, err, "already holds ycsb data", "600 records in usertable", "--drop")
			for _, args := range [][]string{loadArgs, nil, {"--workload", "e"}, {"-p", "recordcount=600"}} {
				if ok, err := newTestYCSB(t, workload.CmdOneShot, args...).Loaded(ctx, db); !ok || err != nil {
					t.Fatalf("Loaded with %v: %v, %v", args, ok, err)
				}
			}
			_, err = newTestYCSB(t, workload.CmdOneShot, "-p", "recordcount=1000", "-p", "fieldcount=5").Loaded(ctx, db)
			wantUserError(t, err, "recordcount=1000 (-p; loaded: 600) and fieldcount=5 (-p; loaded: 4)", "candor ycsb load --drop")

			// The run: every operation type, reads and scans of one field, a second endpoint.
			db2 := drivertest.Open(t, url)
			y := newTestYCSB(t, workload.CmdRun, "-p", "readproportion=0.3", "-p", "updateproportion=0.2", "-p", "insertproportion=0.2",
				"-p", "scanproportion=0.15", "-p", "readmodifywriteproportion=0.15", "-p", "readallfields=false", "-p", "maxscanlength=15",
				"-p", "requestdistribution=uniform", "-p", "threadcount=7")
			if p := y.Validate(workload.Validation{Cmd: workload.CmdRun, Mode: workload.ModeThroughput, DB: url, Endpoints: 2}); len(p) > 0 {
				t.Fatal(p)
			}
			var notes []string
			s, err := y.Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Terminals: 3, Connections: 2, Seed: 5,
				Endpoints: []driver.DB{db2}, Note: func(l string) { notes = append(notes, l) }})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			setup := s.Setup()
			if setup.Terminals != 3 || setup.Connections != 2 {
				t.Errorf("setup %+v", setup)
			}
			if want := "workload a (read 30%, update 20%, insert 20%, scan 15%, read_modify_write 15%), uniform requests, 600 records of 4 fields of 3..20 (uniform) characters, scans of 1..15 records (uniform), reads of one field"; setup.Describe != want {
				t.Errorf("Describe:\n got %s\nwant %s", setup.Describe, want)
			}
			if n := strings.Join(notes, "\n"); !strings.Contains(n, "threadcount=7 (-p) is overridden by --terminals 3") {
				t.Errorf("notes %q", n)
			}
			var aborted error
			w, err := s.Start(ctx, workload.Env{Abort: func(err error) { aborted = err }})
			if err != nil {
				t.Fatal(err)
			}
			if w.Workers != 2 || len(w.Terminals) != 3 || w.Source != nil ||
				!slices.Equal(w.TerminalGroup, []int{0, 1, 0}) || !slices.Equal(w.WorkerGroup, []int{0, 1}) {
				t.Fatalf("work: %d workers, %d terminals, groups %v and %v", w.Workers, len(w.Terminals), w.TerminalGroup, w.WorkerGroup)
			}
			nextInsert := int64(600)
			counts := runOps(t, ctx, w, cfg, m, 700, &nextInsert)
			for op, n := range counts {
				if n < 50 {
					t.Errorf("only %d %s operations of 700", n, OpNames[op])
				}
			}
			if aborted != nil {
				t.Fatalf("aborted: %v", aborted)
			}
			compareTable(t, c, cfg, m)

			// Finish: throughput over the window, then each operation per second; the details.
			tot := measure.NewTotals(OpNames)
			var total int64
			for op, n := range counts {
				tot.Counts[op].Completed = n
				total += n
			}
			f := &workload.Finished{Result: &report.Result{}, Totals: tot, Mode: workload.ModeThroughput, Minutes: 0.5}
			s.Finish(f)
			h := f.Result.Headline
			if len(h) != 6 || h[0].Name != "throughput" || h[0].Value != float64(total)/30 || h[0].Note != "workload a" ||
				h[1].Name != "read" || h[1].Value != float64(counts[OpRead])/30 || h[5].Name != "read_modify_write" {
				t.Errorf("headline %+v", h)
			}
			d := f.Result.Details.(Details)
			if d.Measured.Reads != counts[OpRead] || d.Measured.Inserts != counts[OpInsert] || d.Measured.ReadsNotFound != 0 ||
				d.Measured.UpdatesNotFound != 0 || d.InsertKeynumAtStart != 600 || d.InsertKeynumAtEnd != nextInsert ||
				d.LastAcknowledged != nextInsert-1 || d.LoadSeed != "42" || d.TerminalsFrom != "--terminals" ||
				d.Origins["recordcount"] != "the load" || d.Origins["readproportion"] != "-p" || d.Properties.RecordCount != 600 {
				t.Errorf("details %+v", d)
			}
			if len(f.Result.Sections) != 2 || f.Result.Sections[0].Rows[2][0] != "insert" || f.Result.Sections[0].Rows[2][1] != "20.0%" {
				t.Errorf("sections %+v", f.Result.Sections)
			}
			if len(f.Result.Warnings) > 0 {
				t.Errorf("warnings %+v", f.Result.Warnings)
			}
			trips, ops, counted := s.(workload.RoundTripper).RoundTrips()
			if ops != 700 || counted != e.roundTrips || counted && trips < 700 {
				t.Errorf("round trips %d for %d operations, counted %v", trips, ops, counted)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s.Close()
			st, rec, err := readRecord(ctx, db)
			if err != nil || st.Runs != 1 || rec.NextInsert != nextInsert || rec.Inserted != nextInsert-600 || rec.Running {
				t.Errorf("the record after one run: %+v %+v, %v", st, rec, err)
			}
			check(t, db, true, "ok", "ok", "ok", "ok", "ok", "skipped")

			// Rate mode: arrivals drawn round-robin from a pool of terminals into job records; every
			// field read and written; inserts continue after the first run's.
			yr := newTestYCSB(t, workload.CmdRun, "--workload", "d", "-p", "writeallfields=true", "-p", "updateproportion=0.2", "-p", "readproportion=0.75")
			rs, err := yr.Open(ctx, db, workload.SessionConfig{Mode: workload.ModeRate, Connections: 2, Seed: 6})
			if err != nil {
				t.Fatal(err)
			}
			defer rs.Close()
			if su := rs.Setup(); su.Terminals != 2 || su.Connections != 2 {
				t.Errorf("rate setup %+v: want the terminals to default to the connections", su)
			}
			rw, err := rs.Start(ctx, workload.Env{Abort: func(error) {}})
			if err != nil {
				t.Fatal(err)
			}
			if rw.Source == nil || rw.Terminals != nil || rw.WorkerGroup != nil {
				t.Fatalf("rate work %+v", rw)
			}
			job := rw.Source.NewJob()
			var ops2 [numOperations]int
			rex := rw.Exec.(*executor)
			for i := range int64(200) {
				op, g := rw.Source.Draw(i, job)
				if g != 0 {
					t.Fatalf("arrival %d: group %d", i, g)
				}
				in := &job.(*terminal).in
				if out := rw.Exec.Execute(ctx, int(i%2), job, op, true); out.Err != nil {
					t.Fatalf("arrival %d (%s): %v", i, OpNames[op], out.Err)
				}
				ops2[op]++
				switch Operation(op) {
				case OpInsert:
					if in.keynum != nextInsert {
						t.Fatalf("insert of arrival %d took record %d, want %d", i, in.keynum, nextInsert)
					}
					nextInsert++
					m[in.key] = slices.Clone(in.vals)
				case OpUpdate:
					if len(in.vals) != 4 || in.wfield != -1 {
						t.Fatalf("writeallfields: update of %d values", len(in.vals))
					}
					copy(m[in.key], in.vals)
				case OpRead:
					if s := &rex.per[i%2]; !s.found || string(s.cols[0]) != in.key {
						t.Fatalf("read of %s (latest): found %v", in.key, s.found)
					}
				}
			}
			if ops2[OpInsert] == 0 || ops2[OpUpdate] == 0 || ops2[OpRead] == 0 {
				t.Errorf("rate operations %v", ops2)
			}
			rf := &workload.Finished{Result: &report.Result{}, Totals: measure.NewTotals(OpNames), Minutes: 1}
			rs.Finish(rf)
			if d := rf.Result.Details.(Details); d.InsertKeynumAtStart != nextInsert-int64(ops2[OpInsert]) || d.InsertKeynumAtEnd != nextInsert {
				t.Errorf("rate details: insert counter %d..%d, want ..%d", d.InsertKeynumAtStart, d.InsertKeynumAtEnd, nextInsert)
			}
			rs.Close()
			compareTable(t, c, cfg, m)
			check(t, db, false, "ok", "ok", "ok")
		})
	}
}

// Terminals and connections: --terminals, else threadcount, else twice the CPUs; rate mode's
// connections likewise and its terminals one per connection.
func TestTerminalsFromThreadcount(t *testing.T) {
	ctx := ctxFor(t)
	db := drivertest.Open(t, testDBs[0].url(t))
	mustLoad(t, db, 1, "-p", "recordcount=50")
	conc := sqlexec.DefaultConcurrency()
	for _, tc := range []struct {
		args        []string
		mode        workload.Mode
		terms, conn int
		t, c        int
		from        string
	}{
		{nil, workload.ModeThroughput, 0, 0, conc, conc, "default"},
		{[]string{"-p", "threadcount=3"}, workload.ModeThroughput, 0, 0, 3, 3, "threadcount"},
		{[]string{"-p", "threadcount=3"}, workload.ModeThroughput, 5, 0, 5, 5, "--terminals"},
		{[]string{"-p", "threadcount=3"}, workload.ModeThroughput, 0, 2, 3, 2, "threadcount"},
		{[]string{"-p", "threadcount=3", "-p", "target=100"}, workload.ModeRate, 0, 0, 3, 3, "threadcount"},
		{nil, workload.ModeRate, 0, 0, conc, conc, "default"},
		{nil, workload.ModeRate, 0, 4, 4, 4, "default"},
	} {
		y := newTestYCSB(t, workload.CmdRun, tc.args...)
		var notes []string
		s, err := y.Open(ctx, db, workload.SessionConfig{Mode: tc.mode, Terminals: tc.terms, Connections: tc.conn, Note: func(l string) { notes = append(notes, l) }})
		if err != nil {
			t.Fatal(err)
		}
		su := s.Setup()
		if su.Terminals != tc.t || su.Connections != tc.c || s.(*session).termsFrom != tc.from {
			t.Errorf("%v %s --terminals %d --connections %d: %d terminals, %d connections (%s); want %d, %d (%s)",
				tc.args, tc.mode, tc.terms, tc.conn, su.Terminals, su.Connections, s.(*session).termsFrom, tc.t, tc.c, tc.from)
		}
		if tc.from == "threadcount" && !strings.Contains(strings.Join(notes, "\n"), "threadcount=3 (-p): 3 terminals") {
			t.Errorf("notes %v", notes)
		}
		s.Close()
	}
}

// TestCheckFindsDamage: dataintegrity values, a run of workload a verifying every read, every
// check passing; then a wrong value, a field of the wrong length, a missing loaded record and a
// stranger, each found by its check, and the verifying reads warning.
func TestCheckFindsDamage(t *testing.T) {
	for _, e := range testDBs {
		t.Run(e.name, func(t *testing.T) {
			ctx := ctxFor(t)
			db := drivertest.Open(t, e.url(t))
			_, cfg := mustLoad(t, db, 3, "-p", "recordcount=300", "-p", "insertorder=ordered", "-p", "zeropadding=6", "-p", "dataintegrity=true",
				"-p", "fieldlength=40", "-p", "fieldcount=3")
			c := drivertest.Connect(t, db)
			for k, row := range readTable(t, c, cfg) {
				for f, v := range row {
					if want := string(AppendDeterministicValue(nil, k, cfg.FieldNamePrefix+string(rune('0'+f)), 40)); v != want {
						t.Fatalf("record %s field %d: %q, want %q", k, f, v, want)
					}
				}
			}
			run := func(n int) Details {
				y := newTestYCSB(t, workload.CmdRun, "-p", "insertproportion=0.1", "-p", "readproportion=0.6", "-p", "updateproportion=0.3")
				s, err := y.Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Terminals: 2, Connections: 1, Seed: 1})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				w, err := s.Start(ctx, workload.Env{Abort: func(error) {}})
				if err != nil {
					t.Fatal(err)
				}
				for i := range n {
					term := w.Terminals[i%2]
					op, _ := term.Next()
					if out := w.Exec.Execute(ctx, 0, term, op, true); out.Err != nil {
						t.Fatal(out.Err)
					}
				}
				f := &workload.Finished{Result: &report.Result{}, Totals: measure.NewTotals(OpNames), Minutes: 1}
				s.Finish(f)
				d := f.Result.Details.(Details)
				if d.Measured.VerifyFailed > 0 && !slices.Contains(warningCodes(f.Result.Warnings), "DATA_INTEGRITY_FAILED") {
					t.Errorf("verify failures without a warning: %+v", f.Result.Warnings)
				}
				return d
			}
			d := run(300)
			if d.Measured.VerifyChecked == 0 || d.Measured.VerifyFailed != 0 || d.Measured.ReadsNotFound != 0 || !d.Properties.DataIntegrity {
				t.Errorf("verifying reads of intact data: %+v", d.Measured)
			}
			check(t, db, true, "ok", "ok", "ok", "ok", "ok", "ok")

			fam := db.Dialect().SQLFamily()
			ph := func(q string) string {
				for n := 4; n >= 1; n-- {
					q = strings.ReplaceAll(q, "$"+string(rune('0'+n)), placeholder(fam, n))
				}
				return q
			}
			drivertest.MustExec(t, c, ph("UPDATE usertable SET FIELD1 = $1 WHERE YCSB_KEY = $2"), "far too short", "user000007")
			drivertest.MustExec(t, c, ph("UPDATE usertable SET FIELD2 = $1 WHERE YCSB_KEY = $2"), strings.Repeat("x", 40), "user000008")
			drivertest.MustExec(t, c, ph("DELETE FROM usertable WHERE YCSB_KEY IN ($1, $2)"), "user000123", "user000124")
			drivertest.MustExec(t, c, ph("INSERT INTO usertable (YCSB_KEY, FIELD0, FIELD1, FIELD2) VALUES ($1, $2, $3, $4)"), "zzz", strings.Repeat("y", 40), strings.Repeat("y", 40), strings.Repeat("y", 40))
			checks := check(t, db, true, "ok", "ok", "fail", "fail", "fail", "fail")
			for i, want := range map[int]string{2: "fewer than the", 3: "2 of the 300 loaded records are missing, the first #123 (user000123), #124 (user000124)",
				4: "1 records have a field outside 40..40 characters (or NULL), the first user000007", 5: "3 records hold values other than YCSB's deterministic ones, the first user000007, user000008, zzz"} {
				if v := strings.Join(checks[i].Violations, "; "); !strings.Contains(v, want) {
					t.Errorf("check %d violations %q do not say %q", i+1, v, want)
				}
			}
			if d := run(400); d.Measured.VerifyFailed == 0 && d.Measured.ReadsNotFound == 0 {
				t.Logf("no read touched the damaged records: %+v", d.Measured)
			}
		})
	}
}

// placeholder is parameter n in family's SQL.
func placeholder(fam string, n int) string {
	switch fam {
	case sqlexec.FamilyMySQL:
		return "?"
	case sqlexec.FamilySQLite:
		return "?" + string(rune('0'+n))
	}
	return "$" + string(rune('0'+n))
}

// A database without ycsb data, and one whose load never completed.
func TestNoDataAndHalfLoaded(t *testing.T) {
	for _, e := range testDBs {
		t.Run(e.name, func(t *testing.T) {
			ctx := ctxFor(t)
			db := drivertest.Open(t, e.url(t))
			y := newTestYCSB(t, workload.CmdOneShot)
			if ok, err := y.Loaded(ctx, db); ok || err != nil {
				t.Fatalf("Loaded on an empty database: %v, %v", ok, err)
			}
			_, err := newTestYCSB(t, workload.CmdRun).Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput})
			wantUserError(t, err, "has no candor ycsb data", "candor ycsb load")
			_, err = newTestYCSB(t, workload.CmdCheck).Check(ctx, db, false)
			wantUserError(t, err, "no candor ycsb data")

			if _, err := loadstate.Begin(ctx, db, recordName, record{Properties: dataOf(y.options().cfg)}, 1, "test"); err != nil {
				t.Fatal(err)
			}
			_, err = y.Loaded(ctx, db)
			wantUserError(t, err, "never completed", "candor ycsb load --drop")
			_, err = newTestYCSB(t, workload.CmdRun).Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput})
			wantUserError(t, err, "half-loaded")
			_, err = y.Load(ctx, db, workload.LoadOptions{Loaders: 1, Seed: 1})
			wantUserError(t, err, "incomplete ycsb load", "--drop")
			check(t, db, false, "fail", "fail", "skipped")

			// --drop replaces it; a run's data properties must agree with the load's.
			if _, err := newTestYCSB(t, workload.CmdLoad, "-p", "recordcount=10").Load(ctx, db, workload.LoadOptions{Loaders: 1, Seed: 1, Drop: true}); err != nil {
				t.Fatal(err)
			}
			_, err = newTestYCSB(t, workload.CmdRun, "-p", "insertorder=ordered").Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput})
			wantUserError(t, err, "insertorder=ordered (-p; loaded: hashed)", "candor ycsb load --drop")
			_, err = newTestYCSB(t, workload.CmdRun).Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Connections: 1,
				Endpoints: []driver.DB{drivertest.Open(t, e.url(t))}})
			wantUserError(t, err, "does not hold the ycsb load")
			if _, err := newTestYCSB(t, workload.CmdRun).Open(ctx, db, workload.SessionConfig{Mode: workload.ModeSpec}); !userr.Is(err) {
				t.Errorf("spec mode: %v", err)
			}

			// A table of the name that candor did not load.
			db2 := drivertest.Open(t, e.url(t))
			c2 := drivertest.Connect(t, db2)
			drivertest.MustExec(t, c2, "CREATE TABLE usertable (YCSB_KEY VARCHAR(255) PRIMARY KEY)")
			_, err = newTestYCSB(t, workload.CmdOneShot).Loaded(ctx, db2)
			wantUserError(t, err, "a table usertable that candor did not record loading", "candor ycsb load --drop")
			_, err = newTestYCSB(t, workload.CmdLoad).Load(ctx, db2, workload.LoadOptions{Loaders: 1, Seed: 1})
			wantUserError(t, err, "already has a table usertable", "--drop")
		})
	}
}

// A run killed while inserting (its end never recorded): the next run finds its inserts and takes
// record numbers after them, and the check counts them.
func TestKilledRunInsertsFound(t *testing.T) {
	for _, e := range testDBs {
		t.Run(e.name, func(t *testing.T) {
			ctx := ctxFor(t)
			db := drivertest.Open(t, e.url(t))
			mustLoad(t, db, 1, "-p", "recordcount=100", "--workload", "d")
			s, err := newTestYCSB(t, workload.CmdRun, "--workload", "d", "-p", "insertproportion=1", "-p", "readproportion=0").
				Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Terminals: 1, Connections: 1, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			w, err := s.Start(ctx, workload.Env{Abort: func(error) {}})
			if err != nil {
				t.Fatal(err)
			}
			for range 30 {
				op, _ := w.Terminals[0].Next()
				if out := w.Exec.Execute(ctx, 0, w.Terminals[0], op, true); out.Err != nil {
					t.Fatal(out.Err)
				}
			}
			s.(*session).Slots.Close() // killed: the record still says a run is inserting
			if _, rec, _ := readRecord(ctx, db); !rec.Running || rec.NextInsert != 100 {
				t.Fatalf("the record of the killed run %+v", rec)
			}
			check(t, db, false, "ok", "ok", "ok")

			var notes []string
			s2, err := newTestYCSB(t, workload.CmdRun, "--workload", "d").Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput,
				Terminals: 1, Connections: 1, Seed: 2, Note: func(l string) { notes = append(notes, l) }})
			if err != nil {
				t.Fatal(err)
			}
			w2, err := s2.Start(ctx, workload.Env{Abort: func(error) {}})
			if err != nil {
				t.Fatal(err)
			}
			for range 200 {
				op, _ := w2.Terminals[0].Next()
				if out := w2.Exec.Execute(ctx, 0, w2.Terminals[0], op, true); out.Err != nil {
					t.Fatal(out.Err)
				}
			}
			f := &workload.Finished{Result: &report.Result{}, Totals: measure.NewTotals(OpNames), Minutes: 1}
			s2.Finish(f)
			d := f.Result.Details.(Details)
			if d.FoundUnrecorded != 30 || d.InsertKeynumAtStart != 130 || d.InsertKeynumAtEnd <= 130 || len(f.Result.Warnings) > 0 {
				t.Errorf("details %+v, warnings %v", d, f.Result.Warnings)
			}
			if !strings.Contains(strings.Join(notes, "\n"), "found 30, the record numbers from 130 on are free") {
				t.Errorf("notes %v", notes)
			}
			s2.Close()
			check(t, db, true, "ok", "ok", "ok", "ok", "ok", "skipped")
		})
	}
}

// TestDrive runs workloads a and e through the core's scheduler for a second, closed and open loop,
// and checks the figures Finish makes from what was measured.
func TestDrive(t *testing.T) {
	for _, e := range testDBs {
		t.Run(e.name, func(t *testing.T) {
			ctx := ctxFor(t)
			db := drivertest.Open(t, e.url(t))
			mustLoad(t, db, 9, "-p", "recordcount=2000")
			for _, wl := range []string{"a", "e"} {
				for _, mode := range []workload.Mode{workload.ModeThroughput, workload.ModeRate} {
					y := newTestYCSB(t, workload.CmdRun, "--workload", wl)
					s, err := y.Open(ctx, db, workload.SessionConfig{Mode: mode, Terminals: 4, Connections: 4, Seed: 2})
					if err != nil {
						t.Fatal(err)
					}
					o := workload.DriveOptions{Mode: mode, Warmup: 100 * time.Millisecond, Measure: time.Second, Grace: 5 * time.Second,
						Tick: 250 * time.Millisecond, Seed: 2}
					if mode == workload.ModeRate {
						o.Rate.Steps = []schedule.Step{{Rate: 200, Duration: time.Second}}
						o.Rate.Process = schedule.Constant
						o.Rate.MaxBacklog = 1000
					}
					out, err := workload.Drive(ctx, "ycsb", y.Ops(), s, o)
					if err != nil {
						t.Fatal(err)
					}
					f := &workload.Finished{Result: &report.Result{}, Totals: out.Totals, Summary: out.Summary, Mode: mode,
						Minutes: out.Summary.MeasureEnd.Sub(out.Summary.MeasureStart).Minutes()}
					s.Finish(f)
					if err := s.Close(); err != nil {
						t.Fatal(err)
					}
					c := out.Totals.Counts
					var errs int64
					for _, x := range c {
						errs += x.Errors
					}
					d := f.Result.Details.(Details)
					switch wl {
					case "a":
						if c[OpRead].Completed == 0 || c[OpUpdate].Completed == 0 || c[OpScan].Completed+c[OpInsert].Completed > 0 || d.Measured.ReadsNotFound > 0 {
							t.Errorf("%s %s: counts %+v, %+v", wl, mode, c, d.Measured)
						}
					case "e":
						if c[OpScan].Completed == 0 || c[OpInsert].Completed == 0 || c[OpRead].Completed > 0 || d.Measured.ScannedRecords == 0 {
							t.Errorf("%s %s: counts %+v, %+v", wl, mode, c, d.Measured)
						}
					}
					if errs > 0 || len(f.Result.Warnings) > 0 {
						t.Errorf("%s %s: %d errors, warnings %+v", wl, mode, errs, f.Result.Warnings)
					}
					if h := f.Result.Headline[0]; h.Name != "throughput" || h.Value <= 0 {
						t.Errorf("%s %s: headline %+v", wl, mode, f.Result.Headline)
					}
					if mode == workload.ModeRate && (out.Rate == nil || out.Rate.Arrived < 150) {
						t.Errorf("%s rate: %+v", wl, out.Rate)
					}
				}
			}
			check(t, db, true, "ok", "ok", "ok", "ok", "ok", "skipped")
			if _, rec, err := readRecord(ctx, db); err != nil || rec.Inserted == 0 || rec.Running {
				t.Errorf("record after the runs: %+v, %v", rec, err)
			}
		})
	}
}
