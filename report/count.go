package report

import "fmt"

// Count is n with its noun: "1 terminal", "4 terminals" (one and many are the noun's two forms).
func Count(n int64, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// countS is Count of a noun whose plural adds an s.
func countS(n int64, one string) string { return Count(n, one, one+"s") }

// Idle says the operation neither completed, failed, retried, rolled back, dropped nor was left
// incomplete in the run: an operation outside the run's mix, whose row would be all zeros.
func (t *TxResult) Idle() bool {
	return t.Count == 0 && t.Errors == 0 && t.Retries == 0 && t.Rollbacks == 0 && t.Incomplete == 0 && t.Dropped == 0
}
