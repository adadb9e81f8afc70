// Package sysmon samples the resources a run uses, once a second, on the same clock as the latency
// intervals, so that a tail spike can be lined up with the resource that saturated:
// the host (CPU per core, run queue, interrupts and softirqs per core, memory, swap and page
// faults, disks as iostat -x sees them, network), the driver process itself
// (CPU, Go scheduler latency, GC pauses, heap) and the database (PostgreSQL's statistics views;
// MySQL's server status; the size of a SQLite file and its WAL). It also gathers the disclosure of a run (Disclose): the
// database's durability and memory settings, its size, and the driver's host.
//
// Samples are generic named series: each is a map from a series name to a value (see file.go for
// the names and the resources.jsonl format). Reading a sample costs about a millisecond of CPU
// (docs/performance/sampler.md): a few small files of /proc, getrusage, runtime/metrics and, for
// PostgreSQL, two cheap queries on a dedicated connection (for MySQL, one). The window's samples
// are also watched for the conditions findings.go reports (swapping, a core saturated by the
// interrupts it takes, a device queueing).
package sysmon

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/candor-bench/candor/driver"
)

// Config says what to sample and on which clock.
type Config struct {
	// Start is the run's start (result.json's started_at, the interval log's start time): samples
	// are taken at Start + k*Every and carry t = seconds since Start.
	Start time.Time
	// Every is the sampling period (default 1 s).
	Every time.Duration
	// Path is the resources.jsonl file to write; empty writes none (the summary is still kept).
	Path string
	// DB, when set, is sampled on a dedicated connection (PostgreSQL, MySQL) or through its files
	// (SQLite).
	DB driver.DB
	// MeasureFrom and MeasureTo bound the measurement window, relative to Start; the summary covers
	// the samples inside it. A cancelled Cut ends the window early (Ctrl-C ends the measurement).
	MeasureFrom, MeasureTo time.Duration
	Cut                    context.Context
}

// Sampler samples in the background from Start until Stop.
type Sampler struct {
	cfg     Config
	sources []source
	self    *selfSource
	w       *writer
	sum     *accumulator
	watch   *watch

	// cutAt is the monotonic offset (ns since Start) at which Cut was cancelled; 0 if it was not.
	cutAt atomic.Int64

	ctx      context.Context
	began    bool
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
	mu       sync.Mutex
	errs     []string
	seenErr  map[string]bool
	samples  int
}

// source is one kind of statistics. sample adds the series read now to v; rates are computed over
// the time since the previous call, so the first call (the baseline, at Start) adds gauges only.
type source interface {
	name() string
	sample(ctx context.Context, now time.Time, v map[string]float64) error
	close()
}

// Start is New then Begin(cfg.Start).
func Start(ctx context.Context, cfg Config) *Sampler {
	s := New(ctx, cfg)
	s.Begin(cfg.Start)
	return s
}

// New prepares a sampler: it opens the file and the database connection and takes the baseline
// readings, so that Begin starts at once. It never fails the run: a source that cannot be read is
// left out and named in Summary().Errors. Stop must be called (even without Begin).
func New(ctx context.Context, cfg Config) *Sampler {
	if cfg.Every <= 0 {
		cfg.Every = time.Second
	}
	s := &Sampler{cfg: cfg, sum: newAccumulator(), watch: newWatch(), stop: make(chan struct{}), done: make(chan struct{}), seenErr: map[string]bool{},
		ctx: context.WithoutCancel(ctx)}
	if cfg.Path != "" {
		w, err := createWriter(cfg.Path)
		if err != nil {
			s.note("file", err)
		} else {
			s.w = w
		}
	}
	s.self = newSelfSource()
	s.sources = append(s.sources, newHostSource(ctx), s.self)
	if cfg.DB != nil {
		src, err := newDBSource(ctx, cfg.DB)
		if err != nil {
			s.note("db", err)
		}
		if src != nil {
			s.sources = append(s.sources, src)
		}
	}
	// The baseline: counters now, so the first sample's rates cover the run's first second.
	base := map[string]float64{}
	now := time.Now()
	for _, src := range s.sources {
		if err := src.sample(ctx, now, base); err != nil {
			s.note(src.name(), err)
		}
	}
	return s
}

