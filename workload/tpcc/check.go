package tpcc

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/userr"
)

// CheckOptions choose the consistency conditions to verify.
type CheckOptions struct {
	// Full adds the conditions that read every order line or customer (5, 6, 7, 10, 12) to the
	// quick ones (1, 2, 3, 4, 8, 9, 11).
	Full bool
}

// Violation is a failed condition with up to 10 offending rows, human readable.
type Violation struct {
	Condition int
	Name      string
	Rows      []string
}

// CheckResult is the outcome of one condition of clause 3.3.2.
type CheckResult struct {
	Condition  int
	Name       string
	Skipped    bool
	Reason     string // why it was skipped
	OK         bool
	Violations []string // up to 10 offending rows, in key order
	Count      int64    // offending rows in all
	Duration   time.Duration
}

// SettingsNote names the result, not a condition (number 0, skipped), that says a session setting
// the check makes for speed was refused by the server and the check ran without it.
const SettingsNote = "the check's session settings"

// Violations returns the failed conditions of a check.
func Violations(results []CheckResult) []Violation {
	var v []Violation
	for _, r := range results {
		if !r.Skipped && !r.OK {
			v = append(v, Violation{Condition: r.Condition, Name: r.Name, Rows: r.Violations})
		}
	}
	return v
}

// Check verifies the consistency conditions of clause 3.3.2 (1 to 12; quick or full), one
// set-based query each, and on a load with --tablespaces a 13th: the tables and indexes are where
// the load put them. A database without candor TPC-C data, or whose load did not complete, is a
// user error. Condition 11 holds on the initial population only and is skipped once a run has used
// the data. A condition that does not hold is a result with OK false, not an error.
func Check(ctx context.Context, db driver.DB, o CheckOptions) ([]CheckResult, error) {
	var refused []string
	dialect := db.Dialect().SQLFamily()
	c, err := db.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	li, err := readLoadInfo(ctx, db, c)
	if err != nil {
		return nil, err
	}
	if !li.Completed {
		return nil, userr.Errorf("the load of this database did not complete (%s, started %s UTC)%s, so its data cannot be checked: reload with candor tpcc load --drop",
			warehousesText(li.Warehouses), li.StartedAt.Format("2006-01-02 15:04:05"), parts.Note(ctx, db))
	}
	if dialect == dialectPostgres && !distributed(engineName(db)) && driver.SessionSettings(db) {
		// Session-local settings for queries that read whole tables: hash joins and aggregates
		// fit in memory instead of spilling, and no nested loop of index probes (at 10
		// warehouses condition 10 takes 3.2 s with the planner's nested loop, 1.7 s without).
		// Optional: a server that refuses one (Doltgres) checks without it, and the check says so.
		set := driver.NewSettings(nil, "SET work_mem = '256MB'", "SET enable_nestloop = off")
		if err := set.Apply(ctx, db, c); err != nil {
			return nil, err
		}
		refused = set.Refused()
	}
	var out []CheckResult
	for _, r := range refused {
		out = append(out, CheckResult{Name: SettingsNote, Skipped: true, Reason: r})
	}
	for i := range conditions {
		cd := &conditions[i]
		r := CheckResult{Condition: cd.n, Name: cd.name}
		switch {
		case cd.full && !o.Full:
			r.Skipped, r.Reason = true, "expensive: runs with --full only"
		case cd.n == 11 && li.Runs > 0:
			r.Skipped, r.Reason = true, "holds on the initial population only, and "+strconv.Itoa(li.Runs)+" run(s) have changed the data since the load"
		default:
			start := time.Now()
			if err := runCondition(ctx, c, cd.sql(dialect, engineName(db)), cd, &r); err != nil {
				return out, fmt.Errorf("checking condition %d (%s): %w", cd.n, cd.name, err)
			}
			r.Duration = time.Since(start)
		}
		out = append(out, r)
	}
	if li.Placement != nil { // load --tablespaces: not a condition of clause 3.3.2 (tablespace.go)
		r, err := checkPlacement(ctx, c, li.Placement)
		if err != nil {
			return out, fmt.Errorf("checking where the tables are: %w", err)
		}
		out = append(out, r)
	}
	return out, nil
}

// runCondition runs condition cd's query q (cd.sql's) into r.
func runCondition(ctx context.Context, c driver.Conn, q string, cd *condition, r *CheckResult) error {
	rows, err := c.Query(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	var count *int64
	vals := make([]*int64, len(cd.cols))
	dest := make([]any, 1+len(cd.cols))
	dest[0] = &count
	for i := range vals {
		dest[1+i] = &vals[i]
	}
	for rows.Next() {
		for i := range vals {
			vals[i] = nil
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if count != nil {
			r.Count = *count
		}
		r.Violations = append(r.Violations, formatRow(cd.cols, vals))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	r.OK = len(r.Violations) == 0
	return nil
}

// formatRow shows an offending row: "w_id=1 w_ytd=300001.00 sum(d_ytd)=300000.00".
func formatRow(cols []outCol, vals []*int64) string {
	var b strings.Builder
	for i, col := range cols {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(col.label)
		b.WriteByte('=')
		v := vals[i]
		switch {
		case v == nil:
			b.WriteString("null")
		case col.kind == oMoney:
			b.WriteString(formatScaled(*v, 2))
		case col.kind == oSet && *v == 0:
			b.WriteString("none")
		case col.kind == oSet:
			b.WriteString("present")
		default:
			b.WriteString(strconv.FormatInt(*v, 10))
		}
	}
	return b.String()
}
