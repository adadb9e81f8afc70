package html_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/report"
	htmlreport "github.com/candor-bench/candor/report/html"
)

// The budgets of `run --slo` are rows of the page's verdicts, each with its status.
func TestPageBudgets(t *testing.T) {
	dir := t.TempDir()
	res := kvRun(t, dir, 500, nil)
	res.Budgets = []report.Budget{
		{SLO: "read.p99<=50ms", ValueMs: 3.2, LimitMs: 50, Count: 500, Met: true},
		{SLO: "write.p50<1us", ValueMs: 2, LimitMs: 0.001, Count: 20},
	}
	writeRun(t, dir, res, kvOps, []int{500, 20}, []float64{0.5, 2})
	if err := htmlreport.Write(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, htmlreport.File))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		`<td class="left">--slo read.p99&lt;=50ms</td><td><span class="status ok">pass</span>`,
		`<td class="left">--slo write.p50&lt;1us</td><td><span class="status bad">fail</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}
