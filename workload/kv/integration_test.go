package kv

import (
	"bytes"
	"context"
	neturl "net/url"
	"path/filepath"
	"slices"
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
	{"sqlite", func(t testing.TB) string { return "sqlite:" + filepath.Join(t.TempDir(), "kv.db") }, false},
	{"postgres", func(t testing.TB) string { return dbtest.FreshPostgresURL(t, "candor_test") }, true},
	{"mysql", func(t testing.TB) string { return dbtest.FreshMySQLURL(t, "candor_test") }, true},
}

func ctxFor(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// readAll is the table's rows.
func readAll(t testing.TB, c driver.Conn) map[int64][]byte {
	t.Helper()
	rows, err := c.Query(ctxFor(t), "SELECT k, v FROM kv")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	m := map[int64][]byte{}
	for rows.Next() {
		var k int64
		var v []byte
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		m[k] = v
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func mustLoad(t testing.TB, db driver.DB, seed uint64, args ...string) workload.LoadResult {
	t.Helper()
	k := newTestKV(t, workload.CmdLoad, args...)
	if p := k.Validate(workload.Validation{Cmd: workload.CmdLoad}); len(p) > 0 {
		t.Fatalf("load options %v: %v", args, p)
	}
	var progress atomic.Int64
	res, err := k.Load(ctxFor(t), db, workload.LoadOptions{Loaders: 3, Seed: seed, ToolVersion: "test", Progress: func(n int64) { progress.Add(n) }})
	if err != nil {
		t.Fatalf("load %v: %v", args, err)
	}
	if progress.Load() != res.Rows || res.Rows != k.ExpectedRows() {
		t.Fatalf("load %v: %d rows, %d reported to Progress, %d expected", args, res.Rows, progress.Load(), k.ExpectedRows())
	}
	return res
}

func wantUserError(t testing.TB, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want a user error saying %q", want)
	}
	drivertest.CheckUserError(t, err, "", want...)
}

// model is what the table must hold: the test applies every operation's effect to it.
type model map[int64][]byte

// present counts the distinct keys of keys in m.
func (m model) present(keys []int64) int64 {
	ks := slices.Clone(keys)
	slices.Sort(ks)
	var n int64
	for _, k := range slices.Compact(ks) {
		if _, ok := m[k]; ok {
			n++
		}
	}
	return n
}

// scanCount is the rows from start on, at most limit.
func (m model) scanCount(start int64, limit int) int64 {
	var n int64
	for k := range m {
		if k >= start {
			n++
		}
	}
	return min(n, int64(limit))
}

// TestLoadRunCheck: Load, Loaded, Open, Start and a few hundred operations of every type run
// through the executor one at a time, each checked against a model of the table; then the table
// itself against the model, Finish's figures, the round trips, and Check.
func TestLoadRunCheck(t *testing.T) {
	for _, e := range testDBs {
		t.Run(e.name, func(t *testing.T) {
			ctx := ctxFor(t)
			url := e.url(t)
			db := drivertest.Open(t, url)
			loadArgs := []string{"--insert-count", "2500", "--min-block-bytes", "3", "--max-block-bytes", "40"}
			res := mustLoad(t, db, 42, loadArgs...)
			if res.Rows != 2500 || !strings.Contains(res.Summary, "2,500 keys (uniform)") {
				t.Errorf("load result %+v", res)
			}
			c := drivertest.Connect(t, db)
			m := model(readAll(t, c))
			if len(m) != 2500 {
				t.Fatalf("the table holds %d rows after loading 2,500", len(m))
			}
			// Byte for byte the rows the seed makes, whatever the bulk path (binary COPY, LOAD DATA or
			// INSERT with MySQL's text encoding, SQLite's INSERT).
			t.Logf("bulk path %q", res.BulkPath)
			want := makeChunk(loadSpec{dist: Uniform, seed: 42, count: 2500, minBytes: 3, maxBytes: 40}, 0)
			for i, key := range want.keys {
				v, ok := m[key]
				if !ok || !bytes.Equal(v, want.vals[i]) || len(v) < 3 || len(v) > 40 {
					t.Fatalf("loaded row of key %d: present %v, value %x, want %x", key, ok, v, want.vals[i])
				}
			}

			// A second load refuses; Loaded compares the options that decide the data.
			_, err := newTestKV(t, workload.CmdLoad, loadArgs...).Load(ctx, db, workload.LoadOptions{Loaders: 1, Seed: 42})
			wantUserError(t, err, "already holds kv data", "2,500 keys", "--drop")
			for _, args := range [][]string{loadArgs, nil, {"--max-block-bytes", "40"}} {
				if ok, err := newTestKV(t, workload.CmdOneShot, args...).Loaded(ctx, db); !ok || err != nil {
					t.Fatalf("Loaded with %v: %v, %v", args, ok, err)
				}
			}
			_, err = newTestKV(t, workload.CmdOneShot, "--max-block-bytes", "41").Loaded(ctx, db)
			wantUserError(t, err, "values of 3..41 bytes (loaded: 3..40)")
			_, err = newTestKV(t, workload.CmdOneShot, "--insert-count", "100", "--sequential", "--min-block-bytes", "3", "--max-block-bytes", "40").Loaded(ctx, db)
			wantUserError(t, err, "--insert-count 100 (loaded: 2500)", "sequential keys (loaded: uniform)", "candor kv load --drop")

			// The run: every operation type, batches of 4, a second endpoint on the same database.
			db2 := drivertest.Open(t, url)
			k := newTestKV(t, workload.CmdRun, "--preset", "", "--read-percent", "40", "--span-percent", "10", "--del-percent", "10",
				"--batch", "4", "--span-limit", "7", "--max-block-bytes", "60")
			if p := k.Validate(workload.Validation{Cmd: workload.CmdRun, Mode: workload.ModeThroughput, DB: url, Endpoints: 2}); len(p) > 0 {
				t.Fatal(p)
			}
			s, err := k.Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Terminals: 3, Connections: 2, Seed: 5,
				Endpoints: []driver.DB{db2}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			setup := s.Setup()
			if setup.Terminals != 3 || setup.Connections != 2 {
				t.Errorf("setup %+v", setup)
			}
			for _, want := range []string{"reads 40%, writes 40%, scans 10%, deletes 10%", "batch 4", "2,500 keys loaded", "blocks 3..60 bytes", "uniform keys", "scans of 7 rows"} {
				if !strings.Contains(setup.Describe, want) {
					t.Errorf("Describe %q does not say %q", setup.Describe, want)
				}
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
			ex := w.Exec.(*executor)
			var counts [numOps]int64
			writeKeys := int64(0)
			for i := range 600 {
				ti := i % 3
				term := w.Terminals[ti]
				slot := w.TerminalGroup[ti] // worker i serves group i
				op, _ := term.Next()
				in := term.(*terminal).in
				keys := slices.Clone(in.keys)
				out := w.Exec.Execute(ctx, slot, term, op, true)
				if out.Err != nil {
					t.Fatalf("operation %d (%s): %v", i, OpNames[op], out.Err)
				}
				counts[op]++
				got := ex.per[slot].rows
				switch op {
				case OpRead:
					if want := m.present(keys); got != want {
						t.Fatalf("read %d of keys %v found %d rows, want %d", i, keys, got, want)
					}
				case OpWrite:
					writeKeys += int64(len(keys))
					for j, key := range keys {
						m[key] = slices.Clone(in.vals[j])
					}
				case OpScan:
					if want := m.scanCount(keys[0], 7); got != want {
						t.Fatalf("scan %d from %d counted %d rows, want %d", i, keys[0], got, want)
					}
				case OpDelete:
					if want := m.present(keys); got != want {
						t.Fatalf("delete %d of keys %v deleted %d rows, want %d", i, keys, got, want)
					}
					for _, key := range keys {
						delete(m, key)
					}
				}
			}
			for op, n := range counts {
				if n < 20 {
					t.Errorf("only %d %s operations of 600", n, OpNames[op])
				}
			}
			if aborted != nil {
				t.Fatalf("aborted: %v", aborted)
			}
			table := readAll(t, c)
			if len(table) != len(m) {
				t.Fatalf("the table holds %d rows, the model %d", len(table), len(m))
			}
			for key, v := range m {
				if !bytes.Equal(table[key], v) {
					t.Fatalf("key %d holds %x, want %x", key, table[key], v)
				}
			}

			// Finish: throughput over the window, then reads and writes per second; the details.
			tot := measure.NewTotals(OpNames)
			var total int64
			for op, n := range counts {
				tot.Counts[op].Completed = n
				total += n
			}
			f := &workload.Finished{Result: &report.Result{}, Totals: tot, Mode: workload.ModeThroughput, Minutes: 0.5}
			s.Finish(f)
			h := f.Result.Headline
			if len(h) != 5 || h[0].Name != "throughput" || h[0].Value != float64(total)/30 || h[1].Name != "reads" ||
				h[1].Value != float64(counts[OpRead])/30 || h[2].Name != "writes" || h[3].Name != "scans" || h[4].Name != "deletes" {
				t.Errorf("headline %+v", h)
			}
			d := f.Result.Details.(Details)
			if d.Measured.ReadStatements != counts[OpRead] || d.Measured.DeleteStatements != counts[OpDelete] ||
				d.KeysAtStart != 2500 || d.KeysAtEnd != 2500+writeKeys || d.LoadSeed != "42" {
				t.Errorf("details %+v", d)
			}
			if len(f.Result.Sections) != 1 || len(f.Result.Warnings) != 0 {
				t.Errorf("sections %+v, warnings %+v", f.Result.Sections, f.Result.Warnings)
			}
			trips, ops, counted := s.(workload.RoundTripper).RoundTrips()
			if ops != 600 || counted != e.roundTrips || counted && trips < 600 {
				t.Errorf("round trips %d for %d operations, counted %v", trips, ops, counted)
			}
			s.Close()
			s.Close()

			// Check: deletes ran, so the row count and the loaded keys are not checked; the values
			// are within the sizes of the load and the run.
			checks, err := newTestKV(t, workload.CmdCheck).Check(ctx, db, true)
			if err != nil {
				t.Fatal(err)
			}
			wantChecks(t, checks, []string{"ok", "ok", "skipped", "ok", "ok", "skipped"})
			st, err := loadstate.Read(ctx, db, "kv")
			if err != nil || st.Runs != 1 {
				t.Errorf("the record after one run: %+v, %v", st, err)
			}

			// Rate mode: arrivals drawn round-robin from a pool of terminals into job records.
			kr := newTestKV(t, workload.CmdRun, "--preset", "kv50", "--batch", "2")
			rs, err := kr.Open(ctx, db, workload.SessionConfig{Mode: workload.ModeRate, Connections: 2, Seed: 6})
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
			for i := range int64(100) {
				op, g := rw.Source.Draw(i, job)
				if g != 0 || (op != OpRead && op != OpWrite) {
					t.Fatalf("arrival %d: op %d, group %d", i, op, g)
				}
				if out := rw.Exec.Execute(ctx, int(i%2), job, op, i%2 == 0); out.Err != nil {
					t.Fatalf("arrival %d: %v", i, out.Err)
				}
			}
			rs.Close()
			checks, err = newTestKV(t, workload.CmdCheck).Check(ctx, db, false)
			if err != nil {
				t.Fatal(err)
			}
			wantChecks(t, checks, []string{"ok", "ok", "skipped", "ok"})
		})
	}
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

// TestCheckFindsDamage: sequential keys, a run of writes and reads (no deletes), every check
// passing; then rows outside the key range and the value sizes, and a missing loaded key, each
// found by its check.
func TestCheckFindsDamage(t *testing.T) {
	for _, e := range testDBs {
		t.Run(e.name, func(t *testing.T) {
			ctx := ctxFor(t)
			db := drivertest.Open(t, e.url(t))
			mustLoad(t, db, 3, "--insert-count", "500", "--sequential", "--cycle-length", "1000", "--min-block-bytes", "8", "--max-block-bytes", "8")
			k := newTestKV(t, workload.CmdRun, "--preset", "kv50")
			s, err := k.Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Terminals: 2, Connections: 1, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if d := s.Setup().Describe; !strings.Contains(d, "sequential keys") || !strings.Contains(d, "cycle 1,000") || !strings.Contains(d, "blocks 8..8 bytes") {
				t.Errorf("the run did not take the load's options: %q", d)
			}
			w, err := s.Start(ctx, workload.Env{Abort: func(error) {}})
			if err != nil {
				t.Fatal(err)
			}
			for i := range 300 {
				term := w.Terminals[i%2]
				op, _ := term.Next()
				if out := w.Exec.Execute(ctx, 0, term, op, true); out.Err != nil {
					t.Fatal(out.Err)
				}
			}
			f := &workload.Finished{Result: &report.Result{}, Totals: measure.NewTotals(OpNames), Minutes: 1}
			s.Finish(f)
			if d := f.Result.Details.(Details); d.Measured.ReadKeys != d.Measured.ReadFound || d.Measured.ReadKeys == 0 || len(f.Result.Warnings) > 0 {
				t.Errorf("reads of loaded sequential keys missed: %+v, warnings %v", d.Measured, f.Result.Warnings)
			}
			s.Close()
			checks, err := newTestKV(t, workload.CmdCheck).Check(ctx, db, true)
			if err != nil {
				t.Fatal(err)
			}
			wantChecks(t, checks, []string{"ok", "ok", "ok", "ok", "ok", "ok"})

			c := drivertest.Connect(t, db)
			ins := newStatements(db.Dialect().SQLFamily(), db.Dialect().Name, 1, 0).write(2)
			drivertest.MustExec(t, c, ins, int64(5000), []byte("far too long a value"), int64(-1), []byte("12345678"))
			del := newStatements(db.Dialect().SQLFamily(), db.Dialect().Name, 1, 0).del
			drivertest.MustExec(t, c, del, int64(123))
			checks, err = newTestKV(t, workload.CmdCheck).Check(ctx, db, true)
			if err != nil {
				t.Fatal(err)
			}
			wantChecks(t, checks, []string{"ok", "ok", "ok", "fail", "fail", "fail"})
			for i, want := range map[int]string{3: "the smallest key is -1", 4: "1 values are outside 8..8 bytes", 5: "#123 (k 123)"} {
				if v := strings.Join(checks[i].Violations, "; "); !strings.Contains(v, want) {
					t.Errorf("check %d violations %q do not say %q", i+1, v, want)
				}
			}
		})
	}
}

// A database without kv data, and one whose load never completed.
func TestNoDataAndHalfLoaded(t *testing.T) {
	for _, e := range testDBs {
		t.Run(e.name, func(t *testing.T) {
			ctx := ctxFor(t)
			db := drivertest.Open(t, e.url(t))
			k := newTestKV(t, workload.CmdOneShot)
			if ok, err := k.Loaded(ctx, db); ok || err != nil {
				t.Fatalf("Loaded on an empty database: %v, %v", ok, err)
			}
			_, err := newTestKV(t, workload.CmdRun).Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput})
			wantUserError(t, err, "has no candor kv data", "candor kv load")
			_, err = newTestKV(t, workload.CmdCheck).Check(ctx, db, false)
			wantUserError(t, err, "no candor kv data")

			if _, err := loadstate.Begin(ctx, db, "kv", record{InsertCount: 10}, 1, "test"); err != nil {
				t.Fatal(err)
			}
			_, err = k.Loaded(ctx, db)
			wantUserError(t, err, "never completed", "candor kv load --drop")
			_, err = newTestKV(t, workload.CmdRun).Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput})
			wantUserError(t, err, "half-loaded")
			_, err = k.Load(ctx, db, workload.LoadOptions{Loaders: 1, Seed: 1})
			wantUserError(t, err, "incomplete kv load", "--drop")
			checks, err := newTestKV(t, workload.CmdCheck).Check(ctx, db, false)
			if err != nil {
				t.Fatal(err)
			}
			wantChecks(t, checks, []string{"fail", "fail", "skipped", "skipped"})

			// --drop replaces it; a run's key options must fit the loaded keys.
			if _, err := newTestKV(t, workload.CmdLoad, "--insert-count", "10").Load(ctx, db, workload.LoadOptions{Loaders: 1, Seed: 1, Drop: true}); err != nil {
				t.Fatal(err)
			}
			_, err = newTestKV(t, workload.CmdRun, "--sequential").Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput})
			wantUserError(t, err, "loaded with uniform keys (hashed)", "drop --sequential")
			_, err = newTestKV(t, workload.CmdRun, "--cycle-length", "5").Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput})
			wantUserError(t, err, "--cycle-length 5 is below the 10 keys loaded")
			_, err = newTestKV(t, workload.CmdRun, "--max-block-bytes", "0").Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput})
			wantUserError(t, err, "values of 1 to 0 bytes")
			_, err = newTestKV(t, workload.CmdRun).Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Connections: 1,
				Endpoints: []driver.DB{drivertest.Open(t, e.url(t))}})
			wantUserError(t, err, "does not hold the kv load")
			if _, err := newTestKV(t, workload.CmdRun).Open(ctx, db, workload.SessionConfig{Mode: workload.ModeSpec}); !userr.Is(err) {
				t.Errorf("spec mode: %v", err)
			}
		})
	}
}

