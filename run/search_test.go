package run

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/candor-bench/candor/workload"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/candor-bench/candor/driver"
	"github.com/candor-bench/candor/report"
)

// shortSearch is a search of two short probes (10/s, then 20/s when the first passes) with a
// budget any SQLite file meets, its results in a new directory.
func shortSearch(t *testing.T, url string) SearchPlan {
	t.Helper()
	return SearchPlan{
		Base: RunPlan{Workload: tpccW(0, false), DB: url, Mode: workload.ModeRate, Duration: time.Second, Warmup: 250 * time.Millisecond,
			Grace: 5 * time.Second, Interval: 250 * time.Millisecond, Seed: 1, SeedGiven: true, Arrivals: "poisson",
			MaxBacklog: DefaultMaxBacklog, Check: true},
		SLOs: []string{"new_order.p99<=10s"}, StartRate: 10, Precision: 0.05, MaxProbes: 2,
		Out: filepath.Join(t.TempDir(), "search"),
	}
}

func readSearch(t *testing.T, dir string) *report.SearchResult {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, report.SearchFile))
	if err != nil {
		t.Fatal(err)
	}
	var s report.SearchResult
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", report.SearchFile, err)
	}
	return &s
}

// TestSearchOnSQLite: searches on one SQLite file (one warehouse loaded once): live metrics
// during a search, then the consistency check after it.
func TestSearchOnSQLite(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "tpcc.db")
	loadOne(t, url)
	t.Run("live metrics", func(t *testing.T) { searchLiveMetrics(t, url) })
	t.Run("consistency check", func(t *testing.T) { searchChecks(t, url) })
}

// searchChecks: a search checks the consistency conditions once its last probe has ended and
// stores them in search.json (the quick set by default, every condition with CheckFull); on data
// the workload would have corrupted (here corrupted by hand: one warehouse's w_ytd no longer
// matches its districts', condition 1) the search fails with ErrCheckFailed whatever the rates
// did, and with the check off it says nothing about it. It leaves the data corrupted.
func searchChecks(t *testing.T, url string) {
	// Clean data: the quick conditions run and pass, the expensive ones are skipped.
	sp := shortSearch(t, url)
	var stdout, stderr strings.Builder
	res, err := Search(t.Context(), sp, Out{Stdout: &stdout, Stderr: &stderr})
	if err != nil && !errors.Is(err, ErrNoRate) {
		t.Fatalf("search: %v\n%s", err, stderr.String())
	}
	saved := readSearch(t, sp.Out)
	if len(saved.Checks) == 0 || len(saved.Checks) != len(res.Checks) || saved.CheckFull {
		t.Fatalf("search.json holds %d checks (check_full %v), the search returned %d: want the quick set", len(saved.Checks), saved.CheckFull, len(res.Checks))
	}
	for _, c := range saved.Checks {
		if !c.Skipped && !c.OK {
			t.Errorf("condition %d failed on clean data: %v", c.Condition, c.Violations)
		}
		if c.Condition == 5 && !c.Skipped {
			t.Error("the quick check ran the expensive condition 5")
		}
	}
	if !strings.Contains(stdout.String(), "consistency checks:") || !strings.Contains(stderr.String(), "checking consistency after the last probe") {
		t.Errorf("the search does not print its check:\n%s\n%s", stdout.String(), stderr.String())
	}

	// Corrupted data, every condition: ErrCheckFailed, condition 1 violated, the answer still saved.
	corrupt(t, url, "UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1")
	sp = shortSearch(t, url)
	sp.Base.CheckFull = true
	stdout.Reset()
	_, err = Search(t.Context(), sp, Out{Stdout: &stdout, Stderr: io.Discard})
	if !errors.Is(err, ErrCheckFailed) {
		t.Fatalf("search on corrupted data: %v, want ErrCheckFailed", err)
	}
	saved = readSearch(t, sp.Out)
	if !saved.CheckFull || len(saved.Probes) == 0 {
		t.Errorf("search.json: check_full %v, %d probes", saved.CheckFull, len(saved.Probes))
	}
	violated, full := false, false
	for _, c := range saved.Checks {
		violated = violated || (c.Condition == 1 && !c.OK && !c.Skipped && len(c.Violations) > 0)
		full = full || (c.Condition == 5 && !c.Skipped)
	}
	if !violated || !full {
		t.Errorf("checks %+v: want condition 1 violated and condition 5 run", saved.Checks)
	}
	if !strings.Contains(stdout.String(), "a consistency condition is violated after the search") {
		t.Errorf("the search does not say its data is inconsistent:\n%s", stdout.String())
	}

	// The check off: nothing checked, nothing said.
	sp = shortSearch(t, url)
	sp.Base.Check = false
	_, err = Search(t.Context(), sp, Out{Stdout: io.Discard, Stderr: io.Discard})
	if err != nil && !errors.Is(err, ErrNoRate) {
		t.Fatalf("search without the check: %v", err)
	}
	if saved = readSearch(t, sp.Out); len(saved.Checks) != 0 {
		t.Errorf("search without the check stored %d checks", len(saved.Checks))
	}
}

