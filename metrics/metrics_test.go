package metrics

import (
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/userr"
)

var ops = []string{"new_order", "payment"}

// fakeInterval records events (op, response, service) into a recorder and ticks it at end.
func fakeInterval(t *testing.T, rec *measure.Recorder, end time.Time, events []measure.Event, opOf []int) *measure.Interval {
	t.Helper()
	s := rec.Stripe(0)
	for i, e := range events {
		s.Done(opOf[i], true, e)
	}
	return rec.Tick(end)
}

func gather(t *testing.T, c prometheus.Collector) map[string]*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

// find returns the metric of family mf whose labels include want (name=value pairs).
func find(mf *dto.MetricFamily, want ...string) *dto.Metric {
	if mf == nil {
		return nil
	}
next:
	for _, m := range mf.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(want); i += 2 {
			if have[want[i]] != want[i+1] {
				continue next
			}
		}
		return m
	}
	return nil
}

func counter(t *testing.T, fams map[string]*dto.MetricFamily, typ, outcome string) float64 {
	t.Helper()
	m := find(fams["candor_transactions_total"], "type", typ, "outcome", outcome)
	if m == nil {
		t.Fatalf("no candor_transactions_total{type=%q,outcome=%q}", typ, outcome)
	}
	return m.GetCounter().GetValue()
}

func buckets(t *testing.T, fams map[string]*dto.MetricFamily, typ, kind string) (*dto.Histogram, map[float64]uint64) {
	t.Helper()
	m := find(fams["candor_latency_seconds"], "type", typ, "kind", kind)
	if m == nil {
		t.Fatalf("no candor_latency_seconds{type=%q,kind=%q}", typ, kind)
	}
	b := map[float64]uint64{}
	for _, x := range m.GetHistogram().GetBucket() {
		b[x.GetUpperBound()] = x.GetCumulativeCount()
	}
	return m.GetHistogram(), b
}

