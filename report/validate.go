package report

import (
	"fmt"
	"math"
	"sort"
)

// validate checks what the readers of a result (the console summary, report.html, compare) rely
// on and a JSON decoder cannot: no operation without figures (a null entry), no negative count or
// duration. It names the first problem found, in a stable order.
func (r *Result) validate() error {
	if r.MeasureSeconds < 0 || r.WarmupSeconds < 0 || math.IsNaN(r.MeasureSeconds) || math.IsNaN(r.WarmupSeconds) {
		return fmt.Errorf("its measurement interval (warmup_seconds %g, measure_seconds %g) is negative", r.WarmupSeconds, r.MeasureSeconds)
	}
	if err := validOps("operations", r.Operations); err != nil {
		return err
	}
	if r.TPCC != nil {
		if err := validOps("transactions", r.Transactions); err != nil {
			return err
		}
		if d := r.DeliveryDeferred; d != nil && (d.Count < 0 || d.Errors < 0 || d.Incomplete < 0 || d.SkippedDistricts < 0 || d.Districts < 0) {
			return fmt.Errorf("delivery_deferred has a negative count")
		}
	}
	return nil
}

// validOps checks one map of operations (key names the map in the file).
func validOps(key string, ops map[string]*TxResult) error {
	names := make([]string, 0, len(ops))
	for k := range ops {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		t := ops[k]
		if t == nil {
			return fmt.Errorf("%s.%s is null, not the operation's figures", key, k)
		}
		if t.Count < 0 || t.Errors < 0 || t.Retries < 0 || t.Rollbacks < 0 || t.Reconnects < 0 || t.Incomplete < 0 || t.Overflow < 0 || t.Dropped < 0 {
			return fmt.Errorf("%s.%s has a negative count", key, k)
		}
	}
	return nil
}
