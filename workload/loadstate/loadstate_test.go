package loadstate

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/internal/dbtest"
)

// testDBs are the engines the marker is tested on: fresh databases on the servers scripts/test
// starts (a missing server fails the test) and a SQLite file.
var testDBs = []struct {
	name string
	open func(testing.TB) driver.DB
}{
	{"sqlite", dbtest.SQLite},
	{"postgres", func(t testing.TB) driver.DB { return dbtest.FreshPostgres(t, "candor_test") }},
	{"mysql", func(t testing.TB) driver.DB { return dbtest.FreshMySQL(t, "candor_test") }},
}

type opts struct {
	Count int    `json:"count"`
	Keys  string `json:"keys"`
}

func TestLifecycle(t *testing.T) {
	for _, e := range testDBs {
		t.Run(e.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			db := e.open(t)

			st, err := Read(ctx, db, "kv")
			if err != nil || st.Status != NotFound {
				t.Fatalf("before any load (no table): %v, %v", st.Status, err)
			}
			if err := Drop(ctx, db, "kv"); err != nil {
				t.Fatalf("Drop without a table: %v", err)
			}
			begun, err := Begin(ctx, db, "kv", opts{Count: 10, Keys: "hashed"}, math.MaxUint64, "v-test")
			if err != nil {
				t.Fatal(err)
			}
			st, err = Read(ctx, db, "kv")
			if err != nil || st.Status != HalfLoaded || st.Seed != math.MaxUint64 || st.ToolVersion != "v-test" ||
				!st.StartedAt.Equal(begun.StartedAt) || !st.CompletedAt.IsZero() || st.Runs != 0 {
				t.Fatalf("after Begin: %+v, %v (began %v)", st, err, begun.StartedAt)
			}
			if other, err := Read(ctx, db, "ycsb"); err != nil || other.Status != NotFound {
				t.Fatalf("another workload: %v, %v", other.Status, err)
			}
			done, err := Complete(ctx, db, "kv")
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if err := MarkRun(ctx, db, "kv"); err != nil {
					t.Fatal(err)
				}
			}
			if err := SetOptions(ctx, db, "kv", opts{Count: 10, Keys: "dense"}); err != nil {
				t.Fatal(err)
			}
			if err := SetOptions(ctx, db, "kv", opts{Count: 10, Keys: "dense"}); err != nil {
				t.Fatalf("SetOptions changing nothing: %v", err)
			}
			st, err = Read(ctx, db, "kv")
			if err != nil || st.Status != Completed || !st.CompletedAt.Equal(done) || st.Runs != 2 {
				t.Fatalf("after Complete and two runs: %+v, %v", st, err)
			}
			var o opts
			if err := st.Decode(&o); err != nil || o != (opts{Count: 10, Keys: "dense"}) {
				t.Fatalf("options %+v, %v", o, err)
			}
			if err := MarkRun(ctx, db, "ycsb"); err == nil {
				t.Error("MarkRun of a workload never loaded succeeded")
			}
			// A second workload beside the first; Begin again replaces the row.
			if _, err := Begin(ctx, db, "ycsb", opts{Count: 1}, 1, "v"); err != nil {
				t.Fatal(err)
			}
			if _, err := Begin(ctx, db, "kv", opts{Count: 20}, 2, "v2"); err != nil {
				t.Fatal(err)
			}
			st, err = Read(ctx, db, "kv")
			if err != nil || st.Status != HalfLoaded || st.Seed != 2 || st.Runs != 0 {
				t.Fatalf("after a second Begin: %+v, %v", st, err)
			}
			if err := Drop(ctx, db, "kv"); err != nil {
				t.Fatal(err)
			}
			if st, err := Read(ctx, db, "kv"); err != nil || st.Status != NotFound {
				t.Fatalf("after Drop: %v, %v", st.Status, err)
			}
			if st, err := Read(ctx, db, "ycsb"); err != nil || st.Status != HalfLoaded {
				t.Fatalf("Drop of kv touched ycsb: %v, %v", st.Status, err)
			}
		})
	}
}
