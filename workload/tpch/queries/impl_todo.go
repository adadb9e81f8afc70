package queries

import "github.com/candor-bench/candor/gen"

// TODO(h-queries): the API is committed first so that workload/tpch can be written against it;
// these are being filled in on this branch.

func draw(q int, r *gen.Rand, sf float64) Params { panic("tpch queries: Draw not implemented yet") }
func validation(q int, sf float64) Params        { panic("tpch queries: Validation not implemented yet") }
func sqlFor(q int, family string, p Params) (Statements, error) {
	panic("tpch queries: SQL not implemented yet")
}
func compare(q int, got, want [][]string) error { panic("tpch queries: Compare not implemented yet") }
func answers(q int, sf float64) ([][]string, bool) {
	panic("tpch queries: Answers not implemented yet")
}

var streamOrders [41][22]int
