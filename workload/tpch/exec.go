package tpch

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/workload/sqlexec"
	"github.com/candor-bench/candor/workload/tpch/dbgen"
	"github.com/candor-bench/candor/workload/tpch/queries"
)

// executor runs a stream's steps on the slot's connection: a query (its statements, every row
// read), RF1 or RF2; and keeps each step's timing interval on its stream.
type executor struct {
	slots  *sqlexec.Slots
	family string
	sf     float64
	// validate compares each answer with the reference answers of sf (clause 2.1.3.5's rules).
	validate bool
	// sets are the refresh sets' rows, generated before the run (prepare): dbgen -U's files are
	// made before the test too, and generating them is no part of a refresh function's interval.
	sets map[int]*refreshSet
}

// refreshSet is one update set: RF1's rows (as bound to INSERTs) and RF2's orderkeys.
type refreshSet struct {
	orders, lines [][]any
	deletes       []int64
}

// prepare generates the rows of refresh sets first..first+n-1.
func (e *executor) prepare(first, n int) error {
	e.sets = map[int]*refreshSet{}
	for set := first; set < first+n; set++ {
		rs := &refreshSet{deletes: dbgen.RefreshDelete(e.sf, set)}
		err := dbgen.RefreshInsert(e.sf, set, func(t dbgen.Table, row []any) error {
			r := make([]any, len(row))
			for i, v := range row {
				r[i] = bindValue(e.family, v)
			}
			switch t {
			case dbgen.Orders:
				rs.orders = append(rs.orders, r)
			case dbgen.Lineitem:
				rs.lines = append(rs.lines, r)
			default:
				return fmt.Errorf("tpch: RF1 generated a row of %s", t.Name())
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("tpch: generating refresh set %d: %w", set, err)
		}
		e.sets[set] = rs
	}
	return nil
}

var _ schedule.Executor = (*executor)(nil)

// Execute runs t's current step. The timing interval (clause 5.3.7.2) runs from the first
// statement's submission to the last row's arrival (or the commit of a refresh function).
func (e *executor) Execute(ctx context.Context, slot int, t schedule.Terminal, op int, _ bool) schedule.Outcome {
	s := t.(*stream)
	st := *s.cur
	tm := timing{step: st, stream: s.id}
	var got [][]string
	tm.start = time.Now()
	out := e.slots.Run(ctx, slot, func(ctx context.Context, c driver.Conn) (int, error) {
		var err error
		switch op {
		case OpRF1:
			tm.rows, err = e.rf1(ctx, slot, c, st.set)
			return 0, err
		case OpRF2:
			tm.rows, err = e.rf2(ctx, slot, c, st.set)
			return 0, err
		}
		got, err = e.query(ctx, c, st.q, st.params)
		tm.rows = int64(len(got))
		return 0, err
	})
	tm.end = time.Now()
	if out.Err == nil && e.validate && st.q > 0 {
		if want, ok := queries.Answers(st.q, e.sf); !ok {
			tm.mismatch = fmt.Sprintf("no reference answer stored for SF %g", e.sf)
		} else if err := queries.Compare(st.q, got, want); err != nil {
			tm.mismatch = err.Error()
			out.Err = driver.Checkf("Q%d's answer differs from the reference answer (validation mode, SF %g): %v", st.q, e.sf, err)
			out.Class = driver.FailCheck
		}
	}
	if out.Err != nil {
		tm.err = out.Err.Error()
	} else {
		e.slots.Done(slot)
	}
	s.times = append(s.times, tm)
	return out
}

// query runs query q with params p: its setup statements, the query (every row read, as text) and
// its teardown (also after a failure).
func (e *executor) query(ctx context.Context, c driver.Conn, q int, p queries.Params) ([][]string, error) {
	st, err := queries.SQL(q, e.family, p)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, sql := range st.Teardown {
			_, _ = c.Exec(ctx, sql)
		}
	}()
	for _, sql := range st.Setup {
		if _, err := c.Exec(ctx, sql); err != nil {
			return nil, fmt.Errorf("Q%d setup: %w", q, err)
		}
	}
	rows, err := c.Query(ctx, st.Query)
	if err != nil {
		return nil, err
	}
	return queries.ReadAnswer(rows, len(queries.Columns(q)))
}

// readAll runs sql, a statement of unknown columns (an EXPLAIN), and returns every row, each value
// as text (queries.Text).
func readAll(ctx context.Context, c driver.Conn, sql string) ([][]string, error) {
	rows, err := c.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]string
	var vals []any
	var ptrs []any
	for rows.Next() {
		if vals == nil {
			n := columnCount(rows)
			if n == 0 {
				return nil, fmt.Errorf("tpch: the driver does not say how many columns a result has")
			}
			vals, ptrs = make([]any, n), make([]any, n)
			for i := range vals {
				ptrs[i] = &vals[i]
			}
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = queries.Text(v)
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// columnCount is the number of columns of rows, from the engine's own description of the result.
func columnCount(rows driver.Rows) int {
	switch x := rows.(type) {
	case interface {
		FieldDescriptions() []pgconn.FieldDescription
	}:
		return len(x.FieldDescriptions())
	case interface{ Columns() []string }:
		return len(x.Columns())
	}
	return 0
}

// rfBatch is the rows per INSERT of RF1 (lineitem's 16 columns: 8,000 parameters, within every
// engine's limit).
const rfBatch = 500

// rf1 is the new sales refresh function (clause 2.5.2): update set set's orders and their
// lineitems inserted in one transaction, in batches of rfBatch rows.
func (e *executor) rf1(ctx context.Context, slot int, c driver.Conn, set int) (int64, error) {
	rs := e.sets[set]
	if rs == nil {
		return 0, fmt.Errorf("tpch: refresh set %d was not prepared", set)
	}
	orders, lines := rs.orders, rs.lines
	db := e.slots.DB(slot)
	_, err := driver.Retry(ctx, db, c, driver.TxOptions{}, sqlexec.MaxRetries, func(ctx context.Context, c driver.Conn) error {
		if err := e.insert(ctx, c, dbgen.Orders, orders); err != nil {
			return err
		}
		return e.insert(ctx, c, dbgen.Lineitem, lines)
	})
	return int64(len(orders) + len(lines)), err
}

// insert writes rows into t with multi-row INSERTs of rfBatch rows.
func (e *executor) insert(ctx context.Context, c driver.Conn, t dbgen.Table, rows [][]any) error {
	cols := dbgen.Columns(t)
	names := make([]string, len(cols))
	for i, col := range cols {
		names[i] = col.Name
	}
	for len(rows) > 0 {
		n := min(len(rows), rfBatch)
		var b strings.Builder
		b.WriteString("INSERT INTO " + t.Name() + " (" + strings.Join(names, ", ") + ") VALUES ")
		args := make([]any, 0, n*len(cols))
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('(')
			sqlexec.Params(&b, len(args)+1, len(cols))
			b.WriteByte(')')
			args = append(args, rows[i]...)
		}
		if _, err := c.Exec(ctx, sqlexec.Placeholders(e.family, b.String()), args...); err != nil {
			return fmt.Errorf("RF1: inserting into %s: %w", t.Name(), err)
		}
		rows = rows[n:]
	}
	return nil
}

// rf2 is the old sales refresh function (clause 2.5.3): update set set's orders and their
// lineitems deleted in one transaction, in batches of rfBatch keys.
func (e *executor) rf2(ctx context.Context, slot int, c driver.Conn, set int) (int64, error) {
	rs := e.sets[set]
	if rs == nil {
		return 0, fmt.Errorf("tpch: refresh set %d was not prepared", set)
	}
	keys := rs.deletes
	db := e.slots.DB(slot)
	var deleted int64
	_, err := driver.Retry(ctx, db, c, driver.TxOptions{}, sqlexec.MaxRetries, func(ctx context.Context, c driver.Conn) error {
		deleted = 0
		for rest := keys; len(rest) > 0; {
			n := min(len(rest), rfBatch)
			var in strings.Builder
			args := make([]any, n)
			sqlexec.Params(&in, 1, n)
			for i, k := range rest[:n] {
				args[i] = k
			}
			for _, del := range []string{"DELETE FROM lineitem WHERE l_orderkey IN (", "DELETE FROM orders WHERE o_orderkey IN ("} {
				m, err := c.Exec(ctx, sqlexec.Placeholders(e.family, del+in.String()+")"), args...)
				if err != nil {
					return fmt.Errorf("RF2: %w", err)
				}
				deleted += m
			}
			rest = rest[n:]
		}
		return nil
	})
	return deleted, err
}

// bindValue is a generated value as a parameter of family's INSERT, stored as the load stores it
// (load.go's converter): decimals exactly as their text ("123.45"), except SQLite's REAL columns
// (float64); dates as time.Time for PostgreSQL's DATE, as 'YYYY-MM-DD' text elsewhere.
func bindValue(family string, v any) any {
	switch x := v.(type) {
	case dbgen.Decimal:
		if family == sqlexec.FamilySQLite {
			return x.Float()
		}
		return x.String()
	case dbgen.Date:
		if family == sqlexec.FamilyPostgres {
			return x.Time()
		}
		return x.String()
	}
	return v
}

// explainSQL is the engine's EXPLAIN of sql (the plan, not run).
func explainSQL(family, sql string) string {
	switch family {
	case "sqlite":
		return "EXPLAIN QUERY PLAN " + sql
	}
	return "EXPLAIN " + sql
}
