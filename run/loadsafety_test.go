package run

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/tpcc"
)

// TestJudgeLoad: a load past MaxLoadTime at the engine's rate, or whose generators hold more than
// half the memory candor may use, is a user error naming the figure, the bound and the override;
// with --allow-large it is a note; a small load passes with its estimate line.
func TestJudgeLoad(t *testing.T) {
	p := LoadPlan{Workload: &tpcc.Workload{}, DB: "sqlite:x.db", Loaders: 2}
	r := defaultLoadRates["sqlite"]
	fits := int64(r.rows * MaxLoadTime.Seconds())
	line, err := judgeLoad(p, workload.LoadEstimate{Rows: fits, Bytes: 1 << 20, PeakMemory: 1 << 20})
	if err != nil || !strings.Contains(line, "load estimate: ") || !strings.Contains(line, "candor's default for sqlite") {
		t.Errorf("a load of exactly %s: %q, %v; want its estimate and no refusal", durationText(MaxLoadTime.Seconds()), line, err)
	}
	limit, _, ok := memoryLimit()
	if !ok {
		t.Fatal("the memory candor may use is unknown on this host")
	}
	for _, tc := range []struct {
		est  workload.LoadEstimate
		want string
	}{
		{workload.LoadEstimate{Rows: fits + int64(r.rows)*60, Bytes: 1 << 20, PeakMemory: 1 << 20}, "more than the 24 hours a load may take"},
		{workload.LoadEstimate{Rows: 1000, Bytes: int64(r.bytes) * 86401, PeakMemory: 1 << 20}, "more than the 24 hours a load may take"},
		{workload.LoadEstimate{Rows: math.MaxInt64, Bytes: math.MaxInt64, PeakMemory: 1 << 20}, "8.0 EiB"},
		{workload.LoadEstimate{Rows: 1000, Bytes: 1000, PeakMemory: limit/2 + 1}, "at once with 2 loaders, more than half of"},
	} {
		_, err := judgeLoad(p, tc.est)
		if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), AllowLargeFlag) {
			t.Errorf("%+v: %v, want a user error with %q and %s", tc.est, err, tc.want, AllowLargeFlag)
		}
		p.AllowLarge = true
		line, err := judgeLoad(p, tc.est)
		if err != nil || !strings.Contains(line, "loading anyway ("+AllowLargeFlag+")") || !strings.Contains(line, tc.want) {
			t.Errorf("%+v with %s: %q, %v; want a note with %q", tc.est, AllowLargeFlag, line, err, tc.want)
		}
		p.AllowLarge = false
	}
}

// TestJudgeDisk: a load larger than the free space of the disk holding the database is refused,
// before anything is created, naming the disk; one that fits says the free space. SQLite (the
// file's directory) and PostgreSQL on this host (its data directory, to its superuser).
func TestJudgeDisk(t *testing.T) {
	ctx := context.Background()
	lite, err := driver.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "d.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	for _, db := range []driver.DB{lite, dbtest.FreshPostgres(t, "candor_test")} {
		line, err := judgeDisk(ctx, db, workload.LoadEstimate{Bytes: 1 << 20}, "kv", false, nil)
		if err != nil || !strings.Contains(line, "free on the disk of /") {
			t.Errorf("%s, 1 MiB: %q, %v; want the free space of its disk", db.Redacted(), line, err)
		}
		huge := workload.LoadEstimate{Bytes: 1 << 60}
		if _, err := judgeDisk(ctx, db, huge, "kv", false, nil); err == nil || !userr.Is(err) || !strings.Contains(err.Error(), "needs at least 1.0 EiB of disk, and the disk of /") || !strings.Contains(err.Error(), AllowLargeFlag) {
			t.Errorf("%s, 1 EiB: %v, want a user error naming the disk and %s", db.Redacted(), err, AllowLargeFlag)
		}
		if line, err := judgeDisk(ctx, db, huge, "kv", true, nil); err != nil || !strings.Contains(line, "loading anyway") {
			t.Errorf("%s, 1 EiB with %s: %q, %v", db.Redacted(), AllowLargeFlag, line, err)
		}
	}
}

// TestJudgePlaces: a load spread over directories (TPC-C's --tablespaces) is judged per disk, the
// directories of one filesystem together; past the free space it is refused naming them, unless
// allowed; a directory that cannot be read leaves the disk unknown.
func TestJudgePlaces(t *testing.T) {
	data, a, b := t.TempDir(), t.TempDir(), t.TempDir()
	dirs, shares, held := []string{a, b, ""}, []float64{0.5, 0.25, 0.125}, []int64{0, 0, 0}
	line, err := judgePlaces(workload.LoadEstimate{Bytes: 1 << 20}, "tpcc", false, data, 0, dirs, shares, held)
	if err != nil || !strings.Contains(line, "free on the disk of "+a+" and "+b+" and "+data+" for at least 1.0 MiB") {
		t.Errorf("1 MiB over three directories of one disk: %q, %v", line, err)
	}
	huge := workload.LoadEstimate{Bytes: 1 << 60}
	_, err = judgePlaces(huge, "tpcc", false, data, 0, dirs, shares, held)
	if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), "this tpcc load puts at least 1.0 EiB on the disk of "+a) || !strings.Contains(err.Error(), AllowLargeFlag) {
		t.Errorf("1 EiB: %v, want a user error naming the directories and %s", err, AllowLargeFlag)
	}
	if line, err := judgePlaces(huge, "tpcc", true, data, 0, dirs, shares, held); err != nil || !strings.Contains(line, "loading anyway") {
		t.Errorf("1 EiB with %s: %q, %v", AllowLargeFlag, line, err)
	}
	gone := filepath.Join(a, "gone")
	if line, err := judgePlaces(huge, "tpcc", false, data, 0, []string{gone}, []float64{1}, []int64{0}); err != nil || !strings.Contains(line, "disk: unknown ("+gone+" cannot be read here") {
		t.Errorf("a directory that is not there: %q, %v", line, err)
	}
}
