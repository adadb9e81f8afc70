package tpch

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/workload/loadstate"
)

// The refresh sets a database has used. Each RF1/RF2 pair uses the next update set (dbgen -U's
// sets 1, 2, ...: RF1 inserts set k's new orders, RF2 deletes set k's old ones), so no run inserts
// an order twice or deletes one already deleted. The count lives in the load's record
// (candor_workloads' options, key refreshSetsKey), beside the scale factor: a reload starts again
// at set 1.

const refreshSetsKey = "refresh_sets_used"

// refreshSetsUsed reads how many refresh sets runs have used on db's load.
func refreshSetsUsed(ctx context.Context, db driver.DB) (int, error) {
	_, m, err := loadOptions(ctx, db)
	if err != nil {
		return 0, err
	}
	raw, ok := m[refreshSetsKey]
	if !ok {
		return 0, nil
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("tpch: the load record's %s is %s, not a count: reload with candor tpch load --drop", refreshSetsKey, raw)
	}
	return n, nil
}

// useRefreshSets records that sets more refresh sets are used (before they are: a run that stops
// half-way has used them, whatever it did).
func useRefreshSets(ctx context.Context, db driver.DB, used, sets int) error {
	_, m, err := loadOptions(ctx, db)
	if err != nil {
		return err
	}
	m[refreshSetsKey] = json.RawMessage(strconv.Itoa(used + sets))
	return loadstate.SetOptions(ctx, db, "tpch", m)
}

// loadOptions reads the load record's options as raw JSON members, keeping every member as it is.
func loadOptions(ctx context.Context, db driver.DB) (loadstate.State, map[string]json.RawMessage, error) {
	st, err := loadstate.Read(ctx, db, "tpch")
	if err != nil {
		return st, nil, err
	}
	m := map[string]json.RawMessage{}
	if len(st.Options) > 0 && string(st.Options) != "null" {
		if err := json.Unmarshal(st.Options, &m); err != nil {
			return st, nil, fmt.Errorf("tpch: the load record's options are unreadable (%v): reload with candor tpch load --drop", err)
		}
	}
	return st, m, nil
}
