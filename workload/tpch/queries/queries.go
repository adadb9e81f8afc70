// Package queries holds TPC-H's 22 queries (revision 3.0.x of the standard) for each SQL family
// candor speaks ("postgres", "mysql", "sqlite": driver.Dialect().SQLFamily()), with qgen's role:
// the substitution parameters drawn by the rules of clause 2.4.x.3 (Draw), the validation
// parameters of clause 2.4.x.4 (Validation), the query order of each stream (Appendix A,
// StreamOrder), the comparison of an answer with a reference answer under clause 2.1.3.5's
// precision rules (Compare) and the reference answers themselves (Answers), produced by DuckDB over
// tpchgen-cli's data with scripts/tpch-answers, never by candor.
//
// It is pure: no database is opened here. The workload (package workload/tpch) runs the
// statements SQL returns and hands the rows, as strings, to Compare.
package queries

import (
	"fmt"

	"github.com/candor-bench/candor/gen"
)

// Count is the number of queries: they are numbered 1..Count.
const Count = 22

// Params are one query's substitution parameters, in the order clause 2.4.x.3 lists them (Q1:
// DELTA; Q2: SIZE, TYPE, REGION; ...), each as the text that goes inside its SQL literal: numbers
// as the standard writes them ("90", "0.06"), dates as "1994-01-01", strings without quotes.
// String gives them as "Q2(15, BRASS, EUROPE)"-like text for reports.
type Params []string

// Statements are what one query sends to the database, in order: Setup (none today: Q15 uses the
// approved variant with a common table expression, Appendix B, so no view is created), then Query,
// whose rows are the answer, then Teardown (to be run even when Query failed).
type Statements struct {
	Setup    []string
	Query    string
	Teardown []string
}

// Draw returns query q's substitution parameters drawn from r by clause 2.4.q.3's rules for
// scale factor sf (Q11's FRACTION is 0.0001/SF). The same r state gives the same parameters.
// It panics when q is not in 1..Count.
func Draw(q int, r *gen.Rand, sf float64) Params {
	checkQ(q)
	return draw(q, r, sf)
}

// Validation returns query q's validation parameters (clause 2.4.q.4) for scale factor sf: the
// standard's values, with Q11's FRACTION 0.0001/SF as qgen computes it (the standard lists it for
// SF 1). The reference answers in testdata were produced with exactly these values.
func Validation(q int, sf float64) Params {
	checkQ(q)
	return validation(q, sf)
}

// SQL returns query q's statements in family's SQL ("postgres", "mysql" or "sqlite") with p
// substituted. p must have come from Draw or Validation for the same q. An unknown family or a
// malformed p is an error.
func SQL(q int, family string, p Params) (Statements, error) {
	if q < 1 || q > Count {
		return Statements{}, fmt.Errorf("tpch: no query %d (queries are 1..%d)", q, Count)
	}
	return sqlFor(q, family, p)
}

// Families lists the SQL families SQL knows.
func Families() []string { return []string{"postgres", "mysql", "sqlite"} }

// StreamOrder returns the order in which query stream s runs the 22 queries (Appendix A's table;
// stream 0 is the power test's: 14 2 9 20 6 17 18 8 21 13 3 22 16 4 11 15 1 10 19 5 7 12). The
// table has 41 rows; stream s uses row s mod 41, as qgen does. The slice is a fresh copy.
func StreamOrder(s int) []int {
	if s < 0 {
		panic(fmt.Sprintf("tpch: negative stream %d", s))
	}
	row := streamOrders[s%len(streamOrders)]
	return append([]int(nil), row[:]...)
}

// Compare checks an answer of query q (got: its rows, each column as text; NULL as "") against
// the reference want under clause 2.1.3.5's precision rules: singleton column values and COUNT
// results exactly (numbers compared to the cent, text after trimming blanks, so CHAR padding does
// not matter; a date may carry a midnight time), SUM results within $100 when rounded to the cent,
// ratios and AVG results within 1% when rounded to 1/100th. The row count must match and rows are
// compared in order (every query orders its rows). The error names the first mismatching row and
// column and the rule applied.
func Compare(q int, got, want [][]string) error {
	checkQ(q)
	return compare(q, got, want)
}

// Answers returns the reference answer of query q in validation mode at scale factor sf (the
// rows, without the header), and false when none is stored for that scale factor (stored: 0.01
// and 0.1).
func Answers(q int, sf float64) ([][]string, bool) {
	checkQ(q)
	return answers(q, sf)
}

func checkQ(q int) {
	if q < 1 || q > Count {
		panic(fmt.Sprintf("tpch: no query %d (queries are 1..%d)", q, Count))
	}
}
