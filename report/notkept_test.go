package report

import (
	"bytes"
	"strings"
	"testing"
)

// A counter the engine does not keep is said to be not kept, in words, on its own line of the
// disclosure; it is not shown as 0 among the resources.
func TestDisclosureNotKept(t *testing.T) {
	r := &Result{Database: Database{Kind: "dolt", Settings: map[string]string{"dolt_transaction_commit": "0", "max_connections": "151"}},
		Resources: &Resources{Series: map[string]SeriesStat{"host.cpu.busy_pct": {Mean: 40, Max: 60, N: 3}, "db.threads_connected": {Mean: 8, Max: 8, N: 3}},
			NotKept: []string{"db.commits_per_s", "db.row_lock_waits_per_s", "db.some_new_series"}}}
	var b bytes.Buffer
	printDisclosure(&b, r)
	out := b.String()
	for _, want := range []string{"settings   dolt: max_connections 151 · dolt_transaction_commit 0",
		"not kept   commits/s, row lock waits/s, db.some_new_series: dolt has no such counter or never counts it"} {
		if !strings.Contains(out, want) {
			t.Errorf("the disclosure does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "commits/s ·") || strings.Contains(out, "0 commits/s") {
		t.Errorf("commits shown as measured:\n%s", out)
	}
}