func TestCollectorCumulatesIntervals(t *testing.T) {
	rec := measure.NewRecorder(ops, 1)
	t0 := time.Unix(1_800_000_000, 0)
	rec.Begin(t0, t0.Add(2*time.Second), t0.Add(10*time.Second))
	c := NewCollector(Info{Workload: "tpcc", Mode: "throughput", Out: "results/x", Version: "test"})

	fams := gather(t, c)
	if m := find(fams["candor_run_phase"], "phase", "starting"); m == nil || m.GetGauge().GetValue() != 1 {
		t.Fatalf("before any interval the phase must be starting: %v", fams["candor_run_phase"])
	}
	if m := find(fams["candor_run_info"], "mode", "throughput", "out", "results/x"); m == nil {
		t.Fatal("no candor_run_info")
	}

	// Interval 1 (warm-up, 2 s long): new_order at 0.3 ms, exactly 1 ms, 1.001 ms and 7 ms
	// (response; service half of it), one failed, one rolled back with 2 retries; one payment.
	us := func(n int64) time.Duration { return time.Duration(n) * time.Microsecond }
	ev := []measure.Event{
		{Response: us(300), Service: us(150)},
		{Response: us(1000), Service: us(500)},
		{Response: us(1001), Service: us(500), RolledBack: true, Retries: 2},
		{Response: us(7000), Service: us(3500)},
		{Response: us(9000), Err: true},
		{Response: us(40000), Service: us(100)},
	}
	iv := fakeInterval(t, rec, t0.Add(2*time.Second), ev, []int{0, 0, 0, 0, 0, 1})
	c.Observe(iv)
	fams = gather(t, c)
	for _, w := range []struct {
		outcome string
		want    float64
	}{{"completed", 4}, {"error", 1}, {"retry", 2}, {"rollback", 1}, {"incomplete", 0}} {
		if got := counter(t, fams, "new_order", w.outcome); got != w.want {
			t.Errorf("new_order %s = %v, want %v", w.outcome, got, w.want)
		}
	}
	if find(fams["candor_transactions_total"], "outcome", "dropped") != nil {
		t.Error("a closed-loop run shows a dropped series")
	}
	h, b := buckets(t, fams, "new_order", "response")
	// Cumulative: <=0.5 ms: 300 µs; <=1 ms: + exactly 1000 µs; <=2 ms: + 1001 µs; <=10 ms: + 7 ms.
	// The failed one is in no latency histogram.
	for bound, want := range map[float64]uint64{0.0005: 1, 0.001: 2, 0.002: 3, 0.005: 3, 0.01: 4, 50: 4} {
		if b[bound] != want {
			t.Errorf("new_order response bucket le=%v: %d, want %d", bound, b[bound], want)
		}
	}
	if h.GetSampleCount() != 4 || math.Abs(h.GetSampleSum()-0.009301) > 0.00002 {
		t.Errorf("count %d, sum %v s; want 4 and about 0.009301", h.GetSampleCount(), h.GetSampleSum())
	}
	if _, b := buckets(t, fams, "new_order", "service"); b[0.0005] != 3 || b[0.005] != 4 {
		t.Errorf("service buckets %v", b)
	}
	if m := find(fams["candor_achieved_rate_per_second"], "type", "new_order"); m.GetGauge().GetValue() != 2 {
		t.Errorf("achieved rate %v, want 4 completed / 2 s = 2", m.GetGauge().GetValue())
	}
	if m := find(fams["candor_run_phase"], "phase", "warmup"); m.GetGauge().GetValue() != 1 {
		t.Error("after a warm-up interval the phase must be warmup")
	}

	// Interval 2 (measured, 1 s): one more payment. Counters and buckets only grow.
	c.Observe(fakeInterval(t, rec, t0.Add(3*time.Second), []measure.Event{{Response: us(600), Service: us(600)}}, []int{1}))
	c.ObserveRate(RateStats{TargetPerSec: 100, Backlog: 3, BacklogMax: 7, BacklogLimit: 1000})
	fams = gather(t, c)
	if got := counter(t, fams, "payment", "completed"); got != 2 {
		t.Errorf("payment completed = %v after two intervals, want 2", got)
	}
	if got := counter(t, fams, "new_order", "completed"); got != 4 {
		t.Errorf("new_order completed = %v, want it kept at 4", got)
	}
	if _, b := buckets(t, fams, "payment", "response"); b[0.001] != 1 || b[0.05] != 2 {
		t.Errorf("payment response buckets %v, want le=0.001: 1, le=0.05: 2", b)
	}
	if m := find(fams["candor_achieved_rate_per_second"], "type", "new_order"); m.GetGauge().GetValue() != 0 {
		t.Errorf("new_order rate in an interval without any: %v", m.GetGauge().GetValue())
	}
	if m := find(fams["candor_run_phase"], "phase", "measure"); m.GetGauge().GetValue() != 1 {
		t.Error("phase must be measure")
	}
	for name, want := range map[string]float64{"candor_target_rate_per_second": 100, "candor_backlog": 3, "candor_backlog_max": 7, "candor_backlog_limit": 1000} {
		if mf := fams[name]; mf == nil || mf.GetMetric()[0].GetGauge().GetValue() != want {
			t.Errorf("%s: %v, want %v", name, mf, want)
		}
	}
	if find(fams["candor_transactions_total"], "type", "new_order", "outcome", "dropped") == nil {
		t.Error("an open-loop run must show the dropped series")
	}
	if fams["candor_search_probe"] != nil || fams["candor_search_probe_rate_per_second"] != nil {
		t.Error("a run that is no search's probe shows the search's gauges")
	}
	c.SetPhase("done")
	if m := find(gather(t, c)["candor_run_phase"], "phase", "done"); m.GetGauge().GetValue() != 1 {
		t.Error("phase must be done")
	}

	// A search feeds one collector from each probe in turn: the gauges say which, the counters go on.
	c.SetProbe(2, 40)
	fams = gather(t, c)
	if mf := fams["candor_search_probe"]; mf == nil || mf.GetMetric()[0].GetGauge().GetValue() != 2 {
		t.Errorf("candor_search_probe: %v, want 2", mf)
	}
	if mf := fams["candor_search_probe_rate_per_second"]; mf == nil || mf.GetMetric()[0].GetGauge().GetValue() != 40 {
		t.Errorf("candor_search_probe_rate_per_second: %v, want 40", mf)
	}
	if got := counter(t, fams, "payment", "completed"); got != 2 {
		t.Errorf("payment completed = %v after SetProbe, want it kept at 2", got)
	}
	// The previous probe's target and backlog are not shown as the new probe's: zero, still there.
	for _, name := range []string{"candor_target_rate_per_second", "candor_backlog", "candor_backlog_max"} {
		if mf := fams[name]; mf == nil || mf.GetMetric()[0].GetGauge().GetValue() != 0 {
			t.Errorf("%s after SetProbe: %v, want 0", name, mf)
		}
	}
	if m := find(fams["candor_achieved_rate_per_second"], "type", "payment"); m == nil || m.GetGauge().GetValue() != 0 {
		t.Errorf("payment rate after SetProbe: %v, want 0", m)
	}
}

// TestServer: served over HTTP at /metrics on the address given; bad addresses are user errors.
func TestServer(t *testing.T) {
	c := NewCollector(Info{Workload: "tpcc", Mode: "rate"})
	s, err := Listen("127.0.0.1:0", c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Addr(), "127.0.0.1:") || strings.HasSuffix(s.Addr(), ":0") {
		t.Fatalf("listening on %s", s.Addr())
	}
	fams := scrape(t, s.URL())
	if fams["candor_run_phase"] == nil || fams["go_goroutines"] == nil {
		t.Fatalf("scrape lacks candor_run_phase or the Go runtime's metrics: %d families", len(fams))
	}
	if _, err := Listen(s.Addr(), c); err == nil || !userr.Is(err) {
		t.Errorf("a busy port: %v, want a user error", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if conn, err := net.DialTimeout("tcp", s.Addr(), time.Second); err == nil {
		conn.Close()
		t.Fatal("still listening after Close")
	}
	for _, bad := range []string{"9464", "localhost", "http://127.0.0.1:9464", "127.0.0.1:", "256.0.0.1:80"} {
		_, err := Listen(bad, c)
		if err == nil || !userr.Is(err) || !strings.Contains(err.Error(), "--metrics-addr") {
			t.Errorf("Listen(%q): %v, want a user error naming --metrics-addr", bad, err)
		}
	}
}

func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %s %s", url, resp.Status, b)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}