// corrupt runs one statement on the database at url.
func corrupt(t *testing.T, url, sql string) {
	t.Helper()
	db, err := driver.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := db.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if n, err := c.Exec(context.Background(), sql); err != nil || n != 1 {
		t.Fatalf("%s: %d rows, %v", sql, n, err)
	}
}

// searchLiveMetrics: a search with --metrics-addr serves one listener for all its probes. Scrapes
// over loopback see the probe gauges go from probe 1 to probe 2 at the rates search.json records,
// the counters only grow across probes, and nothing listens once the search has returned.
func searchLiveMetrics(t *testing.T, url string) {
	sp := shortSearch(t, url)
	sp.Base.Check = false
	sp.Base.MetricsAddr = "127.0.0.1:0"
	sp.StartRate = 40 // the second probe runs at 20/s or 80/s: it completes transactions between scrapes
	w := &urlWriter{urls: make(chan string, 1)}
	done := make(chan error, 1)
	go func() {
		_, err := Search(context.Background(), sp, Out{Stdout: io.Discard, Stderr: w})
		done <- err
	}()
	var murl string
	select {
	case murl = <-w.urls:
	case err := <-done:
		t.Fatalf("the search ended (%v) without saying where its metrics are: %s", err, w.String())
	case <-time.After(30 * time.Second):
		t.Fatal("no metrics URL printed within 30 s")
	}
	if !strings.Contains(w.String(), "during the search") {
		t.Errorf("the metrics line does not say it serves the search: %s", w.String())
	}

	rateOf := map[int]float64{}    // probe -> rate seen
	maxDuring := map[int]float64{} // probe -> the most completed (all types) seen while it ran
	phases := map[string]bool{}
	var completed []float64
	var searchErr error
scraping:
	for {
		select {
		case searchErr = <-done:
			break scraping
		case <-time.After(150 * time.Millisecond):
		}
		fams := metricsScrape(murl)
		if fams == nil {
			continue
		}
		all := 0.0
		for _, m := range fams["candor_transactions_total"].GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "outcome" && l.GetValue() == "completed" {
					all += m.GetCounter().GetValue()
				}
			}
		}
		completed = append(completed, all)
		for _, ph := range fams["candor_run_phase"].GetMetric() {
			if ph.GetGauge().GetValue() == 1 {
				phases[ph.GetLabel()[0].GetValue()] = true
			}
		}
		if p, ok := metricValue(fams["candor_search_probe"]); ok {
			r, ok := metricValue(fams["candor_search_probe_rate_per_second"])
			if !ok {
				t.Fatal("candor_search_probe without candor_search_probe_rate_per_second")
			}
			n := int(p.GetGauge().GetValue())
			rateOf[n] = r.GetGauge().GetValue()
			maxDuring[n] = max(maxDuring[n], all)
		}
	}
	if searchErr != nil && !errors.Is(searchErr, ErrNoRate) {
		t.Fatalf("search: %v", searchErr)
	}
	saved := readSearch(t, sp.Out)
	t.Logf("%d scrapes, probes seen %v, phases %v; search.json probes %d", len(completed), rateOf, phases, len(saved.Probes))
	if len(saved.Probes) != 2 {
		t.Fatalf("%d probes, want 2", len(saved.Probes))
	}
	for _, p := range saved.Probes {
		if got, ok := rateOf[p.Probe]; !ok || got != p.Rate {
			t.Errorf("probe %d at %g/s: the scrapes showed %v", p.Probe, p.Rate, rateOf)
		}
	}
	if !phases["measure"] {
		t.Errorf("phases seen %v, want measure", phases)
	}
	for i := 1; i < len(completed); i++ {
		if completed[i] < completed[i-1] {
			t.Fatalf("scrape %d: completed went down from %v to %v across the search", i, completed[i-1], completed[i])
		}
	}
	// Probe 1's transactions stay counted while probe 2 adds its own.
	if !(maxDuring[1] > 0 && maxDuring[2] > maxDuring[1]) {
		t.Errorf("completed transactions seen during probe 1: %v, during probe 2: %v; want them to go on growing", maxDuring[1], maxDuring[2])
	}
	host := strings.TrimSuffix(strings.TrimPrefix(murl, "http://"), "/metrics")
	if c, err := net.DialTimeout("tcp", host, time.Second); err == nil {
		c.Close()
		t.Errorf("still listening on %s after the search", host)
	}
}
