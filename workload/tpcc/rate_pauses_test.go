package tpcc

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	osexec "os/exec"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/candor-bench/candor/internal/dbtest"
	"github.com/candor-bench/candor/measure"
	"github.com/candor-bench/candor/schedule"
	"github.com/candor-bench/candor/workload"
)

// TestOpenLoopPeriodicPausesPostgres is the second fault shape of the stall test:
// every process of a real PostgreSQL server is stopped (SIGSTOP) for P = 200 ms every T = 2 s
// during an open-loop run, and the response time's p90, p99 and p99.9 must match their analytic
// values within 5%.
//
// The analytic values. Poisson arrivals are uniform in time, so a share f = P/T = 10% of them
// arrive while the server is stopped, at a phase x uniform in [0, P) of the pause; such an arrival
// waits P - x for the server, then its service S. Every other arrival waits for nothing but its
// service. So R = W + S with W = 0 with probability 1 - f and W = P - x (uniform on (0, P]) with
// probability f. Above P the service is negligible (S of a few ms): Pr(R > r) ≈ (P + s - r)/T, so
// the quantile q is r_q ≈ s + P - (1-q)·T: p99 ≈ s + 200 - 20 = s + 180 ms and p99.9 ≈ s + 198 ms.
//
// p90 falls exactly where the pauses' share ends ((1-q)·T = P): r_90 ≈ s + 0, decided by the
// service-time distribution. So every quantile is computed exactly from the model over one period's
// arrival phases, with G(s) = Pr(S > s) the service time this run measured in the intervals no pause
// touched, and P each pause's measured length (the tail is the mean of the periods' tails):
//
//	Pr(R > r) = (1/T)·[ ∫₀ᴾ G(r - (P - a)) da                           arrivals in the pause
//	                  + ∫₀ᵀ⁻ᴾ G(max(u, r - P)) + (G(r) - G(u))⁺ du ]      u before the next pause:
//	                                                                     S + P if the pause interrupts S
//
// (an arrival whose service the pause interrupts takes P longer: the second integral). The model
// leaves out the burst behind each pause: its λP arrivals start together when the server resumes
// and share its CPUs, which adds some λP·S/cores to them: at 100/s this alone put p99.9 6% above
// the model, at 50/s (λP = 10) between 2% and 5.7%. Hence 25/s (λP = 5, half that burst).
//
// Tolerance. A measured quantile is an order statistic of the run's N arrivals: the count above
// the true q-quantile is binomial, about Poisson with mean N(1-q). At p99.9 over 120 s (N = 3,000)
// that is three arrivals, and the count may be anywhere from 0 to 9 for a model that is exact:
// over 240 s (six arrivals) the measured p99.9 still fell 12% below the model in one CI run and
// 5% above it in another, while p99 (60 arrivals) agreed within 2% in both. So the measured
// quantile is judged against the model's quantiles over that band: it must lie between the
// model's quantile at q_lo and at q_hi, the levels whose Poisson counts put the measured one's
// count at the band's edges (a 99.9% band, sampleBand), widened by the model's own tolerance:
// 5% of the value at p99 and p99.9, and at p90, which sits on the knee where the pauses' share
// ends and the response time falls from the pause's scale to the service's within a few ms, 5%
// of the pause (10 ms), the scale of the fault being measured. A measurement that left the
// pauses out (coordinated omission) puts p99 and p99.9 at the service time's few ms, far outside
// the band.
//
// It stops the server of CANDOR_TEST_PG_STALL_URL (scripts/test's third throwaway server, see
// TestOpenLoopStallPostgres) 60 times; SIGCONT is always sent, by the pausing goroutine, by a test
// cleanup, and by a detached shell that outlives this process.
func TestOpenLoopPeriodicPausesPostgres(t *testing.T) {
	db := dbtest.FreshPostgresStall(t, "candor_pauses")
	ctx := context.Background()
	if _, err := Load(ctx, db, LoadOptions{Warehouses: 1, Loaders: 2, Seed: 3, ToolVersion: "test"}); err != nil {
		t.Fatal(err)
	}
	// The load's aftermath settled before the run, not during it: autovacuum's pass over the
	// freshly inserted tables, the first reads' hint-bit writes and the checkpoint of the loaded
	// pages put a few service times of the first minute at 50-250 ms (without this, the service
	// time's p99 away from the pauses was 30 and 56 ms in two runs of 90 s; with it, 10 and 11).
	// 120 s, not 90: right after the whole suite (the disk still writing back what it wrote) 90 s
	// of a settled load still measured a service time p99 of 25 ms. scripts/test starts this
	// server with fsync off: with it on, each commit's flush put that p99 at 23-25 ms right after
	// the suite (6 ms with it off; the pauses, not the disk, are what this test measures).
	exec(t, db, "VACUUM (ANALYZE)")
	exec(t, db, "CHECKPOINT")
	postmaster := postmasterPID(t, db)

	const (
		warmup   = 2 * time.Second
		measured = 120 * time.Second
		rate     = 25.0
		period   = 2 * time.Second        // T
		pause    = 200 * time.Millisecond // P
		conns    = 16
	)
	net := osexec.Command("sh", "-c", fmt.Sprintf("sleep %d; %s", int((warmup+measured).Seconds())+40, contCommand(postmaster)))
	net.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := net.Start(); err != nil {
		t.Fatalf("starting the SIGCONT safety net: %v", err)
	}
	go net.Wait()
	t.Cleanup(func() { resume(postmaster, nil) })

	// The pauses: from a phase unrelated to the run's start, every T until the run ends; each
	// pause's length is measured (from the postmaster's SIGSTOP to its SIGCONT).
	var (
		mu     sync.Mutex
		pauses []span // each pause, from the postmaster's SIGSTOP to its SIGCONT
	)
	stop := make(chan struct{})
	paused := make(chan struct{})
	go func() {
		defer close(paused)
		next := time.Now().Add(700 * time.Millisecond)
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Until(next)):
			}
			// The children are listed before the pause (reading /proc takes a while), the
			// postmaster stopped first so that it forks nothing meanwhile, and resumed last.
			kids := children(postmaster)
			t0 := time.Now()
			if err := syscall.Kill(postmaster, syscall.SIGSTOP); err != nil {
				t.Errorf("SIGSTOP to the postmaster %d: %v", postmaster, err)
				return
			}
			for _, pid := range kids {
				_ = syscall.Kill(pid, syscall.SIGSTOP)
			}
			time.Sleep(time.Until(t0.Add(pause)))
			for _, pid := range kids {
				_ = syscall.Kill(pid, syscall.SIGCONT)
			}
			_ = syscall.Kill(postmaster, syscall.SIGCONT)
			mu.Lock()
			pauses = append(pauses, span{t0, time.Now()})
			mu.Unlock()
			next = next.Add(period)
		}
	}()
	w := &Workload{}
	sess, err := w.Open(ctx, db, workload.SessionConfig{
		Mode: ModeRate, Terminals: TerminalsPerWarehouse, Connections: conns,
		Warmup: warmup, Grace: 30 * time.Second, Seed: 29, Isolation: db.DefaultIsolation(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var ivs []*measure.Interval // every interval, for the service time away from the pauses
	out, err := workload.Drive(ctx, "tpcc", w.Ops(), sess, workload.DriveOptions{Mode: ModeRate, Warmup: warmup, Grace: 30 * time.Second,
		Tick: 250 * time.Millisecond, Seed: 29, OnTick: func(iv *measure.Interval) { ivs = append(ivs, iv.Clone()) },
		Rate: workload.RateOptions{Steps: []schedule.Step{{Rate: rate, Duration: measured}}, Process: schedule.Poisson, MaxBacklog: 100000}})
	close(stop)
	<-paused
	if err != nil {
		t.Fatal(err)
	}
	if out.Summary.Partial {
		t.Fatalf("the run is partial: %s", out.Aborted)
	}

	resp, svc := measure.NewHistogram(), measure.NewHistogram()
	var incomplete, dropped, errs int64
	for op := 0; op < NumTxTypes; op++ {
		c := out.Totals.Counts[op]
		incomplete += c.Incomplete
		dropped += c.Dropped
		errs += c.Errors
		if err := measure.Merge(resp, out.Totals.Hist[op][measure.Response]); err != nil {
			t.Fatal(err)
		}
		if err := measure.Merge(svc, out.Totals.Hist[op][measure.Service]); err != nil {
			t.Fatal(err)
		}
	}
	if dropped != 0 || incomplete != 0 || errs != 0 {
		t.Fatalf("dropped %d, incomplete %d, failed %d: every arrival must complete", dropped, incomplete, errs)
	}
	mu.Lock()
	var sum, longest time.Duration
	var lengths []time.Duration
	for _, p := range pauses {
		l := p.end.Sub(p.start)
		sum += l
		longest = max(longest, l)
		lengths = append(lengths, l)
	}
	meanPause := sum / time.Duration(len(pauses))
	// The service time itself, S: from the intervals no pause touched (nor its aftermath, 300 ms).
	pure := measure.NewHistogram()
	clean := 0
	for _, iv := range ivs {
		touched := false
		for _, p := range pauses {
			if p.start.Before(iv.End) && p.end.Add(300*time.Millisecond).After(iv.Start) {
				touched = true
				break
			}
		}
		if touched {
			continue
		}
		clean++
		for op := 0; op < NumTxTypes; op++ {
			if err := measure.Merge(pure, iv.Hist[op][measure.Service]); err != nil {
				t.Fatal(err)
			}
		}
	}
	mu.Unlock()
	t.Logf("%d pauses of %s on average, %s at the longest (%s every %s), %d responses; service time from %d clean intervals (%d operations): p50 %.1f ms, p90 %.1f ms, p99 %.1f ms",
		len(pauses), meanPause.Round(10*time.Microsecond), longest.Round(10*time.Microsecond), pause, period, resp.TotalCount(), clean, pure.TotalCount(),
		float64(measure.ValueAt(pure, measure.Q50))/1000, float64(measure.ValueAt(pure, measure.Q90))/1000, float64(measure.ValueAt(pure, measure.Q99))/1000)
	if len(pauses) < int(measured/period) {
		t.Fatalf("%d pauses, want at least %d", len(pauses), int(measured/period))
	}
	if pure.TotalCount() < 1000 {
		t.Fatalf("only %d operations away from the pauses to read the service time from", pure.TotalCount())
	}
	// A 5% verdict needs a service time well below the pause: on a host so busy that the service
	// time's own p99 exceeds 10% of P, the tails are the host's, not the pauses' (this fails, it
	// does not skip: the measurement could not be made).
	if p99 := float64(measure.ValueAt(pure, measure.Q99)) / 1000; p99 > 0.1*ms(pause) {
		t.Fatalf("the service time's p99 away from the pauses is %.1f ms, more than 10%% of the %s pause: the host is too busy (load, CPU starvation) for the tails to be the pauses' within 5%%; run it on a quieter host", p99, pause)
	}

	t.Logf("service time away from the pauses above 20 ms: %d, above 50 ms: %d, above 100 ms: %d, longest %.1f ms; responses above 250 ms: %d",
		pure.TotalCount()-countBelow(pure, 20_000), pure.TotalCount()-countBelow(pure, 50_000), pure.TotalCount()-countBelow(pure, 100_000),
		float64(pure.Max())/1000, resp.TotalCount()-countBelow(resp, 250_000))
	model := pauseModel{service: tailOf(pure), pauses: lengths, period: period}
	n := resp.TotalCount()
	for _, q := range []measure.Quantile{measure.Q90, measure.Q99, measure.Q999} {
		want := model.quantile(float64(q))
		got := float64(measure.ValueAt(resp, q)) / 1000
		qlo, qhi := sampleBand(n, float64(q))
		lo, hi := model.quantile(qlo), model.quantile(qhi)
		// 5% of the value; at p90, the knee, 5% of the pause (see above).
		tol := 0.05 * want
		if q == measure.Q90 {
			tol = 0.05 * ms(meanPause)
		}
		t.Logf("p%g: measured %.1f ms, analytic %.1f ms (closed form s + P - (1-q)T: %.1f ms + s); over the sample's band p%.3f..p%.3f the model gives %.1f..%.1f ms, ±%.1f ms",
			q.Percent(), got, want, ms(meanPause)-(1-float64(q))*ms(period), 100*qlo, 100*qhi, lo, hi, tol)
		if got < lo-tol || got > hi+tol {
			t.Errorf("p%g of response time is %.1f ms, outside the model's %.1f..%.1f ms (its quantiles over the band %d arrivals allow, p%.3f..p%.3f) widened by %.1f ms",
				q.Percent(), got, lo, hi, n, 100*qlo, 100*qhi, tol)
		}
	}
}

// sampleBand is the band of levels [qlo, qhi] a q-quantile measured over n values may stand for:
// the count of values above the true q-quantile is binomial, about Poisson with mean m = n(1-q)
// for q near 1, so the measured quantile (m values above it) is the true quantile of any level
// whose Poisson mean puts m within its central 99.9%.
func sampleBand(n int64, q float64) (qlo, qhi float64) {
	const alpha = 0.001
	m := math.Round(float64(n) * (1 - q))
	// lamHi: the largest mean with Pr(X <= m) >= alpha/2; lamLo: the least with Pr(X >= m) >= alpha/2.
	lamHi := bisect(func(l float64) bool { return poissonCDF(m, l) >= alpha/2 }, m, 10*m+20)
	lamLo := 0.0
	if m > 0 {
		lamLo = bisect(func(l float64) bool { return 1-poissonCDF(m-1, l) < alpha/2 }, 0, m)
	}
	return max(0, 1-lamHi/float64(n)), min(1, 1-lamLo/float64(n))
}

// bisect is the largest x in [lo, hi] with ok(x), for ok true then false over the range.
func bisect(ok func(float64) bool, lo, hi float64) float64 {
	for hi-lo > 1e-6*max(1, hi) {
		mid := (lo + hi) / 2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// poissonCDF is Pr(X <= k) for X Poisson with mean l.
func poissonCDF(k, l float64) float64 {
	term, sum := math.Exp(-l), 0.0
	for i := 0.0; i <= k; i++ {
		if i > 0 {
			term *= l / i
		}
		sum += term
	}
	return sum
}

type span struct{ start, end time.Time }

// countBelow is how many of h's values (µs) are at most v.
func countBelow(h *hdr.Histogram, v int64) int64 {
	var n int64
	for _, b := range h.Distribution() {
		if b.To <= v {
			n += b.Count
		}
	}
	return n
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// serviceTail is a measured distribution's tail Pr(S > s), s in ms.
type serviceTail struct {
	values []float64 // each bucket's value (ms), ascending
	above  []float64 // above[i]: the share of values above values[i]
}

// tailOf reads h (µs) into a tail function.
func tailOf(h *hdr.Histogram) serviceTail {
	var st serviceTail
	total := float64(h.TotalCount())
	var seen float64
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		seen += float64(b.Count)
		st.values = append(st.values, float64(b.To)/1000)
		st.above = append(st.above, (total-seen)/total)
	}
	return st
}

// at is Pr(S > s).
func (st serviceTail) at(s float64) float64 {
	i := sort.SearchFloat64s(st.values, s) // the first bucket whose value is >= s
	switch {
	case i == 0:
		return 1
	case i >= len(st.values):
		return 0
	}
	return st.above[i-1]
}

// pauseModel is R = W + S of TestOpenLoopPeriodicPausesPostgres, over the pauses as they were.
type pauseModel struct {
	service serviceTail
	pauses  []time.Duration // each pause's measured length
	period  time.Duration
}

// tail is Pr(R > r), r in ms: the mean over the periods of each one's tail (a longer pause makes
// a longer tail, and the highest quantiles are the longest pauses').
func (m pauseModel) tail(r float64) float64 {
	var sum float64
	for _, p := range m.pauses {
		sum += m.periodTail(r, ms(p))
	}
	return sum / float64(len(m.pauses))
}

// periodTail is Pr(R > r), r in ms, over the arrival phases of one period with a pause of p ms
// (midpoint rule, 0.5 ms steps): arrivals in the pause wait out its rest, and arrivals whose
// service the pause interrupts take p longer (see the test's comment).
func (m pauseModel) periodTail(r, p float64) float64 {
	t := ms(m.period)
	const step = 0.5
	var sum float64
	for a := step / 2; a < p; a += step { // in the pause, P - a of it left
		sum += m.service.at(r - (p - a))
	}
	for u := step / 2; u < t-p; u += step { // u before the next pause
		g := m.service.at(max(u, r-p)) // interrupted by the pause: S + P
		if r < u {
			g += m.service.at(r) - m.service.at(u) // done before it: S
		}
		sum += g
	}
	return sum * step / t
}

// quantile is the least r (ms) with Pr(R > r) <= 1-q, by bisection.
func (m pauseModel) quantile(q float64) float64 {
	longest := slices.Max(m.pauses)
	lo, hi := 0.0, ms(longest)+m.service.values[len(m.service.values)-1]+1
	for hi-lo > 0.01 {
		mid := (lo + hi) / 2
		if m.tail(mid) <= 1-q {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// TestSampleBand: with no value above the quantile the band's top is 1 and its bottom the level
// whose Poisson mean makes "none above" a 0.05% chance (ln 2000 values above it, the closed form);
// the band holds q and narrows, relative to 1-q, as n grows.
func TestSampleBand(t *testing.T) {
	lo, hi := sampleBand(100, 0.999)
	if want := 1 - math.Log(2000)/100; hi != 1 || math.Abs(lo-want) > 1e-6 {
		t.Errorf("n 100, p99.9: band %g..%g, want %g..1", lo, hi, want)
	}
	prev := math.Inf(1)
	for _, n := range []int64{3000, 6000, 60000, 600000} {
		lo, hi := sampleBand(n, 0.999)
		t.Logf("n %d, p99.9: band p%.4f..p%.4f", n, 100*lo, 100*hi)
		if !(lo < 0.999 && 0.999 < hi) {
			t.Errorf("n %d: band %g..%g does not hold 0.999", n, lo, hi)
		}
		if w := (hi - lo) / 0.001; w >= prev {
			t.Errorf("n %d: band %g wide (in units of 1-q), not narrower than %g", n, w, prev)
		} else {
			prev = w
		}
	}
}