// TestDrive runs kv through the core's scheduler for a second, open and closed loop, and checks the
// figures Finish makes from what was measured.
func TestDrive(t *testing.T) {
	for _, e := range testDBs {
		t.Run(e.name, func(t *testing.T) {
			ctx := ctxFor(t)
			db := drivertest.Open(t, e.url(t))
			mustLoad(t, db, 9, "--insert-count", "1000", "--max-block-bytes", "100")
			for _, mode := range []workload.Mode{workload.ModeThroughput, workload.ModeRate} {
				k := newTestKV(t, workload.CmdRun, "--preset", "kv95", "--batch", "2")
				s, err := k.Open(ctx, db, workload.SessionConfig{Mode: mode, Terminals: 4, Connections: 4, Seed: 2})
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
				out, err := workload.Drive(ctx, "kv", k.Ops(), s, o)
				if err != nil {
					t.Fatal(err)
				}
				f := &workload.Finished{Result: &report.Result{}, Totals: out.Totals, Summary: out.Summary, Mode: mode,
					Minutes: out.Summary.MeasureEnd.Sub(out.Summary.MeasureStart).Minutes()}
				s.Finish(f)
				s.Close()
				c := out.Totals.Counts
				if c[OpRead].Completed == 0 || c[OpRead].Errors+c[OpWrite].Errors > 0 || c[OpScan].Completed+c[OpDelete].Completed > 0 {
					t.Errorf("%s: counts %+v", mode, c)
				}
				if h := f.Result.Headline[0]; h.Name != "throughput" || h.Value <= 0 {
					t.Errorf("%s: headline %+v", mode, f.Result.Headline)
				}
				if d := f.Result.Details.(Details); d.Measured.ReadFound == 0 || len(f.Result.Warnings) > 0 {
					t.Errorf("%s: details %+v, warnings %+v", mode, d.Measured, f.Result.Warnings)
				}
				if mode == workload.ModeRate && (out.Rate == nil || out.Rate.Arrived < 150) {
					t.Errorf("rate: %+v", out.Rate)
				}
			}
			checks, err := newTestKV(t, workload.CmdCheck).Check(ctx, db, true)
			if err != nil {
				t.Fatal(err)
			}
			wantChecks(t, checks, []string{"ok", "ok", "ok", "ok", "ok", "ok"})
		})
	}
}

