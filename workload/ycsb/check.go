package ycsb

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/report"
	"github.com/candor-bench/candor/workload/checklist"
	"github.com/candor-bench/candor/workload/loadstate"
	"github.com/candor-bench/candor/workload/sqlexec"
	"github.com/candor-bench/candor/workload/textfmt"
)

// checkBatch is the keys one query of the loaded-keys check (and findInserts) asks for.
const checkBatch = 500

// Check checks the ycsb data against its record in candor_workloads (it takes no flags: `candor
// ycsb check` reads everything from the record):
//
//  1. the load completed;
//  2. the table exists with YCSB_KEY and the field columns, in order;
//  3. it holds insertcount records plus the runs' inserts: at least the inserts that succeeded, at
//     most the record numbers inserts took (an insert whose commit was lost with its connection may
//     be there or not); only at least, when a run did not record its inserts;
//
// and with full:
//
//  4. every loaded record is there (the keys of insertstart .. insertstart+insertcount-1);
//  5. every field's length is within the field-length bounds (no field is NULL);
//  6. with dataintegrity, every value is the one YCSB derives from the key and field name.
func (y *YCSB) Check(ctx context.Context, db driver.DB, full bool) ([]report.Check, error) {
	fam, _, err := sqlexec.Dialect(db, recordName)
	if err != nil {
		return nil, err
	}
	st, rec, err := loadstate.ForCheck(ctx, db, readRecord)
	if err != nil {
		return nil, err
	}
	cfg, err := rec.config()
	if err != nil {
		return nil, err
	}
	c, err := db.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()

	var out checklist.List
	table := cfg.Table
	out.LoadCompleted(st)
	var has bool
	if err := out.Add("the table "+table+" exists with YCSB_KEY and the field columns", func(ch *report.Check) error {
		cols, err := tableColumns(ctx, c, fam, storedName(fam, table))
		if err != nil {
			return err
		}
		if len(cols) == 0 {
			checklist.Violate(ch, "there is no table %s: reload with candor ycsb load --drop", table)
			return nil
		}
		has = true
		want := append([]string{keyColumn}, columnNames(cfg)...)
		if len(cols) != len(want) || !equalFoldAll(cols, want) {
			checklist.Violate(ch, "the table %s has the columns %s, not %s", table, strings.Join(cols, ", "), strings.Join(want, ", "))
		}
		return nil
	}); err != nil {
		return out, err
	}
	names := []string{"the loaded records plus the runs' inserts", "every loaded record present", "every field's length within the field-length bounds", "every value as dataintegrity derives it"}
	if !has {
		out.Skip(names[0], "no table "+table)
		if full {
			for _, n := range names[1:] {
				out.Skip(n, "no table "+table)
			}
		}
		return out, nil
	}

	out.Add(names[0], func(ch *report.Check) error {
		var rows int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&rows); err != nil {
			return fmt.Errorf("counting the records of %s: %w", table, err)
		}
		lo := cfg.InsertCount + rec.Inserted
		hi := cfg.InsertCount + max(0, rec.NextInsert-cfg.RecordCount)
		ch.Reason = fmt.Sprintf("%s records: %s loaded, %s inserted by runs (%s record numbers taken by inserts)",
			textfmt.Thousands(rows), textfmt.Thousands(cfg.InsertCount), textfmt.Thousands(rec.Inserted), textfmt.Thousands(max(0, rec.NextInsert-cfg.RecordCount)))
		switch {
		case rows < lo:
			checklist.Violate(ch, "the table holds %s records, fewer than the %s loaded and inserted (YCSB's workloads never delete)", textfmt.Thousands(rows), textfmt.Thousands(lo))
		case rec.Running:
			ch.Reason += "; a run did not record its inserts (it was stopped), so only the least is checked"
		case rows > hi:
			checklist.Violate(ch, "the table holds %s records, more than the %s loaded plus every record number inserts took", textfmt.Thousands(rows), textfmt.Thousands(hi))
		}
		return nil
	})
	if !full {
		return out, nil
	}
	if err := out.Add(names[1], func(ch *report.Check) error {
		missing, first, err := missingLoaded(ctx, c, fam, cfg)
		if err != nil {
			return err
		}
		if missing > 0 {
			checklist.Violate(ch, "%s of the %s loaded records are missing, the first %s", textfmt.Thousands(missing), textfmt.Thousands(cfg.InsertCount), strings.Join(first, ", "))
		}
		return nil
	}); err != nil {
		return out, err
	}
	if err := out.Add(names[2], func(ch *report.Check) error {
		lo, hi := lengthBounds(cfg)
		var conds []string
		for _, col := range columnNames(cfg) {
			l := lengthSQL(fam, col)
			conds = append(conds, fmt.Sprintf("%s IS NULL OR %s < %d OR %s > %d", col, l, lo, l, hi))
		}
		where := " WHERE " + strings.Join(conds, " OR ")
		var bad int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM "+table+where).Scan(&bad); err != nil {
			return fmt.Errorf("measuring the fields of %s: %w", table, err)
		}
		if bad > 0 {
			first, err := firstKeys(ctx, c, "SELECT "+keyColumn+" FROM "+table+where+" ORDER BY "+keyColumn+" LIMIT 5")
			if err != nil {
				return err
			}
			checklist.Violate(ch, "%s records have a field outside %d..%d characters (or NULL), the first %s", textfmt.Thousands(bad), lo, hi, strings.Join(first, ", "))
		}
		return nil
	}); err != nil {
		return out, err
	}
	err = out.Add(names[3], func(ch *report.Check) error {
		if !cfg.DataIntegrity {
			ch.Skipped, ch.Reason = true, "the values are random (dataintegrity=false)"
			return nil
		}
		bad, first, err := badValues(ctx, c, cfg)
		if err != nil {
			return err
		}
		if bad > 0 {
			checklist.Violate(ch, "%s records hold values other than YCSB's deterministic ones, the first %s", textfmt.Thousands(bad), strings.Join(first, ", "))
		}
		return nil
	})
	return out, err
}

