package tpch

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/sqlexec"
	"github.com/candor-bench/candor/workload/tpch/dbgen"
	"github.com/candor-bench/candor/workload/tpch/queries"
)

// newTPCH is the workload with args parsed as cmd's flags, validated.
func newTPCH(t *testing.T, cmd workload.Command, args ...string) *TPCH {
	t.Helper()
	w := New().(*TPCH)
	fs := pflag.NewFlagSet("tpch", pflag.ContinueOnError)
	w.Flags(fs, cmd)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if p := w.Validate(workload.Validation{Cmd: cmd}); len(p) > 0 {
		t.Fatalf("options %v: %v", args, p)
	}
	return w
}

// runTPCH runs the workload on db as `candor tpch run ARGS` would (Open, Drive, Finish), with its
// files in dir, and returns the result and the session.
func runTPCH(t *testing.T, db driver.DB, dir string, args ...string) (*report.Result, *session, *workload.Outcome) {
	t.Helper()
	w := newTPCH(t, workload.CmdRun, args...)
	ctx := testCtx(t)
	create := func(name string) (io.WriteCloser, error) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		return os.Create(p)
	}
	s, err := w.Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Seed: 7, Measure: 10 * time.Minute, Out: dir, Create: create})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out, err := workload.Drive(ctx, "tpch", w.Ops(), s, workload.DriveOptions{Mode: workload.ModeThroughput, Measure: 10 * time.Minute, Grace: time.Minute, Tick: time.Second, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	r := &report.Result{}
	s.Finish(&workload.Finished{Result: r, Totals: out.Totals, Summary: out.Summary, Mode: workload.ModeThroughput})
	return r, s.(*session), out
}

func hasWarning(r *report.Result, code string) bool {
	return slices.ContainsFunc(r.Warnings, func(w report.Warning) bool { return w.Code == code })
}

// count is SELECT COUNT(*) ... on db.
func count(t *testing.T, db driver.DB, sql string, args ...any) int64 {
	t.Helper()
	c, err := db.Connect(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var n int64
	if err := c.QueryRow(testCtx(t), sqlexec.Placeholders(db.Dialect().SQLFamily(), sql), args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRun, on SQLite, PostgreSQL and MariaDB at SF 0.01: the power test in validation mode (every
// answer of the 22 queries compared, under clause 2.1.3.5's rules, with the reference answers
// DuckDB computed over tpchgen-cli's data), each query's plan saved; then the whole performance
// test (power then throughput, 2 streams and the refresh stream) with its metric, RF1's orders in
// the database and RF2's gone, the refresh sets recorded so the next run takes the next ones, and
// validation refused on the refreshed data.
func TestRun(t *testing.T) {
	for _, e := range loadDBs {
		t.Run(e.name, func(t *testing.T) {
			db := e.open(t)
			ctx := testCtx(t)
			if _, err := loadData(ctx, db, workload.LoadOptions{Loaders: 2, ToolVersion: "test"}, testSF); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()

			// Validation mode.
			r, s, out := runTPCH(t, db, dir, "--test", "power", "--validate")
			if !out.Summary.Exhausted || out.Summary.Partial {
				t.Fatalf("summary %+v: want the power test to end the run, whole", out.Summary)
			}
			for q := 1; q <= queries.Count; q++ {
				c := out.Totals.Counts[opOf(q)]
				if c.Completed != 1 || c.Errors != 0 {
					t.Errorf("Q%d: %+v; want 1 completed, no error", q, c)
				}
			}
			if c := out.Totals.Counts[OpRF1]; c.Completed != 0 {
				t.Errorf("validation mode ran RF1: %+v", c)
			}
			if hasWarning(r, "TPCH_WRONG_ANSWERS") || !hasWarning(r, "TPCH_VALIDATION_MODE") {
				t.Errorf("warnings %+v: want validation mode, no wrong answers", r.Warnings)
			}
			matched := 0
			for _, tm := range s.plan.power.times {
				if tm.mismatch != "" || tm.err != "" {
					t.Errorf("Q%d: %s%s", tm.q, tm.err, tm.mismatch)
				} else {
					matched++
				}
			}
			if matched != queries.Count {
				t.Errorf("%d answers matched, want 22", matched)
			}
			d := r.Details.(*Details)
			if d.Compliant || len(d.Power) != 1 || !d.Power[0].Complete || d.PowerAtSize <= 0 {
				t.Errorf("details %+v: want one complete power test, not compliant", d)
			}
			for q := 1; q <= queries.Count; q++ {
				b, err := os.ReadFile(filepath.Join(dir, "plans", "q"+strconv.Itoa(q)+".txt"))
				if err != nil || strings.Count(string(b), "\n") < 3 || strings.Contains(string(b), "no plan") {
					t.Errorf("plan of Q%d: %v\n%s", q, err, b)
				}
			}

			// The performance test with the refresh functions: sets 1 (power) and 2, 3 (the refresh
			// stream of 2 query streams).
			orders := count(t, db, "SELECT COUNT(*) FROM orders")
			r, s, out = runTPCH(t, db, t.TempDir(), "--test", "both", "--streams", "2")
			if !out.Summary.Exhausted {
				t.Fatalf("summary %+v: want every stream to finish", out.Summary)
			}
			d = r.Details.(*Details)
			if d.PowerAtSize <= 0 || d.ThroughputAtSize <= 0 || d.QphH <= 0 || d.Throughput == nil || !d.Throughput.Complete {
				t.Fatalf("details %+v: want Power, Throughput and QphH", d)
			}
			// Clause 5.3.7.5: the intervals reported and used by the metric are the measured ones
			// rounded to the nearest 0.1 s, at least 0.1 s; Power@Size is computed from them.
			pt := d.Power[0]
			reported := append(pt.QuerySeconds[:], pt.RefreshSeconds...)
			measured := append(pt.MeasuredQuerySeconds[:], pt.MeasuredRefreshSeconds...)
			for i, v := range reported {
				m := measured[i]
				if m <= 0 || v < 0.1 || v != Interval(m) || math.Abs(v*10-math.Round(v*10)) > 1e-9 || m >= 0.05 && math.Abs(v-m) > 0.05+1e-9 {
					t.Errorf("power test interval %d: reported %v, measured %v; want the measured rounded to 0.1 s, at least 0.1 s", i, v, m)
				}
			}
			if p := Power(testSF, pt.MeasuredQuerySeconds[:], pt.MeasuredRefreshSeconds); p != pt.PowerAtSize || d.PowerAtSize != p {
				t.Errorf("Power@Size %v, details %v; want %v from the intervals", pt.PowerAtSize, d.PowerAtSize, p)
			}
			for q, per := range d.Throughput.PerQuery {
				for i, v := range per {
					if m := d.Throughput.PerQueryMeasured[q][i]; m <= 0 || v != Interval(m) {
						t.Errorf("throughput %s stream %d: reported %v, measured %v", q, i+1, v, m)
					}
				}
			}
			if d.FirstRefreshSet != 1 || d.RefreshSets != 3 {
				t.Errorf("refresh sets %d..+%d, want 1..3", d.FirstRefreshSet, d.RefreshSets)
			}
			if c := out.Totals.Counts[opOf(1)]; c.Completed != 3 || c.Errors != 0 {
				t.Errorf("q1: %+v, want 3 completed (power test and 2 streams)", c)
			}
			if c := out.Totals.Counts[OpRF1]; c.Completed != 3 || c.Errors != 0 {
				t.Errorf("rf1: %+v, want 3", c)
			}
			// Every throughput stream started after the power test's last operation.
			var powerEnd time.Time
			for _, tm := range s.plan.power.times {
				if tm.end.After(powerEnd) {
					powerEnd = tm.end
				}
			}
			for _, st := range append(slices.Clone(s.plan.streams), s.plan.refresh) {
				if len(st.times) == 0 || st.times[0].start.Before(powerEnd) {
					t.Errorf("%s started before the power test's end", st.label())
				}
			}
			// RF1 inserted SF×1500 orders per set and RF2 deleted as many: the count is as loaded,
			// set 2's new orders are there, its deleted ones are not.
			if n := count(t, db, "SELECT COUNT(*) FROM orders"); n != orders {
				t.Errorf("orders: %d after the refresh functions, want %d as loaded", n, orders)
			}
			var newKey int64
			if err := dbgen.RefreshInsert(testSF, 2, func(tb dbgen.Table, row []any) error {
				if tb == dbgen.Orders && newKey == 0 {
					newKey = row[0].(int64)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if n := count(t, db, "SELECT COUNT(*) FROM orders WHERE o_orderkey = $1", newKey); n != 1 {
				t.Errorf("set 2's new order %d: %d rows, want 1", newKey, n)
			}
			if n := count(t, db, "SELECT COUNT(*) FROM lineitem WHERE l_orderkey = $1", newKey); n < 1 {
				t.Errorf("set 2's new order %d has no lineitems", newKey)
			}
			del := dbgen.RefreshDelete(testSF, 2)
			if n := count(t, db, "SELECT COUNT(*) FROM lineitem WHERE l_orderkey = $1", del[0]); n != 0 {
				t.Errorf("set 2's deleted order %d still has %d lineitems", del[0], n)
			}
			// The consistency check after the run: every condition holds (RF1 and RF2 in pairs).
			checks, err := s.t.Check(ctx, db, true)
			if err != nil || len(checks) != 4 {
				t.Fatalf("check: %d conditions, %v; want 4", len(checks), err)
			}
			for _, ch := range checks {
				if !ch.OK {
					t.Errorf("check %d %s: %v", ch.Condition, ch.Name, ch.Violations)
				}
			}
			if used, err := refreshSetsUsed(ctx, db); err != nil || used != 3 {
				t.Errorf("refresh sets used: %d, %v; want 3", used, err)
			}
			// The next run takes set 4; validation is refused on the refreshed data.
			w := newTPCH(t, workload.CmdRun, "--test", "power")
			next, err := w.Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if first := next.(*session).plan.firstSet; first != 4 {
				t.Errorf("the next run starts at set %d, want 4", first)
			}
			w = newTPCH(t, workload.CmdRun, "--test", "power", "--validate")
			if _, err := w.Open(ctx, db, workload.SessionConfig{Mode: workload.ModeThroughput, Seed: 1}); !errors.As(err, new(*userr.Error)) || !strings.Contains(err.Error(), "reload") {
				t.Errorf("validation on refreshed data: %v; want a user error saying to reload", err)
			}
		})
	}
}