// MySQL's other bulk path, multi-row INSERTs with the values as quoted literals, keeps random bytes
// as they are too.
func TestMySQLInsertPathKeepsBytes(t *testing.T) {
	db := mysqlInsertPath(t)
	res := mustLoad(t, db, 8, "--insert-count", "3000", "--min-block-bytes", "0", "--max-block-bytes", "300")
	if !strings.Contains(strings.ToLower(res.BulkPath), "insert") {
		t.Errorf("bulk path %q, want INSERT", res.BulkPath)
	}
	m := readAll(t, drivertest.Connect(t, db))
	want := makeChunk(loadSpec{dist: Uniform, seed: 8, count: 3000, minBytes: 0, maxBytes: 300}, 0)
	if len(m) != len(want.keys) {
		t.Fatalf("%d rows, want %d", len(m), len(want.keys))
	}
	for i, key := range want.keys {
		if v := m[key]; !bytes.Equal(v, want.vals[i]) {
			t.Fatalf("key %d holds %x, want %x", key, v, want.vals[i])
		}
	}
}

// Empty values (--max-block-bytes 0) are empty, not NULL, through the load and the run.
func TestEmptyValues(t *testing.T) {
	for _, e := range testDBs {
		t.Run(e.name, func(t *testing.T) {
			ctx := ctxFor(t)
			db := drivertest.Open(t, e.url(t))
			mustLoad(t, db, 4, "--insert-count", "20", "--min-block-bytes", "0", "--max-block-bytes", "0")
			k := newTestKV(t, workload.CmdRun, "--preset", "kv0", "--batch", "3")
			s, err := k.Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Terminals: 1, Connections: 1, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			w, err := s.Start(ctx, workload.Env{Abort: func(error) {}})
			if err != nil {
				t.Fatal(err)
			}
			for range 10 {
				op, _ := w.Terminals[0].Next()
				if out := w.Exec.Execute(ctx, 0, w.Terminals[0], op, true); out.Err != nil {
					t.Fatal(out.Err)
				}
			}
			m := readAll(t, drivertest.Connect(t, db))
			if len(m) != 50 {
				t.Errorf("%d rows, want 20 loaded and 30 written", len(m))
			}
			for key, v := range m {
				if v == nil || len(v) != 0 {
					t.Fatalf("key %d holds %v, want an empty value", key, v)
				}
			}
			checks, err := newTestKV(t, workload.CmdCheck).Check(ctx, db, true)
			if err != nil {
				t.Fatal(err)
			}
			wantChecks(t, checks, []string{"ok", "ok", "ok", "ok", "ok", "ok"})
		})
	}
}

// mysqlInsertPath opens a fresh MariaDB database whose loads take the multi-row INSERT path
// (bulk=insert in the URL).
func mysqlInsertPath(t *testing.T) driver.DB {
	t.Helper()
	u, err := neturl.Parse(dbtest.FreshMySQLURL(t, "candor_test"))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("bulk", "insert")
	u.RawQuery = q.Encode()
	db := drivertest.Open(t, u.String())
	return db
}