// Begin starts sampling at start + k*Every (start zero: now). It is called once.
func (s *Sampler) Begin(start time.Time) {
	if start.IsZero() {
		start = time.Now()
	}
	s.cfg.Start = start
	if s.cfg.Cut != nil {
		context.AfterFunc(s.cfg.Cut, func() { s.cutAt.Store(max(1, int64(time.Since(start)))) })
	}
	s.began = true
	go s.loop(s.ctx)
}

// loop samples at Start + k*Every until Stop. A late wake-up (a stalled host) skips the missed
// instants rather than bunching samples; t is always the actual time of reading.
func (s *Sampler) loop(ctx context.Context) {
	defer close(s.done)
	every := s.cfg.Every
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		el := time.Since(s.cfg.Start)
		next := (el/every + 1) * every
		timer.Reset(next - el)
		select {
		case <-s.stop:
			return
		case <-timer.C:
		}
		s.sampleOnce(ctx)
	}
}

// sampleOnce reads every source, writes one line and adds it to the summary.
func (s *Sampler) sampleOnce(ctx context.Context) {
	now := time.Now()
	off := now.Sub(s.cfg.Start)
	v := make(map[string]float64, 64)
	for _, src := range s.sources {
		if err := src.sample(ctx, now, v); err != nil {
			s.note(src.name(), err)
		}
	}
	for k, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			delete(v, k)
		} else {
			v[k] = roundSig(x)
		}
	}
	smp := Sample{T: roundMs(off.Seconds()), V: v}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.samples++
	if s.w != nil {
		if err := s.w.write(smp); err != nil {
			s.noteLocked("file", err)
			s.w.close()
			s.w = nil
		}
	}
	if s.inWindow(off) {
		s.sum.add(v)
		s.watch.add(smp.T, v)
		s.self.addLastToWindow()
	}
}

// inWindow: the sample read at off covers (off-Every, off]; it counts for the window when its
// middle lies inside [MeasureFrom, MeasureTo] and before Cut.
func (s *Sampler) inWindow(off time.Duration) bool {
	mid := off - s.cfg.Every/2
	if mid < s.cfg.MeasureFrom || (s.cfg.MeasureTo > 0 && mid > s.cfg.MeasureTo) {
		return false
	}
	if cut := s.cutAt.Load(); cut > 0 && mid > time.Duration(cut) {
		return false
	}
	return true
}

// SetWriter sends the samples to w instead of Config.Path (a file the caller created only once its
// run is ready); Stop closes it. Call it before Begin.
func (s *Sampler) SetWriter(w io.WriteCloser) {
	s.mu.Lock()
	s.w = &writer{f: w}
	s.mu.Unlock()
}

// Stop ends sampling (waiting for a sample in progress), closes the database connection and the
// file, and returns the summary. It is safe to call more than once.
func (s *Sampler) Stop() Summary {
	s.stopOnce.Do(func() {
		close(s.stop)
		if s.began {
			<-s.done
		}
		for _, src := range s.sources {
			src.close()
		}
		s.mu.Lock()
		if s.w != nil {
			if err := s.w.close(); err != nil {
				s.noteLocked("file", err)
			}
			s.w = nil
		}
		s.mu.Unlock()
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	sum := s.sum.summary()
	sum.Samples = s.samples
	sum.EverySeconds = s.cfg.Every.Seconds()
	sum.Errors = append([]string(nil), s.errs...)
	sum.SchedLatencyP99Ms = s.self.windowP99Ms()
	sum.Findings = s.watch.findings()
	return sum
}

// note records a source's error once (the same message is not repeated every second).
func (s *Sampler) note(src string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noteLocked(src, err)
}

func (s *Sampler) noteLocked(src string, err error) {
	msg := fmt.Sprintf("%s: %v", src, err)
	if s.seenErr[msg] || len(s.errs) >= 20 {
		return
	}
	s.seenErr[msg] = true
	s.errs = append(s.errs, msg)
}

func roundMs(sec float64) float64 { return math.Round(sec*1000) / 1000 }

// roundSig keeps 6 significant digits (far more than any of these readings is accurate to), so a
// line stays short: 69.23076923 is written 69.2308.
func roundSig(x float64) float64 {
	if x == 0 {
		return 0
	}
	p := math.Pow(10, 5-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

// hostname is os.Hostname without its error (empty when unknown).
func hostname() string {
	h, _ := os.Hostname()
	return h
}
