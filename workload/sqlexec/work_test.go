package sqlexec

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/userr"
	"github.com/candor-bench/candor/workload"
)

func TestSizing(t *testing.T) {
	for _, tc := range []struct {
		z            Sizing
		terms, conns int
	}{
		{Sizing{Mode: workload.ModeThroughput, DefaultTerminals: 8, RateConnections: 4}, 8, 8},
		{Sizing{Mode: workload.ModeThroughput, Terminals: 3, DefaultTerminals: 8}, 3, 3},
		{Sizing{Mode: workload.ModeThroughput, Terminals: 3, Connections: 2, DefaultTerminals: 8}, 3, 2},
		{Sizing{Mode: workload.ModeRate, DefaultTerminals: 8, RateConnections: 4}, 4, 4},
		{Sizing{Mode: workload.ModeRate, Terminals: 6, DefaultTerminals: 8, RateConnections: 4}, 6, 4},
		{Sizing{Mode: workload.ModeRate, Connections: 5, DefaultTerminals: 8, RateConnections: 4}, 5, 5},
	} {
		if terms, conns, err := tc.z.Resolve(); err != nil || terms != tc.terms || conns != tc.conns {
			t.Errorf("%+v: %d terminals, %d connections (%v); want %d, %d", tc.z, terms, conns, err, tc.terms, tc.conns)
		}
	}
	if _, _, err := (Sizing{Mode: workload.ModeThroughput, Terminals: 1, Endpoints: 2}).Resolve(); !userr.Is(err) {
		t.Errorf("1 connection for 2 endpoints: %v, want a user error", err)
	}
}

// drawer draws its own index and a counter into the job.
type drawer struct {
	id, n int
	got   [2]int
}

func (d *drawer) Next() (int, time.Duration) { return d.id, 0 }
func (*drawer) Think(int) time.Duration      { return 0 }
func (d *drawer) NewJob() schedule.Terminal  { return &drawer{} }
func (d *drawer) DrawInto(job schedule.Terminal) int {
	d.n++
	job.(*drawer).got = [2]int{d.id, d.n}
	return d.id
}

func TestWork(t *testing.T) {
	a, b := &fakeDB{name: "a"}, &fakeDB{name: "b"}
	slots, err := Open(context.Background(), []driver.DB{a, b}, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer slots.Close()
	terms := []*drawer{{id: 0}, {id: 1}, {id: 2}}
	w := Work(workload.ModeThroughput, nil, slots, terms)
	if w.Workers != 4 || len(w.Terminals) != 3 || w.Source != nil || !slices.Equal(w.TerminalGroup, []int{0, 1, 0}) || !slices.Equal(w.WorkerGroup, []int{0, 1, 0, 1}) {
		t.Errorf("closed loop: %+v", w)
	}
	w = Work(workload.ModeRate, nil, slots, terms)
	if w.Source == nil || w.Terminals != nil {
		t.Fatalf("rate: %+v", w)
	}
	job := w.Source.NewJob()
	for i := range int64(7) {
		op, g := w.Source.Draw(i, job)
		k := int(i % 3)
		if op != k || g != k%2 || job.(*drawer).got != [2]int{k, int(i/3) + 1} {
			t.Errorf("arrival %d: op %d group %d job %v", i, op, g, job.(*drawer).got)
		}
	}
}

func TestTrips(t *testing.T) {
	var none *Slots
	if trips, ops, counted := none.Trips(); trips != 0 || ops != 0 || counted || none.Close() != nil {
		t.Error("nil Slots")
	}
	s, err := Open(context.Background(), []driver.DB{&fakeDB{}}, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		// Another level than the engine's default: an explicit transaction, BEGIN and COMMIT.
		out := s.RunStatement(context.Background(), i, driver.IsolationSerializable, false, func(ctx context.Context, c driver.Conn) error {
			return nil
		})
		if out.Err == nil {
			s.Done(i)
		}
	}
	s.Done(1)
	if trips, ops, counted := s.Trips(); trips != 4 || ops != 3 || !counted {
		t.Errorf("trips %d, ops %d, counted %v; want 4, 3, true", trips, ops, counted)
	}
}