func equalFoldAll(a, b []string) bool {
	for i := range a {
		if !strings.EqualFold(a[i], b[i]) {
			return false
		}
	}
	return true
}

// tableColumns is the columns of table (as stored), in order; none when there is no such table.
func tableColumns(ctx context.Context, c driver.Conn, fam, table string) ([]string, error) {
	rows, err := c.Query(ctx, sqlexec.Placeholders(fam, columnsSQL(fam)), table)
	if err != nil {
		return nil, fmt.Errorf("listing the columns of %s: %w", table, err)
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		cols = append(cols, n)
	}
	return cols, rows.Err()
}

func firstKeys(ctx context.Context, c driver.Conn, sql string) ([]string, error) {
	rows, err := c.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// presentKeys is the keys of keys (at most checkBatch) that table holds.
func presentKeys(ctx context.Context, c driver.Conn, fam, table string, keys []string) (map[string]bool, error) {
	var b strings.Builder
	b.WriteString("SELECT " + keyColumn + " FROM " + table + " WHERE " + keyColumn + " IN (")
	sqlexec.Params(&b, 1, checkBatch)
	b.WriteByte(')')
	args := make([]any, 0, checkBatch)
	for _, k := range keys {
		args = append(args, k)
	}
	for len(args) < checkBatch { // a short batch repeats its first key: one statement for all
		args = append(args, args[0])
	}
	rows, err := c.Query(ctx, sqlexec.Placeholders(fam, b.String()), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := map[string]bool{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		found[k] = true
	}
	return found, rows.Err()
}

// missingLoaded counts the loaded records not in the table, checkBatch at a time, and names the
// first few (record number and key).
func missingLoaded(ctx context.Context, c driver.Conn, fam string, cfg Config) (missing int64, first []string, err error) {
	keys := make([]string, 0, checkBatch)
	for from := int64(0); from < cfg.InsertCount; from += checkBatch {
		n := min(checkBatch, cfg.InsertCount-from)
		keys = keys[:0]
		for i := range n {
			keys = append(keys, cfg.KeyName(cfg.InsertStart+from+i))
		}
		present, err := presentKeys(ctx, c, fam, cfg.Table, keys)
		if err != nil {
			return 0, nil, fmt.Errorf("looking for the loaded records: %w", err)
		}
		for i, k := range keys {
			if !present[k] {
				missing++
				if len(first) < 5 {
					first = append(first, fmt.Sprintf("#%d (%s)", cfg.InsertStart+from+int64(i), k))
				}
			}
		}
	}
	return missing, first, nil
}

// badValues reads every record and counts those whose fields differ from buildDeterministicValue.
func badValues(ctx context.Context, c driver.Conn, cfg Config) (bad int64, first []string, err error) {
	cols := columnNames(cfg)
	rows, err := c.Query(ctx, "SELECT "+keyColumn+", "+strings.Join(cols, ", ")+" FROM "+cfg.Table)
	if err != nil {
		return 0, nil, fmt.Errorf("reading %s: %w", cfg.Table, err)
	}
	defer rows.Close()
	var key string
	vals := make([][]byte, len(cols))
	dest := []any{&key}
	for i := range vals {
		dest = append(dest, &vals[i])
	}
	names := cfg.FieldNames()
	var want []byte
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return 0, nil, err
		}
		for i, v := range vals {
			want = AppendDeterministicValue(want[:0], key, names[i], int(cfg.FieldLength))
			if v == nil || !bytes.Equal(v, want) {
				bad++
				if len(first) < 5 {
					first = append(first, key)
				}
				break
			}
		}
	}
	return bad, first, rows.Err()
}
