package run

import (
	"bufio"
	"context"
	"github.com/candor-bench/candor/workload"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/userr"
)

// urlWriter passes what is written to w and sends the URL of the "serving Prometheus metrics at"
// line on urls.
type urlWriter struct {
	mu   sync.Mutex
	buf  strings.Builder
	urls chan string
}

// String is what was written so far.
func (u *urlWriter) String() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.buf.String()
}

func (u *urlWriter) Write(b []byte) (int, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.buf.Write(b)
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "serving Prometheus metrics at "); ok {
			u.urls <- strings.Fields(rest)[0]
		}
	}
	return len(b), nil
}

// metricsScrape fetches and parses one scrape (nil when the server is not answering).
func metricsScrape(url string) map[string]*dto.MetricFamily {
	resp, err := http.Get(url)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil
	}
	return fams
}

func metricValue(mf *dto.MetricFamily, labels ...string) (*dto.Metric, bool) {
	if mf == nil {
		return nil, false
	}
next:
	for _, m := range mf.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				continue next
			}
		}
		return m, true
	}
	return nil, false
}

// TestLiveMetricsDuringASQLiteRun: a short SQLite run with --metrics-addr 127.0.0.1:0 serves
// /metrics while it runs; scrapes over HTTP show the counters and the histogram buckets growing, the
// phases going by, and the listener is gone when the run returns.
func TestLiveMetricsDuringASQLiteRun(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "tpcc.db")
	if err := Load(context.Background(), LoadPlan{Workload: tpccW(1, false), DB: url, Loaders: 2, Seed: 1}, Out{Stdout: io.Discard, Stderr: io.Discard}); err != nil {
		t.Fatal(err)
	}
	p := RunPlan{Workload: tpccW(0, false),
		DB: url, Mode: workload.ModeThroughput, Terminals: 2, Duration: 3 * time.Second, Warmup: time.Second,
		Grace: 5 * time.Second, Interval: 250 * time.Millisecond, Out: filepath.Join(t.TempDir(), "out"),
		Seed: 1, SeedGiven: true, Quiet: true, MetricsAddr: "127.0.0.1:0",
	}
	w := &urlWriter{urls: make(chan string, 1)}
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), p, Out{Stdout: io.Discard, Stderr: w})
		done <- err
	}()
	var murl string
	select {
	case murl = <-w.urls:
	case err := <-done:
		t.Fatalf("the run ended (%v) without saying where its metrics are: %s", err, w.buf.String())
	case <-time.After(30 * time.Second):
		t.Fatal("no metrics URL printed within 30 s")
	}
	if !strings.HasPrefix(murl, "http://127.0.0.1:") || !strings.HasSuffix(murl, "/metrics") {
		t.Fatalf("metrics URL %q", murl)
	}

	type snap struct {
		completed, histCount float64
		buckets              int
		phase                string
		rate                 float64
	}
	var snaps []snap
	var runErr error
scraping:
	for {
		select {
		case runErr = <-done:
			break scraping
		case <-time.After(300 * time.Millisecond):
		}
		fams := metricsScrape(murl)
		if fams == nil {
			continue
		}
		var s snap
		if m, ok := metricValue(fams["candor_transactions_total"], "type", "new_order", "outcome", "completed"); ok {
			s.completed = m.GetCounter().GetValue()
		} else {
			t.Fatalf("no candor_transactions_total{type=new_order,outcome=completed} in a scrape")
		}
		m, ok := metricValue(fams["candor_latency_seconds"], "type", "new_order", "kind", "response")
		if !ok {
			t.Fatalf("no candor_latency_seconds{type=new_order,kind=response} in a scrape")
		}
		s.histCount, s.buckets = float64(m.GetHistogram().GetSampleCount()), len(m.GetHistogram().GetBucket())
		if _, ok := metricValue(fams["candor_latency_seconds"], "type", "payment", "kind", "service"); !ok {
			t.Fatal("no service-time histogram for payment")
		}
		for _, ph := range fams["candor_run_phase"].GetMetric() {
			if ph.GetGauge().GetValue() == 1 {
				s.phase = ph.GetLabel()[0].GetValue()
			}
		}
		if m, ok := metricValue(fams["candor_achieved_rate_per_second"], "type", "new_order"); ok {
			s.rate = m.GetGauge().GetValue()
		}
		snaps = append(snaps, s)
	}
	if runErr != nil {
		t.Fatalf("run: %v", runErr)
	}
	t.Logf("%d scrapes: %+v", len(snaps), snaps)
	if len(snaps) < 5 {
		t.Fatalf("only %d scrapes succeeded during a 4 s run", len(snaps))
	}
	phases := map[string]bool{}
	maxRate := 0.0
	for i, s := range snaps {
		phases[s.phase] = true
		maxRate = max(maxRate, s.rate)
		if s.buckets != 17 {
			t.Errorf("scrape %d: %d histogram buckets, want 17 (0.5 ms .. 50 s, and +Inf)", i, s.buckets)
		}
		if i > 0 && (s.completed < snaps[i-1].completed || s.histCount < snaps[i-1].histCount) {
			t.Errorf("scrape %d: counters went down: %+v after %+v", i, s, snaps[i-1])
		}
	}
	first, last := snaps[0], snaps[len(snaps)-1]
	if !(last.completed > first.completed && last.histCount > first.histCount) {
		t.Errorf("counters did not grow over the run: first %+v, last %+v", first, last)
	}
	if !phases["warmup"] || !phases["measure"] {
		t.Errorf("phases seen %v, want warmup and measure", phases)
	}
	if maxRate <= 0 {
		t.Error("the achieved rate never rose above 0")
	}
	host := strings.TrimSuffix(strings.TrimPrefix(murl, "http://"), "/metrics")
	if c, err := net.DialTimeout("tcp", host, time.Second); err == nil {
		c.Close()
		t.Errorf("still listening on %s after the run", host)
	}
}

// TestMetricsAddrIsUserError: a malformed --metrics-addr is refused before anything connects, and
// a port in use when the run starts is the user's to fix too (exit status 2 for both).
func TestMetricsAddrIsUserError(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "none.db")
	base := RunPlan{Workload: tpccW(0, false), DB: url, Mode: workload.ModeThroughput, Terminals: 1, Duration: time.Second, Interval: time.Second}
	p := base
	p.MetricsAddr = "9464"
	_, err := Run(context.Background(), p, Out{Stdout: io.Discard, Stderr: io.Discard})
	if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), "--metrics-addr") {
		t.Errorf("--metrics-addr 9464: %v, want a user error naming --metrics-addr", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	p = base
	p.MetricsAddr = ln.Addr().String()
	_, err = Run(context.Background(), p, Out{Stdout: io.Discard, Stderr: io.Discard})
	if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), "cannot serve metrics") {
		t.Errorf("--metrics-addr on a busy port: %v, want a user error", err)
	}
}

func TestTargetAt(t *testing.T) {
	steps := []schedule.Step{{Rate: 100, Duration: 10 * time.Second}, {Rate: 200, Duration: 10 * time.Second}}
	for _, c := range []struct {
		at   time.Duration
		want float64
	}{{0, 100}, {4 * time.Second, 100}, {5 * time.Second, 100}, {14 * time.Second, 100}, {15 * time.Second, 200}, {24 * time.Second, 200}, {25 * time.Second, 0}} {
		if got := targetAt(steps, 5*time.Second, c.at); got != c.want {
			t.Errorf("targetAt(%v) = %v, want %v", c.at, got, c.want)
		}
	}
}
