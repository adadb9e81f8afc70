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
	if r.MeasureSeconds > maxSeconds || r.WarmupSeconds > maxSeconds {
		return fmt.Errorf("its measurement interval (warmup_seconds %g, measure_seconds %g) is longer than any run (%g s at most)", r.WarmupSeconds, r.MeasureSeconds, float64(maxSeconds))
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

// validateWindow checks, once a file of format 1 is upgraded, that the operations' counts fit the
// window: a window of no length holds no completion (a run stopped in its warm-up has none), and a
// rate computed from it would be made up.
func (r *Result) validateWindow() error {
	if r.MeasureSeconds > 0 {
		return nil
	}
	for _, k := range sortedKeys(r.Operations) {
		if r.Operations[k].Count > 0 {
			return fmt.Errorf("measure_seconds is 0 but operations.%s counts %d completed in the window", k, r.Operations[k].Count)
		}
	}
	return nil
}

// maxSeconds bounds a result's warm-up and measurement: ten years, far beyond any run, and small
// enough that what is drawn or sized from it (a chart's time axis) stays bounded.
const maxSeconds = 10 * 365 * 24 * 3600

func sortedKeys(ops map[string]*TxResult) []string {
	names := make([]string, 0, len(ops))
	for k := range ops {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// validOps checks one map of operations (key names the map in the file).
func validOps(key string, ops map[string]*TxResult) error {
	for _, k := range sortedKeys(ops) {
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
