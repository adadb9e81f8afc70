package metrics

import (
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/measure"
)

// candor_failures_total counts each error once, under its class; an error recorded without a class
// is a statement error, and the classes add up to the error outcome.
func TestFailuresByClass(t *testing.T) {
	rec := measure.NewRecorder(ops, 1)
	t0 := time.Unix(1_800_000_000, 0)
	rec.Begin(t0, t0, t0.Add(10*time.Second))
	c := NewCollector(Info{Workload: "tpcc", Mode: "throughput"})
	ev := []measure.Event{
		{Err: true, Fail: driver.FailCheck, Msg: "tpcc: new-order updated 4 stock rows, expected 10"},
		{Err: true, Fail: driver.FailCheck, Msg: "tpcc: new-order updated 4 stock rows, expected 10"},
		{Err: true, Fail: driver.FailSerialization, Msg: "deadlock"},
		{Err: true}, // no class
		{Response: time.Millisecond},
	}
	c.Observe(fakeInterval(t, rec, t0.Add(time.Second), ev, []int{0, 0, 0, 0, 1}))
	fams := gather(t, c)
	want := map[string]float64{"check": 2, "serialization": 1, "statement": 1, "constraint": 0, "timeout": 0, "connection_lost": 0}
	var sum float64
	for class, n := range want {
		m := find(fams["candor_failures_total"], "type", "new_order", "class", class)
		if m == nil {
			t.Fatalf("no candor_failures_total{type=new_order,class=%s}", class)
		}
		if got := m.GetCounter().GetValue(); got != n {
			t.Errorf("new_order %s failures = %v, want %v", class, got, n)
		}
		sum += m.GetCounter().GetValue()
	}
	if e := counter(t, fams, "new_order", "error"); e != sum {
		t.Errorf("the classes add up to %v, the error outcome is %v", sum, e)
	}
	if m := find(fams["candor_failures_total"], "type", "payment", "class", "check"); m == nil || m.GetCounter().GetValue() != 0 {
		t.Errorf("payment had no failure: %v", m)
	}
}
