package tpcc

import (
	"context"
	"strings"
	"testing"
)

// Stock-Level's plan stays an index walk as ORDER_LINE grows. The statement is
// prepared once per connection, and PostgreSQL switches a prepared statement to its generic plan,
// which cannot see the range [d_next_o_id - 20, d_next_o_id): its estimate of the lines grows with
// the table. The test makes ORDER_LINE look 30 times larger to the planner (reltuples, as after a
// long run; the planner scales it by the table's pages) and asks for the generic plan: candor's
// statement (its LIMIT bounds the estimate) keeps index scans of ORDER_LINE and STOCK, while the
// same statement without the LIMIT turns into a hash join over a scan of the warehouse's whole
// stock (seen at 60 ms instead of 1.5 in a long run), which shows the test can fail.
func TestStockLevelPlanStablePostgres(t *testing.T) {
	parallel(t)
	db, _ := pgLoadedTestDB(t)
	ctx := context.Background()
	c, err := db.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	exec := func(sql string) {
		t.Helper()
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(`ANALYZE order_line`)
	exec(`ANALYZE stock`)
	exec(`UPDATE pg_class SET reltuples = reltuples * 30 WHERE relname = 'order_line'`)
	exec(`SET plan_cache_mode = force_generic_plan`)
	plan := func(name, stmt string) string {
		t.Helper()
		exec(`PREPARE ` + name + `(int, int, int) AS ` + stmt)
		rows, err := c.Query(ctx, `EXPLAIN EXECUTE `+name+`(1, 1, 15)`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var b strings.Builder
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			b.WriteString(line + "\n")
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	ours := plan("candor_sl", pgStockLevel)
	if strings.Contains(ours, "Hash Join") || strings.Contains(ours, "Seq Scan on stock") || !strings.Contains(ours, "Index Scan using stock_pkey") {
		t.Errorf("Stock-Level's generic plan with ORDER_LINE 30 times larger is not an index walk:\n%s", ours)
	}
	unbounded := strings.Replace(pgStockLevel, "\n\tLIMIT "+stockLevelMaxLines+")", ")", 1)
	if unbounded == pgStockLevel {
		t.Fatal("could not take the LIMIT out of the statement: the test's premise changed")
	}
	if old := plan("unbounded_sl", unbounded); !strings.Contains(old, "Hash Join") {
		t.Errorf("without its LIMIT the statement kept a good plan, so this test no longer shows the difference:\n%s", old)
	}
}
