package ycsb

import (
	"strings"
	"testing"
)

// TestOperationChooserShares: 10^6 draws of a five-way mix match the shares weight/sum (chi-square,
// df 4, critical 18.467), and workload A's 50/50 (df 1, critical 10.828).
func TestOperationChooserShares(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Proportions
	}{
		{"five-way", Proportions{Read: 0.4, Update: 0.3, Insert: 0.1, Scan: 0.15, ReadModifyWrite: 0.05}},
		{"workload a", Proportions{Read: 0.5, Update: 0.5}},
		{"unnormalised 3:1", Proportions{Read: 3, Scan: 1}},
	} {
		ch, err := NewOperationChooser(c.p)
		if err != nil {
			t.Fatal(err)
		}
		r := newRand(17)
		var byOp [numOperations]int64
		for i := 0; i < 1_000_000; i++ {
			byOp[ch.Next(r)]++
		}
		var counts []int64
		var probs []float64
		for _, op := range Operations() {
			if c.p.Of(op) == 0 {
				if byOp[op] != 0 {
					t.Errorf("%s: %s has weight 0 but was drawn %d times", c.name, op, byOp[op])
				}
				continue
			}
			counts = append(counts, byOp[op])
			probs = append(probs, c.p.Share(op))
		}
		assertChiSquare(t, c.name, counts, probs)
	}
}

// TestOperationChooserWalk: a draw v walks the positive weights in YCSB's order (read, update,
// insert, scan, read-modify-write) and takes the first with v < share, subtracting as it goes.
// Workload D is read 0.95, insert 0.05: v in [0, 0.95) reads, v in [0.95, 1) inserts.
func TestOperationChooserWalk(t *testing.T) {
	ch, err := NewOperationChooser(Proportions{Read: 0.95, Insert: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v    float64
		want Operation
	}{
		{0, OpRead}, {0.9499999, OpRead}, {0.95, OpInsert}, {0.999999, OpInsert},
	} {
		if got := ch.Next(&fixedSource{f: []float64{c.v}}); got != c.want {
			t.Errorf("v = %v: %s, want %s", c.v, got, c.want)
		}
	}
	if got := ch.Ops(); len(got) != 2 || got[0] != OpRead || got[1] != OpInsert {
		t.Errorf("Ops = %v", got)
	}
	// Weights 2 and 6 are the shares 0.25 and 0.75 exactly: the same draws give the same operations.
	a, _ := NewOperationChooser(Proportions{Read: 2, Update: 6})
	b, _ := NewOperationChooser(Proportions{Read: 0.25, Update: 0.75})
	ra, rb := newRand(18), newRand(18)
	for i := 0; i < 10000; i++ {
		if x, y := a.Next(ra), b.Next(rb); x != y {
			t.Fatalf("draw %d: %s vs %s", i, x, y)
		}
	}
}

func TestProportionsValidate(t *testing.T) {
	for _, c := range []struct {
		p    Proportions
		want string
	}{
		{Proportions{}, "every operation proportion is 0"},
		{Proportions{Read: 1, Update: -0.1}, "UPDATE proportion -0.1 must be"},
	} {
		err := c.p.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%+v) = %v, want an error about %q", c.p, err, c.want)
		}
		if _, err := NewOperationChooser(c.p); err == nil {
			t.Errorf("NewOperationChooser(%+v) accepted", c.p)
		}
	}
	if s := (Proportions{Read: 1, Update: -1, Scan: 3}).Share(OpScan); s != 0.75 {
		t.Errorf("Share leaves a negative weight out: got %v, want 0.75", s)
	}
}

func TestOperationNames(t *testing.T) {
	want := []string{"READ", "UPDATE", "INSERT", "SCAN", "READMODIFYWRITE"}
	for i, op := range Operations() {
		if op.String() != want[i] {
			t.Errorf("%d: %s, want %s", i, op, want[i])
		}
	}
}
