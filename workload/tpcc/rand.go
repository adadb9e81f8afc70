package tpcc

import (
	"fmt"

	"github.com/candor-bench/candor/gen"
)

// Constants are the C values of NURand (clause 2.1.6): one per field, chosen at random.
type Constants struct {
	CLast int `json:"c_last"` // 0..255, NURand(255, 0, 999) for customer last names
	CID   int `json:"c_id"`   // 0..1023, NURand(1023, 1, 3000) for customer ids
	OLIID int `json:"ol_i_id"`
}

// LoadConstants draws the constants used while loading (recorded in candor's load table).
func LoadConstants(seed uint64) Constants {
	r := gen.New(gen.Derive(seed, "tpcc", "c-load"))
	return Constants{CLast: r.IntRange(0, 255), CID: r.IntRange(0, 1023), OLIID: r.IntRange(0, 8191)}
}

// RunConstants draws the constants for a run from the load's: clause 2.1.6.1 requires C_run for
// last names to differ from C_load with |C_run - C_load| in 65..119 and not 96 or 112. C for
// customer ids and item ids may be the same as at load time; candor draws new ones anyway.
func RunConstants(seed uint64, load Constants) Constants {
	r := gen.New(gen.Derive(seed, "tpcc", "c-run"))
	c := Constants{CID: r.IntRange(0, 1023), OLIID: r.IntRange(0, 8191)}
	for {
		v := r.IntRange(0, 255)
		if ValidCRun(v, load.CLast) {
			c.CLast = v
			return c
		}
	}
}

// ValidCRun reports whether a run's C for last names obeys clause 2.1.6.1 against the load's.
func ValidCRun(run, load int) bool {
	d := run - load
	if d < 0 {
		d = -d
	}
	return d >= 65 && d <= 119 && d != 96 && d != 112
}

// NURand is the non-uniform random function of clause 2.1.6:
// (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x.
func NURand(r *gen.Rand, a, x, y, c int) int {
	return (((r.IntRange(0, a) | r.IntRange(x, y)) + c) % (y - x + 1)) + x
}

// CustomerID draws a customer id with NURand(1023, 1, 3000) (clause 2.4.1.2, 2.5.1.2).
func (c Constants) CustomerID(r *gen.Rand) int {
	return NURand(r, 1023, 1, CustomersPerDistrict, c.CID)
}

// ItemID draws an item id with NURand(8191, 1, 100000) (clause 2.4.1.5).
func (c Constants) ItemID(r *gen.Rand) int { return NURand(r, 8191, 1, Items, c.OLIID) }

// LastNameNumber draws the number of a last name with NURand(255, 0, 999) (clause 2.5.1.2).
func (c Constants) LastNameNumber(r *gen.Rand) int { return NURand(r, 255, 0, 999, c.CLast) }

var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// lastNames holds the 1000 possible last names, built once (clause 4.3.2.3).
var lastNames = func() [1000]string {
	var t [1000]string
	for n := range t {
		t[n] = syllables[n/100] + syllables[(n/10)%10] + syllables[n%10]
	}
	return t
}()

// LastName returns the last name of number n in 0..999: its three digits each pick a syllable.
func LastName(n int) string {
	if n < 0 || n > 999 {
		panic(fmt.Sprintf("tpcc.LastName: %d out of 0..999", n))
	}
	return lastNames[n]
}
