package kv

import (
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

// checkBatch is the keys one query of the loaded-keys check asks for.
const checkBatch = 500

// Check checks the kv data against its record in candor_workloads:
//
//  1. the load completed;
//  2. the table kv exists;
//  3. it holds at least the rows loaded (writes only add or overwrite rows; skipped once a run has
//     deleted keys, which may leave fewer);
//  4. every key is one the key distribution can produce (sequential: [0, cycle length); zipfian:
//     [0, 2^63); the hashed uniform keys may be any BIGINT, so nothing to check);
//
// and with full:
//
//  5. every value's length is within the block sizes of the load and of every run since;
//  6. every loaded key is there (the keys of sequence numbers 0 to insert-count-1; skipped once a
//     run has deleted keys).
func (k *KV) Check(ctx context.Context, db driver.DB, full bool) ([]report.Check, error) {
	fam, engine, err := sqlexec.Dialect(db, "kv")
	if err != nil {
		return nil, err
	}
	st, rec, err := loadstate.ForCheck(ctx, db, readRecord)
	if err != nil {
		return nil, err
	}
	c, err := db.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()

	var out checklist.List
	out.LoadCompleted(st)
	var has bool
	if err := out.Add("the table kv exists", func(ch *report.Check) error {
		has, err = loadstate.TableExists(ctx, c, fam, table)
		if err == nil && !has {
			checklist.Violate(ch, "there is no table kv: reload with candor kv load --drop")
		}
		return err
	}); err != nil {
		return out, err
	}
	if !has {
		out.Skip("at least the loaded rows", "no table kv")
		out.Skip("every key within the generator's range", "no table kv")
		if full {
			out.Skip("every value's length within the block sizes", "no table kv")
			out.Skip("every loaded key present", "no table kv")
		}
		return out, nil
	}

	var rows int64
	var minK, maxK *int64
	if err := c.QueryRow(ctx, "SELECT count(*), min(k), max(k) FROM kv").Scan(&rows, &minK, &maxK); err != nil {
		return out, fmt.Errorf("counting the rows of kv: %w", err)
	}
	out.Add("at least the loaded rows", func(ch *report.Check) error {
		if rec.Deleted {
			ch.Skipped, ch.Reason = true, fmt.Sprintf("a run has deleted keys (--del-percent), so fewer than the %s rows loaded may remain; the table holds %s", textfmt.Thousands(rec.InsertCount), textfmt.Thousands(rows))
			return nil
		}
		if rows < rec.InsertCount {
			checklist.Violate(ch, "the table holds %s rows, fewer than the %s loaded (runs without deletes only add rows)", textfmt.Thousands(rows), textfmt.Thousands(rec.InsertCount))
		}
		return nil
	})
	out.Add("every key within the generator's range", func(ch *report.Check) error {
		lo, hi := keyBounds(rec.Distribution, rec.CycleLength)
		hi = max(hi, rec.KeyMax) // what runs since the load may have written
		if rec.Distribution.hashed() {
			ch.Reason = "hashed uniform keys may take any BIGINT value"
			return nil
		}
		if minK != nil && *minK < lo {
			checklist.Violate(ch, "the smallest key is %d, below %d", *minK, lo)
		}
		if maxK != nil && *maxK > hi {
			checklist.Violate(ch, "the largest key is %d, above %d (--cycle-length %d)", *maxK, hi, rec.CycleLength)
		}
		return nil
	})
	if !full {
		return out, nil
	}
	if err := out.Add("every value's length within the block sizes", func(ch *report.Check) error {
		if !rec.Values {
			ch.Reason = "no values written"
			if rows > 0 {
				checklist.Violate(ch, "%s rows though neither the load nor a run wrote values", textfmt.Thousands(rows))
			}
			return nil
		}
		if engine == sqlexec.EngineDoltgres {
			ch.Skipped, ch.Reason = true, "Doltgres (1.2.0) has no length or octet_length of a bytea value"
			return nil
		}
		lo, hi := rec.ValueMinBytes, rec.ValueMaxBytes
		l := lengthSQL(fam)
		q := sqlexec.Placeholders(fam, "SELECT count(*), min("+l+"), max("+l+") FROM kv WHERE "+l+" < $1 OR "+l+" > $2")
		var bad int64
		var minL, maxL *int64
		if err := c.QueryRow(ctx, q, int64(lo), int64(hi)).Scan(&bad, &minL, &maxL); err != nil {
			return fmt.Errorf("measuring the values of kv: %w", err)
		}
		if bad > 0 {
			checklist.Violate(ch, "%s values are outside %s bytes (the sizes written by the load and every run since), from %d to %d bytes", textfmt.Thousands(bad), blockRange(lo, hi), deref(minL), deref(maxL))
		}
		return nil
	}); err != nil {
		return out, err
	}
	err = out.Add("every loaded key present", func(ch *report.Check) error {
		if rec.Deleted {
			ch.Skipped, ch.Reason = true, "a run has deleted keys (--del-percent)"
			return nil
		}
		missing, first, err := missingLoaded(ctx, c, fam, engine, rec, st.Seed)
		if err != nil {
			return err
		}
		if missing > 0 {
			checklist.Violate(ch, "%s of the %s loaded keys are missing, the first %s", textfmt.Thousands(missing), textfmt.Thousands(rec.InsertCount), strings.Join(first, ", "))
		}
		return nil
	})
	return out, err
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// missingLoaded counts the loaded keys not in the table, checkBatch at a time, and names the first
// few (sequence number and key).
func missingLoaded(ctx context.Context, c driver.Conn, fam, engine string, rec record, seed uint64) (missing int64, first []string, err error) {
	full := (&statements{family: fam, engine: engine}).in("SELECT k FROM kv WHERE k IN (", checkBatch)
	args := make([]any, 0, checkBatch)
	keys := make(map[int64]int64, checkBatch) // key -> sequence number
	for from := int64(0); from < rec.InsertCount; from += checkBatch {
		n := min(checkBatch, rec.InsertCount-from)
		args, q := args[:0], full
		clear(keys)
		for i := from; i < from+n; i++ {
			key := loadKey(rec.Distribution, i, seed)
			keys[key] = i
			args = append(args, key)
		}
		for len(args) < checkBatch { // the last batch repeats its first key: one statement for all
			args = append(args, args[0])
		}
		rows, err := c.Query(ctx, q, args...)
		if err != nil {
			return 0, nil, fmt.Errorf("looking for the loaded keys: %w", err)
		}
		for rows.Next() {
			var k int64
			if err := rows.Scan(&k); err != nil {
				rows.Close()
				return 0, nil, err
			}
			delete(keys, k)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, nil, err
		}
		missing += int64(len(keys))
		for i := from; i < from+n && len(first) < 5 && len(keys) > 0; i++ {
			key := loadKey(rec.Distribution, i, seed)
			if seq, ok := keys[key]; ok && seq == i {
				first = append(first, fmt.Sprintf("#%d (k %d)", i, key))
			}
		}
	}
	return missing, first, nil
}
