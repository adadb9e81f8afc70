package tpcc

import (
	"testing"
)

func testSource(W int, seed uint64) *arrivalSource {
	c := Constants{CLast: 201, CID: 988, OLIID: 6858}
	return &arrivalSource{pool: newTerminals(TerminalsPerWarehouse*W, W, ModeRate, seed, c)}
}

// Round-robin over one terminal per district: every district gets the same share of arrivals, and
// since each terminal deals its own deck, 23 arrivals per terminal are exactly one pass of the deck
// (clause 5.2.4.2): the whole mix is exact.
func TestArrivalsRoundRobinAndMix(t *testing.T) {
	const W = 3
	src := testSource(W, 11)
	n := int64(len(src.pool)) * DeckSize * 4
	var perType [NumTxTypes]int64
	perDistrict := map[[2]int]int64{}
	for i := int64(0); i < n; i++ {
		job := src.NewJob()
		op, g := src.Draw(i, job)
		if g != 0 {
			t.Fatalf("group %d without endpoints", g)
		}
		j := job.(*arrival)
		perType[op]++
		perDistrict[[2]int{j.w, j.d}]++
		if j.w < 1 || j.w > W || j.d < 1 || j.d > DistrictsPerWarehouse {
			t.Fatalf("arrival %d: warehouse %d district %d of %d", i, j.w, j.d, W)
		}
		if op == NewOrder && j.in.no.WID != j.w {
			t.Fatalf("arrival %d: New-Order of warehouse %d drawn for home warehouse %d", i, j.in.no.WID, j.w)
		}
	}
	for tx, c := range perType {
		if want := n / DeckSize * int64(DeckCards[tx]); c != want {
			t.Errorf("%s: %d arrivals, want %d", TxNames[tx], c, want)
		}
	}
	if len(perDistrict) != W*DistrictsPerWarehouse {
		t.Fatalf("%d districts drawn, want %d", len(perDistrict), W*DistrictsPerWarehouse)
	}
	for k, c := range perDistrict {
		if c != n/int64(W*DistrictsPerWarehouse) {
			t.Errorf("district %v: %d arrivals, want %d", k, c, n/int64(W*DistrictsPerWarehouse))
		}
	}
}

// The same seed gives the same arrivals; a job keeps its inputs while later arrivals of the same
// terminal are drawn (they go to other records).
func TestArrivalsDeterministicAndIsolated(t *testing.T) {
	a, b := testSource(1, 5), testSource(1, 5)
	const n = 500
	jobs := make([]*arrival, n)
	for i := int64(0); i < n; i++ {
		ja, jb := a.NewJob(), b.NewJob()
		opA, _ := a.Draw(i, ja)
		opB, _ := b.Draw(i, jb)
		x, y := ja.(*arrival), jb.(*arrival)
		if opA != opB || x.w != y.w || x.d != y.d || x.in.no != y.in.no || x.in.pay.CID != y.in.pay.CID || x.in.os != y.in.os {
			t.Fatalf("arrival %d differs between two sources of the same seed", i)
		}
		jobs[i] = x
	}
	// Redraw the first 50 into fresh records: the kept records still hold what was drawn first.
	c := testSource(1, 5)
	for i := int64(0); i < 50; i++ {
		j := c.NewJob()
		op, _ := c.Draw(i, j)
		if op == NewOrder && j.(*arrival).in.no != jobs[i].in.no {
			t.Fatalf("arrival %d's New-Order inputs changed after later draws", i)
		}
	}
}

func TestArrivalsGroups(t *testing.T) {
	src := testSource(2, 1)
	src.group = make([]int, len(src.pool))
	for i, t := range src.pool {
		src.group[i] = EndpointOf(int(t.w), 2)
	}
	for i := int64(0); i < 100; i++ {
		j := src.NewJob()
		_, g := src.Draw(i, j)
		if want := EndpointOf(j.(*arrival).w, 2); g != want {
			t.Fatalf("arrival %d of warehouse %d in group %d, want %d", i, j.(*arrival).w, g, want)
		}
	}
}
