package tpch

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/candor-bench/candor/workload"
	"github.com/candor-bench/candor/workload/tpch/queries"
)

// TestQueryAnswersAfterLoad loads TPC-H with the workload's own load (loadData: package dbgen's
// rows, the schema and indexes of schema.go) at SF 0.01 on every engine and at SF 0.1 on
// PostgreSQL, runs the 22 queries of package queries in validation mode, each on its own, and
// compares every row with the reference answers (DuckDB over tpchgen-cli's data,
// scripts/tpch-answers) under clause 2.1.3.5's precision rules. Package queries' own test does the
// same over tpchgen-cli's data loaded by a loader of the test's own; this one ties the answers to
// the data and schema candor really loads. SF 0.1 checks what scales with SF (the validation
// parameters, answers that are near empty at 0.01), which is the same for every family: each
// family's statement texts are checked at 0.01 on its engine.
func TestQueryAnswersAfterLoad(t *testing.T) {
	for _, sf := range []float64{0.01, 0.1} {
		for _, e := range loadDBs {
			if sf != 0.01 && e.name != "postgres" {
				continue
			}
			t.Run(fmt.Sprintf("%s/sf%g", e.name, sf), func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
				defer cancel()
				db := e.open(t)
				start := time.Now()
				if _, err := loadData(ctx, db, workload.LoadOptions{Loaders: 2, ToolVersion: "test"}, sf); err != nil {
					t.Fatal(err)
				}
				t.Logf("loaded SF %g in %v", sf, time.Since(start).Round(time.Millisecond))
				c, err := db.Connect(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				family := db.Dialect().SQLFamily()
				for q := 1; q <= queries.Count; q++ {
					st, err := queries.SQL(q, family, queries.Validation(q, sf))
					if err != nil {
						t.Fatal(err)
					}
					start := time.Now()
					rs, err := c.Query(ctx, st.Query)
					if err != nil {
						t.Errorf("q%d: %v", q, err)
						continue
					}
					got, err := queries.ReadAnswer(rs, len(queries.Columns(q)))
					if err != nil {
						t.Errorf("q%d: %v", q, err)
						continue
					}
					took := time.Since(start)
					want, ok := queries.Answers(q, sf)
					if !ok {
						t.Fatalf("no reference answer for q%d at SF %g", q, sf)
					}
					if err := queries.Compare(q, got, want); err != nil {
						t.Error(err)
						continue
					}
					t.Logf("q%d: %d rows as the reference, %v", q, len(got), took.Round(time.Millisecond))
				}
			})
		}
	}
}
