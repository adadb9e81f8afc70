package loadstate

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

// TestParts: a sharded load's bookkeeping through its states, with the load's record read by
// Parts.Record's default (candor_workloads) and by a hook (as TPC-C's candor_load is): the parts
// missing (shard 0's until the load completes), a joining shard's wait and its refusal of a part
// complete already, shard 0's Done waiting for the others, a restarted shard 0 resuming, the notes
// naming what is missing, and Forget.
func TestParts(t *testing.T) {
	for _, e := range testDBs {
		t.Run(e.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			db := e.open(t)
			// The hook reads "own"'s row as the load's record, as TPC-C reads candor_load.
			hooked := Parts{Name: "hk", Record: func(ctx context.Context, db driver.DB) (State, error) { return Read(ctx, db, "own") }}
			for _, p := range []struct {
				parts  Parts
				record string
			}{{Parts{Name: "kv"}, "kv"}, {hooked, "own"}} {
				testParts(ctx, t, db, p.parts, p.record)
			}
		})
	}
}

func testParts(ctx context.Context, t *testing.T, db driver.DB, p Parts, record string) {
	s := func(i int) workload.Shard { return workload.Shard{Index: i, Count: 3} }
	missing := func(want ...int) {
		t.Helper()
		got, err := p.Missing(ctx, db, 3)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%s: Missing = %v, %v; want %v", p.Name, got, err, want)
		}
	}
	missing(0, 1, 2) // nothing recorded
	if _, err := Begin(ctx, db, record, opts{Count: 30}, 9, "v"); err != nil {
		t.Fatal(err)
	}
	if err := p.Begin(ctx, db, 3, opts{Count: 30}, 9, "v"); err != nil {
		t.Fatal(err)
	}
	missing(0, 1, 2)
	if ok, _, err := p.Resumes(ctx, db, s(0)); err != nil || ok {
		t.Fatalf("%s: Resumes before shard 0's part: %v, %v", p.Name, ok, err)
	}
	o := workload.LoadOptions{Shard: s(1), ShardWait: time.Minute, Seed: 9}
	st, got, err := Joined[opts](ctx, db, p, o)
	if err != nil || st.Seed != 9 || got.Count != 30 {
		t.Fatalf("%s: shard 1 joining: %+v, %+v, %v", p.Name, st, got, err)
	}
	if finish, err := p.Done(ctx, db, o); err != nil || finish {
		t.Fatalf("%s: shard 1's Done = %v, %v; want its part recorded, not the finish", p.Name, finish, err)
	}
	missing(0, 2)
	if _, _, err := Joined[opts](ctx, db, p, o); !userr.Is(err) || !strings.Contains(err.Error(), "complete already") {
		t.Fatalf("%s: shard 1 joining again: %v, want a user error saying its part is complete", p.Name, err)
	}
	// Shard 0's part, then its wait gives up on shard 2.
	o0 := workload.LoadOptions{Shard: s(0), ShardWait: time.Second, Seed: 9}
	if finish, err := p.Done(ctx, db, o0); !userr.Is(err) || !strings.Contains(err.Error(), "2/3") || !finish {
		t.Fatalf("%s: shard 0's Done without shard 2: %v, %v; want it to give up naming 2/3", p.Name, finish, err)
	}
	missing(0, 2)
	if note := p.Note(ctx, db); !strings.Contains(note, "2/3 are not complete") {
		t.Errorf("%s: Note = %q, want it to name 2/3", p.Name, note)
	}
	if _, err := p.Done(ctx, db, workload.LoadOptions{Shard: s(2)}); err != nil {
		t.Fatal(err)
	}
	missing(0) // every part in: shard 0 has not finished
	if note := p.Note(ctx, db); !strings.Contains(note, "shard 0 has not finished it") || !strings.Contains(note, "--shard 0/3") {
		t.Errorf("%s: Note = %q, want it to say shard 0 must finish", p.Name, note)
	}
	if n, m, err := p.Begun(ctx, db); err != nil || n != 3 || len(m) != 0 {
		t.Errorf("%s: Begun = %d, %v, %v", p.Name, n, m, err)
	}
	ok, rec, err := p.Resumes(ctx, db, s(0))
	if err != nil || !ok || rec.Seed != 9 {
		t.Fatalf("%s: Resumes for a restarted shard 0: %v, %+v, %v", p.Name, ok, rec, err)
	}
	if ok, _, _ := p.Resumes(ctx, db, s(1)); ok {
		t.Errorf("%s: shard 1 resumes: only shard 0 finishes a load", p.Name)
	}
	if finish, err := p.Done(ctx, db, o0); err != nil || !finish {
		t.Fatalf("%s: shard 0's Done with every part in: %v, %v", p.Name, finish, err)
	}
	if _, err := Complete(ctx, db, record); err != nil {
		t.Fatal(err)
	}
	missing()
	if ok, _, _ := p.Resumes(ctx, db, s(0)); ok {
		t.Errorf("%s: shard 0 resumes a complete load", p.Name)
	}
	if err := p.Forget(ctx, db); err != nil {
		t.Fatal(err)
	}
	if n, _, err := p.Begun(ctx, db); err != nil || n != 0 || p.Note(ctx, db) != "" {
		t.Errorf("%s: after Forget: %d parts, %v", p.Name, n, err)
	}
}
